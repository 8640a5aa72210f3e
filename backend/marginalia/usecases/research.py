"""Research runs and BibTeX import/export for a workspace.

* ``research`` job — ``{"workspace_id", "description"?, "max_sources"?,
  "per_source_limit"?, "queries"?, "sources"?, "fetch"?}``: the full research pipeline;
* ``research.import`` job — ``{"workspace_id", "candidates": [Candidate JSON], "fetch"?}``:
  BibTeX entries through dedup → fetch → ingest → link.

Both run every new source through the knowledge update in the same job (the pipeline's
``link`` stage, invariant 9). Checkpoint: ``{"research": <ResearchRun.state>}`` — the
decomposition, the per-source search report, the dedup counts and every selected
candidate with its last completed stage (found → deduped → fetched → ingested → linked,
or dropped/failed) and what each stage produced. A resumed job continues each candidate
from there.
"""

from __future__ import annotations

import uuid
from typing import Any

from marginalia.db.models import Job
from marginalia.db.repositories import sources as sources_repo
from marginalia.discovery.bibtex_io import StaticSource, source_to_candidate
from marginalia.discovery.decompose import Decomposition
from marginalia.discovery.pipeline import ResearchRun
from marginalia.discovery.support import ResearchOptions
from marginalia.errors import ValidationFailed
from marginalia.formats import repository as formats_repo
from marginalia.jobs.context import JobContext
from marginalia.jobs.registry import job
from marginalia.knowledge.repository import knowledge_version
from marginalia.runtime import Runtime
from marginalia.sources.base import describe_failure
from marginalia.sources.bibtex import to_bibtex
from marginalia.sources.candidate import Candidate
from marginalia.usecases.imports import (
    DEFER_KNOWLEDGE_OVER,
    IMPORT_KIND,
    import_summary,
    submit_import,
)
from marginalia.usecases.knowledge import refresh_now
from marginalia.usecases.workspaces import get_workspace, update_workspace

RESEARCH_KIND = "research"


async def submit_research(
    rt: Runtime,
    workspace_id: uuid.UUID,
    *,
    description: str | None = None,
    max_sources: int | None = None,
    per_source_limit: int | None = None,
    queries: list[str] | None = None,
    sources: list[str] | None = None,
    fetch: bool = True,
    save_description: bool = False,
) -> Job:
    """Submit a research job for an existing workspace. ``save_description``: a new
    description becomes the workspace's (quality is re-scored against it)."""
    workspace = await get_workspace(rt, workspace_id)
    description = (description or "").strip()
    if save_description and description and description != workspace.description:
        await update_workspace(rt, workspace_id, {"description": description})
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
    return await rt.jobs.submit(RESEARCH_KIND, params, workspace_id=workspace_id)


async def submit_bibtex_import(
    rt: Runtime, workspace_id: uuid.UUID, text: str, *, fetch: bool = True
) -> Job:
    """Validate the BibTeX (a bad file changes nothing) and submit the import job (no
    attachment is read: the text has no folder; see :func:`usecases.imports.submit_import`)."""
    return await submit_import(rt, workspace_id, text, "bibtex", fetch=fetch)


async def export_bibtex(rt: Runtime, workspace_id: uuid.UUID) -> str:
    """The workspace's sources as BibTeX (oldest first; stable citation keys)."""
    await get_workspace(rt, workspace_id)
    async with rt.db.session() as session:
        sources = await sources_repo.all_for_workspace(session, workspace_id)
    records = [source_to_candidate(s) for s in sources]
    if not records:
        return ""
    return to_bibtex(records)


def describe_source_failure(source: str, reason: str | None, message: str | None) -> str:
    """A research source's failure in one line (``arXiv: unreachable (DNS)``)."""
    return describe_failure(source, reason, message)


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
        ctx.runtime,
        workspace_id,
        description,
        state=dict(ctx.checkpoint.get("research") or {}),
        emit=emit,
        save=save,
        check_cancelled=ctx.raise_if_cancelled,
        **kw,
    )


async def _refreshed_after(
    ctx: JobContext, workspace_id: uuid.UUID, run: ResearchRun
) -> dict[str, Any]:
    """Run the pipeline; when it linked sources (each with the bounded per-source update),
    refresh the workspace's graph-wide knowledge statistics once, before the job ends."""
    async with ctx.runtime.db.session() as session:
        before = await knowledge_version(session, workspace_id)
    result = await run.run()
    async with ctx.runtime.db.session() as session:
        changed = await knowledge_version(session, workspace_id) != before
    if changed:
        await ctx.emit("refreshing the knowledge layer", stage="refresh", progress=0.99)
        await refresh_now(ctx.runtime, workspace_id)
    return result


@job(RESEARCH_KIND)
async def research_job(ctx: JobContext) -> dict[str, Any]:
    workspace_id = _workspace_id(ctx)
    description = str(ctx.params.get("description") or "").strip()
    if not description:
        description = (await get_workspace(ctx.runtime, workspace_id)).description
    if not description.strip():
        raise ValidationFailed(
            "nothing to research: give a description (the workspace has none either)"
        )
    run = _run_for(ctx, workspace_id, description, options=ResearchOptions.from_params(ctx.params))
    return await _refreshed_after(ctx, workspace_id, run)


@job(IMPORT_KIND)
async def import_job(ctx: JobContext) -> dict[str, Any]:
    workspace_id = _workspace_id(ctx)
    candidates = [Candidate.model_validate(c) for c in ctx.params.get("candidates", [])]
    fmt = str(ctx.params.get("format") or "bibtex")
    run = _run_for(
        ctx,
        workspace_id,
        f"{fmt} import",
        options=ResearchOptions(
            max_sources=max(1, len(candidates)),
            per_source_limit=max(1, len(candidates)),
            fetch=bool(ctx.params.get("fetch", True)),
            metadata_only=bool(ctx.params.get("metadata_only", False)),
            rank_by_relevance=False,
            defer_knowledge=len(candidates) > DEFER_KNOWLEDGE_OVER,
        ),
        clients=[StaticSource(fmt, candidates)],
    )
    if "decomposition" not in run.state:
        run.state["decomposition"] = Decomposition(
            description=f"{fmt} import",
            intent="research",
            queries=[f"{fmt} import"],
            engine="import",
            note=f"{len(candidates)} entries imported from {fmt}",
        ).as_dict()
    result = await _refreshed_after(ctx, workspace_id, run)
    result["notes_added"] = await _add_notes(ctx, workspace_id, result)
    result["import"] = import_summary(ctx.params, result)
    return result


async def _add_notes(ctx: JobContext, workspace_id: uuid.UUID, result: dict[str, Any]) -> int:
    """Each entry's notes on the source it became (a note already there is not repeated,
    so a resumed job adds none twice)."""
    notes: dict[str, list[str]] = dict(ctx.params.get("notes") or {})
    added = 0
    async with ctx.runtime.db.transaction() as session:
        for item in result.get("candidates") or []:
            bodies = notes.get(str(item.get("entry")))
            if bodies and item.get("source_id"):
                added += await formats_repo.add_notes(
                    session, workspace_id, uuid.UUID(str(item["source_id"])), bodies
                )
    return added
