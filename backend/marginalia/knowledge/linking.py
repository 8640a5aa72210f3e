"""The update side, links: claims and their evidence, source-to-source edges,
redundancy clusters and quality scores written to the database."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
from sqlalchemy.ext.asyncio import AsyncSession

from marginalia.embed.base import Embedder
from marginalia.knowledge import llm_extraction as llmx
from marginalia.knowledge import repository as repo
from marginalia.knowledge.clusters import redundancy_clusters
from marginalia.knowledge.concept_store import ConceptState
from marginalia.knowledge.context import KnowledgeContext, require_workspace
from marginalia.knowledge.edges import (
    STRONG_EMBEDDING,
    STRONG_SHARED,
    STRONG_TITLE,
    WEAK_EMBEDDING,
    WEAK_SHARED,
    WEAK_TITLE,
    SourceForEdges,
    all_edges,
    concept_frequencies,
    edges_for_new_source,
)
from marginalia.knowledge.edges import (
    SourceEdge as PureSourceEdge,
)
from marginalia.knowledge.evidence_terms import shared_salient_terms
from marginalia.knowledge.quality import quality_score
from marginalia.knowledge.schemas import Extraction
from marginalia.knowledge.text import title_tokens
from marginalia.knowledge.vectors import embed_texts
from marginalia.llm.base import LLMProvider


async def store_claims(
    session: AsyncSession,
    workspace_id: uuid.UUID,
    source_id: uuid.UUID,
    extraction: Extraction,
    chunk_ids: Mapping[int, int],
    vectors: np.ndarray,
) -> list[uuid.UUID]:
    rows = [
        {
            "workspace_id": workspace_id,
            "source_id": source_id,
            "chunk_id": chunk_ids.get(c.chunk_index) if c.chunk_index is not None else None,
            "text": c.text,
            "quote": c.quote,
            "embedding": vectors[i],
        }
        for i, c in enumerate(extraction.claims)
    ]
    return await repo.insert_claims(session, rows)


TOPIC_SHARE = 0.5
"""A concept linked to at least this share of the workspace's sources (four or more) is a
topic of the workspace: sharing it says nothing about a claim and a passage."""


def evidence_concept_forms(state: ConceptState, n_sources: int) -> list[str]:
    """Names and aliases of the concepts in ``state`` that are no topic of the workspace."""
    forms: list[str] = []
    for cid, row in state.rows.items():
        linked = len(state.concept_sources.get(state.slug_of[cid], ()))
        if n_sources >= 4 and linked >= TOPIC_SHARE * n_sources:
            continue
        forms += [row.name, *(row.aliases or [])]
    return sorted({f for f in forms if len(f.strip()) >= 2})


def shared_terms(c: repo.EvidenceCandidate, concepts: Sequence[str] = ()) -> list[str]:
    """What a nearest passage shares with the claim beyond the topic (empty: no link;
    :mod:`marginalia.knowledge.evidence_terms`)."""
    return shared_salient_terms(c.claim_text, c.passage, concepts)


def related_row(c: repo.EvidenceCandidate, shared: Sequence[str] = ()) -> dict[str, Any]:
    said = ", ".join(f"“{t}”" for t in shared)
    return {
        "id": uuid.uuid4(),
        "claim_id": c.claim_id,
        "source_id": c.source_id,
        "chunk_id": c.chunk_id,
        "relation": "related",
        "score": round(c.similarity, 6),
        "rationale": (
            f"shares {said or 'no salient term'}; cosine similarity {c.similarity:.3f}; "
            "no model judged the direction of the evidence"
        ),
        "engine": llmx.OFFLINE_ENGINE,
    }


async def classify_evidence(
    ctx: KnowledgeContext,
    provider: LLMProvider,
    rows: Sequence[dict[str, Any]],
    candidates: Sequence[repo.EvidenceCandidate],
) -> int:
    """Ask the LLM about stored "related" evidence rows; update those it judged."""
    if not llmx.is_generative(provider) or not rows:
        return 0
    limits = ctx.settings.knowledge
    semaphore = asyncio.Semaphore(limits.llm_concurrency)
    engine = llmx.engine_name(provider)

    async def one(row: dict[str, Any], cand: repo.EvidenceCandidate) -> dict[str, Any] | None:
        async with semaphore:
            judgement = await llmx.classify_evidence(provider, cand.claim_text, cand.passage)
        if judgement is None:
            return None
        return {
            "id": row["id"],
            "relation": judgement.relation,
            "rationale": judgement.rationale or None,
            "engine": engine,
        }

    pairs = list(zip(rows, candidates, strict=True))[: limits.max_llm_evidence_calls]
    results = [r for r in await asyncio.gather(*(one(r, c) for r, c in pairs)) if r is not None]
    if results:
        async with ctx.db.transaction() as session:
            await repo.update_evidence(session, results)
    return len(results)


def _edge_row(workspace_id: uuid.UUID, e: PureSourceEdge) -> dict[str, Any]:
    return {
        "workspace_id": workspace_id,
        "source_a_id": uuid.UUID(e.a),
        "source_b_id": uuid.UUID(e.b),
        "strength": e.strength,
        "signals": {
            "shared_concepts": list(e.signals.shared_concepts),
            "title_jaccard": e.signals.title_jaccard,
            "embedding_sim": e.signals.embedding_sim,
        },
        "label": e.label,
    }


async def update_source_edges(
    session: AsyncSession,
    workspace_id: uuid.UUID,
    sources: Sequence[repo.SourceRow],
    state: ConceptState,
    new_id: uuid.UUID | None,
) -> int:
    items = [
        SourceForEdges(
            id=str(s.id),
            title=s.title,
            concepts=state.source_concepts.get(s.id, {}),
            embedding=s.mean_embedding,
        )
        for s in sources
    ]
    df = concept_frequencies(items)
    if new_id is None:
        await repo.delete_source_edges(session, workspace_id)
        edges = all_edges(items, df)
    else:
        await repo.delete_source_edges(session, workspace_id, new_id)
        new = next(i for i in items if i.id == str(new_id))
        edges = edges_for_new_source(new, [i for i in items if i.id != str(new_id)], df)
    await repo.insert_source_edges(session, [_edge_row(workspace_id, e) for e in edges])
    return len(edges)


_EMBEDDING_MARGIN = 1e-3
"""Slack on PostgreSQL's cosine (float4 vectors) before the exact check in Python."""


