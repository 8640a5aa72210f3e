"""OpenAlex via ``pyalex``, behind our rate limiter and retry policy.

pyalex builds the request (paths, ``filter=``/``search=``/``select=`` encoding) and
wraps the JSON. Two gaps of the installed version are closed here:

* ``BaseOpenAlex.url`` hard-codes ``https://api.openalex.org`` and ignores
  ``pyalex.config.openalex_url``; our :class:`Works` subclass rebases the URL onto the
  configured base URL (needed for the replay server and any proxy).
* pyalex's session has no timeout and its retry adapter is only mounted for https; we
  pass our own session (timeout, no transport retries) and set
  ``pyalex.config.max_retries = 0`` so retries are ours.

``pyalex.config`` is process-global: the polite-pool e-mail (sent as the ``From``
header) and the base URL are set there from the settings as well.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import pyalex
import requests

from marginalia.config import SourceSettings
from marginalia.retry import RetryPolicy
from marginalia.sources.base import SourceError
from marginalia.sources.candidate import (
    Candidate,
    MetadataConcept,
    MetadataReference,
    normalize_doi,
    normalize_openalex_id,
)
from marginalia.sources.ratelimit import (
    RateLimiter,
    call_with_retry,
    requests_error,
    requests_session,
    shared_limiter,
)

logger = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://api.openalex.org"
# OpenAlex's cap for ``per-page``.
MAX_PER_PAGE = 200

T = TypeVar("T")


class Works(pyalex.Works):
    """``pyalex.Works`` against a configurable base URL with a given session.

    (The class must be called ``Works``: pyalex derives the path from the class name.)
    """

    def __init__(self, params: Any = None, *, base_url: str, session: requests.Session) -> None:
        super().__init__(params)
        self._base_url = base_url
        self._session = session

    @property
    def url(self) -> str:
        original = urlsplit(super().url)
        base = urlsplit(self._base_url)
        path = base.path.rstrip("/") + original.path
        return urlunsplit((base.scheme, base.netloc, path, original.query, ""))

    def _get_from_url(self, url: str, session: requests.Session | None = None) -> Any:
        return super()._get_from_url(url, session or self._session)

    def get_json(self, url: str) -> Any:
        """Plain GET → JSON with pyalex's auth headers. For ``select=`` responses, which
        pyalex cannot wrap when they lack ``id`` ("Unknown response format")."""
        res = self._session.get(url, auth=pyalex.api.OpenAlexAuth(pyalex.config))
        res.raise_for_status()
        return res.json()


def reconstruct_abstract(inverted_index: Mapping[str, Sequence[int]] | None) -> str | None:
    """Rebuild the abstract text from OpenAlex's ``abstract_inverted_index``."""
    if not inverted_index:
        return None
    positioned = sorted(
        (pos, word) for word, positions in inverted_index.items() for pos in positions
    )
    text = " ".join(word for _, word in positioned).strip()
    return text or None


def _dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def work_concepts(work: Mapping[str, Any]) -> list[MetadataConcept]:
    """A work's OpenAlex ``concepts`` (with their level, 0–5) and ``topics`` (the most
    specific rung of OpenAlex's domain > field > subfield > topic tree, which carries no
    level number; a topic such as "CRISPR and Genetic Engineering" sits where level-3
    concepts do, so it is given 3)."""
    out: list[MetadataConcept] = []
    for item in work.get("concepts") or []:
        c = _dict(item)
        name, level = c.get("display_name"), c.get("level")
        if isinstance(name, str) and name.strip() and isinstance(level, int):
            score = c.get("score")
            out.append(
                MetadataConcept(
                    name=name.strip(),
                    level=level,
                    score=float(score) if isinstance(score, (int, float)) else None,
                )
            )
    for item in work.get("topics") or []:
        t = _dict(item)
        name = t.get("display_name")
        if isinstance(name, str) and name.strip():
            score = t.get("score")
            out.append(
                MetadataConcept(
                    name=name.strip(),
                    level=3,
                    score=float(score) if isinstance(score, (int, float)) else None,
                    kind="topic",
                )
            )
    return out


def work_references(work: Mapping[str, Any]) -> list[MetadataReference]:
    """A work's ``referenced_works`` as references by OpenAlex id."""
    return [
        MetadataReference(openalex_id=w)
        for w in work.get("referenced_works") or []
        if isinstance(w, str) and normalize_openalex_id(w)
    ]


def work_to_candidate(work: Mapping[str, Any]) -> Candidate:
    """Map one OpenAlex work (full or ``select=``-trimmed) to a :class:`Candidate`."""
    primary = _dict(work.get("primary_location"))
    best_oa = _dict(work.get("best_oa_location"))
    open_access = _dict(work.get("open_access"))
    authors = [
        str(name)
        for authorship in work.get("authorships") or []
        if (name := _dict(_dict(authorship).get("author")).get("display_name"))
    ]
    pdf_url = best_oa.get("pdf_url") or primary.get("pdf_url")
    oa_url = open_access.get("oa_url")
    if not pdf_url and isinstance(oa_url, str) and oa_url.lower().endswith(".pdf"):
        pdf_url = oa_url
    doi = normalize_doi(work.get("doi"))
    url = (
        primary.get("landing_page_url")
        or (f"https://doi.org/{doi}" if doi else None)
        or work.get("id")
    )
    year = work.get("publication_year")
    cited = work.get("cited_by_count")
    return Candidate(
        title=work.get("title") or work.get("display_name") or "",
        authors=authors,
        year=year if isinstance(year, int) else None,
        abstract=reconstruct_abstract(work.get("abstract_inverted_index")),
        url=url,
        pdf_url=pdf_url,
        doi=doi,
        openalex_id=work.get("id"),
        citation_count=cited if isinstance(cited, int) else None,
        venue=_dict(primary.get("source")).get("display_name"),
        origin="openalex",
        source_id=normalize_openalex_id(work.get("id")),
        concepts=work_concepts(work),
        references=work_references(work),
    )


