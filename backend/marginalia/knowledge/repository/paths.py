"""Learning paths and their steps."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from marginalia.db.models import (
    LearningPath,
    LearningPathStep,
    Workspace,
)


async def bump_knowledge_version(session: AsyncSession, workspace_id: uuid.UUID) -> None:
    """The workspace's knowledge changed (a source added or removed, a rebuild)."""
    await session.execute(
        update(Workspace)
        .where(col(Workspace.id) == workspace_id)
        .values(knowledge_version=col(Workspace.knowledge_version) + 1)
    )


async def knowledge_version(session: AsyncSession, workspace_id: uuid.UUID) -> int:
    value = await session.scalar(
        select(col(Workspace.knowledge_version)).where(col(Workspace.id) == workspace_id)
    )
    return int(value or 0)


async def set_step_read(
    session: AsyncSession, workspace_id: uuid.UUID, step_id: uuid.UUID, *, read: bool
) -> LearningPathStep | None:
    """Mark a step of one of the workspace's paths read (now) or unread; None if no such step."""
    step = (
        (
            await session.execute(
                select(LearningPathStep)
                .join(LearningPath, col(LearningPath.id) == col(LearningPathStep.path_id))
                .where(
                    col(LearningPathStep.id) == step_id,
                    col(LearningPath.workspace_id) == workspace_id,
                )
            )
        )
        .scalars()
        .first()
    )
    if step is None:
        return None
    if read and step.read_at is None:
        step.read_at = await session.scalar(select(func.now()))
    elif not read:
        step.read_at = None
    await session.flush()
    return step


async def read_marks(session: AsyncSession, workspace_id: uuid.UUID) -> dict[uuid.UUID, datetime]:
    """Source id → when its step of the latest path was marked read (carried to a new path)."""
    found = await latest_learning_path(session, workspace_id)
    if found is None:
        return {}
    return {st.source_id: st.read_at for st in found[1] if st.read_at is not None}


async def insert_learning_path(
    session: AsyncSession,
    workspace_id: uuid.UUID,
    *,
    title: str,
    broken_cycles: Sequence[str],
    notes: str | None,
    engine: str,
    steps: Sequence[Mapping[str, Any]],
    knowledge_version: int = 0,
    source_ids: Sequence[uuid.UUID] = (),
) -> uuid.UUID:
    path = LearningPath(
        workspace_id=workspace_id,
        title=title,
        broken_cycles=list(broken_cycles),
        notes=notes,
        engine=engine,
        knowledge_version=knowledge_version,
        source_ids=sorted(str(s) for s in source_ids),
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
