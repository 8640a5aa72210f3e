"""The long-lived objects one process needs, built once from settings."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from marginalia.config import Settings
from marginalia.db import Database, migrate, open_database
from marginalia.jobs.backends import JobBackend, make_backend
from marginalia.jobs.service import JobService
from marginalia.storage import FileStore, LocalFileStore


@dataclass
class Services:
    settings: Settings
    db: Database
    jobs: JobService
    backend: JobBackend
    files: FileStore

    async def close(self) -> None:
        await self.backend.close()
        await self.db.dispose()


async def open_services(settings: Settings, *, migrate_db: bool = True) -> Services:
    db = await asyncio.to_thread(open_database, settings)
    if migrate_db:
        await asyncio.to_thread(migrate.upgrade, db.location.url)
    backend = make_backend(settings, db)
    return Services(
        settings=settings,
        db=db,
        jobs=JobService(db, settings, backend),
        backend=backend,
        files=LocalFileStore(settings.files_dir),
    )
