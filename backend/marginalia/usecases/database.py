"""Schema migrations on demand (``marginalia db upgrade|downgrade``); the runtime migrates
to head by itself when it opens."""

from __future__ import annotations

from marginalia.config import Settings
from marginalia.db import migrate
from marginalia.db.server import exit_on_sigterm, resolve_database


def upgrade(settings: Settings, revision: str = "head") -> str | None:
    """Apply migrations up to ``revision``; returns the revision the database is at."""
    location = resolve_database(settings)
    migrate.upgrade(location.url, revision, embedding_dim=settings.embedding.dim)
    return migrate.current_revision(location.url)


def downgrade(settings: Settings, revision: str) -> str | None:
    """Revert migrations down to ``revision`` ('base' removes everything)."""
    location = resolve_database(settings)
    migrate.downgrade(location.url, revision)
    return migrate.current_revision(location.url)


def stop_embedded_on_sigterm() -> None:
    """A SIGTERM ends this process with its exit hooks, so the embedded PostgreSQL it
    started stops when no other live process uses it (db/server.py)."""
    exit_on_sigterm()
