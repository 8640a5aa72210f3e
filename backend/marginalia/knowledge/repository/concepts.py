"""Concepts, their links to sources and the concept edges."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import Text, cast, delete, func, insert, select, text, update
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import defer
from sqlmodel import col

from marginalia.db.models import (
    Concept,
    ConceptEdge,
    SourceConcept,
)
from marginalia.knowledge.match_keys import concept_match_keys
from marginalia.knowledge.repository.binds import any_array, json_value


async def list_concepts(
    session: AsyncSession, workspace_id: uuid.UUID, *, detached: bool = False
) -> list[Concept]:
    """Concepts of a workspace (embeddings not loaded).

    ``detached``: the rows are removed from the session, so changing them in memory writes
    nothing (the knowledge sync edits them and writes the differences in bulk).
    """
    result = await session.execute(
        select(Concept)
        .options(defer(any_array(Concept.embedding)))
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


async def source_concept_weights(
    session: AsyncSession, workspace_id: uuid.UUID
) -> list[tuple[uuid.UUID, uuid.UUID, float]]:
    """``(source_id, concept_id, weight)`` links of a workspace (weight: the concept's
    standing in that source, higher first)."""
    result = await session.execute(
        select(
            col(SourceConcept.source_id), col(SourceConcept.concept_id), col(SourceConcept.weight)
        )
        .join(Concept, col(Concept.id) == col(SourceConcept.concept_id))
        .where(col(Concept.workspace_id) == workspace_id)
    )
    return [(r[0], r[1], float(r[2])) for r in result.all()]


async def list_concept_edges(session: AsyncSession, workspace_id: uuid.UUID) -> list[ConceptEdge]:
    result = await session.execute(
        select(ConceptEdge).where(col(ConceptEdge.workspace_id) == workspace_id)
    )
    return list(result.scalars().all())


async def insert_concepts(session: AsyncSession, rows: Sequence[Mapping[str, Any]]) -> None:
    """New concept rows (``match_keys`` computed here from ``name`` and ``aliases``)."""
    if rows:
        await session.execute(
            insert(Concept),
            [
                {**r, "match_keys": concept_match_keys(r["name"], r.get("aliases") or [])}
                for r in rows
            ],
        )


def _keys_literal(name: str, aliases: Sequence[str]) -> str:
    """``concept_match_keys`` as one ``text[]`` literal (an element of a ``text[]`` bind:
    ``unnest`` would flatten a 2-D array)."""
    quoted = (
        '"' + k.replace("\\", "\\\\").replace('"', '\\"') + '"'
        for k in concept_match_keys(name, aliases)
    )
    return "{" + ",".join(quoted) + "}"


async def update_concepts(session: AsyncSession, rows: Sequence[Mapping[str, Any]]) -> None:
    """Rows with ``id``, ``name`` (unchanged: the match keys are computed from it) and the
    changed columns (level, centrality, aliases, description)."""
    if not rows:
        return
    await session.execute(
        text(
            """
            UPDATE concepts c SET level = v.level, centrality = v.centrality,
                   aliases = v.aliases, description = v.description,
                   match_keys = CAST(v.keys AS text[])
              FROM unnest(CAST(:ids AS uuid[]), CAST(:levels AS int[]),
                          CAST(:cents AS float8[]), CAST(:aliases AS jsonb[]),
                          CAST(:descs AS text[]), CAST(:keys AS text[]))
                   AS v(id, level, centrality, aliases, description, keys)
             WHERE c.id = v.id
            """
        ),
        {
            "ids": [r["id"] for r in rows],
            "levels": [r["level"] for r in rows],
            "cents": [r["centrality"] for r in rows],
            "aliases": [json_value(r["aliases"]) for r in rows],
            "descs": [r["description"] for r in rows],
            "keys": [_keys_literal(r["name"], r["aliases"]) for r in rows],
        },
    )


async def delete_concepts(session: AsyncSession, ids: Iterable[uuid.UUID]) -> None:
    ids = list(ids)
    if ids:
        await session.execute(delete(Concept).where(col(Concept.id).in_(ids)))


async def change_source_links(
    session: AsyncSession,
    add: Iterable[tuple[uuid.UUID, uuid.UUID, float]],
    remove: Iterable[tuple[uuid.UUID, uuid.UUID]],
    *,
    reweigh: Iterable[tuple[uuid.UUID, uuid.UUID, float]] = (),
) -> None:
    """Add ``(source, concept, weight)`` links, remove ``(source, concept)`` links and set
    the weight of existing ones."""
    remove = list(remove)
    add = list(add)
    reweigh = list(reweigh)
    if reweigh:
        await session.execute(
            text(
                """
                UPDATE source_concepts sc SET weight = v.w
                  FROM unnest(CAST(:s AS uuid[]), CAST(:c AS uuid[]), CAST(:w AS float8[]))
                       AS v(s, c, w)
                 WHERE sc.source_id = v.s AND sc.concept_id = v.c
                """
            ),
            {
                "s": [s for s, _, _ in reweigh],
                "c": [c for _, c, _ in reweigh],
                "w": [w for _, _, w in reweigh],
            },
        )
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
            [{"source_id": s, "concept_id": c, "weight": w} for s, c, w in add],
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


# ---------------------------------------------------------------- the bounded per-source update


async def concept_forms(
    session: AsyncSession, workspace_id: uuid.UUID, probe: Sequence[str]
) -> list[tuple[uuid.UUID, str, str, list[str], int, str | None, float | None]]:
    """``(id, slug, name, aliases, level, description, centrality)`` of the workspace's
    concepts having one of the tagged keys ``probe`` (``knowledge/match_keys.py``) — an
    index look-up (``ix_concepts_match_keys``), not a read of every concept."""
    if not probe:
        return []
    result = await session.execute(
        select(
            col(Concept.id),
            col(Concept.slug),
            col(Concept.name),
            col(Concept.aliases),
            col(Concept.level),
            col(Concept.description),
            col(Concept.centrality),
        ).where(
            col(Concept.workspace_id) == workspace_id,
            col(Concept.match_keys).op("&&")(cast(list(probe), ARRAY(Text))),
        )
    )
    return [(r[0], r[1], r[2], list(r[3] or []), int(r[4]), r[5], r[6]) for r in result.all()]


async def taken_slugs(
    session: AsyncSession, workspace_id: uuid.UUID, slugs: Sequence[str]
) -> set[str]:
    """Which of ``slugs`` the workspace's concepts already use."""
    if not slugs:
        return set()
    result = await session.execute(
        select(col(Concept.slug)).where(
            col(Concept.workspace_id) == workspace_id, col(Concept.slug).in_(list(slugs))
        )
    )
    return set(result.scalars().all())


