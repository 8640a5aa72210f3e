from __future__ import annotations

import uuid

from fastapi import APIRouter, Response, status

from marginalia.api.deps import PrincipalDep, RuntimeDep
from marginalia.api.schemas import (
    ErrorOut,
    MemberOut,
    MemberSet,
    SharedOut,
    UserOut,
    WorkspaceCreate,
    WorkspaceDetail,
    WorkspaceListItem,
    WorkspaceOut,
    WorkspaceUpdate,
)
from marginalia.usecases import accounts
from marginalia.usecases import workspaces as service

router = APIRouter(
    prefix="/api/workspaces",
    tags=["workspaces"],
    responses={404: {"model": ErrorOut}, 422: {"model": ErrorOut}},
)


@router.post("", status_code=status.HTTP_201_CREATED, response_model=WorkspaceOut)
async def create_workspace(
    body: WorkspaceCreate, rt: RuntimeDep, principal: PrincipalDep
) -> WorkspaceOut:
    workspace = await service.create_workspace(
        rt, name=body.name, description=body.description, owner_id=principal.user_id
    )
    return WorkspaceOut.model_validate(workspace)


@router.get("", response_model=list[WorkspaceListItem])
async def list_workspaces(rt: RuntimeDep, principal: PrincipalDep) -> list[WorkspaceListItem]:
    visible = await accounts.visible_workspaces(rt, principal)
    return [
        WorkspaceListItem(
            **WorkspaceOut.model_validate(s.workspace).model_dump(),
            source_count=s.source_count,
            last_activity_at=s.last_activity_at,
        )
        for s in await service.workspace_summaries(rt, visible)
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


def _member(member: accounts.Member) -> MemberOut:
    user = UserOut.model_validate(member.user)
    return MemberOut(user=user, email=user.email, role=member.role)


def _shared(shared: accounts.Shared) -> SharedOut:
    return SharedOut.model_validate(shared, from_attributes=True)


@router.get(
    "/{workspace_id}/members",
    response_model=list[MemberOut],
    responses={409: {"model": ErrorOut}},
    summary="Who may use the workspace, and the invitations pending (accounts mode)",
)
async def list_members(workspace_id: uuid.UUID, rt: RuntimeDep) -> list[MemberOut]:
    pending = [
        MemberOut(user=None, **_shared(p).model_dump())
        for p in await accounts.pending_invitations(rt, workspace_id)
    ]
    return [_member(m) for m in await accounts.members(rt, workspace_id)] + pending


@router.put(
    "/{workspace_id}/members",
    response_model=SharedOut,
    responses={409: {"model": ErrorOut}},
    summary="Share the workspace with an email, as owner or reader (accounts mode): a "
    "member's role changes, anyone else gets a pending invitation",
)
async def set_member(
    workspace_id: uuid.UUID, body: MemberSet, rt: RuntimeDep, principal: PrincipalDep
) -> SharedOut:
    await service.get_workspace(rt, workspace_id)
    shared = await accounts.share_workspace(
        rt, workspace_id, email=body.email, role=body.role, by=principal.user_id
    )
    return _shared(shared)


@router.delete(
    "/{workspace_id}/invitations/{invitation_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={409: {"model": ErrorOut}},
    summary="Withdraw a pending invitation (accounts mode)",
)
async def withdraw_invitation(
    workspace_id: uuid.UUID, invitation_id: uuid.UUID, rt: RuntimeDep
) -> Response:
    await accounts.withdraw_invitation(rt, workspace_id, invitation_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.delete(
    "/{workspace_id}/members/{user_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={409: {"model": ErrorOut}},
    summary="Stop sharing the workspace with a user (accounts mode)",
)
async def remove_member(workspace_id: uuid.UUID, user_id: uuid.UUID, rt: RuntimeDep) -> Response:
    await accounts.unshare_workspace(rt, workspace_id, user_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
