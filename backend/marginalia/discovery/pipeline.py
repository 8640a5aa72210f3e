"""The research pipeline: decompose → parallel search → dedup cascade → fetch and parse →
chunk → unified extraction → embed → store and link → quality (DESIGN §1).

One :class:`ResearchRun` is one run over one workspace. Its whole state lives in a plain
JSON dict (the job checkpoint, see :mod:`marginalia.discovery.jobs`): the decomposition,
the per-source search report, and every kept candidate with the last stage it completed::

    found → deduped → fetched → ingested → linked       (or dropped / failed)

A run started on a checkpoint skips what is done: the search is not repeated once its
candidates are recorded; a candidate whose fetch was recorded is not downloaded again
(the bytes are in the file store); an ingested one goes straight to linking. Ingest itself
is idempotent (content hash, identity and title layers), so a crash between a commit and
the checkpoint write still creates no duplicate (invariant 5).

Every collaborator is injectable: source clients, the fetcher, the LLM provider, the
event and checkpoint callbacks. Defaults come from settings.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import re
import time
import uuid
import weakref
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal, Protocol

import numpy as np

from marginalia.config import Settings
from marginalia.db.repositories import sources as sources_repo
from marginalia.errors import MarginaliaError, NotFoundError
from marginalia.ingest.dedup import (
    DedupLayer,
    DedupRecord,
    embedding_layer_applies,
    match_cheap_layers,
)
from marginalia.ingest.dedup import identity_keys as stored_identity_keys
from marginalia.ingest.pipeline import (
    IngestContext,
    IngestRefused,
    SourceMetadata,
    ingest_document,
)
from marginalia.knowledge.context import KnowledgeContext
from marginalia.knowledge.text import jaccard, title_tokens
from marginalia.knowledge.update import update_for_source
from marginalia.knowledge.vectors import embed_leads
from marginalia.llm.base import LLMProvider
from marginalia.sources.arxiv_client import ArxivClient
from marginalia.sources.base import SourceClient, SourceError
from marginalia.sources.brave_client import BraveClient
from marginalia.sources.candidate import Candidate
from marginalia.sources.catalog import CatalogError, CatalogSource
from marginalia.sources.fetch import FetchError, SafeFetcher
from marginalia.sources.openalex_client import OpenAlexClient

from .decompose import Decomposition, PaperRecommendation, decompose

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
_SOURCE_DOWN = frozenset({"unreachable", "timeout", "not_configured"})

Emit = Callable[[str, str, float | None, dict[str, Any]], Awaitable[None]]
"""``(message, stage, progress 0..1 or None, data)``."""
SaveState = Callable[[dict[str, Any]], Awaitable[None]]
"""Persist the run's state (a JSON-able dict)."""


async def _no_emit(message: str, stage: str, progress: float | None, data: dict[str, Any]) -> None:
    return None


async def _no_save(state: dict[str, Any]) -> None:
    return None


def _no_cancel() -> None:
    return None


@dataclass
class ResearchOptions:
    max_sources: int = DEFAULT_MAX_SOURCES
    per_source_limit: int | None = None  # default: settings.sources.max_results_per_query
    fetch: bool = True  # False: every candidate is ingested from its abstract
    link: bool = True  # False: skip the knowledge update (benchmarks only)
    sources: list[str] | None = None  # restrict to these source names
    queries: list[str] | None = None  # use these queries instead of the decomposition's

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
async def pipeline_slot(settings: Settings, emit: Emit = _no_emit) -> Any:
    slots = pipeline_semaphore(settings)
    if slots.locked():
        await emit("waiting for another research run in this process to finish", "queued", None, {})
    async with slots:
        yield


# ------------------------------------------------------------------ clients


class _UnavailableSource:
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
        clients.append(_UnavailableSource("catalog", "bad_response", str(exc)))
    return clients


def default_fetcher(settings: Settings) -> SafeFetcher:
    return SafeFetcher.from_settings(settings.sources)


# ------------------------------------------------------------------ helpers


def _jsonable_candidate(candidate: Candidate) -> dict[str, Any]:
    return candidate.model_dump(mode="json")


