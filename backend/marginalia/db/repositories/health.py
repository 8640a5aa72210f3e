"""The queries behind ``GET /api/health`` and ``marginalia db status``."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession


async def server_facts(session: AsyncSession) -> tuple[str | None, str | None]:
    """``(server_version, pgvector version)``; raises when the server is unreachable."""
    await session.execute(text("SELECT 1"))
    version = await session.scalar(text("SHOW server_version"))
    pgvector = await session.scalar(
        text("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
    )
    return version, pgvector


async def pinned_model(session: AsyncSession) -> tuple[str, int] | None:
    row = (
        await session.execute(text("SELECT model_id, dim FROM embedding_model WHERE id = 1"))
    ).first()
    return (str(row[0]), int(row[1])) if row else None
