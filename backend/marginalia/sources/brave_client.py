"""Brave Search API (web and news) over httpx, behind our rate limiter and retry policy.

Without an API key the source is not configured: ``search`` raises
``SourceError(reason="not_configured")`` before any network access, and the pipeline
reports it and continues with the other sources.
"""

from __future__ import annotations

import html
import re
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

import httpx
from pydantic import SecretStr

from marginalia.config import SourceSettings
from marginalia.retry import RetryPolicy
from marginalia.sources.base import SourceError
from marginalia.sources.candidate import Candidate
from marginalia.sources.ratelimit import (
    RateLimiter,
    call_with_retry,
    http_status_error,
    shared_limiter,
)

DEFAULT_BASE_URL = "https://api.search.brave.com/res/v1"
NOT_CONFIGURED_MESSAGE = "Brave web search skipped: set MARGINALIA_SOURCES__BRAVE_API_KEY"
# Brave's cap for ``count`` (web: 20, news: 50; we never ask for more than 20).
MAX_COUNT = 20

_TAG = re.compile(r"<[^>]+>")


def clean_snippet(text: str | None) -> str | None:
    """Brave snippets carry ``<strong>`` highlights and HTML entities."""
    if not text:
        return None
    cleaned = " ".join(html.unescape(_TAG.sub("", text)).split())
    return cleaned or None


def _year(page_age: object) -> int | None:
    if not isinstance(page_age, str) or not page_age:
        return None
    try:
        return datetime.fromisoformat(page_age.replace("Z", "+00:00")).year
    except ValueError:
        return None


def result_to_candidate(result: dict[str, Any]) -> Candidate | None:
    """Map one web/news result; None when it has no URL."""
    url = result.get("url")
    if not isinstance(url, str) or not url:
        return None
    is_pdf = urlsplit(url).path.lower().endswith(".pdf")
    profile = result.get("profile") if isinstance(result.get("profile"), dict) else {}
    meta = result.get("meta_url") if isinstance(result.get("meta_url"), dict) else {}
    venue = (profile or {}).get("long_name") or (meta or {}).get("hostname")
    return Candidate(
        title=clean_snippet(result.get("title")) or url,
        # page_age is Brave's date for the page (publication or last change), a best guess.
        year=_year(result.get("page_age")),
        abstract=clean_snippet(result.get("description")),
        url=url,
        pdf_url=url if is_pdf else None,
        venue=venue,
        origin="brave",
    )


class BraveClient:
    """Brave web search (``search``) and news search (``search_news``)."""

    name = "brave"

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        *,
        api_key: str | SecretStr | None = None,
        min_interval_s: float = 1.0,
        timeout_s: float = 20.0,
        deadline_s: float = 60.0,
        max_retries: int = 3,
        backoff_base_s: float = 0.5,
        limiter: RateLimiter | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key.get_secret_value() if isinstance(api_key, SecretStr) else api_key
        self.timeout_s = timeout_s
        self.policy = RetryPolicy(
            max_retries=max_retries, base_delay_s=backoff_base_s, deadline_s=deadline_s
        )
        self.limiter = limiter or shared_limiter(self.name, min_interval_s)
        self._transport = transport
        self.retries = 0

    @classmethod
    def from_settings(cls, settings: SourceSettings, **overrides: Any) -> BraveClient:
        params: dict[str, Any] = {
            "api_key": settings.brave_api_key,
            "min_interval_s": settings.min_interval_s,
            "timeout_s": settings.timeout_s,
            "deadline_s": settings.deadline_s,
            "max_retries": settings.max_retries,
        }
        params.update(overrides)
        return cls(settings.brave_base_url, **params)

    @property
    def configured(self) -> bool:
        return bool(self._api_key)

    async def search(self, query: str, *, limit: int) -> list[Candidate]:
        """Web results for ``query``."""
        data = await self._get("web/search", query, limit)
        web = data.get("web")
        results = web.get("results") if isinstance(web, dict) else None
        return self._map(results, limit)

    async def search_news(self, query: str, *, limit: int) -> list[Candidate]:
        """News results for ``query``."""
        data = await self._get("news/search", query, limit)
        return self._map(data.get("results"), limit)

    def _map(self, results: object, limit: int) -> list[Candidate]:
        if results is None:
            return []
        if not isinstance(results, list):
            raise SourceError(self.name, "bad_response", "results is not a list")
        out = [c for r in results if isinstance(r, dict) and (c := result_to_candidate(r))]
        return out[:limit]

    async def _get(self, endpoint: str, query: str, limit: int) -> dict[str, Any]:
        if not self._api_key:
            raise SourceError(self.name, "not_configured", NOT_CONFIGURED_MESSAGE)
        count = max(1, min(limit, MAX_COUNT))
        url = f"{self.base_url}/{endpoint}"
        headers = {
            "Accept": "application/json",
            "X-Subscription-Token": self._api_key,
        }

        async def attempt() -> dict[str, Any]:
            try:
                async with httpx.AsyncClient(
                    timeout=self.timeout_s, transport=self._transport
                ) as client:
                    resp = await client.get(
                        url, params={"q": query, "count": count}, headers=headers
                    )
            except httpx.TimeoutException as exc:
                raise SourceError(self.name, "timeout", f"{endpoint}: timed out") from exc
            except httpx.TransportError as exc:
                raise SourceError(
                    self.name, "unreachable", f"{endpoint}: cannot connect ({exc})"
                ) from exc
            if resp.status_code != 200:
                raise http_status_error(
                    self.name, resp.status_code, resp.headers, " ".join(resp.text.split())[:200]
                )
            try:
                data = resp.json()
            except ValueError as exc:
                raise SourceError(self.name, "bad_response", f"{endpoint}: not JSON") from exc
            if not isinstance(data, dict):
                raise SourceError(self.name, "bad_response", f"{endpoint}: not a JSON object")
            return data

        def on_retry(n: int, exc: SourceError, delay: float) -> None:
            self.retries += 1

        return await call_with_retry(
            attempt,
            source=self.name,
            policy=self.policy,
            limiter=self.limiter,
            on_retry=on_retry,
            describe=endpoint,
        )
