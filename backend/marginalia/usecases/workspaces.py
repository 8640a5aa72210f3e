"""Workspaces: create, list, read, update, delete — a deleted workspace takes its stored
files with it (those no other workspace's sources use)."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from marginalia.db.models import Workspace
from marginalia.db.repositories import accounts as accounts_repo
from marginalia.db.repositories import sources as sources_repo
from marginalia.db.repositories import workspaces as repo
from marginalia.errors import NotFoundError
from marginalia.knowledge.linking import refresh_relevance
from marginalia.runtime import Runtime


async def create_workspace(
    rt: Runtime, *, name: str, description: str = "", owner_id: uuid.UUID | None = None
) -> Workspace:
    """A new workspace; in accounts mode ``owner_id`` (the creator) becomes its owner."""
    async with rt.db.transaction() as session:
        workspace = await repo.create(
            session, name=name.strip(), description=description.strip(), owner_id=owner_id
        )
        if owner_id is not None:
            await accounts_repo.set_member(
                session, workspace_id=workspace.id, user_id=owner_id, role="owner"
            )
        return workspace


async def list_workspaces(rt: Runtime) -> list[Workspace]:
    async with rt.db.session() as session:
        return await repo.list_all(session)


@dataclass(frozen=True)
class WorkspaceSummary:
    """A workspace as the start page lists it."""

    workspace: Workspace
    source_count: int
    last_activity_at: datetime


async def workspace_summaries(
    rt: Runtime, visible: set[uuid.UUID] | None = None
) -> list[WorkspaceSummary]:
    """Every workspace, or only those in ``visible`` (a user's, in accounts mode)."""
    async with rt.db.session() as session:
        workspaces = await repo.list_all(session)
        activity = await repo.activity(session)
    out = []
    for w in workspaces:
        if visible is not None and w.id not in visible:
            continue
        count, last = activity.get(w.id, (0, None))
        out.append(WorkspaceSummary(w, count, last or w.updated_at))
    return out


async def get_workspace(rt: Runtime, workspace_id: uuid.UUID) -> Workspace:
    async with rt.db.session() as session:
        workspace = await repo.get(session, workspace_id)
    if workspace is None:
        raise NotFoundError(f"no workspace with id {workspace_id}")
    return workspace


async def find_workspace(rt: Runtime, ref: str) -> Workspace:
    """A workspace by id, by name, or by a unique id prefix (CLI convenience)."""
    from marginalia.usecases.lookup import looks_like_id_prefix, resolve_id

    async with rt.db.session() as session:
        try:
            workspace = await repo.get(session, uuid.UUID(ref))
        except ValueError:
            workspace = await repo.get_by_name(session, ref)
    if workspace is None and looks_like_id_prefix(ref):
        try:
            found = await resolve_id(rt, "workspace", ref)  # ambiguous: refused, with candidates
        except NotFoundError:
            found = None
        if found is not None:
            async with rt.db.session() as session:
                workspace = await repo.get(session, found)
    if workspace is None:
        raise NotFoundError(f"no workspace named or with id {ref!r}")
    return workspace


async def update_workspace(
    rt: Runtime, workspace_id: uuid.UUID, changes: dict[str, Any]
) -> Workspace:
    """Apply ``changes``; a new description re-scores every source's relevance (quality is
    scored against it)."""
    async with rt.db.transaction() as session:
        workspace = await repo.get(session, workspace_id)
        if workspace is None:
            raise NotFoundError(f"no workspace with id {workspace_id}")
        cleaned = {k: v.strip() if isinstance(v, str) else v for k, v in changes.items()}
        described = "description" in cleaned and cleaned["description"] != workspace.description
        if described:
            cleaned["description_embedding"] = None
        updated = await repo.update(session, workspace, cleaned)
    if described:
        await refresh_relevance(rt, workspace_id)
    return updated


async def delete_workspace(rt: Runtime, workspace_id: uuid.UUID) -> None:
    """Delete the workspace and everything in it (cascades), then the stored files only
    its sources used."""
    async with rt.db.transaction() as session:
        workspace = await repo.get(session, workspace_id)
        if workspace is None:
            raise NotFoundError(f"no workspace with id {workspace_id}")
        keys = await sources_repo.file_keys_of_workspace(session, workspace_id)
        await repo.delete(session, workspace)
    await remove_unused_files(rt, keys)


async def remove_unused_files(rt: Runtime, keys: list[str]) -> list[str]:
    """Delete the stored files of ``keys`` that no source uses any more; returns them."""
    removed = []
    for key in dict.fromkeys(keys):
        async with rt.db.session() as session:
            in_use = await sources_repo.file_key_in_use(session, key)
        if not in_use:
            await asyncio.to_thread(rt.files.delete, key)
            removed.append(key)
    return removed


async def workspace_counts(rt: Runtime, workspace_id: uuid.UUID) -> dict[str, int]:
    async with rt.db.session() as session:
        return await repo.counts(session, workspace_id)


async def source_files(rt: Runtime, workspace_id: uuid.UUID) -> dict[str, uuid.UUID]:
    """File name → source id of the workspace's sources (an eval reusing a workspace)."""
    async with rt.db.session() as session:
        return await sources_repo.ids_by_file_name(session, workspace_id)
