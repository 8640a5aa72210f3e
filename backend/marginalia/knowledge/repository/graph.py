"""Source edges, redundancy clusters and the canvas's synthesis nodes."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, select, text
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from marginalia.db.models import (
    Chunk,
    RedundancyCluster,
    RedundancyClusterMember,
    SourceEdge,
)


async def delete_source_edges(
    session: AsyncSession, workspace_id: uuid.UUID, source_id: uuid.UUID | None = None
) -> None:
    query = delete(SourceEdge).where(col(SourceEdge.workspace_id) == workspace_id)
    if source_id is not None:
        query = query.where(
            (col(SourceEdge.source_a_id) == source_id) | (col(SourceEdge.source_b_id) == source_id)
        )
    await session.execute(query)


async def insert_source_edges(session: AsyncSession, rows: Sequence[Mapping[str, Any]]) -> None:
    if rows:
        await session.execute(insert(SourceEdge), list(rows))


async def list_source_edges(session: AsyncSession, workspace_id: uuid.UUID) -> list[SourceEdge]:
    result = await session.execute(
        select(SourceEdge)
        .where(col(SourceEdge.workspace_id) == workspace_id)
        .order_by(col(SourceEdge.source_a_id), col(SourceEdge.source_b_id))
    )
    return list(result.scalars().all())


async def replace_clusters(
    session: AsyncSession,
    workspace_id: uuid.UUID,
    clusters: Sequence[tuple[str | None, float, Sequence[uuid.UUID]]],
) -> None:
    """Replace the workspace's clusters with ``(label, mean_similarity, members)``."""
    await session.execute(
        delete(RedundancyCluster).where(col(RedundancyCluster.workspace_id) == workspace_id)
    )
    if not clusters:
        return
    ids = [uuid.uuid4() for _ in clusters]
    await session.execute(
        insert(RedundancyCluster),
        [
            {"id": i, "workspace_id": workspace_id, "label": label, "mean_similarity": mean}
            for i, (label, mean, _) in zip(ids, clusters, strict=True)
        ],
    )
    await session.execute(
        insert(RedundancyClusterMember),
        [
            {"cluster_id": i, "source_id": m}
            for i, (_, _, members) in zip(ids, clusters, strict=True)
            for m in members
        ],
    )


async def list_clusters(
    session: AsyncSession, workspace_id: uuid.UUID
) -> list[tuple[RedundancyCluster, list[uuid.UUID]]]:
    clusters = list(
        (
            await session.execute(
                select(RedundancyCluster)
                .where(col(RedundancyCluster.workspace_id) == workspace_id)
                .order_by(col(RedundancyCluster.label), col(RedundancyCluster.id))
            )
        )
        .scalars()
        .all()
    )
    if not clusters:
        return []
    members = await session.execute(
        select(col(RedundancyClusterMember.cluster_id), col(RedundancyClusterMember.source_id))
        .where(col(RedundancyClusterMember.cluster_id).in_([c.id for c in clusters]))
        .order_by(col(RedundancyClusterMember.source_id))
    )
    by_cluster: dict[uuid.UUID, list[uuid.UUID]] = {}
    for cid, sid in members.all():
        by_cluster.setdefault(cid, []).append(sid)
    return [(c, by_cluster.get(c.id, [])) for c in clusters]


@dataclass(frozen=True)
class SynthesisRow:
    """A saved answer as the canvas shows it. ``claims`` are the stored answer's claims;
    ``passages`` its numbered passages without their text, each with the ``chunk_index``
    of its chunk (None for a wiki page or a chunk since deleted)."""

    message_id: uuid.UUID
    conversation_id: uuid.UUID
    content: str
    cited: list[Any]
    question: str | None
    claim_count: int
    claims: list[dict[str, Any]] = field(default_factory=list)
    passages: list[dict[str, Any]] = field(default_factory=list)
    created_at: datetime | None = None


async def database_now(session: AsyncSession) -> datetime:
    """The database's clock (the one ``created_at`` defaults come from)."""
    now: datetime = (await session.execute(text("SELECT now()"))).scalar_one()
    return now


async def syntheses(
    session: AsyncSession, workspace_id: uuid.UUID, *, limit: int = 200
) -> list[SynthesisRow]:
    """Saved answers of the workspace the user pinned to the canvas, newest first.

    A synthesis is an assistant message that answered: refusals, and answers that kept no
    claim or cite nothing, are chat history but not syntheses. ``question`` is the user
    message just before it in its conversation."""
    result = await session.execute(
        text(
            """
            SELECT m.id, m.conversation_id, m.content, m.cited_sources,
                   (SELECT q.content FROM messages q
                     WHERE q.conversation_id = m.conversation_id AND q.role = 'user'
                       AND q.created_at <= m.created_at
                     ORDER BY q.created_at DESC LIMIT 1) AS question,
                   COALESCE(jsonb_array_length(m.answer -> 'claims'), 0) AS claims,
                   COALESCE(m.answer -> 'claims', '[]'::jsonb) AS claim_list,
                   (SELECT COALESCE(jsonb_agg(p - 'text'), '[]'::jsonb)
                      FROM jsonb_array_elements(
                             CASE WHEN jsonb_typeof(m.answer -> 'passages') = 'array'
                                  THEN m.answer -> 'passages' ELSE '[]'::jsonb END) p
                   ) AS passages,
                   m.created_at
              FROM messages m JOIN conversations c ON c.id = m.conversation_id
             WHERE c.workspace_id = :ws AND m.role = 'assistant'
               AND m.pinned_at IS NOT NULL
               AND COALESCE((m.answer ->> 'refused')::boolean, false) = false
               AND jsonb_array_length(COALESCE(m.cited_sources, '[]'::jsonb)) > 0
               AND (m.answer IS NULL
                    OR COALESCE(jsonb_array_length(m.answer -> 'claims'), 0) > 0)
             ORDER BY m.created_at DESC
             LIMIT :limit
            """
        ),
        {"ws": workspace_id, "limit": limit},
    )
    rows = result.all()
    chunk_ids = {
        int(p["chunk_id"])
        for r in rows
        for p in (r[7] or [])
        if isinstance(p, dict) and isinstance(p.get("chunk_id"), int)
    }
    index_of: dict[int, int] = {}
    if chunk_ids:
        found = await session.execute(
            select(col(Chunk.id), col(Chunk.chunk_index)).where(col(Chunk.id).in_(chunk_ids))
        )
        index_of = {cid: int(ix) for cid, ix in found.all() if cid is not None}
    out: list[SynthesisRow] = []
    for r in rows:
        passages = [
            {**p, "chunk_index": index_of.get(p["chunk_id"]) if p.get("chunk_id") else None}
            for p in (r[7] or [])
            if isinstance(p, dict)
        ]
        out.append(
            SynthesisRow(
                message_id=r[0],
                conversation_id=r[1],
                content=str(r[2]),
                cited=list(r[3] or []),
                question=str(r[4]) if r[4] is not None else None,
                claim_count=int(r[5]),
                claims=[c for c in (r[6] or []) if isinstance(c, dict)],
                passages=passages,
                created_at=r[8],
            )
        )
    return out
