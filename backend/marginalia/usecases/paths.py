"""Learning paths: the latest one of a workspace, a new one, and the job that makes one."""

from __future__ import annotations

import uuid
from typing import Any

from marginalia.jobs.context import JobContext
from marginalia.jobs.registry import job
from marginalia.knowledge import learning_path
from marginalia.knowledge.views import LearningPathView
from marginalia.runtime import Runtime
from marginalia.usecases.knowledge import job_param

LEARNING_PATH_KIND = "knowledge.learning_path"


async def latest_learning_path(rt: Runtime, workspace_id: uuid.UUID) -> LearningPathView | None:
    return await learning_path.latest_learning_path(rt, workspace_id)


async def generate_learning_path(rt: Runtime, workspace_id: uuid.UUID) -> LearningPathView:
    return await learning_path.generate_learning_path(rt, workspace_id)


async def mark_step_read(
    rt: Runtime, workspace_id: uuid.UUID, step_id: uuid.UUID, *, read: bool = True
) -> LearningPathView:
    return await learning_path.mark_step_read(rt, workspace_id, step_id, read=read)


async def current_or_new_path(
    rt: Runtime, workspace_id: uuid.UUID, *, regenerate: bool = False
) -> LearningPathView:
    """The latest path, or a new one when there is none (or ``regenerate``)."""
    current = None if regenerate else await latest_learning_path(rt, workspace_id)
    return current if current is not None else await generate_learning_path(rt, workspace_id)


@job(LEARNING_PATH_KIND)
async def learning_path_job(ctx: JobContext) -> dict[str, Any]:
    """``{"workspace_id"}``: generate a learning path."""
    workspace_id = job_param(ctx, "workspace_id")
    await ctx.emit("planning the learning path", stage="path", progress=0.0)
    path = await generate_learning_path(ctx.runtime, workspace_id)
    await ctx.emit(f"{len(path.steps)} steps", stage="path", progress=1.0)
    return {"path_id": str(path.id), "steps": len(path.steps)}
