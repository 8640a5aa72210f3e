"""Wiki pages and their revisions."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from sqlalchemy import delete, func, select, text
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from marginalia.db.models import (
    WikiPage,
    WikiRevision,
)
from marginalia.knowledge.repository.binds import json_value, vector_array


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
            embedding=vector_array(embedding),
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
        page.embedding = vector_array(embedding)
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
        {"ws": workspace_id, "one": json_value([slug])},
    )
    return [str(r[0]) for r in result.all()]


async def cited_chunk_pages(
    session: AsyncSession, source_ids: Sequence[uuid.UUID], chunk_indexes: Sequence[int]
) -> dict[tuple[uuid.UUID, int], int | None]:
    """``(source, chunk_index) → page_start`` of the chunks wiki citations name."""
    if not source_ids or not chunk_indexes:
        return {}
    result = await session.execute(
        text(
            "SELECT source_id, chunk_index, page_start FROM chunks"
            " WHERE source_id = ANY(:ids) AND chunk_index = ANY(:idx)"
        ),
        {"ids": list(source_ids), "idx": sorted(set(chunk_indexes))},
    )
    return {(r[0], int(r[1])): (int(r[2]) if r[2] is not None else None) for r in result.all()}


async def list_revisions(session: AsyncSession, page_id: uuid.UUID) -> list[WikiRevision]:
    """A page's revisions, newest first."""
    result = await session.execute(
        select(WikiRevision)
        .where(col(WikiRevision.page_id) == page_id)
        .order_by(col(WikiRevision.revision).desc())
    )
    return list(result.scalars().all())