async def update_new_source_edges(
    session: AsyncSession,
    workspace_id: uuid.UUID,
    new: repo.SourceRow,
    state: ConceptState,
) -> tuple[int, int]:
    """The new source's edges (DESIGN §6), reading only the sources that can have one.

    Which those are follows from the rules: sharing ≥ 2 concepts (those sources are in
    ``state``, which links every source to each of the new source's concepts); sharing one
    and a title Jaccard above ``WEAK_TITLE`` — more than a quarter of the new title's
    words in the other title — or an embedding similarity above ``WEAK_EMBEDDING``; or,
    sharing none, above ``STRONG_TITLE`` (more than half of its words) or
    ``STRONG_EMBEDDING``. PostgreSQL returns the ids that may pass the title and embedding
    tests (with a margin), then the rules run on those rows exactly as on the whole
    workspace. Returns ``(edges, sources read)``."""
    mine = set(state.source_concepts.get(new.id, {}))
    shared = {
        sid: len(mine & set(concepts))
        for sid, concepts in state.source_concepts.items()
        if sid != new.id
    }
    words = sorted(title_tokens(new.title))
    plain = [w for w in words if w.isascii()]
    found = len(words) - len(plain)  # a non-ASCII word counts as found
    # |A ∩ B| > t·|A ∪ B| ≥ t·|A| for a Jaccard above t
    passing, ready = await repo.edge_candidates(
        session,
        workspace_id,
        new.id,
        title_patterns=[f"%{w}%" for w in plain],
        strong_hits=int(len(words) * STRONG_TITLE) + 1 - found,
        strong_distance=1 - STRONG_EMBEDDING + _EMBEDDING_MARGIN,
        shared_once=sorted((sid for sid, n in shared.items() if n == WEAK_SHARED), key=str),
        weak_hits=int(len(words) * WEAK_TITLE) + 1 - found,
        weak_distance=1 - WEAK_EMBEDDING + _EMBEDDING_MARGIN,
        linked=sorted(shared, key=str),
    )
    candidates = {sid for sid in ready if shared[sid] >= STRONG_SHARED} | set(passing)
    candidates.discard(new.id)
    others = await repo.workspace_sources(session, workspace_id, sorted(candidates, key=str))
    items = [
        SourceForEdges(
            id=str(s.id),
            title=s.title,
            concepts=state.source_concepts.get(s.id, {}),
            embedding=s.mean_embedding,
        )
        for s in [*others, new]
    ]
    # the labels' "rarest concept" counts every ready source linked to it, read or not
    ready.add(new.id)
    df = {
        slug: sum(1 for sid in sids if sid in ready) for slug, sids in state.concept_sources.items()
    }
    await repo.delete_source_edges(session, workspace_id, new.id)
    edges = edges_for_new_source(items[-1], items[:-1], df)
    await repo.insert_source_edges(session, [_edge_row(workspace_id, e) for e in edges])
    return len(edges), len(others)