def _scholarly(keys: frozenset[str] | set[str]) -> bool:
    return any(k.startswith(("doi:", "arxiv:", "openalex:")) for k in keys)


def _merge_into(kept: dict[str, Any], other: Candidate) -> None:
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
        "year",
        "url",
    ):
        if data.get(name) in (None, "") and getattr(other, name) not in (None, ""):
            data[name] = getattr(other, name)
    if not data.get("authors") and other.authors:
        data["authors"] = list(other.authors)


def _slug(text: str, limit: int = 60) -> str:
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


def _metadata(candidate: Candidate, *, abstract_only: bool) -> SourceMetadata:
    return SourceMetadata(
        title=candidate.title,
        authors=list(candidate.authors),
        year=candidate.year,
        venue=candidate.venue,
        abstract=candidate.abstract,
        url=candidate.url,
        pdf_url=candidate.pdf_url,
        doi=candidate.doi,
        arxiv_id=candidate.arxiv_id,
        openalex_id=candidate.openalex_id,
        citation_count=candidate.citation_count,
        origin=candidate.origin,
        abstract_only=abstract_only,
    )


def _is_local_path(target: str) -> bool:
    return "://" not in target


# ------------------------------------------------------------------ the run


@dataclass
class _SearchHit:
    source: str
    query: str
    rank: int
    candidate: Candidate
    recommended: bool = False


