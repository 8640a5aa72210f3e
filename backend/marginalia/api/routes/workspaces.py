from __future__ import annotations

import uuid

from fastapi import APIRouter, Response, status

from marginalia.api.deps import RuntimeDep
from marginalia.api.schemas import (
    ErrorOut,
    WorkspaceCreate,
    WorkspaceDetail,
    WorkspaceListItem,
    WorkspaceOut,
    WorkspaceUpdate,
)
from marginalia.usecases import workspaces as service

router = APIRouter(
    prefix="/api/workspaces",
    tags=["workspaces"],
    responses={404: {"model": ErrorOut}, 422: {"model": ErrorOut}},
)


@router.post("", status_code=status.HTTP_201_CREATED, response_model=WorkspaceOut)
async def create_workspace(body: WorkspaceCreate, rt: RuntimeDep) -> WorkspaceOut:
    workspace = await service.create_workspace(rt, name=body.name, description=body.description)
    return WorkspaceOut.model_validate(workspace)


@router.get("", response_model=list[WorkspaceListItem])
async def list_workspaces(rt: RuntimeDep) -> list[WorkspaceListItem]:
    return [
        WorkspaceListItem(
            **WorkspaceOut.model_validate(s.workspace).model_dump(),
            source_count=s.source_count,
            last_activity_at=s.last_activity_at,
        )
        for s in await service.workspace_summaries(rt)
    ]


@router.get("/{workspace_id}", response_model=WorkspaceDetail)
async def get_workspace(workspace_id: uuid.UUID, rt: RuntimeDep) -> WorkspaceDetail:
    workspace = await service.get_workspace(rt, workspace_id)
    counts = await service.workspace_counts(rt, workspace_id)
    return WorkspaceDetail.model_validate(
        {**WorkspaceOut.model_validate(workspace).model_dump(), "counts": counts}
    )


@router.patch("/{workspace_id}", response_model=WorkspaceOut)
async def update_workspace(
    workspace_id: uuid.UUID, body: WorkspaceUpdate, rt: RuntimeDep
) -> WorkspaceOut:
    changes = body.model_dump(exclude_unset=True, exclude_none=True)
    workspace = await service.update_workspace(rt, workspace_id, changes)
    return WorkspaceOut.model_validate(workspace)


@router.delete("/{workspace_id}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_workspace(workspace_id: uuid.UUID, rt: RuntimeDep) -> Response:
    await service.delete_workspace(rt, workspace_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
