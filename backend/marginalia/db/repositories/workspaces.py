"""SQL for workspaces."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from marginalia.db.models import Chunk, Conversation, Job, Source, Workspace


async def create(
    session: AsyncSession, *, name: str, description: str, owner_id: uuid.UUID | None = None
) -> Workspace:
    workspace = Workspace(name=name, description=description, owner_id=owner_id)
    session.add(workspace)
    await session.flush()
    await session.refresh(workspace)
    return workspace


async def get(session: AsyncSession, workspace_id: uuid.UUID) -> Workspace | None:
    return await session.get(Workspace, workspace_id)


async def get_by_name(session: AsyncSession, name: str) -> Workspace | None:
    result = await session.execute(
        select(Workspace)
        .where(col(Workspace.name) == name)
        .order_by(col(Workspace.created_at))
        .limit(1)
    )
    return result.scalars().first()


async def list_all(session: AsyncSession) -> list[Workspace]:
    result = await session.execute(select(Workspace).order_by(col(Workspace.created_at)))
    return list(result.scalars().all())


async def update(session: AsyncSession, workspace: Workspace, changes: dict[str, Any]) -> Workspace:
    for key, value in changes.items():
        setattr(workspace, key, value)
    await session.flush()
    await session.refresh(workspace)
    return workspace


async def delete(session: AsyncSession, workspace: Workspace) -> None:
    await session.delete(workspace)
    await session.flush()


async def counts(session: AsyncSession, workspace_id: uuid.UUID) -> dict[str, int]:
    sources = await session.scalar(
        select(func.count()).select_from(Source).where(col(Source.workspace_id) == workspace_id)
    )
    chunks = await session.scalar(
        select(func.count()).select_from(Chunk).where(col(Chunk.workspace_id) == workspace_id)
    )
    return {"sources": int(sources or 0), "chunks": int(chunks or 0)}


async def activity(session: AsyncSession) -> dict[uuid.UUID, tuple[int, datetime | None]]:
    """Per workspace: its source count and its latest activity (a source added, a job
    created or finished, a conversation updated) — one query for the start page."""
    sources = (
        select(
            col(Source.workspace_id).label("wid"),
            func.count().label("n"),
            func.max(Source.created_at).label("at"),
        )
        .group_by(col(Source.workspace_id))
        .subquery()
    )
    jobs = (
        select(
            col(Job.workspace_id).label("wid"),
            func.max(func.coalesce(Job.finished_at, Job.created_at)).label("at"),
        )
        .group_by(col(Job.workspace_id))
        .subquery()
    )
    talks = (
        select(
            col(Conversation.workspace_id).label("wid"),
            func.max(Conversation.updated_at).label("at"),
        )
        .group_by(col(Conversation.workspace_id))
        .subquery()
    )
    query = (
        select(
            col(Workspace.id),
            func.coalesce(sources.c.n, 0),
            func.greatest(Workspace.updated_at, sources.c.at, jobs.c.at, talks.c.at),
        )
        .outerjoin(sources, sources.c.wid == col(Workspace.id))
        .outerjoin(jobs, jobs.c.wid == col(Workspace.id))
        .outerjoin(talks, talks.c.wid == col(Workspace.id))
    )
    rows = (await session.execute(query)).all()
    return {row[0]: (int(row[1]), row[2]) for row in rows}
