"""arXiv search via the ``arxiv`` package, behind our rate limiter and retry policy.

The package builds the query URLs (``arxiv.Search`` + ``Client._format_url``, with
``query_url_format`` pointed at the configured base URL) and parses the Atom feed into
``arxiv.Result``s. We fetch each page ourselves, though: its own fetch has no timeout,
sleeps ``delay_seconds`` between pages and retries on its own, and it hides the status
headers (Retry-After) and the error text of a 400. Every page request goes through
:func:`call_with_retry` (one limiter slot per page) in a worker thread.
"""

from __future__ import annotations

import asyncio
import html
import logging
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import arxiv
import requests
from arxiv import _feed as arxiv_feed

from marginalia.config import SourceSettings
from marginalia.retry import RetryPolicy
from marginalia.sources.base import SourceError
from marginalia.sources.candidate import Candidate, normalize_arxiv_id
from marginalia.sources.ratelimit import (
    DEFAULT_DEADLINE_S,
    RateLimiter,
    call_with_retry,
    http_status_error,
    requests_error,
    requests_session,
    shared_limiter,
)

logger = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://export.arxiv.org/api/query"
# The API's own cap for one page.
MAX_PAGE_SIZE = 2000


class _ArxivPages(arxiv.Client):
    """``arxiv.Client`` configured for our base URL, with its sleeps and retries off."""

    def __init__(self, base_url: str, timeout_s: float, page_size: int) -> None:
        super().__init__(page_size=page_size, delay_seconds=0.0, num_retries=0)
        self.query_url_format = base_url.rstrip("?") + "?{}"
        self._session = requests_session(timeout_s)

    def fetch_page(self, search: arxiv.Search, start: int, size: int) -> arxiv_feed.ParsedFeed:
        """One page (blocking). Raises :class:`SourceError`."""
        url = self._format_url(search, start, size)
        try:
            resp = self._session.get(url, headers={"user-agent": arxiv._USER_AGENT})
        except requests.RequestException as exc:
            raise requests_error("arxiv", exc, f"GET start={start}") from exc
        if resp.status_code != 200:
            raise http_status_error("arxiv", resp.status_code, resp.headers, _error_text(resp))
        feed = arxiv_feed.parse(resp.content)
        if feed.malformed:
            raise SourceError("arxiv", "bad_response", f"unparseable Atom feed: {feed.error}")
        return feed


_SUMMARY = re.compile(r"<summary[^>]*>(.*?)</summary>", re.DOTALL)


def _error_text(resp: requests.Response) -> str:
    """arXiv explains a 400 in an Atom entry's summary ("incorrect id format for abc")."""
    # (arxiv's own parser skips that entry: it has no <published>.)
    match = _SUMMARY.search(resp.text)
    if match:
        return html.unescape(" ".join(match.group(1).split()))
    return " ".join(resp.text.split())[:200]


def result_to_candidate(result: arxiv.Result) -> Candidate:
    entry_url = result.entry_id.replace("http://", "https://", 1)
    return Candidate(
        title=result.title,
        authors=[a.name for a in result.authors],
        year=result.published.year if result.published.year > 1 else None,
        abstract=" ".join(result.summary.split()) or None,
        url=entry_url,
        pdf_url=result.pdf_url,
        doi=result.doi,
        arxiv_id=normalize_arxiv_id(result.get_short_id()),
        venue=result.journal_ref,
        origin="arxiv",
        source_id=result.get_short_id(),
    )


class ArxivClient:
    """arXiv API source. ``search`` pages through results ``page_size`` at a time."""

    name = "arxiv"

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        *,
        min_interval_s: float = 1.0,
        timeout_s: float = 20.0,
        deadline_s: float = 60.0,
        max_retries: int = 3,
        backoff_base_s: float = 0.5,
        page_size: int = 100,
        limiter: RateLimiter | None = None,
    ) -> None:
        if not 1 <= page_size <= MAX_PAGE_SIZE:
            raise ValueError(f"page_size must be in 1..{MAX_PAGE_SIZE}")
        self.base_url = base_url
        self.page_size = page_size
        self.policy = RetryPolicy(
            max_retries=max_retries, base_delay_s=backoff_base_s, deadline_s=deadline_s
        )
        self.limiter = limiter or shared_limiter(self.name, min_interval_s)
        self._pages = _ArxivPages(base_url, timeout_s, page_size)
        self.retries = 0  # retries spent over this client's lifetime (for reports/tests)

    @classmethod
    def from_settings(cls, settings: SourceSettings, **overrides: Any) -> ArxivClient:
        params: dict[str, Any] = {
            "min_interval_s": settings.min_interval_s,
            "timeout_s": settings.timeout_s,
            "deadline_s": settings.deadline_s,
            "max_retries": settings.max_retries,
        }
        params.update(overrides)
        return cls(settings.arxiv_base_url, **params)

    async def search(self, query: str, *, limit: int, start: int = 0) -> list[Candidate]:
        """Up to ``limit`` results for an arXiv ``search_query`` (relevance order).

        The query is passed through as is, so field prefixes (``ti:``, ``au:``, ``abs:``,
        ``AND``) work.
        """
        if limit <= 0:
            return []
        return await self._collect(arxiv.Search(query=query), limit=limit, start=start)

    async def get_by_ids(self, ids: Sequence[str]) -> list[Candidate]:
        """The papers with these arXiv ids (with or without version); unknown ids are
        simply absent. A malformed id is a 400 → ``SourceError(reason="http_status")``."""
        if not ids:
            return []
        # Like arxiv.Client: full pages for id lists (an id may have several entries).
        search = arxiv.Search(id_list=list(ids))
        return await self._collect(search, limit=len(ids), start=0, size=self.page_size)

    async def _collect(
        self, search: arxiv.Search, *, limit: int, start: int, size: int | None = None
    ) -> list[Candidate]:
        # arxiv.Client pages with a fixed size; so do we (min(page_size, limit)).
        # The deadline bounds the whole call, all pages together.
        size = size or min(self.page_size, limit)
        loop = asyncio.get_running_loop()
        deadline_at = loop.time() + (self.policy.deadline_s or DEFAULT_DEADLINE_S)
        out: list[Candidate] = []
        offset = start
        while len(out) < limit:
            remaining = deadline_at - loop.time()
            if remaining <= 0:
                raise SourceError(
                    self.name,
                    "timeout",
                    f"gave up after the {self.policy.deadline_s:g}s deadline "
                    f"with {len(out)} of {limit} results",
                )
            feed = await self._page(search, offset, size, remaining)
            if not feed.results:
                break
            out.extend(result_to_candidate(r) for r in feed.results)
            offset += len(feed.results)
            if offset >= feed.header.total_results:
                break
        return out[:limit]

    async def _page(
        self, search: arxiv.Search, start: int, size: int, deadline_s: float
    ) -> arxiv_feed.ParsedFeed:
        def on_retry(n: int, exc: SourceError, delay: float) -> None:
            self.retries += 1

        return await call_with_retry(
            lambda: asyncio.to_thread(self._pages.fetch_page, search, start, size),
            source=self.name,
            policy=replace(self.policy, deadline_s=deadline_s),
            limiter=self.limiter,
            on_retry=on_retry,
            describe=f"page start={start} size={size}",
        )
