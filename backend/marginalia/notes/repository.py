"""SQL for highlights and notes."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from marginalia.db.models import Highlight, Source


async def create(session: AsyncSession, **fields: Any) -> Highlight:
    highlight = Highlight(**fields)
    session.add(highlight)
    await session.flush()
    await session.refresh(highlight)
    return highlight


async def get(session: AsyncSession, highlight_id: uuid.UUID) -> Highlight | None:
    return await session.get(Highlight, highlight_id)


async def for_source(session: AsyncSession, source_id: uuid.UUID) -> list[Highlight]:
    result = await session.execute(
        select(Highlight)
        .where(col(Highlight.source_id) == source_id)
        .order_by(col(Highlight.page), col(Highlight.char_start), col(Highlight.created_at))
    )
    return list(result.scalars().all())


async def for_workspace(
    session: AsyncSession, workspace_id: uuid.UUID, query: str | None = None
) -> list[tuple[Highlight, str | None]]:
    """The workspace's highlights with their source's title, those whose quote or note
    contains ``query`` (case-insensitive) when it is given."""
    stmt = (
        select(Highlight, col(Source.title))
        .join(Source, col(Source.id) == col(Highlight.source_id))
        .where(col(Highlight.workspace_id) == workspace_id)
    )
    if query:
        escaped = query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        pattern = f"%{escaped}%"
        stmt = stmt.where(
            or_(
                col(Highlight.text).ilike(pattern), func.coalesce(Highlight.note, "").ilike(pattern)
            )
        )
    stmt = stmt.order_by(col(Source.title), col(Highlight.page), col(Highlight.char_start))
    result = await session.execute(stmt)
    return [(h, title) for h, title in result.all()]


async def update(session: AsyncSession, highlight: Highlight, changes: dict[str, Any]) -> Highlight:
    for key, value in changes.items():
        setattr(highlight, key, value)
    session.add(highlight)
    await session.flush()
    await session.refresh(highlight)
    return highlight


async def delete(session: AsyncSession, highlight: Highlight) -> None:
    await session.delete(highlight)
    await session.flush()
