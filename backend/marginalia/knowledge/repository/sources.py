"""Workspaces and sources as the knowledge layer reads and scores them; the workspace lock."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import delete, func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from marginalia.db.models import (
    Chunk,
    Source,
    Workspace,
)


async def lock_workspace(session: AsyncSession, workspace_id: uuid.UUID) -> None:
    """Serialise knowledge updates of one workspace (transaction-scoped advisory lock)."""
    await session.execute(
        text("SELECT pg_advisory_xact_lock(hashtext('knowledge:' || :ws))"),
        {"ws": str(workspace_id)},
    )


async def get_workspace(session: AsyncSession, workspace_id: uuid.UUID) -> Workspace | None:
    return await session.get(Workspace, workspace_id)


async def set_description_embedding(
    session: AsyncSession, workspace_id: uuid.UUID, vector: np.ndarray
) -> None:
    await session.execute(
        update(Workspace)
        .where(col(Workspace.id) == workspace_id)
        .values(description_embedding=vector)
    )


@dataclass(frozen=True)
class SourceRow:
    """What the knowledge layer reads about a source."""

    id: uuid.UUID
    title: str
    year: int | None
    citation_count: int | None
    summary: str | None
    abstract: str | None
    key_results: list[str]
    contributions: list[str]
    mean_embedding: np.ndarray | None
    total_chars: int
    quality_score: float | None = None
    tldr: str | None = None
    created_at: datetime | None = None
    metadata_concepts: list[dict[str, Any]] = field(default_factory=list)


async def get_source(session: AsyncSession, source_id: uuid.UUID) -> Source | None:
    return await session.get(Source, source_id)


async def workspace_sources(
    session: AsyncSession, workspace_id: uuid.UUID, ids: Sequence[uuid.UUID] | None = None
) -> list[SourceRow]:
    """Ready sources of a workspace, oldest first, with their total text length; with
    ``ids``, only those (and only their chunks are summed)."""
    chunk_filter = (
        col(Chunk.workspace_id) == workspace_id
        if ids is None
        else col(Chunk.source_id).in_(list(ids))
    )
    lengths = (
        select(col(Chunk.source_id), func.sum(func.length(col(Chunk.text))).label("chars"))
        .where(chunk_filter)
        .group_by(col(Chunk.source_id))
        .subquery()
    )
    query = (
        select(
            col(Source.id),
            col(Source.title),
            col(Source.year),
            col(Source.citation_count),
            col(Source.summary),
            col(Source.abstract),
            col(Source.key_results),
            col(Source.contributions),
            col(Source.mean_embedding),
            lengths.c.chars,
            col(Source.quality_score),
            col(Source.tldr),
            col(Source.created_at),
            col(Source.metadata_concepts),
        )
        .outerjoin(lengths, lengths.c.source_id == col(Source.id))
        .where(col(Source.workspace_id) == workspace_id, col(Source.status) == "ready")
        .order_by(col(Source.created_at), col(Source.id))
    )
    if ids is not None:
        if not ids:
            return []
        query = query.where(col(Source.id).in_(list(ids)))
    result = await session.execute(query)
    rows: list[SourceRow] = []
    for r in result.all():
        emb = r[8]
        rows.append(
            SourceRow(
                id=r[0],
                title=r[1] or "",
                year=r[2],
                citation_count=r[3],
                summary=r[4],
                abstract=r[5],
                key_results=list(r[6] or []),
                contributions=list(r[7] or []),
                mean_embedding=None if emb is None else np.asarray(emb, dtype=np.float32),
                total_chars=int(r[9] or len(r[5] or "")),
                quality_score=r[10],
                tldr=r[11],
                created_at=r[12],
                metadata_concepts=list(r[13] or []),
            )
        )
    return rows


async def count_ready_sources(session: AsyncSession, workspace_id: uuid.UUID) -> int:
    value = await session.scalar(
        select(func.count())
        .select_from(Source)
        .where(col(Source.workspace_id) == workspace_id, col(Source.status) == "ready")
    )
    return int(value or 0)


async def edge_candidates(
    session: AsyncSession,
    workspace_id: uuid.UUID,
    source_id: uuid.UUID,
    *,
    title_patterns: Sequence[str],
    strong_hits: int,
    strong_distance: float,
    shared_once: Sequence[uuid.UUID],
    weak_hits: int,
    weak_distance: float,
    linked: Sequence[uuid.UUID] = (),
) -> tuple[list[uuid.UUID], set[uuid.UUID]]:
    """Ready sources other than ``source_id`` that may have a source edge with it: those
    whose mean embedding is within cosine ``strong_distance`` of ``source_id``'s or whose
    lower-cased title contains at least ``strong_hits`` of the ``LIKE`` patterns, and those
    of ``shared_once`` within ``weak_distance`` or ``weak_hits``. The cosine is computed by
    PostgreSQL, exactly (``sources.mean_embedding`` has no approximate index, migration
    0005); a title with a non-ASCII character always counts as a hit (its case-folded words
    need not be substrings of ``lower(title)``). Only the ids leave the database.

    Also returns which of ``linked`` are ready (the sources the caller knows of)."""
    # one LIKE per pattern, summed in the row (no per-row subquery)
    hits = " + ".join(f"(lower(title) LIKE :p{i})::int" for i in range(len(title_patterns)))
    result = await session.execute(
        text(
            f"""
            SELECT id, dist < :ds OR hits >= :hs
                       OR (id = ANY(CAST(:once AS uuid[])) AND (dist < :dw OR hits >= :hw))
              FROM (
                SELECT id,
                       mean_embedding <=> (SELECT mean_embedding FROM sources WHERE id = :me)
                           AS dist,
                       CASE WHEN title ~ '[^[:ascii:]]' THEN 1000000
                            ELSE coalesce({hits or "0"}, 0) END AS hits
                  FROM sources
                 WHERE workspace_id = :ws AND status = 'ready' AND id <> :me
            ) s
             WHERE dist < :ds OR hits >= :hs
                OR (id = ANY(CAST(:once AS uuid[])) AND (dist < :dw OR hits >= :hw))
                OR id = ANY(CAST(:linked AS uuid[]))
            """
        ),
        {
            "ws": workspace_id,
            "me": source_id,
            **{f"p{i}": p for i, p in enumerate(title_patterns)},
            "ds": strong_distance,
            "hs": strong_hits,
            "once": list(shared_once),
            "dw": weak_distance,
            "hw": weak_hits,
            "linked": list(linked),
        },
    )
    rows = result.all()
    wanted = set(linked)
    return [r[0] for r in rows if r[1]], {r[0] for r in rows if r[0] in wanted}


async def chunk_rows(
    session: AsyncSession, source_ids: Sequence[uuid.UUID], *, max_index: int | None = None
) -> list[Chunk]:
    """Chunks of several sources in (source, chunk_index) order."""
    if not source_ids:
        return []
    query = select(Chunk).where(col(Chunk.source_id).in_(list(source_ids)))
    if max_index is not None:
        query = query.where(col(Chunk.chunk_index) < max_index)
    result = await session.execute(query.order_by(col(Chunk.source_id), col(Chunk.chunk_index)))
    return list(result.scalars().all())


async def mean_chunk_embedding(session: AsyncSession, source_id: uuid.UUID) -> np.ndarray | None:
    value = await session.scalar(
        text("SELECT avg(embedding) FROM chunks WHERE source_id = :s AND embedding IS NOT NULL"),
        {"s": source_id},
    )
    if value is None:
        return None
    vec = np.asarray(value, dtype=np.float32)
    norm = float(np.linalg.norm(vec))
    return vec / norm if norm > 0 else None


async def store_extraction(
    session: AsyncSession,
    source_id: uuid.UUID,
    fields: Mapping[str, Any],
) -> None:
    await session.execute(update(Source).where(col(Source.id) == source_id).values(**fields))


async def store_quality(
    session: AsyncSession, scores: Mapping[uuid.UUID, tuple[float, float, float, float]]
) -> None:
    """``source id → (total, authority, recency, relevance)``."""
    if not scores:
        return
    ids = list(scores)
    await session.execute(
        text(
            """
            UPDATE sources s SET quality_score = v.t, quality_authority = v.a,
                   quality_recency = v.r, quality_relevance = v.l
              FROM unnest(CAST(:ids AS uuid[]), CAST(:t AS float8[]), CAST(:a AS float8[]),
                          CAST(:r AS float8[]), CAST(:l AS float8[])) AS v(id, t, a, r, l)
             WHERE s.id = v.id
            """
        ),
        {
            "ids": ids,
            "t": [scores[i][0] for i in ids],
            "a": [scores[i][1] for i in ids],
            "r": [scores[i][2] for i in ids],
            "l": [scores[i][3] for i in ids],
        },
    )


async def delete_source(session: AsyncSession, source_id: uuid.UUID) -> bool:
    result = await session.execute(
        delete(Source).where(col(Source.id) == source_id).returning(col(Source.id))
    )
    return result.first() is not None
