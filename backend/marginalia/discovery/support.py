"""The research pipeline's types, options and defaults: its context protocol, the
checkpoint stages, the default source clients and fetcher, and candidate helpers."""

from __future__ import annotations

import asyncio
import logging
import re
import weakref
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from marginalia.config import Settings
from marginalia.ingest.pipeline import (
    IngestContext,
    SourceMetadata,
)
from marginalia.knowledge.context import KnowledgeContext
from marginalia.sources.arxiv_client import ArxivClient
from marginalia.sources.base import SourceClient, SourceError
from marginalia.sources.brave_client import BraveClient
from marginalia.sources.candidate import Candidate
from marginalia.sources.catalog import CatalogError, CatalogSource
from marginalia.sources.fetch import SafeFetcher
from marginalia.sources.openalex_client import OpenAlexClient

log = logging.getLogger(__name__)


class ResearchContext(IngestContext, KnowledgeContext, Protocol):
    """What research uses: ingest's and the knowledge layer's context together (a
    :class:`marginalia.runtime.Runtime` is one)."""


CHECKPOINT_VERSION = 1
DEFAULT_MAX_SOURCES = 30
# A named recommendation is accepted when the found title is this close to it.
RECOMMENDATION_TITLE_MATCH = 0.5

Stage = Literal["found", "deduped", "fetched", "ingested", "linked", "dropped", "failed"]
TERMINAL_STAGES = frozenset({"linked", "dropped", "failed"})
# Failures that make the rest of a source's queries pointless in this run.
SOURCE_DOWN = frozenset({"unreachable", "timeout", "not_configured"})

Emit = Callable[[str, str, float | None, dict[str, Any]], Awaitable[None]]
"""``(message, stage, progress 0..1 or None, data)``."""
SaveState = Callable[[dict[str, Any]], Awaitable[None]]
"""Persist the run's state (a JSON-able dict)."""


async def no_emit(message: str, stage: str, progress: float | None, data: dict[str, Any]) -> None:
    return None


async def no_save(state: dict[str, Any]) -> None:
    return None


def no_cancel() -> None:
    return None


@dataclass
class ResearchOptions:
    max_sources: int = DEFAULT_MAX_SOURCES
    per_source_limit: int | None = None  # default: settings.sources.max_results_per_query
    fetch: bool = True  # False: every candidate is ingested from its abstract
    link: bool = True  # False: skip the knowledge update (benchmarks only)
    sources: list[str] | None = None  # restrict to these source names
    queries: list[str] | None = None  # use these queries instead of the decomposition's
    # True (imports): an entry with neither full text nor abstract becomes a metadata-only
    # source (ingest/metadata_only.py) instead of failing.
    metadata_only: bool = False
    # Rank what the searches found by relevance to the workspace before selecting
    # (discovery/relevance.py); imports keep their entries' order and take them all.
    rank_by_relevance: bool = True
    # True (imports of many entries, usecases/research.py): the knowledge update waits
    # until every entry is ingested, then links them all in large batches (one pass at the
    # end, an event per linked source) instead of interleaving small batches with ingest.
    defer_knowledge: bool = False

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> ResearchOptions:
        return cls(
            max_sources=int(params.get("max_sources") or DEFAULT_MAX_SOURCES),
            per_source_limit=(
                int(params["per_source_limit"]) if params.get("per_source_limit") else None
            ),
            fetch=bool(params.get("fetch", True)),
            link=bool(params.get("link", True)),
            sources=list(params["sources"]) if params.get("sources") else None,
            queries=list(params["queries"]) if params.get("queries") else None,
            metadata_only=bool(params.get("metadata_only", False)),
            rank_by_relevance=bool(params.get("rank_by_relevance", True)),
        )


# ------------------------------------------------------------------ one pipeline per process

_PIPELINE_SLOTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


def pipeline_semaphore(settings: Settings) -> asyncio.Semaphore:
    """The process's (this event loop's) research slots: ``jobs.pipeline_concurrency``."""
    loop = asyncio.get_running_loop()
    slots = _PIPELINE_SLOTS.get(loop)
    if slots is None:
        slots = _PIPELINE_SLOTS[loop] = asyncio.Semaphore(
            max(1, settings.jobs.pipeline_concurrency)
        )
    return slots


