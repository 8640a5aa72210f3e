"""Learning paths and their steps."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from marginalia.db.models import (
    LearningPath,
    LearningPathStep,
)


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
