"""The update side of the "understand" stage: the pure knowledge functions, the extraction
engines and the database, per source and per workspace.

* :func:`update_for_source` — after a source is ingested: unified extraction, concept graph,
  claims and evidence, source edges, redundancy clusters, quality, wiki;
* :func:`remove_source` — delete a source and update what depended on it;
* :func:`rebuild_workspace` — recompute everything from the sources.

(:func:`marginalia.knowledge.linking.refresh_relevance` re-scores quality after the
workspace description changed; the read side is :mod:`marginalia.knowledge.read`.)

What "incremental" means when a source is added (the work is bounded by what the source
changes, not by the workspace; ``tests/integration/test_knowledge_bounded.py`` counts it):

* **concepts** — the new source's extracted concepts are matched against the stored concepts
  that share a merge key with them and linked (new ones inserted and embedded), edges among
  its concepts added or re-weighted (:mod:`marginalia.knowledge.concept_local`). Existing
  concepts keep their slug and name, so ``[[slug]]`` links stay valid;
* **source edges** — only between the new source and the others (DESIGN §6 rules); pairs of
  older sources keep the edges computed when the later of them was added, until
  :func:`rebuild_workspace`;
* **quality** — the new source only (every source when the workspace description embedding
  was missing and is computed now; :func:`refresh_relevance` after a description change);
* **claims** — the new source's claims and their evidence in the other sources, plus the new
  source's passages as evidence for the (at most ``knowledge.evidence_backward_limit``) most
  similar claims of the other sources;
* **wiki** — with an LLM: the source and its 10 most similar pages go to the model, which
  creates or updates 2–5 pages;
* **graph-wide statistics** — PageRank centrality, workspace levels, merges of stored
  concepts, redundancy clusters and the offline wiki's central pages are recomputed by
  :func:`marginalia.knowledge.refresh.refresh_workspace`: inline after this function by
  default (``refresh=True``), once at the end of a research/import job, and as the debounced
  ``knowledge.refresh`` job after uploads.

:func:`remove_source` is bounded the same way (its links, its orphaned concepts, pages citing
nothing left), then refreshes.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from marginalia.errors import NotFoundError
from marginalia.knowledge import llm_extraction as llmx
from marginalia.knowledge import repository as repo
from marginalia.knowledge.citation_links import relink_workspace
from marginalia.knowledge.concept_store import sync_concepts
from marginalia.knowledge.context import (
    KnowledgeContext,
    Progress,
    elapsed_ms,
    require_workspace,
    resolve_llm,
)
from marginalia.knowledge.linking import (
    classify_evidence,
    evidence_concept_forms,
    recluster,
    related_row,
    shared_terms,
    store_claims,
    store_quality,
    update_source_edges,
    workspace_vector,
)
from marginalia.knowledge.refresh import refresh_workspace
from marginalia.knowledge.schemas import Extraction
from marginalia.knowledge.source_update import (
    AppliedSource,
    PreparedSource,
    apply_source,
    extract_with_metadata,
    extraction_fields,
    prepare_sources,
)
from marginalia.knowledge.vectors import embed_texts
from marginalia.knowledge.wiki_update import (
    central_slugs,
    delete_uncited_pages,
    llm_wiki,
    repair_links,
    write_offline_pages,
)
from marginalia.llm.base import LLMProvider

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class KnowledgeUpdate:
    """What :func:`update_for_source` did."""

    workspace_id: uuid.UUID
    source_id: uuid.UUID
    engine: str
    extraction_ms: float
    total_ms: float
    concepts: int
    concepts_added: int
    concepts_removed: int
    claims: int
    evidence: int
    source_edges: int
    clusters: int
    wiki_pages: tuple[str, ...]
    quality: float | None
    timings_ms: dict[str, float] = field(default_factory=dict)
    fallback_reason: str | None = None
    # Paper -> paper cites edges of the source, both directions (knowledge/citations.py).
    cites: int = 0
    # Whether the graph-wide refresh ran inline (else ``clusters`` is 0 and ``concepts``
    # counts the stored concepts before it: the refresh job brings both up to date).
    refreshed: bool = True
    # Rows of other sources' knowledge the bounded steps read (issue 19, item 2): stored
    # concepts sharing a merge key, sources that may have an edge with it, sources whose
    # identifiers or title words a reference may name.
    rows_read: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class KnowledgeRemoval:
    """What :func:`remove_source` did (``concepts``/``clusters`` -1: not refreshed yet)."""

    workspace_id: uuid.UUID
    source_id: uuid.UUID
    deleted: bool
    concepts: int
    concepts_removed: int
    clusters: int
    wiki_pages_updated: tuple[str, ...]
    wiki_pages_deleted: tuple[str, ...]
    total_ms: float


@dataclass(frozen=True)
class RebuildResult:
    workspace_id: uuid.UUID
    sources: int
    concepts: int
    concept_edges: int
    claims: int
    evidence: int
    source_edges: int
    clusters: int
    wiki_pages: int
    engine: str
    total_ms: float
    timings_ms: dict[str, float] = field(default_factory=dict)
    cites: int = 0


# ---------------------------------------------------------------------------- public API


async def update_for_source(
    ctx: KnowledgeContext,
    workspace_id: uuid.UUID,
    source_id: uuid.UUID,
    *,
    llm: LLMProvider | None = None,
    refresh: bool = True,
) -> KnowledgeUpdate:
    """Bring the workspace's knowledge up to date after ``source_id`` was added (idempotent:
    running it again for the same source replaces what the first run derived from it).

    The update itself is bounded by what the source changes (see the module doc);
    ``refresh`` then runs :func:`~marginalia.knowledge.refresh.refresh_workspace` inline for
    the graph-wide statistics. Jobs that add many sources pass ``refresh=False`` and refresh
    once at the end (or through the debounced ``knowledge.refresh`` job)."""
    started = time.perf_counter()
    provider = resolve_llm(ctx, llm)
    (prepared,) = await prepare_sources(ctx, provider, workspace_id, [source_id])
    async with ctx.db.transaction() as session:
        await repo.lock_workspace(session, workspace_id)
        workspace = await require_workspace(session, workspace_id)
        applied = await apply_source(session, ctx, workspace, prepared)
    return await _finish(ctx, provider, workspace_id, prepared, applied, started, refresh=refresh)


async def update_for_sources(
    ctx: KnowledgeContext,
    workspace_id: uuid.UUID,
    source_ids: Sequence[uuid.UUID],
    *,
    llm: LLMProvider | None = None,
) -> list[KnowledgeUpdate]:
    """The knowledge update of a batch of new sources, as :func:`update_for_source` with
    ``refresh=False`` for each of them in order would do it, with the work shared: the
    sources and chunks read in one query, every claim and summary embedded in one call, and
    one transaction (one workspace lock) applying the sources one after another. All or
    nothing: a failure rolls the whole batch back (callers may then go source by source).

    With a generative model the wiki step of each source reads the graph as that source
    left it, so the batch is run source by source. The graph-wide refresh is the caller's
    (once after the batch, or the debounced job). Each report's ``total_ms`` is the batch's.
    """
    return await apply_batch(
        ctx, workspace_id, await prepare_batch(ctx, workspace_id, source_ids, llm=llm)
    )


@dataclass
class PreparedBatch:
    """The first half of :func:`update_for_sources`: the sources read, extracted and
    their claims and summaries embedded (:func:`prepare_sources`) — nothing written, so
    the next batch can be prepared while this one is applied (what it reads does not
    depend on the knowledge the batches before it write)."""

    ids: list[uuid.UUID]
    provider: LLMProvider
    started: float
    prepared: list[PreparedSource] | None  # None: a generative model, source by source


async def prepare_batch(
    ctx: KnowledgeContext,
    workspace_id: uuid.UUID,
    source_ids: Sequence[uuid.UUID],
    *,
    llm: LLMProvider | None = None,
) -> PreparedBatch:
    """Read, extract and embed a batch for :func:`apply_batch`."""
    ids = list(dict.fromkeys(source_ids))
    provider = resolve_llm(ctx, llm)
    started = time.perf_counter()
    if llmx.is_generative(provider) or not ids:
        return PreparedBatch(ids, provider, started, None)
    return PreparedBatch(
        ids, provider, started, await prepare_sources(ctx, provider, workspace_id, ids)
    )


async def apply_batch(
    ctx: KnowledgeContext, workspace_id: uuid.UUID, batch: PreparedBatch
) -> list[KnowledgeUpdate]:
    """Write a prepared batch in one transaction (see :func:`update_for_sources`); each
    report's ``total_ms`` counts from the start of its preparation."""
    provider, started, prepared = batch.provider, batch.started, batch.prepared
    if prepared is None:
        return [
            await update_for_source(ctx, workspace_id, sid, llm=provider, refresh=False)
            for sid in batch.ids
        ]
    applied: list[AppliedSource] = []
    async with ctx.db.transaction() as session:
        await repo.lock_workspace(session, workspace_id)
        workspace = await require_workspace(session, workspace_id)
        for one in prepared:
            applied.append(await apply_source(session, ctx, workspace, one))
    return [
        await _finish(ctx, provider, workspace_id, p, a, started, refresh=False)
        for p, a in zip(prepared, applied, strict=True)
    ]


