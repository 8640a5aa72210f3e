"""Every SQL statement retrieval runs (raw SQL through ``sqlalchemy.text``)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pgvector.sqlalchemy import Vector
from sqlalchemy import Integer, bindparam, text
from sqlalchemy.ext.asyncio import AsyncSession

from marginalia.db.repositories.lexical_index import source_totals
from marginalia.retrieval.bm25 import DEFAULT_PARAMS, BM25Params

# BM25 over impact-ordered posting blocks (see marginalia.retrieval.bm25 for the model;
# ``retrieval_term_postings`` reads a term's blocks from the top impact bucket down).
# Parameters: :ws (workspace), :query (text), :src (source), :k1, :b, :depth, :query_tf,
# :per_term, :budget and :candidates (NULL per_term and candidates: exact BM25).
_SCORE_HEAD = """
WITH q AS MATERIALIZED (
    SELECT u.lexeme,
           CASE WHEN :query_tf THEN coalesce(array_length(u.positions, 1), 1) ELSE 1 END AS qtf
      FROM unnest(to_tsvector('english', :query)) AS u
),
st AS MATERIALIZED (
    SELECT sum(n_chunks)::float8 AS n,
           sum(total_len)::float8 / nullif(sum(n_chunks), 0)::float8 AS avgdl
      FROM retrieval_source_stats
     WHERE workspace_id = :ws
),
w AS MATERIALIZED (
    SELECT t.id, t.lexeme, q.qtf * ln(1.0 + (st.n - t.df + 0.5) / (t.df + 0.5)) AS wt,
           -- The rarest terms are read whole while their postings fit the budget.
           sum(t.df) OVER (ORDER BY t.df, t.id) <= :budget AS whole
      FROM q
      JOIN retrieval_terms AS t ON t.workspace_id = :ws AND t.lexeme = q.lexeme
     CROSS JOIN st
     WHERE t.df > 0
),
"""
# Candidates: the best chunks by idf x impact over the postings read: all of the rarest
# terms' (up to :budget postings in all), the top :per_term by impact of the others.
_CANDIDATES_WORKSPACE = """
cand AS MATERIALIZED (
    SELECT p.chunk_id
      FROM w CROSS JOIN LATERAL (
               SELECT i.chunk_id, i.impact
                 FROM retrieval_term_postings(
                          w.id, CASE WHEN w.whole THEN NULL ELSE CAST(:per_term AS bigint) END
                      ) AS i
                ORDER BY i.impact DESC, i.chunk_id DESC
                LIMIT CASE WHEN w.whole THEN NULL ELSE CAST(:per_term AS bigint) END) AS p
     GROUP BY p.chunk_id
     ORDER BY sum(w.wt * p.impact) DESC, p.chunk_id
     LIMIT :candidates
),
d AS MATERIALIZED (
    SELECT c.id, c.source_id, c.tsv FROM cand JOIN chunks AS c ON c.id = cand.chunk_id
)
"""
# One source has few chunks: all of them are scored exactly.
_CANDIDATES_SOURCE = """
d AS MATERIALIZED (
    SELECT c.id, c.source_id, c.tsv FROM chunks AS c
     WHERE c.source_id = CAST(:src AS uuid) AND c.workspace_id = :ws
)
"""
_SCORE_TAIL = """
SELECT d.id, d.source_id,
       sum(w.wt * u.tf * (:k1 + 1.0)
           / (u.tf + :k1 * (1.0 - :b + :b * u.dl / nullif(st.avgdl, 0)))) AS score
  FROM d
 CROSS JOIN LATERAL (
       SELECT y.lexeme, y.tf, sum(y.tf) OVER () AS dl
         FROM (SELECT x.lexeme, coalesce(array_length(x.positions, 1), 1) AS tf
                 FROM unnest(d.tsv) AS x) AS y) AS u
  JOIN w ON w.lexeme = u.lexeme
 CROSS JOIN st
 GROUP BY d.id, d.source_id
 ORDER BY score DESC, d.id
 LIMIT :depth
