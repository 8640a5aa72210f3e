"""Knowledge layer: the canvas graph, concepts, claims with evidence, wiki, learning paths."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Path, Query, status

from marginalia.api.deps import RuntimeDep
from marginalia.api.schemas import ErrorOut, JobOut
from marginalia.errors import NotFoundError
from marginalia.knowledge.views import (
    ClaimView,
    ConceptView,
    GapsView,
    GraphView,
    LearningPathView,
    WikiPageSummary,
    WikiPageView,
    WikiRevisionSummary,
    WikiRevisionView,
)
from marginalia.usecases import knowledge, paths

router = APIRouter(
    prefix="/api/workspaces/{workspace_id}",
    tags=["knowledge"],
    responses={404: {"model": ErrorOut}, 422: {"model": ErrorOut}},
)


@router.get("/graph", response_model=GraphView, summary="Sources, concepts and syntheses")
async def get_graph(
    workspace_id: uuid.UUID,
    rt: RuntimeDep,
    max_concepts: Annotated[
        int | None, Query(ge=0, le=5000, description="keep the most central concepts only")
    ] = 300,
    limit: Annotated[
        int,
        Query(ge=1, le=5000, description="nodes per page, most important first"),
    ] = 1500,
    cursor: Annotated[
        str | None,
        Query(max_length=2048, description="the previous page's `next_cursor` (opaque)"),
    ] = None,
) -> GraphView:
    """One page of the canvas graph: nodes by importance, the edges that close on it, and
    `next_cursor` while more nodes remain."""
    return await knowledge.graph_view(
        rt, workspace_id, max_concepts=max_concepts, limit=limit, cursor=cursor
    )


@router.get("/concepts", response_model=list[ConceptView])
async def get_concepts(workspace_id: uuid.UUID, rt: RuntimeDep) -> list[ConceptView]:
    return await knowledge.list_concepts(rt, workspace_id)


@router.get("/claims", response_model=list[ClaimView], summary="Claims with their evidence")
async def get_claims(
    workspace_id: uuid.UUID,
    rt: RuntimeDep,
    source_id: Annotated[uuid.UUID | None, Query()] = None,
) -> list[ClaimView]:
    return await knowledge.list_claims(rt, workspace_id, source_id=source_id)


@router.get(
    "/gaps",
    response_model=GapsView,
    summary="What the workspace does not settle yet, each gap with a research request",
)
async def get_gaps(workspace_id: uuid.UUID, rt: RuntimeDep) -> GapsView:
    return await knowledge.workspace_gaps(rt, workspace_id)


@router.get("/wiki", response_model=list[WikiPageSummary])
async def get_wiki(workspace_id: uuid.UUID, rt: RuntimeDep) -> list[WikiPageSummary]:
    return await knowledge.list_wiki_pages(rt, workspace_id)


@router.get("/wiki/{slug}", response_model=WikiPageView)
async def get_wiki_page(workspace_id: uuid.UUID, slug: str, rt: RuntimeDep) -> WikiPageView:
    return await knowledge.get_wiki_page(rt, workspace_id, slug)


@router.get(
    "/wiki/{slug}/revisions",
    response_model=list[WikiRevisionSummary],
    summary="A wiki page's revisions, newest first",
)
async def get_wiki_revisions(
    workspace_id: uuid.UUID, slug: str, rt: RuntimeDep
) -> list[WikiRevisionSummary]:
    return await knowledge.wiki_revisions(rt, workspace_id, slug)


@router.get(
    "/wiki/{slug}/revisions/{revision}",
    response_model=WikiRevisionView,
    summary="One revision of a wiki page",
)
async def get_wiki_revision(
    workspace_id: uuid.UUID,
    slug: str,
    revision: Annotated[int, Path(ge=1, le=1_000_000)],
    rt: RuntimeDep,
) -> WikiRevisionView:
    return await knowledge.wiki_revision(rt, workspace_id, slug, revision)


@router.get("/path", response_model=LearningPathView, summary="The latest learning path")
async def get_path(workspace_id: uuid.UUID, rt: RuntimeDep) -> LearningPathView:
    path = await paths.latest_learning_path(rt, workspace_id)
    if path is None:
        raise NotFoundError(
            f"workspace {workspace_id} has no learning path yet; POST to this URL to make one"
        )
    return path


@router.post(
    "/path",
    status_code=status.HTTP_201_CREATED,
    response_model=LearningPathView,
    summary="Generate a learning path (regenerate a stale one)",
)
async def post_path(workspace_id: uuid.UUID, rt: RuntimeDep) -> LearningPathView:
    return await paths.generate_learning_path(rt, workspace_id)


@router.put(
    "/path/steps/{step_id}/read",
    response_model=LearningPathView,
    summary="Mark a learning path step read (stored on the server)",
)
async def put_step_read(
    workspace_id: uuid.UUID, step_id: uuid.UUID, rt: RuntimeDep
) -> LearningPathView:
    return await paths.mark_step_read(rt, workspace_id, step_id, read=True)


@router.delete(
    "/path/steps/{step_id}/read",
    response_model=LearningPathView,
    summary="Mark a learning path step unread",
)
async def delete_step_read(
    workspace_id: uuid.UUID, step_id: uuid.UUID, rt: RuntimeDep
) -> LearningPathView:
    return await paths.mark_step_read(rt, workspace_id, step_id, read=False)


@router.post(
    "/knowledge/rebuild",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=JobOut,
    summary="Recompute the knowledge layer (a job)",
)
async def rebuild(workspace_id: uuid.UUID, rt: RuntimeDep) -> JobOut:
    return JobOut.model_validate(await knowledge.submit_rebuild(rt, workspace_id))