@asynccontextmanager
async def pipeline_slot(settings: Settings, emit: Emit = no_emit) -> Any:
    slots = pipeline_semaphore(settings)
    if slots.locked():
        await emit("waiting for another research run in this process to finish", "queued", None, {})
    async with slots:
        yield


# ------------------------------------------------------------------ clients


class UnavailableSource:
    """Stands in for a source that could not even be set up (e.g. an unreadable catalog)."""

    def __init__(self, name: str, reason: Any, message: str) -> None:
        self.name = name
        self._error = SourceError(name, reason, message)

    async def search(self, query: str, *, limit: int) -> list[Candidate]:
        raise self._error


def default_clients(settings: Settings) -> list[SourceClient]:
    """arXiv, OpenAlex, Brave and the local catalog, from settings (the last two report
    ``not_configured`` without an API key / ``catalog_path``)."""
    clients: list[SourceClient] = [
        ArxivClient.from_settings(settings.sources),
        OpenAlexClient.from_settings(settings.sources),
        BraveClient.from_settings(settings.sources),
    ]
    try:
        clients.append(CatalogSource.from_settings(settings))
    except CatalogError as exc:
        clients.append(UnavailableSource("catalog", "bad_response", str(exc)))
    return clients


def default_fetcher(settings: Settings) -> SafeFetcher:
    return SafeFetcher.from_settings(settings.sources)


# ------------------------------------------------------------------ helpers


def jsonable_candidate(candidate: Candidate) -> dict[str, Any]:
    return candidate.model_dump(mode="json")


def scholarly(keys: frozenset[str] | set[str]) -> bool:
    return any(k.startswith(("doi:", "arxiv:", "openalex:")) for k in keys)


def merge_into(kept: dict[str, Any], other: Candidate) -> None:
    """Fill the kept candidate's missing fields from a duplicate (e.g. arXiv's PDF link)."""
    data = kept["candidate"]
    for name in (
        "abstract",
        "pdf_url",
        "doi",
        "arxiv_id",
        "openalex_id",
        "citation_count",
        "venue",
        "pages",
        "year",
        "url",
        "file_key",
        "file_name",
    ):
        if data.get(name) in (None, "") and getattr(other, name) not in (None, ""):
            data[name] = getattr(other, name)
    if not data.get("authors") and other.authors:
        data["authors"] = list(other.authors)
    # an arXiv record kept over its OpenAlex duplicate takes the latter's concepts and
    # references (issue 13)
    for name in ("concepts", "references"):
        if not data.get(name) and getattr(other, name):
            data[name] = [item.model_dump(mode="json") for item in getattr(other, name)]


def slug_of(text: str, limit: int = 60) -> str:
    slug = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()
    return slug[:limit].strip("-") or "source"


def abstract_document(candidate: Candidate) -> bytes | None:
    """A small Markdown document from a candidate's title and abstract (None without one)."""
    if not candidate.abstract or not candidate.abstract.strip():
        return None
    lines = [f"# {candidate.title}", ""]
    if candidate.authors:
        lines += [", ".join(candidate.authors), ""]
    lines += ["## Abstract", "", candidate.abstract.strip(), ""]
    return "\n".join(lines).encode("utf-8")


def candidate_metadata(candidate: Candidate, *, abstract_only: bool) -> SourceMetadata:
    return SourceMetadata(
        title=candidate.title,
        authors=list(candidate.authors),
        year=candidate.year,
        venue=candidate.venue,
        pages=candidate.pages,
        metadata_origins=dict(candidate.metadata_origins),
        abstract=candidate.abstract,
        url=candidate.url,
        pdf_url=candidate.pdf_url,
        doi=candidate.doi,
        arxiv_id=candidate.arxiv_id,
        openalex_id=candidate.openalex_id,
        citation_count=candidate.citation_count,
        origin=candidate.origin,
        abstract_only=abstract_only,
        concepts=[c.model_dump() for c in candidate.concepts],
        references=[r.model_dump() for r in candidate.references],
    )


def is_local_path(target: str) -> bool:
    return "://" not in target


# ------------------------------------------------------------------ the run


@dataclass
class SearchHit:
    source: str
    query: str
    rank: int
    candidate: Candidate
    recommended: bool = False
