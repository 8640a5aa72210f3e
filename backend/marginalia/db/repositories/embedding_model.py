"""SQL for the embedding-model registry (one row: the model every vector came from)."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession


async def pinned(session: AsyncSession) -> tuple[str, int] | None:
    row = (
        await session.execute(text("SELECT model_id, dim FROM embedding_model WHERE id = 1"))
    ).first()
    return (str(row[0]), int(row[1])) if row else None


async def pin(session: AsyncSession, model_id: str, dim: int) -> tuple[str, int]:
    """Pin the model if nothing is pinned yet; returns what is pinned afterwards."""
    await session.execute(
        text(
            "INSERT INTO embedding_model (id, model_id, dim, created_at) "
            "VALUES (1, :model_id, :dim, now()) ON CONFLICT (id) DO NOTHING"
        ),
        {"model_id": model_id, "dim": dim},
    )
    current = await pinned(session)
    assert current is not None
    return current


async def repin(session: AsyncSession, model_id: str, dim: int) -> None:
    await session.execute(
        text(
            "INSERT INTO embedding_model (id, model_id, dim, created_at) VALUES (1, :m, :d, now()) "
            "ON CONFLICT (id) DO UPDATE SET model_id = :m, dim = :d, created_at = now()"
        ),
        {"m": model_id, "d": dim},
    )
