"""Knowledge layer: the canvas graph, concepts, claims with evidence, wiki, learning paths."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Query, status

from marginalia.api.deps import ServicesDep
from marginalia.api.schemas import ErrorOut, JobOut
from marginalia.errors import NotFoundError
from marginalia.knowledge import service
from marginalia.knowledge.views import (
    ClaimView,
    ConceptView,
    GraphView,
    LearningPathView,
    WikiPageSummary,
    WikiPageView,
)
from marginalia.services import workspaces as ws_service

router = APIRouter(
    prefix="/api/workspaces/{workspace_id}",
    tags=["knowledge"],
    responses={404: {"model": ErrorOut}, 422: {"model": ErrorOut}},
)


@router.get("/graph", response_model=GraphView, summary="Sources, concepts and syntheses")
async def get_graph(
    workspace_id: uuid.UUID,
    services: ServicesDep,
    max_concepts: Annotated[
        int | None, Query(ge=0, le=5000, description="keep the most central concepts only")
    ] = 300,
) -> GraphView:
    return await service.graph_view(services, workspace_id, max_concepts=max_concepts)


@router.get("/concepts", response_model=list[ConceptView])
async def get_concepts(workspace_id: uuid.UUID, services: ServicesDep) -> list[ConceptView]:
    return await service.list_concepts(services, workspace_id)


@router.get("/claims", response_model=list[ClaimView], summary="Claims with their evidence")
async def get_claims(
    workspace_id: uuid.UUID,
    services: ServicesDep,
    source_id: Annotated[uuid.UUID | None, Query()] = None,
) -> list[ClaimView]:
    return await service.list_claims(services, workspace_id, source_id=source_id)


@router.get("/wiki", response_model=list[WikiPageSummary])
async def get_wiki(workspace_id: uuid.UUID, services: ServicesDep) -> list[WikiPageSummary]:
    return await service.list_wiki_pages(services, workspace_id)


@router.get("/wiki/{slug}", response_model=WikiPageView)
async def get_wiki_page(workspace_id: uuid.UUID, slug: str, services: ServicesDep) -> WikiPageView:
    return await service.get_wiki_page(services, workspace_id, slug)


@router.get("/path", response_model=LearningPathView, summary="The latest learning path")
async def get_path(workspace_id: uuid.UUID, services: ServicesDep) -> LearningPathView:
    path = await service.latest_learning_path(services, workspace_id)
    if path is None:
        raise NotFoundError(
            f"workspace {workspace_id} has no learning path yet; POST to this URL to make one"
        )
    return path


@router.post(
    "/path",
    status_code=status.HTTP_201_CREATED,
    response_model=LearningPathView,
    summary="Generate a learning path",
)
async def post_path(workspace_id: uuid.UUID, services: ServicesDep) -> LearningPathView:
    return await service.generate_learning_path(services, workspace_id)


@router.post(
    "/knowledge/rebuild",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=JobOut,
    summary="Recompute the knowledge layer (a job)",
)
async def rebuild(workspace_id: uuid.UUID, services: ServicesDep) -> JobOut:
    await ws_service.get_workspace(services.db, workspace_id)
    job = await services.jobs.submit(
        "knowledge.rebuild", {"workspace_id": str(workspace_id)}, workspace_id=workspace_id
    )
    return JobOut.model_validate(job)
