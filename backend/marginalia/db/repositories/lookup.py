"""SQL for finding rows by the first characters of their id (the CLI's id prefixes)."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import String, cast, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from marginalia.db.models import Job, Source, Workspace

_LABELS: dict[str, tuple[Any, Any]] = {
    "job": (Job, Job.kind),
    "workspace": (Workspace, Workspace.name),
    "source": (Source, Source.title),
}


async def ids_with_prefix(
    session: AsyncSession, kind: str, prefix: str, *, limit: int = 6
) -> list[tuple[uuid.UUID, str | None]]:
    """Up to ``limit`` (id, label) pairs of ``kind`` rows whose id starts with ``prefix``
    (lower-case hex and dashes, as ids print)."""
    model, label = _LABELS[kind]
    id_column = col(model.id)
    rows = await session.execute(
        select(id_column, col(label))
        .where(cast(id_column, String).startswith(prefix, autoescape=True))
        .order_by(id_column)
        .limit(limit)
    )
    return [(row[0], row[1]) for row in rows.all()]
