"""The knowledge layer as users reach it: a full recompute of a workspace (the
``knowledge.rebuild`` job, ``marginalia knowledge rebuild``) and the reads (the canvas
graph, concepts, claims with evidence, wiki pages). The per-source update runs inside the
job that brought the source (:mod:`marginalia.usecases.sources`,
:mod:`marginalia.usecases.research`)."""

from __future__ import annotations

import uuid
from dataclasses import asdict
from typing import Any

from marginalia.db.models import Concept, Job
from marginalia.jobs.context import JobContext
from marginalia.jobs.registry import job
from marginalia.knowledge import read
from marginalia.knowledge.update import rebuild_workspace
from marginalia.knowledge.views import (
    ClaimView,
    ConceptView,
    GapsView,
    GraphView,
    WikiPageSummary,
    WikiPageView,
    WikiRevisionSummary,
    WikiRevisionView,
)
from marginalia.runtime import Runtime
from marginalia.usecases.workspaces import get_workspace

REBUILD_KIND = "knowledge.rebuild"


async def submit_rebuild(rt: Runtime, workspace_id: uuid.UUID) -> Job:
    await get_workspace(rt, workspace_id)
    return await rt.jobs.submit(
        REBUILD_KIND, {"workspace_id": str(workspace_id)}, workspace_id=workspace_id
    )


async def graph_view(
    rt: Runtime,
    workspace_id: uuid.UUID,
    *,
    max_concepts: int | None = 300,
    limit: int | None = None,
    cursor: str | None = None,
) -> GraphView:
    return await read.graph_view(
        rt, workspace_id, max_concepts=max_concepts, limit=limit, cursor=cursor
    )


async def list_concepts(rt: Runtime, workspace_id: uuid.UUID) -> list[ConceptView]:
    return await read.list_concepts(rt, workspace_id)


async def list_claims(
    rt: Runtime, workspace_id: uuid.UUID, *, source_id: uuid.UUID | None = None
) -> list[ClaimView]:
    return await read.list_claims(rt, workspace_id, source_id=source_id)


async def list_wiki_pages(rt: Runtime, workspace_id: uuid.UUID) -> list[WikiPageSummary]:
    return await read.list_wiki_pages(rt, workspace_id)


async def get_wiki_page(rt: Runtime, workspace_id: uuid.UUID, slug: str) -> WikiPageView:
    return await read.get_wiki_page(rt, workspace_id, slug)


async def wiki_revisions(
    rt: Runtime, workspace_id: uuid.UUID, slug: str
) -> list[WikiRevisionSummary]:
    return await read.wiki_revisions(rt, workspace_id, slug)


async def wiki_revision(
    rt: Runtime, workspace_id: uuid.UUID, slug: str, revision: int
) -> WikiRevisionView:
    return await read.wiki_revision(rt, workspace_id, slug, revision)


async def workspace_gaps(rt: Runtime, workspace_id: uuid.UUID) -> GapsView:
    return await read.workspace_gaps(rt, workspace_id)


def job_param(ctx: JobContext, name: str) -> uuid.UUID:
    value = ctx.params.get(name)
    if value is None and name == "workspace_id" and ctx.workspace_id is not None:
        return ctx.workspace_id
    if value is None:
        raise ValueError(f"job {ctx.kind} needs the parameter {name!r}")
    return uuid.UUID(str(value))


def jsonable(data: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, uuid.UUID):
            out[key] = str(value)
        elif isinstance(value, tuple):
            out[key] = list(value)
        else:
            out[key] = value
    return out


@job(REBUILD_KIND)
async def rebuild_job(ctx: JobContext) -> dict[str, Any]:
    """``{"workspace_id"}``: recompute everything for a workspace."""
    workspace_id = job_param(ctx, "workspace_id")

    async def progress(message: str, stage: str, value: float) -> None:
        ctx.raise_if_cancelled()
        await ctx.emit(message, stage=stage, progress=value)

    await ctx.emit("rebuilding the knowledge layer", stage="start", progress=0.0)
    result = await rebuild_workspace(ctx.runtime, workspace_id, progress=progress)
    return jsonable(asdict(result))


async def source_concepts(rt: Runtime, workspace_id: uuid.UUID) -> dict[uuid.UUID, list[Concept]]:
    """Each source's concepts, best first (the concept eval reads them)."""
    return await read.source_concepts(rt, workspace_id)
