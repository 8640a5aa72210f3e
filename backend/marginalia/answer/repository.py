"""Every SQL statement the answer stage runs: the scope a question is asked in, the best
wiki page for a query, document names, and the lexemes and BM25 statistics the offline
engine scores sentences with."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from pgvector.sqlalchemy import Vector
from sqlalchemy import bindparam, text
from sqlalchemy.ext.asyncio import AsyncSession

_WIKI_SQL = text(
    """SELECT slug, title, body, 1 - (embedding <=> :q) AS similarity
         FROM wiki_pages
        WHERE workspace_id = :ws AND embedding IS NOT NULL
        ORDER BY embedding <=> :q, slug
        LIMIT 1"""
).bindparams(bindparam("q", type_=Vector()))


@dataclass(frozen=True)
class WorkspaceCounts:
    name: str
    ready_sources: int
    chunks: int
    wiki_pages: int


@dataclass(frozen=True)
class SourceCounts:
    title: str | None
    file_name: str | None
    url: str | None
    chunks: int


async def workspace_counts(
    session: AsyncSession, workspace_id: uuid.UUID
) -> WorkspaceCounts | None:
    row = (
        await session.execute(
            text(
                """SELECT w.name,
                          (SELECT count(*) FROM sources s WHERE s.workspace_id = w.id
                              AND s.status = 'ready'),
                          (SELECT count(*) FROM chunks c WHERE c.workspace_id = w.id),
                          (SELECT count(*) FROM wiki_pages p WHERE p.workspace_id = w.id)
                     FROM workspaces w WHERE w.id = :ws"""
            ),
            {"ws": workspace_id},
        )
    ).first()
    if row is None:
        return None
    return WorkspaceCounts(str(row[0]), int(row[1]), int(row[2]), int(row[3]))


async def source_counts(
    session: AsyncSession, workspace_id: uuid.UUID, source_id: uuid.UUID
) -> SourceCounts | None:
    row = (
        await session.execute(
            text(
                """SELECT s.title, s.file_name, s.url,
                          (SELECT count(*) FROM chunks c WHERE c.source_id = s.id)
                     FROM sources s WHERE s.id = :sid AND s.workspace_id = :ws"""
            ),
            {"sid": source_id, "ws": workspace_id},
        )
    ).first()
    if row is None:
        return None
    return SourceCounts(row[0], row[1], row[2], int(row[3]))


async def best_wiki_page(
    session: AsyncSession, workspace_id: uuid.UUID, query_vector: np.ndarray
) -> tuple[str, str, str, float] | None:
    """``(slug, title, body, similarity)`` of the wiki page nearest the query."""
    row = (await session.execute(_WIKI_SQL, {"ws": workspace_id, "q": query_vector})).first()
    if row is None:
        return None
    return str(row[0]), str(row[1]), str(row[2]), float(row[3])


async def source_names(
    session: AsyncSession, source_ids: Sequence[uuid.UUID]
) -> list[tuple[uuid.UUID, str | None, str | None, str | None]]:
    """``(id, title, file_name, url)`` of each source."""
    if not source_ids:
        return []
    rows = await session.execute(
        text("SELECT id, title, file_name, url FROM sources WHERE id = ANY(:ids)"),
        {"ids": list(source_ids)},
    )
    return [(r[0], r[1], r[2], r[3]) for r in rows.all()]


async def lexemes(session: AsyncSession, texts: Sequence[str]) -> list[frozenset[str]]:
    """Snowball English lexemes of each text (PostgreSQL's ``to_tsvector``), in order."""
    if not texts:
        return []
    rows = await session.execute(
        text(
            """SELECT i, tsvector_to_array(to_tsvector('english', t))
                 FROM unnest(CAST(:texts AS text[])) WITH ORDINALITY AS u(t, i)
                ORDER BY i"""
        ),
        {"texts": list(texts)},
    )
    return [frozenset(r[1] or ()) for r in rows.all()]


async def workspace_chunk_count(session: AsyncSession, workspace_id: object) -> int:
    """Chunks counted in the BM25 statistics of the workspace."""
    n = (
        await session.execute(
            text(
                "SELECT coalesce(sum(n_chunks), 0) FROM retrieval_source_stats "
                "WHERE workspace_id = :ws"
            ),
            {"ws": workspace_id},
        )
    ).scalar()
    return int(n or 0)


async def document_frequencies(
    session: AsyncSession, workspace_id: object, terms: Sequence[str]
) -> dict[str, float]:
    """Chunks of the workspace holding each lexeme (those that occur): ``retrieval_terms.df``,
    which the chunks triggers keep equal to the lexeme's postings (migration 0009)."""
    rows = await session.execute(
        text(
            """SELECT lexeme, df FROM retrieval_terms
                WHERE workspace_id = :ws AND lexeme = ANY(CAST(:terms AS text[])) AND df > 0"""
        ),
        {"ws": workspace_id, "terms": list(terms)},
    )
    return {str(r[0]): float(r[1]) for r in rows.all()}


@dataclass(frozen=True)
class TermStats:
    """The lexemes of some texts, with the workspace's chunk count and the document
    frequency of each of those lexemes that occurs."""

    lexemes: list[frozenset[str]]
    chunks: int
    df: dict[str, float]


_TERM_STATS = text(
    """WITH lex AS (
           SELECT i, tsvector_to_array(to_tsvector('english', t)) AS terms
             FROM unnest(CAST(:texts AS text[])) WITH ORDINALITY AS u(t, i))
       SELECT 0 AS kind, i, terms, NULL::text AS lexeme, NULL::bigint AS n FROM lex
       UNION ALL
       SELECT 1, NULL, NULL, NULL, coalesce(sum(n_chunks), 0)
         FROM retrieval_source_stats WHERE workspace_id = :ws
       UNION ALL
       SELECT 2, NULL, NULL, t.lexeme, t.df
         FROM retrieval_terms t
        WHERE t.workspace_id = :ws AND t.df > 0
          AND t.lexeme IN (SELECT DISTINCT unnest(terms) FROM lex)"""
)


async def term_stats(
    session: AsyncSession, workspace_id: object, texts: Sequence[str]
) -> TermStats:
    """:class:`TermStats` of ``texts`` in one statement: what :func:`lexemes`,
    :func:`workspace_chunk_count` and :func:`document_frequencies` give in three."""
    lexed: dict[int, frozenset[str]] = {}
    chunks = 0
    df: dict[str, float] = {}
    rows = await session.execute(_TERM_STATS, {"texts": list(texts), "ws": workspace_id})
    for kind, i, terms, lexeme, n in rows.all():
        if kind == 0:
            lexed[int(i)] = frozenset(terms or ())
        elif kind == 1:
            chunks = int(n or 0)
        else:
            df[str(lexeme)] = float(n)
    return TermStats([lexed[i] for i in range(1, len(texts) + 1)], chunks, df)
