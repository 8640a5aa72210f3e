"""Migrations go up and down on a fresh database, and match the models exactly."""

from __future__ import annotations

import uuid

import psycopg
import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, pool
from sqlmodel import SQLModel

from marginalia.db import migrate
from marginalia.db.compare import compare_type
from marginalia.db.server import to_sqlalchemy_url
from marginalia.services.container import Services


@pytest.fixture
def fresh_database(services: Services):  # type: ignore[no-untyped-def]
    admin = services.db.location.url
    name = f"mig_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base, _, query = admin.partition("?")
    url = base.rsplit("/", 1)[0] + f"/{name}" + (f"?{query}" if query else "")
    yield url
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def _tables(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'alembic_version'"
        ).fetchall()
    return {r[0] for r in rows}


def test_up_down_up(fresh_database: str) -> None:
    migrate.upgrade(fresh_database)
    tables = _tables(fresh_database)
    assert {
        "workspaces",
        "sources",
        "chunks",
        "concepts",
        "jobs",
        "job_events",
        "wiki_pages",
    } <= tables
    assert migrate.current_revision(fresh_database) == migrate.head_revision(fresh_database)

    with psycopg.connect(fresh_database) as conn:
        indexes = dict(
            conn.execute(
                "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname='public'"
            ).fetchall()
        )
        vector_columns = conn.execute(
            """SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod)
                 FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                 JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = 'public' AND c.relkind = 'r' AND format_type(a.atttypid, a.atttypmod) LIKE 'vector%'"""
        ).fetchall()
    # Every embedding column has an HNSW cosine index (and the configured dimension).
    assert vector_columns
    for table, column, type_name in vector_columns:
        assert type_name == "vector(384)"
        assert any(
            f"ON public.{table} USING hnsw ({column} vector_cosine_ops)" in d
            for d in indexes.values()
        ), f"no HNSW index on {table}.{column}"
    assert "USING gin (tsv)" in indexes["ix_chunks_tsv"]

    migrate.downgrade(fresh_database, "base")
    assert _tables(fresh_database) == set()
    migrate.upgrade(fresh_database)
    assert "chunks" in _tables(fresh_database)


def test_models_and_migrations_agree(fresh_database: str) -> None:
    migrate.upgrade(fresh_database)
    engine = create_engine(to_sqlalchemy_url(fresh_database), poolclass=pool.NullPool)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": compare_type})
            diff = compare_metadata(context, SQLModel.metadata)
    finally:
        engine.dispose()
    assert diff == [], f"models differ from migrations: {diff}"


def test_cascade_deletes_owned_rows(fresh_database: str) -> None:
    migrate.upgrade(fresh_database)
    with psycopg.connect(fresh_database) as conn:
        ws = conn.execute(
            "INSERT INTO workspaces (name, description) VALUES ('w', '') RETURNING id"
        ).fetchone()[0]  # type: ignore[index]
        src = conn.execute(
            "INSERT INTO sources (workspace_id, kind, origin, status, abstract_only) "
            "VALUES (%s, 'text', 'upload', 'ready', false) RETURNING id",
            (ws,),
        ).fetchone()[0]  # type: ignore[index]
        conn.execute(
            "INSERT INTO chunks (source_id, workspace_id, chunk_index, text, section_type, token_count) "
            "VALUES (%s, %s, 0, 'hello world', 'other', 4)",
            (src, ws),
        )
        conn.execute("DELETE FROM workspaces WHERE id = %s", (ws,))
        left = conn.execute(
            "SELECT (SELECT count(*) FROM sources), (SELECT count(*) FROM chunks)"
        ).fetchone()
    assert left == (0, 0)
