"""Workspace operations."""

from __future__ import annotations

import uuid
from typing import Any

from marginalia.db import Database
from marginalia.db.models import Workspace
from marginalia.db.repositories import workspaces as repo
from marginalia.errors import NotFoundError


async def create_workspace(db: Database, *, name: str, description: str = "") -> Workspace:
    async with db.transaction() as session:
        return await repo.create(session, name=name.strip(), description=description.strip())


async def list_workspaces(db: Database) -> list[Workspace]:
    async with db.session() as session:
        return await repo.list_all(session)


async def get_workspace(db: Database, workspace_id: uuid.UUID) -> Workspace:
    async with db.session() as session:
        workspace = await repo.get(session, workspace_id)
    if workspace is None:
        raise NotFoundError(f"no workspace with id {workspace_id}")
    return workspace


async def find_workspace(db: Database, ref: str) -> Workspace:
    """A workspace by id or by name (CLI convenience)."""
    async with db.session() as session:
        try:
            workspace = await repo.get(session, uuid.UUID(ref))
        except ValueError:
            workspace = await repo.get_by_name(session, ref)
    if workspace is None:
        raise NotFoundError(f"no workspace named or with id {ref!r}")
    return workspace


async def update_workspace(
    db: Database, workspace_id: uuid.UUID, changes: dict[str, Any]
) -> Workspace:
    async with db.transaction() as session:
        workspace = await repo.get(session, workspace_id)
        if workspace is None:
            raise NotFoundError(f"no workspace with id {workspace_id}")
        cleaned = {k: v.strip() if isinstance(v, str) else v for k, v in changes.items()}
        if "description" in cleaned and cleaned["description"] != workspace.description:
            # Re-embedded on next use; quality relevance depends on it.
            cleaned["description_embedding"] = None
        return await repo.update(session, workspace, cleaned)


async def delete_workspace(db: Database, workspace_id: uuid.UUID) -> None:
    async with db.transaction() as session:
        workspace = await repo.get(session, workspace_id)
        if workspace is None:
            raise NotFoundError(f"no workspace with id {workspace_id}")
        await repo.delete(session, workspace)


async def workspace_counts(db: Database, workspace_id: uuid.UUID) -> dict[str, int]:
    async with db.session() as session:
        return await repo.counts(session, workspace_id)
