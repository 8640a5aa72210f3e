"""Jobs of the discovery stage (same functions in-process or on arq workers).

* ``research`` — ``{"workspace_id", "description"?, "max_sources"?, "per_source_limit"?,
  "queries"?, "sources"?, "fetch"?}``: the full research pipeline;
* ``research.import`` — ``{"workspace_id", "candidates": [Candidate JSON], "fetch"?}``:
  BibTeX entries through dedup → fetch → ingest → link.

Checkpoint: ``{"research": <ResearchRun.state>}`` — the decomposition, the per-source
search report, the dedup counts and every selected candidate with its last completed
stage (found → deduped → fetched → ingested → linked, or dropped/failed) and what each
stage produced (fetch outcome and file-store key, source id, knowledge counts). A resumed
job continues each candidate from there.
"""

from __future__ import annotations

import uuid
from typing import Any

from marginalia.db.models import Job
from marginalia.discovery.bibtex_io import StaticSource
from marginalia.discovery.decompose import Decomposition
from marginalia.discovery.pipeline import ResearchOptions, ResearchRun
from marginalia.errors import ValidationFailed
from marginalia.jobs.context import JobContext
from marginalia.jobs.registry import job
from marginalia.services.container import Services
from marginalia.services.workspaces import get_workspace
from marginalia.sources.candidate import Candidate

RESEARCH_KIND = "research"
IMPORT_KIND = "research.import"


def _workspace_id(ctx: JobContext) -> uuid.UUID:
    value = ctx.params.get("workspace_id") or ctx.workspace_id
    if value is None:
        raise ValidationFailed(f"job {ctx.kind} needs a workspace_id")
    return uuid.UUID(str(value))


def _run_for(ctx: JobContext, workspace_id: uuid.UUID, description: str, **kw: Any) -> ResearchRun:
    async def emit(message: str, stage: str, progress: float | None, data: dict[str, Any]) -> None:
        ctx.raise_if_cancelled()
        await ctx.emit(message, stage=stage, progress=progress, data=data)

    async def save(state: dict[str, Any]) -> None:
        await ctx.save_checkpoint(research=state)

    return ResearchRun(
        ctx.services,
        workspace_id,
        description,
        state=dict(ctx.checkpoint.get("research") or {}),
        emit=emit,
        save=save,
        check_cancelled=ctx.raise_if_cancelled,
        **kw,
    )


@job(RESEARCH_KIND)
async def research_job(ctx: JobContext) -> dict[str, Any]:
    workspace_id = _workspace_id(ctx)
    description = str(ctx.params.get("description") or "").strip()
    if not description:
        description = (await get_workspace(ctx.services.db, workspace_id)).description
    if not description.strip():
        raise ValidationFailed(
            "nothing to research: give a description (the workspace has none either)"
        )
    run = _run_for(ctx, workspace_id, description, options=ResearchOptions.from_params(ctx.params))
    return await run.run()


@job(IMPORT_KIND)
async def import_job(ctx: JobContext) -> dict[str, Any]:
    workspace_id = _workspace_id(ctx)
    candidates = [Candidate.model_validate(c) for c in ctx.params.get("candidates", [])]
    run = _run_for(
        ctx,
        workspace_id,
        "BibTeX import",
        options=ResearchOptions(
            max_sources=max(1, len(candidates)),
            per_source_limit=max(1, len(candidates)),
            fetch=bool(ctx.params.get("fetch", True)),
        ),
        clients=[StaticSource("bibtex", candidates)],
    )
    if "decomposition" not in run.state:
        run.state["decomposition"] = Decomposition(
            description="BibTeX import",
            intent="research",
            queries=["bibtex import"],
            engine="import",
            note=f"{len(candidates)} entries imported from BibTeX",
        ).as_dict()
    return await run.run()


async def submit_research(
    services: Services,
    workspace_id: uuid.UUID,
    *,
    description: str | None = None,
    max_sources: int | None = None,
    per_source_limit: int | None = None,
    queries: list[str] | None = None,
    sources: list[str] | None = None,
    fetch: bool = True,
) -> Job:
    """Submit a research job for an existing workspace."""
    await get_workspace(services.db, workspace_id)
    params: dict[str, Any] = {"workspace_id": str(workspace_id), "fetch": fetch}
    if description:
        params["description"] = description
    if max_sources:
        params["max_sources"] = max_sources
    if per_source_limit:
        params["per_source_limit"] = per_source_limit
    if queries:
        params["queries"] = queries
    if sources:
        params["sources"] = sources
    return await services.jobs.submit(RESEARCH_KIND, params, workspace_id=workspace_id)