async def count_concepts(session: AsyncSession, workspace_id: uuid.UUID) -> int:
    value = await session.scalar(
        select(func.count()).select_from(Concept).where(col(Concept.workspace_id) == workspace_id)
    )
    return int(value or 0)


async def links_of_concepts(
    session: AsyncSession, concept_ids: Sequence[uuid.UUID]
) -> list[tuple[uuid.UUID, uuid.UUID, float]]:
    """``(source_id, concept_id, weight)`` links of the given concepts."""
    if not concept_ids:
        return []
    result = await session.execute(
        select(
            col(SourceConcept.source_id), col(SourceConcept.concept_id), col(SourceConcept.weight)
        ).where(col(SourceConcept.concept_id).in_(list(concept_ids)))
    )
    return [(r[0], r[1], float(r[2])) for r in result.all()]


async def links_of_source(
    session: AsyncSession, source_id: uuid.UUID
) -> list[tuple[uuid.UUID, float]]:
    """``(concept_id, weight)`` links of one source."""
    result = await session.execute(
        select(col(SourceConcept.concept_id), col(SourceConcept.weight)).where(
            col(SourceConcept.source_id) == source_id
        )
    )
    return [(r[0], float(r[1])) for r in result.all()]


async def edges_among(session: AsyncSession, concept_ids: Sequence[uuid.UUID]) -> list[ConceptEdge]:
    """Concept edges with both ends among ``concept_ids``."""
    if not concept_ids:
        return []
    ids = list(concept_ids)
    result = await session.execute(
        select(ConceptEdge).where(
            col(ConceptEdge.source_concept_id).in_(ids),
            col(ConceptEdge.target_concept_id).in_(ids),
        )
    )
    return list(result.scalars().all())


async def update_concept_forms(session: AsyncSession, rows: Sequence[Mapping[str, Any]]) -> None:
    """Rows with ``id``, ``name`` (unchanged), ``level``, ``aliases`` and ``description``
    (centrality untouched: the background refresh owns it); the match keys follow."""
    if not rows:
        return
    await session.execute(
        text(
            """
            UPDATE concepts c SET level = v.level, aliases = v.aliases,
                   description = v.description, match_keys = CAST(v.keys AS text[])
              FROM unnest(CAST(:ids AS uuid[]), CAST(:levels AS int[]),
                          CAST(:aliases AS jsonb[]), CAST(:descs AS text[]),
                          CAST(:keys AS text[]))
                   AS v(id, level, aliases, description, keys)
             WHERE c.id = v.id
            """
        ),
        {
            "ids": [r["id"] for r in rows],
            "levels": [r["level"] for r in rows],
            "aliases": [json_value(r["aliases"]) for r in rows],
            "descs": [r["description"] for r in rows],
            "keys": [_keys_literal(r["name"], r["aliases"]) for r in rows],
        },
    )


async def concepts_without_embedding(
    session: AsyncSession, workspace_id: uuid.UUID
) -> list[tuple[uuid.UUID, str]]:
    """``(id, name)`` of the workspace's concepts not embedded yet (the per-source update
    leaves that to the refresh)."""
    result = await session.execute(
        select(col(Concept.id), col(Concept.name)).where(
            col(Concept.workspace_id) == workspace_id, any_array(Concept.embedding).is_(None)
        )
    )
    return [(r[0], r[1]) for r in result.all()]


async def set_concept_embeddings(
    session: AsyncSession, rows: Sequence[tuple[uuid.UUID, Any]]
) -> None:
    # One executemany per 500 rows (ORM bulk UPDATE by primary key), not a statement per
    # concept: the refresh after a large import embeds thousands of new concepts.
    params = [{"id": cid, "embedding": vector} for cid, vector in rows]
    for start in range(0, len(params), 500):
        await session.execute(update(Concept), params[start : start + 500])
