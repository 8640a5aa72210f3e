"""Claims and the evidence linked to them."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, insert, select, text
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from marginalia.db.models import (
    Claim,
    ClaimEvidence,
)


async def delete_claims_of_source(session: AsyncSession, source_id: uuid.UUID) -> None:
    """The source's claims (their evidence cascades) and evidence it gave to other claims."""
    await session.execute(delete(Claim).where(col(Claim.source_id) == source_id))
    await session.execute(delete(ClaimEvidence).where(col(ClaimEvidence.source_id) == source_id))


async def delete_workspace_claims(session: AsyncSession, workspace_id: uuid.UUID) -> None:
    await session.execute(delete(Claim).where(col(Claim.workspace_id) == workspace_id))


async def insert_claims(
    session: AsyncSession, rows: Sequence[Mapping[str, Any]]
) -> list[uuid.UUID]:
    if not rows:
        return []
    ids = [uuid.uuid4() for _ in rows]
    await session.execute(insert(Claim), [{**r, "id": i} for r, i in zip(rows, ids, strict=True)])
    return ids


@dataclass(frozen=True)
class EvidenceCandidate:
    claim_id: uuid.UUID
    claim_text: str
    claim_source_id: uuid.UUID
    chunk_id: int
    source_id: uuid.UUID
    passage: str
    similarity: float


async def evidence_for_claims(
    session: AsyncSession,
    claim_ids: Sequence[uuid.UUID],
    *,
    min_similarity: float,
    per_claim: int,
    scan: int = 20,
) -> list[EvidenceCandidate]:
    """Nearest chunks of the workspace's *other* sources for each claim.

    The ``scan`` nearest chunks are fetched; the best chunk per other source is kept, and the
    ``per_claim`` best of those at or above ``min_similarity`` are returned.
    """
    if not claim_ids:
        return []
    result = await session.execute(
        text(
            """
            SELECT c.id, c.text, c.source_id, e.chunk_id, e.source_id, e.text, e.sim
              FROM claims c
             CROSS JOIN LATERAL (
                   SELECT ch.id AS chunk_id, ch.source_id, ch.text,
                          1 - (ch.embedding <=> c.embedding) AS sim
                     FROM chunks ch
                    WHERE ch.workspace_id = c.workspace_id
                      AND ch.source_id <> c.source_id
                      AND ch.embedding IS NOT NULL
                    ORDER BY ch.embedding <=> c.embedding
                    LIMIT :scan) e
             WHERE c.id = ANY(CAST(:ids AS uuid[])) AND c.embedding IS NOT NULL
               AND e.sim >= :min
             ORDER BY c.id, e.sim DESC, e.chunk_id
            """
        ),
        {"ids": list(claim_ids), "scan": scan, "min": min_similarity},
    )
    out: list[EvidenceCandidate] = []
    seen: set[tuple[uuid.UUID, uuid.UUID]] = set()
    count: dict[uuid.UUID, int] = {}
    for r in result.all():
        key = (r[0], r[4])
        if key in seen or count.get(r[0], 0) >= per_claim:
            continue
        seen.add(key)
        count[r[0]] = count.get(r[0], 0) + 1
        out.append(EvidenceCandidate(r[0], r[1], r[2], int(r[3]), r[4], r[5], float(r[6])))
    return out


async def claims_near_source(
    session: AsyncSession, source_id: uuid.UUID, *, min_similarity: float, limit: int | None = None
) -> list[EvidenceCandidate]:
    """Other sources' claims for which one of this source's chunks is evidence (best chunk);
    with ``limit``, only the most similar ``limit`` claims (a bounded update)."""
    result = await session.execute(
        text(
            """
            SELECT * FROM (
                SELECT DISTINCT ON (c.id) c.id, c.text, c.source_id, ch.id AS chunk_id,
                       ch.source_id AS chunk_source_id, ch.text AS passage,
                       1 - (c.embedding <=> ch.embedding) AS sim
                  FROM chunks ch
                  JOIN claims c
                    ON c.workspace_id = ch.workspace_id AND c.source_id <> ch.source_id
                 WHERE ch.source_id = :s AND ch.embedding IS NOT NULL
                   AND c.embedding IS NOT NULL
                   AND 1 - (c.embedding <=> ch.embedding) >= :min
                 ORDER BY c.id, sim DESC, ch.id
            ) AS best
            ORDER BY sim DESC, id
            LIMIT :limit
            """
        ),
        {"s": source_id, "min": min_similarity, "limit": limit},
    )
    return [
        EvidenceCandidate(r[0], r[1], r[2], int(r[3]), r[4], r[5], float(r[6]))
        for r in result.all()
    ]


async def insert_evidence(session: AsyncSession, rows: Sequence[Mapping[str, Any]]) -> None:
    if rows:
        await session.execute(insert(ClaimEvidence), list(rows))


async def update_evidence(session: AsyncSession, rows: Sequence[Mapping[str, Any]]) -> None:
    """Rows with ``id``, ``relation``, ``rationale`` and ``engine``."""
    if not rows:
        return
    await session.execute(
        text(
            """
            UPDATE claim_evidence e SET relation = v.rel, rationale = v.why, engine = v.eng
              FROM unnest(CAST(:ids AS uuid[]), CAST(:rel AS text[]), CAST(:why AS text[]),
                          CAST(:eng AS text[])) AS v(id, rel, why, eng)
             WHERE e.id = v.id
            """
        ),
        {
            "ids": [r["id"] for r in rows],
            "rel": [r["relation"] for r in rows],
            "why": [r["rationale"] for r in rows],
            "eng": [r["engine"] for r in rows],
        },
    )


async def claims_with_evidence(
    session: AsyncSession, workspace_id: uuid.UUID, *, source_id: uuid.UUID | None = None
) -> list[tuple[Claim, list[ClaimEvidence]]]:
    query = select(Claim).where(col(Claim.workspace_id) == workspace_id)
    if source_id is not None:
        query = query.where(col(Claim.source_id) == source_id)
    claims = list(
        (await session.execute(query.order_by(col(Claim.source_id), col(Claim.created_at))))
        .scalars()
        .all()
    )
    if not claims:
        return []
    ev_rows = (
        (
            await session.execute(
                select(ClaimEvidence)
                .where(col(ClaimEvidence.claim_id).in_([c.id for c in claims]))
                .order_by(col(ClaimEvidence.score).desc())
            )
        )
        .scalars()
        .all()
    )
    by_claim: dict[uuid.UUID, list[ClaimEvidence]] = {}
    for ev in ev_rows:
        by_claim.setdefault(ev.claim_id, []).append(ev)
    return [(c, by_claim.get(c.id, [])) for c in claims]


async def count_evidence(session: AsyncSession, workspace_id: uuid.UUID) -> int:
    value = await session.scalar(
        select(func.count())
        .select_from(ClaimEvidence)
        .join(Claim, col(Claim.id) == col(ClaimEvidence.claim_id))
        .where(col(Claim.workspace_id) == workspace_id)
    )
    return int(value or 0)