async def _finish(
    ctx: KnowledgeContext,
    provider: LLMProvider,
    workspace_id: uuid.UUID,
    prepared: PreparedSource,
    applied: AppliedSource,
    started: float,
    *,
    refresh: bool,
) -> KnowledgeUpdate:
    """The LLM steps after a source's knowledge was written (wiki pages, evidence
    classification), the optional inline refresh, and the report."""
    embedder = ctx.embedder
    timings = prepared.timings
    source_id, title = prepared.source.id, prepared.source.title
    state, new_row = applied.local.state, applied.new_row
    candidates, evidence_rows = applied.candidates, applied.evidence_rows
    wiki: list[str] = []
    if llmx.is_generative(provider):
        t = time.perf_counter()
        async with ctx.db.transaction() as session:
            await repo.lock_workspace(session, workspace_id)
            sources = await repo.workspace_sources(session, workspace_id)
            written = await llm_wiki(
                session, embedder, provider, workspace_id, new_row, state, ctx.settings.knowledge
            )
            if written is None:  # the model gave nothing usable: offline pages, its concepts
                written = await write_offline_pages(
                    session,
                    embedder,
                    workspace_id,
                    state,
                    central_slugs(state, ctx.settings.knowledge.wiki_central_pages),
                    prefer=source_id,
                    abstracts={s.id: s.abstract for s in sources},
                    reason=f"source added: {title or source_id}",
                    settings=ctx.settings.knowledge,
                )
            wiki = written
            await repair_links(session, embedder, workspace_id)
        timings["wiki"] = elapsed_ms(t)

    if llmx.is_generative(provider) and candidates:
        t = time.perf_counter()
        await classify_evidence(ctx, provider, evidence_rows, candidates)
        timings["evidence_llm"] = elapsed_ms(t)
    timings["update"] = elapsed_ms(started)

    n_concepts, n_removed, n_clusters = applied.local.total_concepts, 0, 0
    if refresh:
        done = await refresh_workspace(
            ctx, workspace_id, llm=provider, reason=f"source added: {title or source_id}"
        )
        n_concepts, n_removed, n_clusters = done.concepts, done.concepts_removed, done.clusters
        wiki = sorted(set(wiki) | set(done.wiki_pages))
        timings["refresh"] = done.total_ms

    return KnowledgeUpdate(
        workspace_id=workspace_id,
        source_id=source_id,
        engine=prepared.engine,
        extraction_ms=timings["extract"],
        total_ms=elapsed_ms(started),
        concepts=n_concepts,
        concepts_added=applied.local.added,
        concepts_removed=n_removed,
        claims=len(applied.claim_ids),
        evidence=len(evidence_rows),
        source_edges=applied.source_edges,
        clusters=n_clusters,
        wiki_pages=tuple(wiki),
        quality=applied.quality,
        timings_ms=timings,
        fallback_reason=prepared.fallback_reason,
        cites=applied.cites,
        refreshed=refresh,
        rows_read={**applied.local.rows_read, "sources_for_edges": applied.edge_reads},
    )


