"""Async SQLAlchemy engine and session factory, one per process."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)

from marginalia.config import Settings
from marginalia.db.server import DatabaseLocation, resolve_database


@dataclass
class Database:
    location: DatabaseLocation
    engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]

    @asynccontextmanager
    async def session(self) -> AsyncIterator[AsyncSession]:
        async with self.sessions() as session:
            yield session

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        """A session whose work commits at the end of the block, or rolls back on error."""
        async with self.sessions() as session, session.begin():
            yield session

    async def dispose(self) -> None:
        await self.engine.dispose()


def open_database(settings: Settings) -> Database:
    location = resolve_database(settings)
    engine = create_async_engine(
        location.sqlalchemy_url,
        pool_size=10,
        max_overflow=10,
        pool_pre_ping=True,
    )
    sessions = async_sessionmaker(engine, expire_on_commit=False)
    return Database(location=location, engine=engine, sessions=sessions)
