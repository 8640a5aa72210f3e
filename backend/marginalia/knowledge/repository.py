"""SQL for the knowledge tables (concepts, claims, evidence, source edges, clusters, wiki,
learning paths) and the source columns the "understand" stage fills.

Every function takes the caller's :class:`AsyncSession`; the caller owns the transaction.
Bulk writes use ``executemany`` inserts or ``unnest`` updates so a workspace of a few hundred
sources is updated in a handful of statements.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import delete, func, insert, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import defer
from sqlmodel import col

from marginalia.db.models import (
    Chunk,
    Claim,
    ClaimEvidence,
    Concept,
    ConceptEdge,
    LearningPath,
    LearningPathStep,
    RedundancyCluster,
    RedundancyClusterMember,
    Source,
    SourceConcept,
    SourceEdge,
    WikiPage,
    WikiRevision,
    Workspace,
)

# ---------------------------------------------------------------------------- locking


async def lock_workspace(session: AsyncSession, workspace_id: uuid.UUID) -> None:
    """Serialise knowledge updates of one workspace (transaction-scoped advisory lock)."""
    await session.execute(
        text("SELECT pg_advisory_xact_lock(hashtext('knowledge:' || :ws))"),
        {"ws": str(workspace_id)},
    )


# ---------------------------------------------------------------------------- workspaces


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


# ---------------------------------------------------------------------------- sources


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


async def get_source(session: AsyncSession, source_id: uuid.UUID) -> Source | None:
    return await session.get(Source, source_id)


async def workspace_sources(session: AsyncSession, workspace_id: uuid.UUID) -> list[SourceRow]:
    """Ready sources of a workspace, oldest first, with their total text length."""
    lengths = (
        select(col(Chunk.source_id), func.sum(func.length(col(Chunk.text))).label("chars"))
        .where(col(Chunk.workspace_id) == workspace_id)
        .group_by(col(Chunk.source_id))
        .subquery()
    )
    result = await session.execute(
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
        )
        .outerjoin(lengths, lengths.c.source_id == col(Source.id))
        .where(col(Source.workspace_id) == workspace_id, col(Source.status) == "ready")
        .order_by(col(Source.created_at), col(Source.id))
    )
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
            )
        )
    return rows


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


# ---------------------------------------------------------------------------- concepts


async def list_concepts(
    session: AsyncSession, workspace_id: uuid.UUID, *, detached: bool = False
) -> list[Concept]:
    """Concepts of a workspace (embeddings not loaded).

    ``detached``: the rows are removed from the session, so changing them in memory writes
    nothing (the knowledge sync edits them and writes the differences in bulk).
    """
    result = await session.execute(
        select(Concept)
        .options(defer(_any(Concept.embedding)))
        .where(col(Concept.workspace_id) == workspace_id)
        .order_by(col(Concept.slug))
    )
    rows = list(result.scalars().all())
    if detached:
        for row in rows:
            session.expunge(row)
    return rows


async def source_concept_links(
    session: AsyncSession, workspace_id: uuid.UUID
) -> list[tuple[uuid.UUID, uuid.UUID]]:
    """``(source_id, concept_id)`` links of a workspace."""
    result = await session.execute(
        select(col(SourceConcept.source_id), col(SourceConcept.concept_id))
        .join(Concept, col(Concept.id) == col(SourceConcept.concept_id))
        .where(col(Concept.workspace_id) == workspace_id)
    )
    return [(r[0], r[1]) for r in result.all()]


async def list_concept_edges(session: AsyncSession, workspace_id: uuid.UUID) -> list[ConceptEdge]:
    result = await session.execute(
        select(ConceptEdge).where(col(ConceptEdge.workspace_id) == workspace_id)
    )
    return list(result.scalars().all())


async def insert_concepts(session: AsyncSession, rows: Sequence[Mapping[str, Any]]) -> None:
    if rows:
        await session.execute(insert(Concept), list(rows))


async def update_concepts(session: AsyncSession, rows: Sequence[Mapping[str, Any]]) -> None:
    """Rows with ``id`` and the changed columns (level, centrality, aliases, description)."""
    if not rows:
        return
    await session.execute(
        text(
            """
            UPDATE concepts c SET level = v.level, centrality = v.centrality,
                   aliases = v.aliases, description = v.description
              FROM unnest(CAST(:ids AS uuid[]), CAST(:levels AS int[]),
                          CAST(:cents AS float8[]), CAST(:aliases AS jsonb[]),
                          CAST(:descs AS text[])) AS v(id, level, centrality, aliases, description)
             WHERE c.id = v.id
            """
        ),
        {
            "ids": [r["id"] for r in rows],
            "levels": [r["level"] for r in rows],
            "cents": [r["centrality"] for r in rows],
            "aliases": [_json(r["aliases"]) for r in rows],
            "descs": [r["description"] for r in rows],
        },
    )


def _json(value: Any) -> str:
    import json

    return json.dumps(value)


async def delete_concepts(session: AsyncSession, ids: Iterable[uuid.UUID]) -> None:
    ids = list(ids)
    if ids:
        await session.execute(delete(Concept).where(col(Concept.id).in_(ids)))


async def change_source_links(
    session: AsyncSession,
    add: Iterable[tuple[uuid.UUID, uuid.UUID]],
    remove: Iterable[tuple[uuid.UUID, uuid.UUID]],
) -> None:
    remove = list(remove)
    add = list(add)
    if remove:
        await session.execute(
            text(
                """
                DELETE FROM source_concepts sc
                 USING unnest(CAST(:s AS uuid[]), CAST(:c AS uuid[])) AS v(s, c)
                 WHERE sc.source_id = v.s AND sc.concept_id = v.c
                """
            ),
            {"s": [s for s, _ in remove], "c": [c for _, c in remove]},
        )
    if add:
        await session.execute(
            insert(SourceConcept),
            [{"source_id": s, "concept_id": c, "weight": 1.0} for s, c in add],
        )


async def change_concept_edges(
    session: AsyncSession,
    workspace_id: uuid.UUID,
    add: Sequence[Mapping[str, Any]],
    remove: Iterable[uuid.UUID],
    modify: Sequence[Mapping[str, Any]],
) -> None:
    remove = list(remove)
    if remove:
        await session.execute(delete(ConceptEdge).where(col(ConceptEdge.id).in_(remove)))
    if add:
        await session.execute(
            insert(ConceptEdge), [{**row, "workspace_id": workspace_id} for row in add]
        )
    if modify:
        await session.execute(
            text(
                """
                UPDATE concept_edges e SET weight = v.w, evidence = v.ev
                  FROM unnest(CAST(:ids AS uuid[]), CAST(:w AS float8[]), CAST(:ev AS text[]))
                       AS v(id, w, ev)
                 WHERE e.id = v.id
                """
            ),
            {
                "ids": [r["id"] for r in modify],
                "w": [r["weight"] for r in modify],
                "ev": [r["evidence"] for r in modify],
            },
        )


# ---------------------------------------------------------------------------- claims


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
    session: AsyncSession, source_id: uuid.UUID, *, min_similarity: float
) -> list[EvidenceCandidate]:
    """Other sources' claims for which one of this source's chunks is evidence (best chunk)."""
    result = await session.execute(
        text(
            """
            SELECT DISTINCT ON (c.id) c.id, c.text, c.source_id, ch.id, ch.source_id, ch.text,
                   1 - (c.embedding <=> ch.embedding) AS sim
              FROM chunks ch
              JOIN claims c ON c.workspace_id = ch.workspace_id AND c.source_id <> ch.source_id
             WHERE ch.source_id = :s AND ch.embedding IS NOT NULL AND c.embedding IS NOT NULL
               AND 1 - (c.embedding <=> ch.embedding) >= :min
             ORDER BY c.id, sim DESC, ch.id
            """
        ),
        {"s": source_id, "min": min_similarity},
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


# ---------------------------------------------------------------------------- source edges


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


# ---------------------------------------------------------------------------- clusters


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


# ---------------------------------------------------------------------------- wiki


async def list_wiki_pages(session: AsyncSession, workspace_id: uuid.UUID) -> list[WikiPage]:
    result = await session.execute(
        select(WikiPage)
        .where(col(WikiPage.workspace_id) == workspace_id)
        .order_by(col(WikiPage.slug))
    )
    return list(result.scalars().all())


async def get_wiki_page(
    session: AsyncSession, workspace_id: uuid.UUID, slug: str
) -> WikiPage | None:
    result = await session.execute(
        select(WikiPage).where(
            col(WikiPage.workspace_id) == workspace_id, col(WikiPage.slug) == slug
        )
    )
    return result.scalars().first()


async def similar_wiki_pages(
    session: AsyncSession, workspace_id: uuid.UUID, vector: np.ndarray, *, limit: int = 10
) -> list[WikiPage]:
    distance = _wiki_embedding().cosine_distance(vector)
    result = await session.execute(
        select(WikiPage)
        .where(col(WikiPage.workspace_id) == workspace_id, col(WikiPage.embedding).is_not(None))
        .order_by(distance)
        .limit(limit)
    )
    return list(result.scalars().all())


def _any(value: Any) -> Any:
    return value


def _as_any(vector: np.ndarray | None) -> Any:
    # pgvector columns accept numpy arrays; the model declares list[float].
    return vector


def _wiki_embedding() -> Any:
    # pgvector's comparator methods are invisible to the type checker.
    return col(WikiPage.embedding)


async def write_wiki_page(
    session: AsyncSession,
    workspace_id: uuid.UUID,
    *,
    slug: str,
    title: str,
    body: str,
    links: Sequence[str],
    cited: Sequence[Any],
    embedding: np.ndarray | None,
    reason: str,
) -> tuple[WikiPage, bool]:
    """Create the page or, when its text changed, update it and keep a revision.

    Returns the page and whether anything was written.
    """
    page = await get_wiki_page(session, workspace_id, slug)
    if page is None:
        page = WikiPage(
            workspace_id=workspace_id,
            slug=slug,
            title=title,
            body=body,
            links=list(links),
            cited=list(cited),
            embedding=_as_any(embedding),
            revision=1,
        )
        session.add(page)
        await session.flush()
        session.add(
            WikiRevision(page_id=page.id, revision=1, title=title, body=body, reason=reason)
        )
        await session.flush()
        return page, True
    if page.body == body and page.title == title:
        if list(page.links) != list(links):
            page.links = list(links)
            await session.flush()
        return page, False
    page.revision += 1
    page.title = title
    page.body = body
    page.links = list(links)
    page.cited = list(cited)
    if embedding is not None:
        page.embedding = _as_any(embedding)
    session.add(
        WikiRevision(page_id=page.id, revision=page.revision, title=title, body=body, reason=reason)
    )
    await session.flush()
    return page, True


async def delete_wiki_pages(session: AsyncSession, page_ids: Iterable[uuid.UUID]) -> None:
    ids = list(page_ids)
    if ids:
        await session.execute(delete(WikiPage).where(col(WikiPage.id).in_(ids)))


async def revision_count(session: AsyncSession, page_id: uuid.UUID) -> int:
    value = await session.scalar(
        select(func.count()).select_from(WikiRevision).where(col(WikiRevision.page_id) == page_id)
    )
    return int(value or 0)


async def backlinks(session: AsyncSession, workspace_id: uuid.UUID, slug: str) -> list[str]:
    result = await session.execute(
        text(
            "SELECT slug FROM wiki_pages WHERE workspace_id = :ws AND links @> CAST(:one AS jsonb)"
            " ORDER BY slug"
        ),
        {"ws": workspace_id, "one": _json([slug])},
    )
    return [str(r[0]) for r in result.all()]


# ---------------------------------------------------------------------------- learning paths


async def insert_learning_path(
    session: AsyncSession,
    workspace_id: uuid.UUID,
    *,
    title: str,
    broken_cycles: Sequence[str],
    notes: str | None,
    engine: str,
    steps: Sequence[Mapping[str, Any]],
) -> uuid.UUID:
    path = LearningPath(
        workspace_id=workspace_id,
        title=title,
        broken_cycles=list(broken_cycles),
        notes=notes,
        engine=engine,
    )
    session.add(path)
    await session.flush()
    if steps:
        await session.execute(insert(LearningPathStep), [{**s, "path_id": path.id} for s in steps])
    return path.id


async def latest_learning_path(
    session: AsyncSession, workspace_id: uuid.UUID
) -> tuple[LearningPath, list[LearningPathStep]] | None:
    path = (
        (
            await session.execute(
                select(LearningPath)
                .where(col(LearningPath.workspace_id) == workspace_id)
                .order_by(col(LearningPath.created_at).desc(), col(LearningPath.id))
                .limit(1)
            )
        )
        .scalars()
        .first()
    )
    if path is None:
        return None
    steps = (
        (
            await session.execute(
                select(LearningPathStep)
                .where(col(LearningPathStep.path_id) == path.id)
                .order_by(col(LearningPathStep.position))
            )
        )
        .scalars()
        .all()
    )
    return path, list(steps)


# ---------------------------------------------------------------------------- canvas


async def syntheses(
    session: AsyncSession, workspace_id: uuid.UUID, *, limit: int = 200
) -> list[tuple[uuid.UUID, str, list[Any]]]:
    """Saved answers (assistant messages) of the workspace: ``(id, text, cited sources)``."""
    result = await session.execute(
        text(
            """
            SELECT m.id, m.content, m.cited_sources
              FROM messages m JOIN conversations c ON c.id = m.conversation_id
             WHERE c.workspace_id = :ws AND m.role = 'assistant'
             ORDER BY m.created_at DESC
             LIMIT :limit
            """
        ),
        {"ws": workspace_id, "limit": limit},
    )
    return [(r[0], str(r[1]), list(r[2] or [])) for r in result.all()]