async def remove_source(
    ctx: KnowledgeContext, workspace_id: uuid.UUID, source_id: uuid.UUID, *, refresh: bool = True
) -> KnowledgeRemoval:
    """Delete ``source_id`` (if it still exists) and update what depended on it.

    Bounded: its chunks, claims, evidence, edges, cluster memberships and concept links go
    with it (cascades); the concepts no other source links are deleted, and wiki pages that
    cite nothing left. ``refresh`` then runs the graph-wide refresh inline (centrality,
    levels, edges, clusters, the central pages it fed rewritten, links to deleted pages
    unlinked); the delete use case passes ``refresh=False`` and requests the debounced job.
    Quality scores of other sources do not depend on it.
    """
    started = time.perf_counter()
    async with ctx.db.transaction() as session:
        await repo.lock_workspace(session, workspace_id)
        await require_workspace(session, workspace_id)
        source = await repo.get_source(session, source_id)
        if source is not None and source.workspace_id != workspace_id:
            raise NotFoundError(f"no source with id {source_id} in workspace {workspace_id}")
        before = [cid for cid, _ in await repo.links_of_source(session, source_id)]
        deleted = await repo.delete_source(session, source_id) if source is not None else False
        await repo.bump_knowledge_version(session, workspace_id)
        still = {cid for _, cid, _ in await repo.links_of_concepts(session, before)}
        orphans = [cid for cid in before if cid not in still]
        await repo.delete_concepts(session, orphans)
        present = {str(s.id) for s in await repo.workspace_sources(session, workspace_id)}
        gone = await delete_uncited_pages(session, workspace_id, present)
    updated: tuple[str, ...] = ()
    n_concepts, n_clusters = -1, -1
    if refresh:
        title = source.title if source else source_id
        done = await refresh_workspace(ctx, workspace_id, reason=f"source removed: {title}")
        updated, n_concepts, n_clusters = done.wiki_pages, done.concepts, done.clusters
    return KnowledgeRemoval(
        workspace_id=workspace_id,
        source_id=source_id,
        deleted=deleted,
        concepts=n_concepts,
        concepts_removed=len(orphans),
        clusters=n_clusters,
        wiki_pages_updated=updated,
        wiki_pages_deleted=tuple(gone),
        total_ms=elapsed_ms(started),
    )


