"""SQL of the import/export formats: the notes an export carries and an import brings."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from marginalia.db.models import Note


async def add_notes(
    session: AsyncSession, workspace_id: uuid.UUID, source_id: uuid.UUID, bodies: Sequence[str]
) -> int:
    """Add the notes of ``bodies`` the source does not already have (same text); returns
    how many were added."""
    existing = set(
        (
            await session.execute(select(col(Note.body)).where(col(Note.source_id) == source_id))
        ).scalars()
    )
    added = 0
    for body in bodies:
        if body.strip() and body not in existing:
            session.add(Note(workspace_id=workspace_id, source_id=source_id, body=body))
            existing.add(body)
            added += 1
    await session.flush()
    return added


async def notes_by_source(
    session: AsyncSession, workspace_id: uuid.UUID
) -> dict[uuid.UUID, list[str]]:
    """The workspace's notes on its sources, oldest first, by source."""
    rows = await session.execute(
        select(col(Note.source_id), col(Note.body))
        .where(col(Note.workspace_id) == workspace_id, col(Note.source_id).is_not(None))
        .order_by(col(Note.created_at), col(Note.id))
    )
    out: dict[uuid.UUID, list[str]] = {}
    for source_id, body in rows.all():
        if source_id is not None:
            out.setdefault(source_id, []).append(body)
    return out
