"""The long-lived objects one process needs, built once from settings."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from marginalia.config import Settings
from marginalia.db import Database, migrate, open_database
from marginalia.embed import Embedder, FastEmbedEmbedder
from marginalia.jobs.backends import InProcessBackend, JobBackend, make_backend
from marginalia.jobs.service import JobService
from marginalia.storage import FileStore, LocalFileStore


@dataclass
class Services:
    settings: Settings
    db: Database
    jobs: JobService
    backend: JobBackend
    files: FileStore
    _embedder: Embedder | None = field(default=None, repr=False)

    @property
    def embedder(self) -> Embedder:
        """The configured embedding model; it loads on first use, not at start-up."""
        if self._embedder is None:
            self._embedder = FastEmbedEmbedder.from_settings(
                self.settings.embedding, self.settings.models_dir
            )
        return self._embedder

    async def close(self) -> None:
        await self.backend.close()
        await self.db.dispose()


async def open_services(settings: Settings, *, migrate_db: bool = True) -> Services:
    db = await asyncio.to_thread(open_database, settings)
    if migrate_db:
        await asyncio.to_thread(migrate.upgrade, db.location.url)
    backend = make_backend(settings.redis_url)
    services = Services(
        settings=settings,
        db=db,
        jobs=JobService(db, settings, backend),
        backend=backend,
        files=LocalFileStore(settings.files_dir),
    )
    if isinstance(backend, InProcessBackend):
        backend.services = services
    return services
