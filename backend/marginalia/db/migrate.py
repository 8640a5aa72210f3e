"""Run Alembic migrations programmatically (CLI `marginalia db ...`, app start, tests)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, pool

from marginalia.db.server import to_sqlalchemy_url

ROOT = Path(__file__).resolve().parents[3]


def alembic_config(database_url: str, *, embedding_dim: int | None = None) -> Config:
    """``embedding_dim``: the vector dimension new vector columns get (the configured
    model's; ``migrations/versions/0001`` reads it). None: the environment's settings."""
    ini = ROOT / "alembic.ini"
    cfg = Config(str(ini))
    cfg.set_main_option("script_location", str(ROOT / "migrations"))
    cfg.attributes["database_url"] = database_url
    if embedding_dim is not None:
        cfg.attributes["embedding_dim"] = embedding_dim
    return cfg


def upgrade(database_url: str, revision: str = "head", *, embedding_dim: int | None = None) -> None:
    command.upgrade(alembic_config(database_url, embedding_dim=embedding_dim), revision)


def downgrade(database_url: str, revision: str = "base") -> None:
    command.downgrade(alembic_config(database_url), revision)


def head_revision(database_url: str) -> str | None:
    return ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()


def current_revision(database_url: str) -> str | None:
    engine = create_engine(to_sqlalchemy_url(database_url), poolclass=pool.NullPool)
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    finally:
        engine.dispose()


def known_revision(revision: str) -> bool:
    """Whether this code's migrations include ``revision`` (a backup from a newer
    Marginalia holds one it does not know)."""
    from alembic.util import CommandError

    script = ScriptDirectory.from_config(alembic_config(""))
    try:
        return script.get_revision(revision) is not None
    except CommandError:
        return False


def previous_revision(revision: str) -> str | None:
    """The revision ``revision`` migrates from (None for the first)."""
    script = ScriptDirectory.from_config(alembic_config(""))
    down = script.get_revision(revision).down_revision
    return down if isinstance(down, str) else None