@dataclass
class ResearchRun:
    """One research run over one workspace; ``state`` is its (resumable) checkpoint."""

    ctx: ResearchContext
    workspace_id: uuid.UUID
    description: str
    options: ResearchOptions = field(default_factory=ResearchOptions)
    clients: Sequence[SourceClient] | None = None
    fetcher: SafeFetcher | None = None
    llm: LLMProvider | None = None
    state: dict[str, Any] = field(default_factory=dict)
    emit: Emit = _no_emit
    save: SaveState = _no_save
    check_cancelled: Callable[[], None] = _no_cancel
    _hits: list[_SearchHit] = field(default_factory=list, repr=False)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)

    @property
    def _title_threshold(self) -> float:
        return self.ctx.settings.ingest.dedup_title_jaccard

    @property
    def _embedding_threshold(self) -> float:
        return self.ctx.settings.ingest.dedup_embedding

    # -------------------------------------------------------------- entry point

    async def run(self) -> dict[str, Any]:
        settings = self.ctx.settings
        started = time.perf_counter()
        if self.state.get("version") not in (None, CHECKPOINT_VERSION):
            raise MarginaliaError(
                "this research checkpoint was written by another version; retry the job"
            )
        self.state.setdefault("version", CHECKPOINT_VERSION)
        self.state.setdefault("timings_ms", {})
        async with self.ctx.db.session() as session:
            from marginalia.db.repositories import workspaces as workspaces_repo

            if await workspaces_repo.get(session, self.workspace_id) is None:
                raise NotFoundError(f"no workspace with id {self.workspace_id}")

        async with pipeline_slot(settings, self.emit):
            if "decomposition" not in self.state:
                await self._timed("decompose", self._decompose())
            if "candidates" not in self.state:
                await self._timed("search", self._search())
                await self._timed("dedup", self._dedup())
            else:
                await self.emit("resuming: " + self._stage_summary(), "resume", None, self.counts())
            await self._timed("process", self._process())
        total = (time.perf_counter() - started) * 1000
        self.state["timings_ms"]["total_last_attempt"] = round(total, 1)
        await self._save()
        result = self.result()
        await self.emit(self._final_message(result), "done", 1.0, result["counts"])
        return result

    async def _timed(self, name: str, work: Awaitable[None]) -> None:
        t = time.perf_counter()
        await work
        timings = self.state["timings_ms"]
        timings[name] = round(timings.get(name, 0.0) + (time.perf_counter() - t) * 1000, 1)

    async def _save(self) -> None:
        async with self._lock:
            await self.save(copy.deepcopy(self.state))

    # -------------------------------------------------------------- decompose

    async def _decompose(self) -> None:
        provider = self.llm if self.llm is not None else self.ctx.llm
        decomposition: Decomposition = await decompose(self.description, provider=provider)
        if self.options.queries:
            decomposition = decomposition.model_copy(update={"queries": self.options.queries})
        self.state["decomposition"] = decomposition.as_dict()
        await self._save()
        recs = len(decomposition.recommendations)
        message = f"intent {decomposition.intent}; queries: " + "; ".join(decomposition.queries)
        message += f"; {recs} recommended papers" if recs else f" ({decomposition.note})"
        await self.emit(
            message,
            "decompose",
            0.05,
            {
                "intent": decomposition.intent,
                "queries": decomposition.queries,
                "recommendations": [r.title for r in decomposition.recommendations],
                "engine": decomposition.engine,
                "note": decomposition.note,
                "fallback_reason": decomposition.fallback_reason,
            },
        )

    # -------------------------------------------------------------- search

    def _clients(self) -> list[SourceClient]:
        clients = list(self.clients) if self.clients is not None else None
        if clients is None:
            clients = default_clients(self.ctx.settings)
        if self.options.sources:
            wanted = set(self.options.sources)
            clients = [c for c in clients if c.name in wanted]
        return clients

    async def _search(self) -> None:
        decomposition = Decomposition.model_validate(self.state["decomposition"])
        limit = self.options.per_source_limit or self.ctx.settings.sources.max_results_per_query
        clients = self._clients()
        await self.emit(
            f"searching {', '.join(c.name for c in clients)} for "
            f"{len(decomposition.queries)} queries",
            "search",
            0.06,
            {"sources": [c.name for c in clients], "queries": decomposition.queries},
        )
        outcomes = await asyncio.gather(
            *(
                self._search_one(c, decomposition.queries, decomposition.recommendations, limit)
                for c in clients
            )
        )
        reports: dict[str, dict[str, Any]] = {}
        hits: list[_SearchHit] = []
        for client, (found, report) in zip(clients, outcomes, strict=True):
            reports[client.name] = report
            hits.extend(found)
        self.state["search"] = {"sources": reports, "found": len(hits)}
        self._hits = hits
        per_source = ", ".join(
            f"{name} {r['found']}"
            if r["status"] == "ok"
            else f"{name} {r['status']} ({r['reason']})"
            for name, r in reports.items()
        )
        await self.emit(
            f"found {len(hits)} results: {per_source}",
            "search",
            0.1,
            {"found": len(hits), "sources": reports},
        )

    async def _search_one(
        self,
        client: SourceClient,
        queries: Sequence[str],
        recommendations: Sequence[PaperRecommendation],
        limit: int,
    ) -> tuple[list[_SearchHit], dict[str, Any]]:
        hits: list[_SearchHit] = []
        errors: list[dict[str, Any]] = []
        report: dict[str, Any] = {"status": "ok", "found": 0, "reason": None, "message": None}
        down = False
        for query in queries:
            self.check_cancelled()
            try:
                found = await client.search(query, limit=limit)
            except SourceError as exc:
                errors.append({"query": query, "reason": exc.reason, "message": exc.message})
                if exc.reason in _SOURCE_DOWN:
                    down = True
                    break
                continue
            hits.extend(_SearchHit(client.name, query, i, c) for i, c in enumerate(found))
        if not down:
            for rec in recommendations:
                try:
                    match = await self._resolve_recommendation(client, rec)
                except SourceError as exc:
                    errors.append(
                        {"query": rec.title, "reason": exc.reason, "message": exc.message}
                    )
                    if exc.reason in _SOURCE_DOWN:
                        break
                    continue
                if match is not None:
                    hits.append(_SearchHit(client.name, rec.title, 0, match, recommended=True))
        report["found"] = len(hits)
        report["errors"] = errors
        if errors:
            first = errors[0]
            if not hits and (down or len(errors) >= len(queries)):
                status = "skipped" if first["reason"] == "not_configured" else "failed"
            else:
                status = "partial"
            report.update(status=status, reason=first["reason"], message=first["message"])
        if report["status"] != "ok":
            await self.emit(
                f"{client.name}: {report['status']} ({report['reason']}): {report['message']}",
                "search",
                None,
                {"source": client.name, **report},
            )
        return hits, report

    async def _resolve_recommendation(
        self, client: SourceClient, rec: PaperRecommendation
    ) -> Candidate | None:
        if isinstance(client, OpenAlexClient):
            found = await client.search_title(rec.title, limit=1)
        elif isinstance(client, ArxivClient):
            words = " ".join(re.findall(r"[A-Za-z0-9]+", rec.title))
            found = await client.search(f'ti:"{words}"', limit=1)
        elif isinstance(client, BraveClient):
            return None  # web pages are not papers; the scholarly sources resolve titles
        else:
            found = await client.search(rec.title, limit=1)
        if not found:
            return None
        best = found[0]
        if jaccard(title_tokens(best.title), title_tokens(rec.title)) < RECOMMENDATION_TITLE_MATCH:
            return None
        return best

    # -------------------------------------------------------------- dedup

    async def _known_records(self) -> list[tuple[DedupRecord, str]]:
        async with self.ctx.db.session() as session:
            rows = [
                SimpleNamespace(**row)
                for row in await sources_repo.identities(
                    session, self.workspace_id, with_abstract=True
                )
            ]
        out: list[tuple[DedupRecord, str]] = []
        for row in rows:
            keys = set(
                stored_identity_keys(
                    doi=row.doi, arxiv_id=row.arxiv_id, openalex_id=row.openalex_id
                )
            )
            if row.normalized_url:
                keys.add("url:" + str(row.normalized_url))
            text = f"{row.title or ''}. {row.abstract or ''}".strip(" .")
            out.append((DedupRecord(id=row.id, title=row.title, keys=frozenset(keys)), text))
        return out

    def _ordered_hits(self) -> list[_SearchHit]:
        """Recommended papers first, then round-robin over (source, query) result lists."""
        hits = self._hits
        recommended = [h for h in hits if h.recommended]
        lists: dict[tuple[str, str], list[_SearchHit]] = {}
        for h in hits:
            if not h.recommended:
                lists.setdefault((h.source, h.query), []).append(h)
        ordered = list(recommended)
        depth = max((len(v) for v in lists.values()), default=0)
        for i in range(depth):
            for items in lists.values():
                if i < len(items):
                    ordered.append(items[i])
        return ordered

    async def _dedup(self) -> None:
        known = await self._known_records()
        kept: list[dict[str, Any]] = []
        kept_records: list[DedupRecord] = []
        kept_text: list[str] = []
        layers: Counter[str] = Counter()
        known_layers: Counter[str] = Counter()
        known_ids: set[str] = set()
        for hit in self._ordered_hits():
            c = hit.candidate
            record = DedupRecord(id=None, title=c.title, keys=frozenset(c.identity_keys()))
            # layers 1–2 against the workspace's sources: the run reuses what it knows
            known_match = match_cheap_layers(
                record, [r for r, _ in known], title_threshold=self._title_threshold
            )
            if known_match is not None:
                known_layers[known_match.layer] += 1
                known_ids.add(str(known_match.existing_id))
                continue
            # layers 1–2 against this run's candidates (ids are positions)
            match = match_cheap_layers(
                record,
                [
                    DedupRecord(id=uuid.UUID(int=i + 1), title=r.title, keys=r.keys)
                    for i, r in enumerate(kept_records)
                ],
                title_threshold=self._title_threshold,
            )
            if match is not None:
                layers[match.layer] += 1
                target = kept[match.existing_id.int - 1]
                _merge_into(target, c)
                target["via"].append(f"{hit.source}:{hit.query}")
                continue
            kept.append(
                {
                    "key": f"c{len(kept)}",
                    "candidate": _jsonable_candidate(c),
                    "via": [f"{hit.source}:{hit.query}"],
                    "recommended": hit.recommended,
                    "stage": "found",
                }
            )
            kept_records.append(record)
            kept_text.append(f"{c.title}. {c.abstract or ''}".strip(" ."))

        # layer 3: title+abstract embeddings, only where one side lacks a scholarly id
        dropped_by_embedding = await self._embedding_layer(
            kept, kept_records, kept_text, known, layers, known_layers, known_ids
        )
        survivors = [k for i, k in enumerate(kept) if i not in dropped_by_embedding]
        selected = survivors[: max(0, self.options.max_sources)]
        over_limit = len(survivors) - len(selected)
        for i, item in enumerate(selected):
            item["key"] = f"c{i}"
            item["stage"] = "deduped"
        found = int(self.state["search"]["found"])
        counts = {
            "found": found,
            "unique": len(survivors),
            "duplicates": dict(layers),
            "duplicates_total": sum(layers.values()),
            "known": dict(known_layers),
            "known_total": sum(known_layers.values()),
            "known_sources": len(known_ids),
            "selected": len(selected),
            "over_limit": over_limit,
        }
        self.state["dedup"] = counts
        self.state["candidates"] = selected
        await self._save()
        by_layer = ", ".join(f"{n} by {layer}" for layer, n in sorted(layers.items())) or "none"
        await self.emit(
            f"{found} found → {len(survivors)} unique (duplicates dropped: {by_layer}); "
            f"{counts['known_total']} already in the workspace; {len(selected)} selected"
            + (
                f" ({over_limit} over the limit of {self.options.max_sources})"
                if over_limit
                else ""
            ),
            "dedup",
            0.15,
            counts,
        )

    async def _embedding_layer(
        self,
        kept: list[dict[str, Any]],
        records: list[DedupRecord],
        texts: list[str],
        known: list[tuple[DedupRecord, str]],
        layers: Counter[str],
        known_layers: Counter[str],
        known_ids: set[str],
    ) -> set[int]:
        involved = [r.keys for r in records] + [r.keys for r, _ in known]
        if not kept or all(_scholarly(k) for k in involved):
            return set()
        embedder = self.ctx.embedder
        vectors = await embed_leads(embedder, [*texts, *(t for _, t in known)])
        run_vecs, known_vecs = vectors[: len(texts)], vectors[len(texts) :]
        dropped: set[int] = set()
        for i, record in enumerate(records):
            # against the workspace's sources
            if len(known_vecs):
                sims = known_vecs @ run_vecs[i]
                order = np.argsort(-sims)
                hit = next(
                    (
                        int(j)
                        for j in order
                        if sims[j] >= self._embedding_threshold
                        and embedding_layer_applies(record, known[int(j)][0].has_scholarly_id)
                    ),
                    None,
                )
                if hit is not None:
                    dropped.add(i)
                    known_layers["embedding"] += 1
                    known_ids.add(str(known[hit][0].id))
                    continue
            # against earlier candidates of this run
            for j in range(i):
                if j in dropped:
                    continue
                if float(run_vecs[j] @ run_vecs[i]) >= self._embedding_threshold and (
                    embedding_layer_applies(record, records[j].has_scholarly_id)
                ):
                    dropped.add(i)
                    layers["embedding"] += 1
                    _merge_into(kept[j], Candidate.model_validate(kept[i]["candidate"]))
                    kept[j]["via"].extend(kept[i]["via"])
                    break
        return dropped

    # -------------------------------------------------------------- fetch → ingest → link

    def counts(self) -> dict[str, Any]:
        items: list[dict[str, Any]] = self.state.get("candidates", [])
        stages = Counter(str(i["stage"]) for i in items)
        fetch_failed = Counter(
            str(i["fetch"]["reason"])
            for i in items
            if i.get("fetch") and i["fetch"]["status"] == "failed"
        )
        ingest = Counter(str(i["ingest"]["status"]) for i in items if i.get("ingest"))
        return {
            "found": int(self.state.get("search", {}).get("found", 0)),
            "selected": len(items),
            "duplicates": dict(self.state.get("dedup", {}).get("duplicates", {})),
            "known": int(self.state.get("dedup", {}).get("known_total", 0)),
            "fetched": sum(1 for i in items if i.get("fetch", {}).get("status") == "ok"),
            "fetch_failed": dict(fetch_failed),
            "fetch_skipped": sum(1 for i in items if i.get("fetch", {}).get("status") == "skipped"),
            "abstract_only": sum(1 for i in items if i.get("abstract_only")),
            "ingested": ingest.get("created", 0),
            "ingest_duplicates": ingest.get("duplicate", 0),
            "linked": stages.get("linked", 0),
            "failed": stages.get("failed", 0),
            "stages": dict(stages),
        }

    def _stage_summary(self) -> str:
        stages = self.counts()["stages"]
        return ", ".join(f"{n} {s}" for s, n in sorted(stages.items()))

    def _progress(self) -> float:
        items: list[dict[str, Any]] = self.state.get("candidates", [])
        if not items:
            return 0.95
        weight = {"deduped": 0.0, "fetched": 0.3, "ingested": 0.7}
        done = sum(
            1.0 if i["stage"] in TERMINAL_STAGES else weight.get(i["stage"], 0.0) for i in items
        )
        return round(0.15 + 0.8 * done / len(items), 4)

    async def _set(self, item: dict[str, Any], stage: Stage, **values: Any) -> None:
        item.update(values)
        item["stage"] = stage
        await self._save()

    async def _process(self) -> None:
        items: list[dict[str, Any]] = self.state["candidates"]
        todo = [i for i in items if i["stage"] not in TERMINAL_STAGES]
        if not todo:
            return
        ready: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        to_fetch = []
        for item in todo:
            if item["stage"] in ("found", "deduped"):
                to_fetch.append(item)
            else:
                ready.put_nowait(item)
        fetcher = self.fetcher or default_fetcher(self.ctx.settings)

        async def fetch_then_queue(item: dict[str, Any]) -> None:
            try:
                await self._fetch(fetcher, item)
            finally:
                ready.put_nowait(item)

        # Downloads run concurrently (the fetcher allows settings.sources.concurrent_downloads
        # at once); ingest and linking take fetched candidates one at a time, in the order
        # their downloads finish. (No TaskGroup: a cancellation must stay a JobCancelled,
        # not become an ExceptionGroup.)
        tasks = [asyncio.create_task(fetch_then_queue(item)) for item in to_fetch]
        try:
            for _ in range(len(todo)):
                item = await ready.get()
                self.check_cancelled()
                if item["stage"] == "fetched":
                    await self._ingest(item)
                if item["stage"] == "ingested":
                    await self._link(item)
            for task in tasks:
                task.result()  # surface an unexpected error of a download task
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _fetch(self, fetcher: SafeFetcher, item: dict[str, Any]) -> None:
        candidate = Candidate.model_validate(item["candidate"])
        target = candidate.pdf_url or (candidate.url if candidate.origin == "brave" else None)
        t = time.perf_counter()
        if not self.options.fetch or not target:
            reason = "fetch_disabled" if not self.options.fetch else "no_full_text_link"
            await self._set(item, "fetched", fetch={"status": "skipped", "reason": reason})
            return
        try:
            if _is_local_path(target) and candidate.origin == "catalog":
                data, content_type, final = await self._read_catalog_file(target)
            else:
                doc = await fetcher.fetch(target)
                data, content_type, final = doc.data, doc.content_type, doc.final_url
        except FetchError as exc:
            failed: dict[str, Any] = {
                "status": "failed",
                "reason": exc.reason,
                "message": exc.message,
                "url": target,
                "ms": round((time.perf_counter() - t) * 1000, 1),
            }
            await self._set(item, "fetched", fetch=failed)
            await self.emit(
                f"fetch failed ({exc.reason}): {candidate.title[:70]}",
                "fetch",
                self._progress(),
                {"key": item["key"], "status": "failed", "reason": exc.reason, "url": target},
            )
            return
        stored = await asyncio.to_thread(self.ctx.files.put, data)
        fetch: dict[str, Any] = {
            "status": "ok",
            "url": target,
            "final_url": final,
            "content_type": content_type,
            "file_key": stored.key,
            "bytes": len(data),
            "ms": round((time.perf_counter() - t) * 1000, 1),
        }
        await self._set(item, "fetched", fetch=fetch)
        await self.emit(
            f"fetched {len(data) // 1024} KiB: {candidate.title[:70]}",
            "fetch",
            self._progress(),
            {"key": item["key"], "status": "ok", "bytes": len(data), "url": target},
        )

    async def _read_catalog_file(self, path: str) -> tuple[bytes, str, str]:
        """A PDF listed by the user's own catalog folder (no network involved)."""
        settings = self.ctx.settings
        file = Path(path)
        root = settings.catalog_path
        if root is None or not file.resolve().is_relative_to(Path(root).expanduser().resolve()):
            raise FetchError(
                "invalid_url", f"{path} is not inside the configured catalog", url=path
            )
        cap = settings.sources.max_download_mb * 1024 * 1024
        try:
            size = file.stat().st_size
            if size > cap:
                raise FetchError("too_large", f"{path} is larger than the download cap", url=path)
            data = await asyncio.to_thread(file.read_bytes)
        except OSError as exc:
            raise FetchError("unreachable", f"cannot read {path}: {exc}", url=path) from exc
        return data, "application/pdf", str(file)

    async def _ingest(self, item: dict[str, Any]) -> None:
        candidate = Candidate.model_validate(item["candidate"])
        fetch = item.get("fetch") or {}
        t = time.perf_counter()
        outcome = None
        abstract_reason: str | None = None
        if fetch.get("status") == "ok":
            ext = ".pdf" if fetch.get("content_type") == "application/pdf" else ".html"
            try:
                data = await asyncio.to_thread(self.ctx.files.get, str(fetch["file_key"]))
                outcome = await ingest_document(
                    self.ctx,
                    self.workspace_id,
                    data=data,
                    filename=_slug(candidate.title) + ext,
                    content_type=fetch.get("content_type"),
                    metadata=_metadata(candidate, abstract_only=False),
                )
            except IngestRefused as exc:
                abstract_reason = f"parse_{exc.code}"
                item["parse_error"] = exc.detail
            except (OSError, KeyError) as exc:
                abstract_reason = "file_missing"
                item["parse_error"] = str(exc)
        else:
            abstract_reason = str(fetch.get("reason") or "no_full_text_link")
        if outcome is None:
            data_or_none = abstract_document(candidate)
            if data_or_none is None:
                await self._set(
                    item,
                    "failed",
                    error="no full text and no abstract",
                    failure_reason="no_text",
                    abstract_reason=abstract_reason,
                )
                await self.emit(
                    f"skipped (no full text, no abstract): {candidate.title[:70]}",
                    "ingest",
                    self._progress(),
                    {"key": item["key"], "status": "failed", "reason": "no_text"},
                )
                return
            try:
                outcome = await ingest_document(
                    self.ctx,
                    self.workspace_id,
                    data=data_or_none,
                    filename=_slug(candidate.title) + ".md",
                    content_type="text/markdown",
                    metadata=_metadata(candidate, abstract_only=True),
                )
            except IngestRefused as exc:
                await self._set(item, "failed", error=exc.detail, failure_reason=exc.code)
                await self.emit(
                    f"ingest refused ({exc.code}): {candidate.title[:70]}",
                    "ingest",
                    self._progress(),
                    {"key": item["key"], "status": "failed", "reason": exc.code},
                )
                return
        abstract_only = abstract_reason is not None
        await self._set(
            item,
            "ingested",
            source_id=str(outcome.source_id),
            abstract_only=abstract_only,
            abstract_reason=abstract_reason,
            ingest={
                "status": outcome.status,
                "layer": outcome.dedup_layer,
                "chunks": outcome.chunks,
                "ms": round((time.perf_counter() - t) * 1000, 1),
            },
        )
        what = "abstract only" if abstract_only else f"{outcome.chunks} passages"
        if outcome.status == "duplicate":
            what = f"already stored ({outcome.dedup_layer} layer)"
        await self.emit(
            f"ingested ({what}): {candidate.title[:70]}",
            "ingest",
            self._progress(),
            {
                "key": item["key"],
                "status": outcome.status,
                "ms": item["ingest"]["ms"],
                "source_id": str(outcome.source_id),
                "abstract_only": abstract_only,
                "reason": abstract_reason,
                "dedup_layer": outcome.dedup_layer,
            },
        )

    async def _needs_linking(self, source_id: uuid.UUID) -> bool:
        async with self.ctx.db.session() as session:
            source = await sources_repo.get(session, source_id)
        return source is not None and source.extraction_engine is None

    async def _link(self, item: dict[str, Any]) -> None:
        source_id = uuid.UUID(str(item["source_id"]))
        created = (item.get("ingest") or {}).get("status") == "created"
        if not self.options.link or not (created or await self._needs_linking(source_id)):
            await self._set(item, "linked", knowledge=None)
            return
        t = time.perf_counter()
        try:
            update = await update_for_source(self.ctx, self.workspace_id, source_id, llm=self.llm)
        except MarginaliaError as exc:
            # The source is stored and visible; its knowledge can be rebuilt later.
            await self._set(item, "linked", knowledge={"error": exc.detail})
            await self.emit(
                f"knowledge update failed: {exc.detail}",
                "link",
                self._progress(),
                {"key": item["key"]},
            )
            return
        knowledge = {
            "concepts": update.concepts,
            "claims": update.claims,
            "wiki_pages": len(update.wiki_pages),
            "quality": update.quality,
            "engine": update.engine,
            "ms": round((time.perf_counter() - t) * 1000, 1),
        }
        await self._set(item, "linked", knowledge=knowledge)
        await self.emit(
            f"linked: {update.claims} claims, {update.concepts} concepts in the workspace",
            "link",
            self._progress(),
            {"key": item["key"], "source_id": str(source_id), **knowledge},
        )

    # -------------------------------------------------------------- result

    def result(self) -> dict[str, Any]:
        items: list[dict[str, Any]] = self.state.get("candidates", [])
        return {
            "workspace_id": str(self.workspace_id),
            "decomposition": self.state.get("decomposition"),
            "sources": self.state.get("search", {}).get("sources", {}),
            "dedup": self.state.get("dedup", {}),
            "counts": self.counts(),
            "timings_ms": self.state.get("timings_ms", {}),
            "candidates": [
                {
                    "key": i["key"],
                    "title": i["candidate"]["title"],
                    "origin": i["candidate"]["origin"],
                    "stage": i["stage"],
                    "source_id": i.get("source_id"),
                    "abstract_only": i.get("abstract_only", False),
                    "fetch": {
                        k: v
                        for k, v in (i.get("fetch") or {}).items()
                        if k in ("status", "reason", "url")
                    },
                    "ingest": (i.get("ingest") or {}).get("status"),
                    "error": i.get("error"),
                }
                for i in items
            ],
        }

    def _final_message(self, result: dict[str, Any]) -> str:
        c = result["counts"]
        failed = sum(c["fetch_failed"].values())
        return (
            f"{c['found']} found, {sum(c['duplicates'].values())} duplicates dropped, "
            f"{c['known']} already known, {c['fetched']} fetched, {failed} fetches failed, "
            f"{c['ingested']} ingested ({c['abstract_only']} abstract-only), {c['linked']} linked"
            + (f", {c['failed']} failed" if c["failed"] else "")
        )


async def run_research(
    ctx: ResearchContext,
    workspace_id: uuid.UUID,
    description: str,
    *,
    options: ResearchOptions | None = None,
    clients: Sequence[SourceClient] | None = None,
    fetcher: SafeFetcher | None = None,
    llm: LLMProvider | None = None,
    state: dict[str, Any] | None = None,
    emit: Emit = _no_emit,
    save: SaveState = _no_save,
) -> dict[str, Any]:
    """Run (or resume, given ``state``) the research pipeline; returns its result."""
    run = ResearchRun(
        ctx,
        workspace_id,
        description,
        options=options or ResearchOptions(),
        clients=clients,
        fetcher=fetcher,
        llm=llm,
        state=state if state is not None else {},
        emit=emit,
        save=save,
    )
    return await run.run()


__all__ = [
    "DedupLayer",
    "ResearchOptions",
    "ResearchRun",
    "abstract_document",
    "default_clients",
    "default_fetcher",
    "pipeline_semaphore",
    "run_research",
]