class OpenAlexClient:
    """OpenAlex works: free-text and title search, DOI lookup, references, citations."""

    name = "openalex"

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        *,
        email: str | None = None,
        min_interval_s: float = 1.0,
        timeout_s: float = 20.0,
        deadline_s: float = 60.0,
        max_retries: int = 3,
        backoff_base_s: float = 0.5,
        limiter: RateLimiter | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.email = email
        self.policy = RetryPolicy(
            max_retries=max_retries, base_delay_s=backoff_base_s, deadline_s=deadline_s
        )
        self.limiter = limiter or shared_limiter(self.name, min_interval_s)
        self._session = requests_session(timeout_s)
        self.retries = 0
        # pyalex's configuration is global; keep it consistent with ours.
        pyalex.config.openalex_url = self.base_url
        pyalex.config.max_retries = 0
        if email:
            pyalex.config.email = email

    @classmethod
    def from_settings(cls, settings: SourceSettings, **overrides: Any) -> OpenAlexClient:
        params: dict[str, Any] = {
            "email": settings.openalex_email,
            "min_interval_s": settings.min_interval_s,
            "timeout_s": settings.timeout_s,
            "deadline_s": settings.deadline_s,
            "max_retries": settings.max_retries,
        }
        params.update(overrides)
        return cls(settings.openalex_base_url, **params)

    def _works(self) -> Works:
        return Works(base_url=self.base_url, session=self._session)

    async def search(self, query: str, *, limit: int) -> list[Candidate]:
        """Full-text relevance search (``search=``) over titles, abstracts and text."""
        return await self._list(lambda: self._works().search(query), limit, "search")

    async def search_title(self, title: str, *, limit: int) -> list[Candidate]:
        """Title search (``filter=title.search:…``), e.g. to resolve a named paper."""
        return await self._list(
            lambda: self._works().search_filter(title=title), limit, "title search"
        )

    async def references(self, work_id: str, *, limit: int = 50) -> list[Candidate]:
        """Works that ``work_id`` cites (``filter=cited_by:W…``)."""
        wid = self._work_id(work_id)
        return await self._list(
            lambda: self._works().filter(cited_by=wid), limit, f"references of {wid}"
        )

    async def cited_by(self, work_id: str, *, limit: int = 50) -> list[Candidate]:
        """Works that cite ``work_id`` (``filter=cites:W…``)."""
        wid = self._work_id(work_id)
        return await self._list(
            lambda: self._works().filter(cites=wid), limit, f"citations of {wid}"
        )

    async def get_by_doi(
        self, doi: str, *, select: Sequence[str] | None = None
    ) -> Candidate | None:
        """The work with this DOI, or None when OpenAlex does not know it (404).

        ``select`` trims the response to these fields (``select=open_access,doi``).
        """
        norm = normalize_doi(doi)
        if norm is None:
            raise ValueError(f"not a DOI: {doi!r}")
        fields = list(select) if select else None

        def fetch() -> Any:
            # Same request as ``Works()[doi_url]``, plus ``select=`` when asked for.
            works = self._works()
            works.params = f"https://doi.org/{norm}"
            url = works.url
            if fields:
                return works.get_json(url + "?select=" + ",".join(fields))
            return works._get_from_url(url)

        try:
            work = await self._call(fetch, f"work doi:{norm}")
        except SourceError as exc:
            if exc.reason == "http_status" and exc.status == 404:
                return None
            raise
        if not isinstance(work, Mapping):
            raise SourceError(self.name, "bad_response", f"work doi:{norm}: not a work")
        return work_to_candidate(work)

    async def get_work(self, work_id: str) -> Candidate | None:
        """The work with this OpenAlex id (``W…`` or URL), or None on 404."""
        wid = self._work_id(work_id)
        try:
            work = await self._call(lambda: self._works()[wid], f"work {wid}")
        except SourceError as exc:
            if exc.reason == "http_status" and exc.status == 404:
                return None
            raise
        return work_to_candidate(work)

    # --- internals ------------------------------------------------------------------------

    def _work_id(self, work_id: str) -> str:
        wid = normalize_openalex_id(work_id)
        if wid is None:
            raise ValueError(f"not an OpenAlex work id: {work_id!r}")
        return wid

    async def _list(
        self, build: Callable[[], pyalex.Works], limit: int, describe: str
    ) -> list[Candidate]:
        if limit <= 0:
            return []
        per_page = min(limit, MAX_PER_PAGE)
        results = await self._call(lambda: build().get(per_page=per_page), describe)
        if not isinstance(results, list):
            raise SourceError(self.name, "bad_response", f"{describe}: expected a result list")
        return [work_to_candidate(w) for w in results[:limit]]

    async def _call(self, fn: Callable[[], T], describe: str) -> T:
        def blocking() -> T:
            try:
                return fn()
            except requests.RequestException as exc:
                raise requests_error(self.name, exc, describe) from exc
            except pyalex.api.QueryError as exc:
                raise SourceError(
                    self.name, "http_status", f"{describe}: {exc}", status=400
                ) from exc
            except ValueError as exc:  # JSON decode errors, "Unknown response format"
                raise SourceError(self.name, "bad_response", f"{describe}: {exc}") from exc

        def on_retry(n: int, exc: SourceError, delay: float) -> None:
            self.retries += 1

        return await call_with_retry(
            lambda: asyncio.to_thread(blocking),
            source=self.name,
            policy=self.policy,
            limiter=self.limiter,
            on_retry=on_retry,
            describe=describe,
        )