async def recluster(
    session: AsyncSession, workspace_id: uuid.UUID, sources: Sequence[repo.SourceRow]
) -> int:
    with_vec = [s for s in sources if s.mean_embedding is not None]
    titles = {str(s.id): s.title for s in with_vec}
    if len(with_vec) < 2:
        await repo.replace_clusters(session, workspace_id, [])
        return 0
    matrix = np.stack([np.asarray(s.mean_embedding, dtype=np.float64) for s in with_vec])
    clusters = redundancy_clusters([str(s.id) for s in with_vec], matrix)
    await repo.replace_clusters(
        session,
        workspace_id,
        [
            (
                titles.get(c.representative) or None,
                c.mean_similarity,
                [uuid.UUID(m) for m in c.members],
            )
            for c in clusters
        ],
    )
    return len(clusters)


async def workspace_vector(
    session: AsyncSession, embedder: Embedder, workspace: Any
) -> tuple[np.ndarray | None, bool]:
    """The description embedding, computed and stored when missing (then ``True``)."""
    if workspace.description_embedding is not None:
        return np.asarray(workspace.description_embedding, dtype=np.float32), False
    if not (workspace.description or "").strip():
        return None, False
    vector = (await embed_texts(embedder, [workspace.description]))[0]
    await repo.set_description_embedding(session, workspace.id, vector)
    workspace.description_embedding = vector
    return vector, True


async def store_quality(
    session: AsyncSession,
    embedder: Embedder,
    sources: Sequence[repo.SourceRow],
    workspace_vector: np.ndarray | None,
    summary_vectors: Mapping[uuid.UUID, np.ndarray] | None = None,
) -> dict[uuid.UUID, float]:
    summary_vectors = dict(summary_vectors or {})
    missing = [s for s in sources if s.id not in summary_vectors]
    if missing and workspace_vector is not None:
        vecs = await embed_texts(embedder, [s.summary or s.abstract or s.title for s in missing])
        summary_vectors.update({s.id: vecs[i] for i, s in enumerate(missing)})
    year = datetime.now(UTC).year
    scores = {}
    for s in sources:
        q = quality_score(
            citations=s.citation_count,
            year=s.year,
            summary_embedding=summary_vectors.get(s.id),
            workspace_embedding=workspace_vector,
            current_year=year,
        )
        scores[s.id] = (q.total, q.authority, q.recency, q.relevance)
    await repo.store_quality(session, scores)
    return {k: v[0] for k, v in scores.items()}


async def refresh_relevance(ctx: KnowledgeContext, workspace_id: uuid.UUID) -> int:
    """Re-embed the workspace description and recompute every source's quality.

    Call after the description changed. Returns the number of sources scored.
    """
    async with ctx.db.transaction() as session:
        await repo.lock_workspace(session, workspace_id)
        workspace = await require_workspace(session, workspace_id)
        workspace.description_embedding = None
        vector, _ = await workspace_vector(session, ctx.embedder, workspace)
        sources = await repo.workspace_sources(session, workspace_id)
        await store_quality(session, ctx.embedder, sources, vector)
        return len(sources)
