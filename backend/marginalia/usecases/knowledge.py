"""The knowledge layer as users reach it: a full recompute of a workspace (the
``knowledge.rebuild`` job, ``marginalia knowledge rebuild``) and the reads (the canvas
graph, concepts, claims with evidence, wiki pages). The per-source update runs inside the
job that brought the source (:mod:`marginalia.usecases.sources`,
:mod:`marginalia.usecases.research`)."""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import asdict
from typing import Any

from marginalia.db.models import Concept, Job
from marginalia.db.repositories import jobs as jobs_repo
from marginalia.jobs.context import JobContext
from marginalia.jobs.registry import job
from marginalia.knowledge import read
from marginalia.knowledge import repository as knowledge_repo
from marginalia.knowledge.refresh import RefreshResult, refresh_workspace
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
REFRESH_KIND = "knowledge.refresh"
REFRESH_MAX_RUNS = 3
"""A refresh job re-runs while updates landed during its run, at most this many times."""


async def submit_rebuild(rt: Runtime, workspace_id: uuid.UUID) -> Job:
    await get_workspace(rt, workspace_id)
    return await rt.jobs.submit(
        REBUILD_KIND, {"workspace_id": str(workspace_id)}, workspace_id=workspace_id
    )


async def refresh_now(rt: Runtime, workspace_id: uuid.UUID) -> RefreshResult:
    """The graph-wide knowledge refresh, inline (end of a research or import job)."""
    return await refresh_workspace(rt, workspace_id)


async def request_refresh(rt: Runtime, workspace_id: uuid.UUID) -> Job | None:
    """After per-source updates (``update_for_source(..., refresh=False)``): schedule the
    graph-wide refresh. With ``knowledge.refresh_delay_s`` 0 it runs now, inline (returns
    None); otherwise a ``knowledge.refresh`` job is queued unless one is already queued or
    running for the workspace (a running one re-runs when updates landed meanwhile), and
    returned."""
    if rt.settings.knowledge.refresh_delay_s <= 0:
        await refresh_workspace(rt, workspace_id)
        return None
    async with rt.db.session() as session:
        pending = await jobs_repo.pending_of_kind(session, REFRESH_KIND, workspace_id)
    if pending is not None:
        return pending
    return await rt.jobs.submit(
        REFRESH_KIND, {"workspace_id": str(workspace_id)}, workspace_id=workspace_id
    )


async def pending_refresh(rt: Runtime, workspace_id: uuid.UUID) -> Job | None:
    """The workspace's queued or running ``knowledge.refresh`` job, if any, made sure to
    run: a queued one is handed to this process's backend too (the first runner to claim
    it runs it, the other skips), so one left queued by a process that exited still runs.
    A command that queued a refresh follows this job before it exits
    (``marginalia ingest``), so a workspace built from the CLI gets its wiki pages."""
    async with rt.db.session() as session:
        pending = await jobs_repo.pending_of_kind(session, REFRESH_KIND, workspace_id)
    if pending is not None and pending.status == "queued":
        await rt.jobs.backend.submit(pending.id)
    return pending


async def _version(rt: Runtime, workspace_id: uuid.UUID) -> int:
    async with rt.db.session() as session:
        return await knowledge_repo.knowledge_version(session, workspace_id)


@job(REFRESH_KIND)
async def refresh_job(ctx: JobContext) -> dict[str, Any]:
    """``{"workspace_id"}``: wait until the workspace's knowledge has not changed for
    ``knowledge.refresh_delay_s`` seconds, then refresh its graph-wide statistics; again
    (up to :data:`REFRESH_MAX_RUNS` runs) while updates landed during a run."""
    workspace_id = job_param(ctx, "workspace_id")
    rt = ctx.runtime
    delay = rt.settings.knowledge.refresh_delay_s
    await ctx.emit("waiting for updates to settle", stage="debounce", progress=0.0)
    seen, quiet_since = await _version(rt, workspace_id), time.monotonic()
    while time.monotonic() - quiet_since < delay:
        await asyncio.sleep(min(1.0, max(0.05, delay / 4)))
        ctx.raise_if_cancelled()
        now = await _version(rt, workspace_id)
        if now != seen:
            seen, quiet_since = now, time.monotonic()
    runs: list[dict[str, Any]] = []
    while True:
        ctx.raise_if_cancelled()
        await ctx.emit("refreshing the knowledge layer", stage="refresh", progress=0.5)
        result = await refresh_workspace(rt, workspace_id)
        runs.append(jsonable(asdict(result)))
        if len(runs) >= REFRESH_MAX_RUNS or await _version(rt, workspace_id) == (
            result.knowledge_version
        ):
            break
    return {**runs[-1], "runs": len(runs)}


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
