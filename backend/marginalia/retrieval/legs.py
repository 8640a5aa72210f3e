"""The three retrieval legs. Each runs in its own transaction, so they can run at once.

* vector  — pgvector HNSW (cosine) over chunk embeddings, ``hnsw.ef_search`` from settings
  and iterative scans so a workspace filter still fills the list;
* lexical — BM25 in SQL over impact-ordered postings kept in Postgres, candidates scored
  exactly (``bm25.py``);
* concept — concepts of the workspace named in the query (or close to it in embedding
  space), expanded along ``related`` and ``specialization`` (children) edges; the query
  plus the concept names is embedded and searched like the vector leg.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from marginalia.db import Database
from marginalia.embed.base import Embedder
from marginalia.retrieval import repository as repo
from marginalia.retrieval.bm25 import DEFAULT_PARAMS, BM25Params
from marginalia.retrieval.repository import ConceptRow, ScoredChunk
from marginalia.retrieval.trace import LegTrace, RankedEntry

VECTOR = "vector"
LEXICAL = "lexical"
CONCEPT = "concept"
ALL_LEGS: tuple[str, ...] = (VECTOR, LEXICAL, CONCEPT)

#: A concept seeds the concept leg by embedding alone when its cosine to the query is at
#: least this (names/aliases occurring in the query always seed it).
CONCEPT_MIN_SIMILARITY = 0.6
#: At most this many seeds by embedding, and this many concepts added by expansion.
CONCEPT_NEAR_LIMIT = 3
CONCEPT_EXPANSION_LIMIT = 6


@dataclass
class LegOutcome:
    hits: list[ScoredChunk]
    trace: LegTrace
    # Model time spent inside the leg (the concept leg embeds its expanded query).
    embed_ms: float = 0.0


def _trace(
    name: str, hits: Sequence[ScoredChunk], ms: float, trace_depth: int, note: str | None = None
) -> LegTrace:
    return LegTrace(
        name=name,
        status="ok" if hits else "empty",
        ms=ms,
        hits=[
            RankedEntry(h.chunk_id, rank, h.score)
            for rank, h in enumerate(hits[:trace_depth], start=1)
        ],
        total=len(hits),
        note=note,
    )


async def vector_leg(
    db: Database,
    *,
    workspace_id: uuid.UUID,
    query_vector: np.ndarray,
    source_id: uuid.UUID | None = None,
    depth: int = 100,
    ef_search: int = 400,
    trace_depth: int = 20,
) -> LegOutcome:
    t0 = time.perf_counter()
    async with db.transaction() as session:
        hits = await repo.vector_search(
            session,
            workspace_id=workspace_id,
            query_vector=query_vector,
            source_id=source_id,
            depth=depth,
            ef_search=ef_search,
        )
    ms = (time.perf_counter() - t0) * 1000
    note = None if hits else "no chunk with an embedding in scope"
    out = _trace(VECTOR, hits, ms, trace_depth, note)
    out.details = {"ef_search": max(ef_search, depth), "exact": source_id is not None}
    return LegOutcome(hits, out)


async def lexical_leg(
    db: Database,
    *,
    workspace_id: uuid.UUID,
    query: str,
    source_id: uuid.UUID | None = None,
    depth: int = 100,
    params: BM25Params = DEFAULT_PARAMS,
    trace_depth: int = 20,
) -> LegOutcome:
    t0 = time.perf_counter()
    async with db.transaction() as session:
        hits = await repo.bm25_search(
            session,
            workspace_id=workspace_id,
            query=query,
            source_id=source_id,
            depth=depth,
            params=params,
        )
        lexemes = [] if hits else await repo.query_lexemes(session, query)
    ms = (time.perf_counter() - t0) * 1000
    note = None
    if not hits:
        note = (
            "the query has no searchable terms (only stop words or symbols)"
            if not lexemes
            else "no chunk in scope contains any query term"
        )
    out = _trace(LEXICAL, hits, ms, trace_depth, note)
    out.details = {
        "k1": params.k1,
        "b": params.b,
        "exact": params.exact or source_id is not None,
        "per_term": None if params.exact else params.per_term,
    }
    return LegOutcome(hits, out)


@dataclass
class ConceptExpansion:
    seeds: list[ConceptRow] = field(default_factory=list)
    expanded: list[ConceptRow] = field(default_factory=list)
    text: str | None = None


def expansion_text(query: str, concepts: Sequence[ConceptRow], embedder: Embedder) -> str:
    """The query followed by concept names, cut to fit the model window (whole names)."""
    names: list[str] = []
    seen = {query.lower()}
    for c in concepts:
        if c.name.lower() not in seen:
            seen.add(c.name.lower())
            names.append(c.name)
    while names:
        candidate = f"{query}\nRelated concepts: {'; '.join(names)}"
        if embedder.count_tokens(candidate) <= embedder.max_tokens:
            return candidate
        names.pop()
    return query


async def find_concepts(
    db: Database,
    *,
    workspace_id: uuid.UUID,
    query: str,
    query_vector: np.ndarray | None,
) -> tuple[ConceptExpansion, str | None]:
    """Seeds and their expansion; the second value explains an empty result."""
    async with db.session() as session:
        n_concepts = await repo.count_concepts(session, workspace_id)
        if not n_concepts:
            return ConceptExpansion(), "the workspace has no concepts yet"
        seeds = await repo.concepts_named_in(session, workspace_id, query)
        if query_vector is not None:
            known = {c.id for c in seeds}
            near = await repo.concepts_near(
                session,
                workspace_id,
                query_vector,
                min_similarity=CONCEPT_MIN_SIMILARITY,
                limit=CONCEPT_NEAR_LIMIT,
            )
            seeds += [c for c in near if c.id not in known]
        if not seeds:
            return ConceptExpansion(), "no concept of the workspace matched the query"
        expanded = await repo.expand_concepts(
            session, workspace_id, [c.id for c in seeds], limit=CONCEPT_EXPANSION_LIMIT
        )
    return ConceptExpansion(seeds=seeds, expanded=expanded), None


async def concept_leg(
    db: Database,
    embedder: Embedder,
    *,
    workspace_id: uuid.UUID,
    query: str,
    query_vector: np.ndarray | None,
    source_id: uuid.UUID | None = None,
    depth: int = 100,
    ef_search: int = 400,
    trace_depth: int = 20,
) -> LegOutcome:
    t0 = time.perf_counter()
    expansion, why_empty = await find_concepts(
        db, workspace_id=workspace_id, query=query, query_vector=query_vector
    )
    embed_ms = 0.0
    hits: list[ScoredChunk] = []
    if why_empty is None:
        expansion.text = expansion_text(query, [*expansion.seeds, *expansion.expanded], embedder)
        t_embed = time.perf_counter()
        vector = await embedder.embed_query(expansion.text)
        embed_ms = (time.perf_counter() - t_embed) * 1000
        async with db.transaction() as session:
            hits = await repo.vector_search(
                session,
                workspace_id=workspace_id,
                query_vector=vector,
                source_id=source_id,
                depth=depth,
                ef_search=ef_search,
            )
        if not hits:
            why_empty = "no chunk with an embedding in scope"
    ms = (time.perf_counter() - t0) * 1000 - embed_ms
    out = _trace(CONCEPT, hits, ms, trace_depth, why_empty)
    out.details = {
        "seeds": [{"id": str(c.id), "name": c.name, "how": c.how} for c in expansion.seeds],
        "expanded": [{"id": str(c.id), "name": c.name, "how": c.how} for c in expansion.expanded],
        "text": expansion.text,
        "embed_ms": embed_ms,
    }
    return LegOutcome(hits, out, embed_ms)
