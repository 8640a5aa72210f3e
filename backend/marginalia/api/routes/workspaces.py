from __future__ import annotations

import uuid

from fastapi import APIRouter, Response, status

from marginalia.api.deps import DatabaseDep, ServicesDep
from marginalia.api.schemas import (
    ErrorOut,
    WorkspaceCreate,
    WorkspaceDetail,
    WorkspaceOut,
    WorkspaceUpdate,
)
from marginalia.knowledge.service import refresh_relevance
from marginalia.services import workspaces as service

router = APIRouter(
    prefix="/api/workspaces",
    tags=["workspaces"],
    responses={404: {"model": ErrorOut}, 422: {"model": ErrorOut}},
)


@router.post("", status_code=status.HTTP_201_CREATED, response_model=WorkspaceOut)
async def create_workspace(body: WorkspaceCreate, db: DatabaseDep) -> WorkspaceOut:
    workspace = await service.create_workspace(db, name=body.name, description=body.description)
    return WorkspaceOut.model_validate(workspace)


@router.get("", response_model=list[WorkspaceOut])
async def list_workspaces(db: DatabaseDep) -> list[WorkspaceOut]:
    return [WorkspaceOut.model_validate(w) for w in await service.list_workspaces(db)]


@router.get("/{workspace_id}", response_model=WorkspaceDetail)
async def get_workspace(workspace_id: uuid.UUID, db: DatabaseDep) -> WorkspaceDetail:
    workspace = await service.get_workspace(db, workspace_id)
    counts = await service.workspace_counts(db, workspace_id)
    return WorkspaceDetail.model_validate(
        {**WorkspaceOut.model_validate(workspace).model_dump(), "counts": counts}
    )


@router.patch("/{workspace_id}", response_model=WorkspaceOut)
async def update_workspace(
    workspace_id: uuid.UUID, body: WorkspaceUpdate, services: ServicesDep
) -> WorkspaceOut:
    changes = body.model_dump(exclude_unset=True, exclude_none=True)
    before = await service.get_workspace(services.db, workspace_id)
    workspace = await service.update_workspace(services.db, workspace_id, changes)
    if workspace.description != before.description:
        await refresh_relevance(services, workspace_id)  # relevance is scored against it
    return WorkspaceOut.model_validate(workspace)


@router.delete("/{workspace_id}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_workspace(workspace_id: uuid.UUID, db: DatabaseDep) -> Response:
    await service.delete_workspace(db, workspace_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
