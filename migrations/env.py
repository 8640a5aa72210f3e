"""Alembic environment: the URL comes from Marginalia's settings (embedded or DATABASE_URL)."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine, pool, text
from sqlmodel import SQLModel

import marginalia.db.models  # noqa: F401  (registers every table on the metadata)
from marginalia.config import get_settings
from marginalia.db.compare import compare_type
from marginalia.db.server import resolve_database, to_sqlalchemy_url

config = context.config
target_metadata = SQLModel.metadata


def _url() -> str:
    explicit = config.attributes.get("database_url")
    if explicit:
        return to_sqlalchemy_url(explicit)
    return resolve_database(get_settings()).sqlalchemy_url


def run_migrations_offline() -> None:
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    engine = create_engine(_url(), poolclass=pool.NullPool)
    with engine.connect() as connection:
        context.configure(
            connection=connection, target_metadata=target_metadata, compare_type=compare_type
        )
        with context.begin_transaction():
            # Processes migrating at once (API + workers at boot) take turns.
            connection.execute(text("SELECT pg_advisory_xact_lock(hashtext('marginalia:migrate'))"))
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
