"""Jobs of the knowledge layer (same functions in-process or on arq workers).

* ``knowledge.rebuild`` — ``{"workspace_id"}``: recompute everything for a workspace;
* ``knowledge.update_source`` — ``{"workspace_id", "source_id"}``: after one source was added;
* ``knowledge.learning_path`` — ``{"workspace_id"}``: generate a learning path.
"""

from __future__ import annotations

import uuid
from dataclasses import asdict
from typing import Any

from marginalia.jobs.context import JobContext
from marginalia.jobs.registry import job
from marginalia.knowledge import service


def _uuid_param(ctx: JobContext, name: str) -> uuid.UUID:
    value = ctx.params.get(name)
    if value is None and name == "workspace_id" and ctx.workspace_id is not None:
        return ctx.workspace_id
    if value is None:
        raise ValueError(f"job {ctx.kind} needs the parameter {name!r}")
    return uuid.UUID(str(value))


def _jsonable(data: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, uuid.UUID):
            out[key] = str(value)
        elif isinstance(value, tuple):
            out[key] = list(value)
        else:
            out[key] = value
    return out


@job("knowledge.rebuild")
async def rebuild(ctx: JobContext) -> dict[str, Any]:
    workspace_id = _uuid_param(ctx, "workspace_id")

    async def progress(message: str, stage: str, value: float) -> None:
        ctx.raise_if_cancelled()
        await ctx.emit(message, stage=stage, progress=value)

    await ctx.emit("rebuilding the knowledge layer", stage="start", progress=0.0)
    result = await service.rebuild_workspace(ctx.services, workspace_id, progress=progress)
    return _jsonable(asdict(result))


@job("knowledge.update_source")
async def update_source(ctx: JobContext) -> dict[str, Any]:
    workspace_id = _uuid_param(ctx, "workspace_id")
    source_id = _uuid_param(ctx, "source_id")
    await ctx.emit("updating the knowledge layer", stage="knowledge", progress=0.0)
    result = await service.update_for_source(ctx.services, workspace_id, source_id)
    await ctx.emit(
        f"{result.concepts} concepts, {result.claims} claims, {len(result.wiki_pages)} wiki pages",
        stage="knowledge",
        progress=1.0,
    )
    return _jsonable(asdict(result))


@job("knowledge.learning_path")
async def learning_path(ctx: JobContext) -> dict[str, Any]:
    workspace_id = _uuid_param(ctx, "workspace_id")
    await ctx.emit("planning the learning path", stage="path", progress=0.0)
    path = await service.generate_learning_path(ctx.services, workspace_id)
    await ctx.emit(f"{len(path.steps)} steps", stage="path", progress=1.0)
    return {"path_id": str(path.id), "steps": len(path.steps)}
