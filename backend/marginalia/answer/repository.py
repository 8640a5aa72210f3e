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
    """Chunks of the workspace holding each lexeme (those that occur)."""
    rows = await session.execute(
        text(
            """SELECT lexeme, count(*) FROM retrieval_postings
                WHERE workspace_id = :ws AND lexeme = ANY(CAST(:terms AS text[]))
                GROUP BY lexeme"""
        ),
        {"ws": workspace_id, "terms": list(terms)},
    )
    return {str(r[0]): float(r[1]) for r in rows.all()}
