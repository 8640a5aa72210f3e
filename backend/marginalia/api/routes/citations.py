"""Citation chasing (issue 36): a source's references and citing works, the workspace's
suggestions, and adding chosen works (one import job: dedup, fetch, ingest, knowledge)."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Query, status
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt

from marginalia.api.deps import RuntimeDep
from marginalia.api.schemas import ErrorOut, JobOut
from marginalia.usecases import citations as service
from marginalia.usecases.citations import CitationList, Suggestion

router = APIRouter(
    prefix="/api",
    tags=["citations"],
    responses={404: {"model": ErrorOut}, 422: {"model": ErrorOut}},
)


@router.get(
    "/sources/{source_id}/references",
    response_model=CitationList,
    summary="The known works a source cites (its PDF's reference list and its record's, "
    "resolved to workspace sources, catalog records and OpenAlex works)",
)
async def get_references(source_id: uuid.UUID, rt: RuntimeDep) -> CitationList:
    return await service.references(rt, source_id)


@router.get(
    "/sources/{source_id}/cited-by",
    response_model=CitationList,
    summary="The known works citing a source (workspace sources, catalog records, OpenAlex)",
)
async def get_cited_by(source_id: uuid.UUID, rt: RuntimeDep) -> CitationList:
    return await service.cited_by(rt, source_id)


@router.get(
    "/workspaces/{workspace_id}/suggestions",
    response_model=list[Suggestion],
    summary="Works not in the workspace, ranked by how many of its sources cite them or "
    "are cited by them (co-citation, bibliographic coupling), each with why",
)
async def get_suggestions(
    workspace_id: uuid.UUID,
    rt: RuntimeDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> list[Suggestion]:
    return await service.suggestions(rt, workspace_id, limit=limit)


class WorkIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    title: str | None = Field(default=None, max_length=1000)
    doi: str | None = Field(default=None, max_length=300)
    arxiv_id: str | None = Field(default=None, max_length=50)
    openalex_id: str | None = Field(default=None, max_length=100)
    catalog_id: str | None = Field(default=None, max_length=300)
    year: StrictInt | None = Field(default=None, ge=1000, le=3000)


class AddWorksRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    works: list[WorkIn] = Field(min_length=1, max_length=service.MAX_ADD)
    fetch: StrictBool = Field(default=True, description="false: abstracts/metadata only")


@router.post(
    "/workspaces/{workspace_id}/works",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=JobOut,
    summary="Add chosen works (from a references, cited-by or suggestions list) through "
    "the import: dedup against the workspace, fetch, ingest; returns the job",
)
async def add_works(workspace_id: uuid.UUID, body: AddWorksRequest, rt: RuntimeDep) -> JobOut:
    works = [service.WorkToAdd(**w.model_dump()) for w in body.works]
    job = await service.add_works(rt, workspace_id, works, fetch=body.fetch)
    return JobOut.model_validate(job)