async def rebuild_workspace(
    ctx: KnowledgeContext,
    workspace_id: uuid.UUID,
    *,
    llm: LLMProvider | None = None,
    progress: Progress | None = None,
) -> RebuildResult:
    """Recompute the whole knowledge layer of a workspace from its sources.

    Every source is extracted again; concepts are merged once over all of them (stored
    concepts keep their slugs), every claim's evidence is searched again, all source edges,
    clusters and quality scores are recomputed, and the wiki is rewritten (revisions kept).
    """
    started = time.perf_counter()
    timings: dict[str, float] = {}
    provider = resolve_llm(ctx, llm)
    embedder = ctx.embedder

    async def report(message: str, stage: str, value: float) -> None:
        if progress is not None:
            await progress(message, stage, value)

    async with ctx.db.session() as session:
        await require_workspace(session, workspace_id)
        sources = await repo.workspace_sources(session, workspace_id)
    await report(f"{len(sources)} sources", "extract", 0.0)

    t = time.perf_counter()
    extractions: dict[uuid.UUID, Extraction] = {}
    engines: Counter[str] = Counter()
    chunk_ids: dict[uuid.UUID, dict[int, int]] = {}
    for i, s in enumerate(sources):
        async with ctx.db.session() as session:
            chunks = await repo.chunk_rows(session, [s.id])
        result, extraction = await extract_with_metadata(ctx, provider, s, chunks)
        extractions[s.id] = extraction
        engines[result.engine] += 1
        chunk_ids[s.id] = {c.chunk_index: int(c.id) for c in chunks if c.id is not None}
        async with ctx.db.transaction() as session:
            fields = extraction_fields(extraction, result.engine)
            if s.mean_embedding is None:
                mean = await repo.mean_chunk_embedding(session, s.id)
                if mean is not None:
                    fields["mean_embedding"] = mean
            await repo.store_extraction(session, s.id, fields)
        if (i + 1) % 10 == 0 or i + 1 == len(sources):
            await report(
                f"extracted {i + 1}/{len(sources)}", "extract", 0.6 * (i + 1) / len(sources)
            )
    timings["extract"] = elapsed_ms(t)

    async with ctx.db.transaction() as session:
        await repo.lock_workspace(session, workspace_id)
        workspace = await require_workspace(session, workspace_id)
        sources = await repo.workspace_sources(session, workspace_id)
        ids = [s.id for s in sources]
        fresh = {sid: ex for sid, ex in extractions.items() if sid in set(ids)}
        await repo.bump_knowledge_version(session, workspace_id)
        await report("merging concepts", "concepts", 0.62)
        t = time.perf_counter()
        state = await sync_concepts(session, embedder, workspace_id, ids, fresh)
        timings["concepts"] = elapsed_ms(t)

        await report("claims and evidence", "claims", 0.7)
        t = time.perf_counter()
        await repo.delete_workspace_claims(session, workspace_id)
        all_claims: list[uuid.UUID] = []
        claim_texts = [c.text for ex in fresh.values() for c in ex.claims]
        claim_vecs = await embed_texts(embedder, claim_texts)
        offset = 0
        for sid, ex in fresh.items():
            vecs = claim_vecs[offset : offset + len(ex.claims)]
            offset += len(ex.claims)
            all_claims += await store_claims(
                session, workspace_id, sid, ex, chunk_ids.get(sid, {}), vecs
            )
        candidates = await repo.evidence_for_claims(
            session,
            all_claims,
            min_similarity=ctx.settings.knowledge.evidence_min_similarity,
            per_claim=ctx.settings.knowledge.evidence_per_claim,
        )
        # a nearest passage is evidence only when it shares more than the topic (issue 35)
        forms = evidence_concept_forms(state, len(sources))
        shared = [(c, shared_terms(c, forms)) for c in candidates]
        candidates = [c for c, terms in shared if terms]
        evidence_rows = [related_row(c, terms) for c, terms in shared if terms]
        await repo.insert_evidence(session, evidence_rows)
        timings["claims"] = elapsed_ms(t)

        await report("source edges, clusters, quality", "edges", 0.8)
        t = time.perf_counter()
        n_edges = await update_source_edges(session, workspace_id, sources, state, None)
        n_clusters = await recluster(session, workspace_id, sources)
        n_cites = await relink_workspace(session, workspace_id)
        workspace.description_embedding = None
        ws_vector, _ = await workspace_vector(session, embedder, workspace)
        await store_quality(session, embedder, sources, ws_vector)
        timings["edges_clusters_quality"] = elapsed_ms(t)

    await report("wiki", "wiki", 0.9)
    t = time.perf_counter()
    async with ctx.db.transaction() as session:
        await repo.lock_workspace(session, workspace_id)
        present = {str(s.id) for s in sources}
        await delete_uncited_pages(session, workspace_id, present)
        done = False
        if llmx.is_generative(provider):
            for s in sources:
                if (
                    await llm_wiki(
                        session, embedder, provider, workspace_id, s, state, ctx.settings.knowledge
                    )
                    is not None
                ):
                    done = True
        if not done:
            await write_offline_pages(
                session,
                embedder,
                workspace_id,
                state,
                central_slugs(state, ctx.settings.knowledge.wiki_central_pages),
                prefer=None,
                abstracts={s.id: s.abstract for s in sources},
                reason="workspace rebuilt",
                settings=ctx.settings.knowledge,
            )
        await repair_links(session, embedder, workspace_id)
        n_pages = len(await repo.list_wiki_pages(session, workspace_id))
    timings["wiki"] = elapsed_ms(t)

    if llmx.is_generative(provider) and candidates:
        await report("classifying evidence", "evidence", 0.95)
        await classify_evidence(ctx, provider, evidence_rows, candidates)

    await report("done", "done", 1.0)
    return RebuildResult(
        workspace_id=workspace_id,
        sources=len(sources),
        concepts=len(state.rows),
        concept_edges=len(state.edges),
        claims=len(all_claims),
        evidence=len(evidence_rows),
        source_edges=n_edges,
        clusters=n_clusters,
        wiki_pages=n_pages,
        engine=", ".join(f"{k} ×{v}" for k, v in sorted(engines.items())) or llmx.OFFLINE_ENGINE,
        total_ms=elapsed_ms(started),
        timings_ms=timings,
        cites=n_cites,
    )


# ---------------------------------------------------------------------------- learning paths


# ---------------------------------------------------------------------------- read API
