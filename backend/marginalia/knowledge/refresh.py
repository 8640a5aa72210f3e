"""The graph-wide part of the knowledge update, run per workspace, not per source.

:func:`marginalia.knowledge.update.update_for_source` writes what one source changes
(:mod:`marginalia.knowledge.concept_local`); :func:`refresh_workspace` then brings the
statistics that depend on the whole graph up to date:

* embeddings of the concepts the updates added;
* the concept graph re-merged over every source (:func:`~marginalia.knowledge.concept_store.
  sync_concepts`): PageRank centrality, workspace levels, merges a new acronym revealed,
  edges that no longer hold;
* redundancy clusters (average linkage over every source);
* the offline wiki's pages of the central concepts (written only when their text changed),
  and ``[[links]]`` to concepts that no longer exist;
* the lexical index's posting blocks, which every insert appends, merged into full ones
  (:func:`marginalia.db.repositories.lexical_index.compact_postings`, migration 0015).

It runs inline after a direct ``update_for_source`` call (the default), at the end of a
research or import job, and as the debounced ``knowledge.refresh`` job after uploads
(:mod:`marginalia.usecases.knowledge`). Until it runs, the canvas and the wiki read the
previous statistics; the workspace's ``knowledge_version`` was already bumped by the update
(and is bumped again here), so learning paths know they are stale.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field

from marginalia.db.repositories.lexical_index import compact_postings
from marginalia.knowledge import llm_extraction as llmx
from marginalia.knowledge import repository as repo
from marginalia.knowledge.concept_store import sync_concepts
from marginalia.knowledge.context import (
    KnowledgeContext,
    elapsed_ms,
    require_workspace,
    resolve_llm,
)
from marginalia.knowledge.linking import recluster
from marginalia.knowledge.vectors import embed_texts
from marginalia.knowledge.wiki_update import central_slugs, repair_links, write_offline_pages
from marginalia.llm.base import LLMProvider


@dataclass(frozen=True)
class RefreshResult:
    workspace_id: uuid.UUID
    sources: int
    concepts: int
    concepts_removed: int
    clusters: int
    wiki_pages: tuple[str, ...]
    knowledge_version: int
    """The workspace's version once the refresh committed: a later update bumps it."""
    total_ms: float
    timings_ms: dict[str, float] = field(default_factory=dict)


async def refresh_workspace(
    ctx: KnowledgeContext,
    workspace_id: uuid.UUID,
    *,
    llm: LLMProvider | None = None,
    reason: str = "knowledge refresh",
) -> RefreshResult:
    """Recompute the workspace's graph-wide knowledge statistics (see the module doc)."""
    started = time.perf_counter()
    timings: dict[str, float] = {}
    provider = resolve_llm(ctx, llm)
    embedder = ctx.embedder
    async with ctx.db.transaction() as session:
        await repo.lock_workspace(session, workspace_id)
        await require_workspace(session, workspace_id)
        sources = await repo.workspace_sources(session, workspace_id)
        t = time.perf_counter()
        state = await sync_concepts(session, embedder, workspace_id, [s.id for s in sources], {})
        timings["concepts"] = elapsed_ms(t)
        t = time.perf_counter()
        missing = await repo.concepts_without_embedding(session, workspace_id)
        if missing:
            vectors = await embed_texts(embedder, [name for _, name in missing])
            await repo.set_concept_embeddings(
                session, [(cid, vectors[i]) for i, (cid, _) in enumerate(missing)]
            )
        timings["embed_concepts"] = elapsed_ms(t)
        t = time.perf_counter()
        n_clusters = await recluster(session, workspace_id, sources)
        timings["clusters"] = elapsed_ms(t)
        await repo.bump_knowledge_version(session, workspace_id)
        version = await repo.knowledge_version(session, workspace_id)

    t = time.perf_counter()
    written: list[str] = []
    async with ctx.db.transaction() as session:
        await repo.lock_workspace(session, workspace_id)
        if not llmx.is_generative(provider):
            written = await write_offline_pages(
                session,
                embedder,
                workspace_id,
                state,
                central_slugs(state, ctx.settings.knowledge.wiki_central_pages),
                prefer=None,
                abstracts={s.id: s.abstract for s in sources},
                reason=reason,
                settings=ctx.settings.knowledge,
            )
        repaired = await repair_links(session, embedder, workspace_id)
    timings["wiki"] = elapsed_ms(t)
    t = time.perf_counter()
    async with ctx.db.transaction() as session:
        await compact_postings(session, workspace_id)
    timings["lexical_compaction"] = elapsed_ms(t)
    return RefreshResult(
        workspace_id=workspace_id,
        sources=len(sources),
        concepts=len(state.rows),
        concepts_removed=state.removed,
        clusters=n_clusters,
        wiki_pages=tuple(sorted(set(written) | set(repaired))),
        knowledge_version=version,
        total_ms=elapsed_ms(started),
        timings_ms=timings,
    )
