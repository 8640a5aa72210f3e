"""Research runs and BibTeX import/export for a workspace (thin: the research use case
runs the flow; progress streams from ``GET /api/jobs/{id}/events``)."""

from __future__ import annotations

import uuid
from typing import Annotated, Literal

from fastapi import APIRouter, Body, Query, Response, status
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from marginalia.api.deps import RuntimeDep
from marginalia.api.downloads import attachment
from marginalia.api.schemas import ErrorOut, JobOut
from marginalia.usecases import exports, research

router = APIRouter(
    prefix="/api/workspaces",
    tags=["research"],
    responses={404: {"model": ErrorOut}, 422: {"model": ErrorOut}},
)


class ResearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    description: str | None = Field(
        default=None,
        max_length=4000,
        description="What to research (the workspace's description is kept unless "
        "save_description). Omitted: the workspace's current description.",
    )
    save_description: StrictBool = Field(
        default=False, description="true: this text becomes the workspace's description"
    )
    max_sources: StrictInt = Field(default=30, ge=1, le=200, description="sources ingested at most")
    per_source_limit: StrictInt | None = Field(default=None, ge=1, le=100)
    queries: list[Annotated[str, Field(max_length=500)]] | None = Field(
        default=None, max_length=5, description="search these instead of the decomposition's"
    )
    sources: list[Annotated[str, Field(max_length=20)]] | None = Field(
        default=None,
        max_length=4,
        description="restrict to these sources: arxiv, openalex, brave, catalog",
    )
    fetch: StrictBool = Field(default=True, description="false: ingest abstracts only")


@router.post(
    "/{workspace_id}/research",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=JobOut,
    summary="Run the research pipeline; returns the job (stream its events for progress)",
)
async def start_research(
    workspace_id: uuid.UUID, rt: RuntimeDep, body: ResearchRequest | None = None
) -> JobOut:
    request = body or ResearchRequest()
    job = await research.submit_research(
        rt,
        workspace_id,
        description=request.description,
        save_description=request.save_description,
        max_sources=request.max_sources,
        per_source_limit=request.per_source_limit,
        queries=request.queries,
        sources=request.sources,
        fetch=request.fetch,
    )
    return JobOut.model_validate(job)


@router.post(
    "/{workspace_id}/bibtex",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=JobOut,
    summary="Import a BibTeX file (request body: the BibTeX text); returns the import job",
)
async def import_bibtex(
    workspace_id: uuid.UUID,
    rt: RuntimeDep,
    bibtex: Annotated[str, Body(media_type="application/x-bibtex")],
    fetch: bool = True,
) -> JobOut:
    job = await research.submit_bibtex_import(rt, workspace_id, bibtex, fetch=fetch)
    return JobOut.model_validate(job)


@router.get(
    "/{workspace_id}/bibtex",
    response_class=Response,
    responses={200: {"content": {"application/x-bibtex": {}}}},
    summary="The workspace's sources as BibTeX, notes and highlights in annote",
)
async def get_bibtex(workspace_id: uuid.UUID, rt: RuntimeDep) -> Response:
    text, name = await exports.export_selection(rt, workspace_id, "bibtex")
    return Response(
        text,
        media_type="application/x-bibtex; charset=utf-8",
        headers=attachment(name),
    )


@router.get(
    "/{workspace_id}/export",
    response_class=Response,
    responses={
        200: {
            "content": {media: {} for media in exports.MEDIA_TYPES.values()},
            "description": "the bibliography file, named after the workspace",
        }
    },
    summary="The workspace's sources (or the chosen ones) as BibTeX, RIS or CSL-JSON, with "
    "notes and highlights; DOI, pages and venue filled from the catalog's record of the "
    "same work where the source lacks them (their origin in metadata-origin)",
)
async def export_workspace(
    workspace_id: uuid.UUID,
    rt: RuntimeDep,
    format: Annotated[Literal["bibtex", "ris", "csl-json"], Query()] = "bibtex",
    source_id: Annotated[
        list[uuid.UUID] | None,
        Query(max_length=1000, description="export only these sources (repeat the parameter)"),
    ] = None,
) -> Response:
    text, name = await exports.export_selection(rt, workspace_id, format, source_id)
    return Response(
        text,
        media_type=f"{exports.MEDIA_TYPES[format]}; charset=utf-8",
        headers=attachment(name),
    )