"""


def score_sql(*, source_scoped: bool) -> str:
    """The BM25 statement: over a workspace (pruned unless told exact) or one source."""
    middle = _CANDIDATES_SOURCE if source_scoped else _CANDIDATES_WORKSPACE
    return _SCORE_HEAD + middle + _SCORE_TAIL


SCORE_SQL = score_sql(source_scoped=False)


@dataclass(frozen=True)
class ScoredChunk:
    chunk_id: int
    source_id: uuid.UUID
    score: float


@dataclass(frozen=True)
class ChunkRow:
    chunk_id: int
    source_id: uuid.UUID
    text: str
    section_type: str
    section_title: str | None
    page_start: int | None
    page_end: int | None
    char_start: int | None
    char_end: int | None


@dataclass(frozen=True)
class ConceptRow:
    id: uuid.UUID
    name: str
    level: int
    how: str  # "name" | "alias" | "embedding" | "related" | "specialization"
    similarity: float | None = None


# ------------------------------------------------------------------------- lexical


async def bm25_search(
    session: AsyncSession,
    *,
    workspace_id: uuid.UUID,
    query: str,
    source_id: uuid.UUID | None = None,
    depth: int = 100,
    params: BM25Params = DEFAULT_PARAMS,
) -> list[ScoredChunk]:
    result = await session.execute(
        text(score_sql(source_scoped=source_id is not None)),
        {
            "ws": workspace_id,
            "query": query,
            "src": str(source_id) if source_id else None,
            "k1": params.k1,
            "b": params.b,
            "query_tf": params.query_tf,
            "depth": depth,
            "per_term": None if params.exact else params.per_term,
            "budget": params.whole_budget,
            "candidates": None if params.exact else max(params.candidates, depth),
        },
    )
    return [ScoredChunk(int(r[0]), r[1], float(r[2])) for r in result.all()]


async def query_lexemes(session: AsyncSession, query: str) -> list[str]:
    result = await session.execute(
        text("SELECT lexeme FROM unnest(to_tsvector('english', :q)) ORDER BY lexeme"), {"q": query}
    )
    return [str(r[0]) for r in result.all()]


async def workspace_term_stats(session: AsyncSession, workspace_id: uuid.UUID) -> dict[str, float]:
    """N (chunks) and avgdl of a workspace as the BM25 query sees them."""
    chunks, length = await source_totals(session, workspace_id)
    n, total = float(chunks), float(length)
    return {"n": n, "total_len": total, "avgdl": total / n if n else 0.0}


async def document_frequencies(
    session: AsyncSession, workspace_id: uuid.UUID, lexemes: Sequence[str]
) -> dict[str, int]:
    result = await session.execute(
        text(
            "SELECT lexeme, df FROM retrieval_terms "
            "WHERE workspace_id = :ws AND lexeme = ANY(:lx) AND df > 0"
        ),
        {"ws": workspace_id, "lx": list(lexemes)},
    )
    return {str(r[0]): int(r[1]) for r in result.all()}


# ------------------------------------------------------------------------- vector


_VECTOR_WORKSPACE_SQL = text(
    """WITH nn AS MATERIALIZED (
           SELECT id, source_id, embedding <=> :q AS distance
             FROM chunks
            WHERE workspace_id = :ws AND embedding IS NOT NULL
            ORDER BY embedding <=> :q
            LIMIT :depth)
       SELECT id, source_id, distance FROM nn ORDER BY distance, id"""
).bindparams(bindparam("q", type_=Vector()))

# One source has few chunks: an exact scan through the source_id index is both exact
# and faster than walking the HNSW graph for a handful of matching rows.
_VECTOR_SOURCE_SQL = text(
    """WITH c AS MATERIALIZED (
           SELECT id, source_id, embedding <=> :q AS distance
             FROM chunks
            WHERE source_id = :src AND workspace_id = :ws AND embedding IS NOT NULL)
       SELECT id, source_id, distance FROM c ORDER BY distance, id LIMIT :depth"""
).bindparams(bindparam("q", type_=Vector()))


# Whether the server's pgvector has iterative index scans (0.8+), per database URL.
_ITERATIVE_SCAN: dict[str, bool] = {}


async def set_hnsw_search(session: AsyncSession, ef_search: int) -> None:
    """Per-transaction HNSW knobs: a wide candidate list, and iterative scans so that a
    workspace filter still yields ``depth`` rows (pgvector ≥ 0.8; ignored before)."""
    bind = session.get_bind()
    url = str(bind.engine.url)
    has_iterative = _ITERATIVE_SCAN.get(url)
    if has_iterative is None:
        has_iterative = bool(
            await session.scalar(
                text("SELECT count(*) FROM pg_settings WHERE name = 'hnsw.iterative_scan'")
            )
        )
        _ITERATIVE_SCAN[url] = has_iterative
    # One round trip for both settings.
    sql = f"SELECT set_config('hnsw.ef_search', '{int(ef_search)}', true)"
    if has_iterative:
        sql += ", set_config('hnsw.iterative_scan', 'relaxed_order', true)"
    await session.execute(text(sql))


async def vector_search(
    session: AsyncSession,
    *,
    workspace_id: uuid.UUID,
    query_vector: np.ndarray,
    source_id: uuid.UUID | None = None,
    depth: int = 100,
    ef_search: int = 400,
) -> list[ScoredChunk]:
    """Nearest chunks by cosine; score = cosine similarity (1 − distance)."""
    vec = np.asarray(query_vector, dtype=np.float32)
    if source_id is None:
        await set_hnsw_search(session, max(ef_search, depth))
        result = await session.execute(
            _VECTOR_WORKSPACE_SQL, {"q": vec, "ws": workspace_id, "depth": depth}
        )
    else:
        result = await session.execute(
            _VECTOR_SOURCE_SQL,
            {"q": vec, "ws": workspace_id, "src": source_id, "depth": depth},
        )
    return [ScoredChunk(int(r[0]), r[1], 1.0 - float(r[2])) for r in result.all()]


async def chunk_embeddings(
    session: AsyncSession, chunk_ids: Sequence[int], *, workspace_id: uuid.UUID
) -> dict[int, np.ndarray]:
    """The stored embeddings of the given chunks of the workspace (pseudo-relevance
    feedback reads the first-pass top chunks' vectors); chunks without one are left out."""
    if not chunk_ids:
        return {}
    result = await session.execute(
        text(
            """SELECT id, embedding FROM chunks
                WHERE id = ANY(:ids) AND workspace_id = :ws AND embedding IS NOT NULL"""
        ).columns(id=Integer, embedding=Vector()),
        {"ids": list(chunk_ids), "ws": workspace_id},
    )
    return {int(r[0]): np.asarray(r[1], dtype=np.float32) for r in result.all()}


# ------------------------------------------------------------------------- concepts


async def concepts_named_in(
    session: AsyncSession, workspace_id: uuid.UUID, query: str
) -> list[ConceptRow]:
    """Concepts whose name or an alias occurs in the query as a phrase.

    Matched on lexemes (``phraseto_tsquery``), so stemming and word boundaries apply:
    "transformers" matches the concept "Transformer", "art" does not match "partial".
    """
    result = await session.execute(
        text(
            """WITH qv AS (SELECT to_tsvector('english', :q) AS v)
               SELECT c.id, c.name, c.level,
                      CASE WHEN qv.v @@ phraseto_tsquery('english', c.name) THEN 'name'
                           ELSE 'alias' END AS how
                 FROM concepts c CROSS JOIN qv
                WHERE c.workspace_id = :ws
                  AND (
                    (numnode(phraseto_tsquery('english', c.name)) > 0
                     AND qv.v @@ phraseto_tsquery('english', c.name))
                    OR EXISTS (
                      SELECT 1 FROM jsonb_array_elements_text(
                               CASE WHEN jsonb_typeof(c.aliases) = 'array'
                                    THEN c.aliases ELSE '[]'::jsonb END) a(alias)
                       WHERE numnode(phraseto_tsquery('english', a.alias)) > 0
                         AND qv.v @@ phraseto_tsquery('english', a.alias)))
                ORDER BY c.level DESC, c.name"""
        ),
        {"ws": workspace_id, "q": query},
    )
    return [ConceptRow(r[0], str(r[1]), int(r[2]), str(r[3])) for r in result.all()]


_CONCEPTS_NEAR_SQL = text(
    """SELECT id, name, level, 1 - (embedding <=> :q) AS sim
         FROM concepts
        WHERE workspace_id = :ws AND embedding IS NOT NULL
        ORDER BY embedding <=> :q
        LIMIT :limit"""
).bindparams(bindparam("q", type_=Vector()))


async def concepts_near(
    session: AsyncSession,
    workspace_id: uuid.UUID,
    query_vector: np.ndarray,
    *,
    min_similarity: float,
    limit: int,
) -> list[ConceptRow]:
    result = await session.execute(
        _CONCEPTS_NEAR_SQL,
        {"q": np.asarray(query_vector, dtype=np.float32), "ws": workspace_id, "limit": limit},
    )
    return [
        ConceptRow(r[0], str(r[1]), int(r[2]), "embedding", float(r[3]))
        for r in result.all()
        if float(r[3]) >= min_similarity
    ]


async def expand_concepts(
    session: AsyncSession, workspace_id: uuid.UUID, concept_ids: Sequence[uuid.UUID], *, limit: int
) -> list[ConceptRow]:
    """Neighbours of the seeds: related concepts (either direction) and specialisations
    (children: ``specialization`` edges run general → specific). Strongest edges first."""
    if not concept_ids:
        return []
    result = await session.execute(
        text(
            """SELECT c.id, c.name, c.level, x.edge_type, x.weight FROM (
                   SELECT DISTINCT ON (nb) nb, edge_type, weight FROM (
                       SELECT e.target_concept_id AS nb, e.edge_type, e.weight
                         FROM concept_edges e
                        WHERE e.workspace_id = :ws AND e.source_concept_id = ANY(:ids)
                          AND e.edge_type IN ('related', 'specialization')
                       UNION ALL
                       SELECT e.source_concept_id, e.edge_type, e.weight
                         FROM concept_edges e
                        WHERE e.workspace_id = :ws AND e.target_concept_id = ANY(:ids)
                          AND e.edge_type = 'related') n
                    WHERE nb <> ALL(:ids)
                    ORDER BY nb, weight DESC) x
               JOIN concepts c ON c.id = x.nb
              ORDER BY x.weight DESC, c.name
              LIMIT :limit"""
        ),
        {"ws": workspace_id, "ids": list(concept_ids), "limit": limit},
    )
    return [ConceptRow(r[0], str(r[1]), int(r[2]), str(r[3])) for r in result.all()]


# ------------------------------------------------------------------------- hits


async def chunk_rows(
    session: AsyncSession,
    chunk_ids: Sequence[int],
    *,
    workspace_id: uuid.UUID,
    source_id: uuid.UUID | None = None,
) -> dict[int, ChunkRow]:
    """Rows of the given chunks, restricted to the workspace (and source) again."""
    if not chunk_ids:
        return {}
    result = await session.execute(
        text(
            """SELECT id, source_id, text, section_type, section_title,
                      page_start, page_end, char_start, char_end
                 FROM chunks
                WHERE id = ANY(:ids) AND workspace_id = :ws
                  AND (CAST(:src AS uuid) IS NULL OR source_id = CAST(:src AS uuid))"""
        ),
        {"ids": list(chunk_ids), "ws": workspace_id, "src": str(source_id) if source_id else None},
    )
    return {
        int(r[0]): ChunkRow(int(r[0]), r[1], str(r[2]), str(r[3]), r[4], r[5], r[6], r[7], r[8])
        for r in result.all()
    }


# ------------------------------------------------------------------------- BEIR


async def beir_chunk_documents(
    session: AsyncSession, workspace_id: uuid.UUID, url_prefix: str
) -> dict[int, str]:
    """chunk id → its source's URL, for sources whose URL starts with ``url_prefix``."""
    result = await session.execute(
        text(
            "SELECT c.id, s.url FROM chunks c JOIN sources s ON s.id = c.source_id "
            "WHERE c.workspace_id = :ws AND s.url LIKE :prefix"
        ),
        {"ws": workspace_id, "prefix": url_prefix + "%"},
    )
    return {int(r[0]): str(r[1]) for r in result.all()}


async def workspace_size(session: AsyncSession, workspace_id: uuid.UUID) -> tuple[int, int]:
    """``(sources, chunks)`` of a workspace."""
    row = (
        await session.execute(
            text(
                "SELECT (SELECT count(*) FROM sources WHERE workspace_id = :ws), "
                "(SELECT count(*) FROM chunks WHERE workspace_id = :ws)"
            ),
            {"ws": workspace_id},
        )
    ).one()
    return int(row[0]), int(row[1])


async def count_concepts(session: AsyncSession, workspace_id: uuid.UUID) -> int:
    result = await session.scalar(
        text("SELECT count(*) FROM concepts WHERE workspace_id = :ws"), {"ws": workspace_id}
    )
    return int(result or 0)
