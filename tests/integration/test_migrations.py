"""Migrations go up and down on a fresh database, and match the models exactly."""

from __future__ import annotations

import uuid

import psycopg
import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, pool
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import SQLModel

from marginalia.db import migrate
from marginalia.db.compare import compare_type
from marginalia.db.server import to_sqlalchemy_url
from marginalia.runtime import Runtime


@pytest.fixture
def fresh_database(services: Runtime):  # type: ignore[no-untyped-def]
    admin = services.db.location.url
    name = f"mig_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base, _, query = admin.partition("?")
    url = base.rsplit("/", 1)[0] + f"/{name}" + (f"?{query}" if query else "")
    yield url
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


# Vector columns ranked exactly, without an approximate index (sentence vectors are only
# read by chunk id, migration 0012).
EXACT_ONLY = {("sources", "mean_embedding"), ("chunk_sentences", "embedding")}


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
    # Every embedding column has the configured dimension, and an HNSW cosine index
    # unless it is only ever ranked exactly within a workspace (migration 0005).
    assert vector_columns
    for table, column, type_name in vector_columns:
        assert type_name == "vector(384)"
        has_hnsw = any(
            f"ON public.{table} USING hnsw ({column} vector_cosine_ops)" in d
            for d in indexes.values()
        )
        assert has_hnsw == ((table, column) not in EXACT_ONLY), f"{table}.{column}"
    # BM25 reads the postings table; no query uses a GIN index on tsv (migration 0004).
    assert not any("USING gin (tsv)" in d for d in indexes.values())

    migrate.downgrade(fresh_database, "base")
    assert _tables(fresh_database) == set()
    migrate.upgrade(fresh_database)
    assert "chunks" in _tables(fresh_database)


def _hnsw_indexes(url: str) -> dict[str, str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes "
            "WHERE schemaname = 'public' AND indexdef LIKE '%USING hnsw%'"
        ).fetchall()
    return {r[0]: r[1] for r in rows}


def _vector_types(url: str) -> set[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            """SELECT DISTINCT format_type(a.atttypid, a.atttypmod)
                 FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'
                  AND a.atttypid = 'vector'::regtype AND NOT a.attisdropped"""
        ).fetchall()
    return {r[0] for r in rows}


async def test_change_dimension_rebuilds_the_hnsw_indexes_there_were(fresh_database: str) -> None:
    """`marginalia reembed` to a model of another dimension: every vector column is
    retyped, each HNSW index comes back as it was, and none appears where there was none."""
    from sqlalchemy.ext.asyncio import create_async_engine

    from marginalia.db.repositories.embeddings import change_dimension

    migrate.upgrade(fresh_database)
    before = _hnsw_indexes(fresh_database)
    engine = create_async_engine(to_sqlalchemy_url(fresh_database), poolclass=pool.NullPool)
    try:
        async with engine.begin() as conn, AsyncSession(conn) as session:
            await change_dimension(session, 8)
            await session.flush()
    finally:
        await engine.dispose()
    assert _vector_types(fresh_database) == {"vector(8)"}
    assert _hnsw_indexes(fresh_database) == before
    assert not any("mean_embedding" in d for d in before.values())


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
        chunk = conn.execute(
            "INSERT INTO chunks (source_id, workspace_id, chunk_index, text, section_type, token_count) "
            "VALUES (%s, %s, 0, 'hello world', 'other', 4) RETURNING id",
            (src, ws),
        ).fetchone()[0]  # type: ignore[index]
        conn.execute(
            "INSERT INTO chunk_sentences (chunk_id, ordinal, char_start, char_end, prose) "
            "VALUES (%s, 0, 0, 11, false)",
            (chunk,),
        )
        conn.execute("DELETE FROM workspaces WHERE id = %s", (ws,))
        left = conn.execute(
            "SELECT (SELECT count(*) FROM sources), (SELECT count(*) FROM chunks), "
            "(SELECT count(*) FROM chunk_sentences)"
        ).fetchone()
    assert left == (0, 0, 0)


def test_0011_fills_the_match_keys_of_stored_concepts(fresh_database: str) -> None:
    """Concepts stored before ``concepts.match_keys`` get their merge keys from the
    migration (the per-source update finds them through the GIN index), and the column
    goes with a downgrade."""
    from marginalia.knowledge.match_keys import concept_match_keys

    migrate.upgrade(fresh_database, "0010")
    with psycopg.connect(fresh_database) as conn:
        ws = conn.execute(
            "INSERT INTO workspaces (name, description) VALUES ('w', '') RETURNING id"
        ).fetchone()[0]  # type: ignore[index]
        conn.execute(
            "INSERT INTO concepts (workspace_id, name, slug, level, aliases) VALUES "
            "(%s, 'Large Language Models', 'llm', 1, '[\"LLMs\", \"the \\\"LLM\\\" family\"]'),"
            "(%s, 'BERT', 'bert', 2, '[]')",
            (ws, ws),
        )
    migrate.upgrade(fresh_database)
    with psycopg.connect(fresh_database) as conn:
        rows = dict(conn.execute("SELECT slug, match_keys FROM concepts").fetchall())
        found = conn.execute(
            "SELECT slug FROM concepts WHERE match_keys && ARRAY['i:llm', 'l:zzz']"
        ).fetchall()
    assert rows["llm"] == concept_match_keys("Large Language Models", ["LLMs", 'the "LLM" family'])
    assert {"k:large language model", "c:largelanguagemodel", "i:llm", "l:llm"} <= set(rows["llm"])
    assert rows["bert"] == ["c:bert", "k:bert", "l:bert"]
    assert found == [("llm",)]
    migrate.downgrade(fresh_database, "0010")
    with psycopg.connect(fresh_database) as conn:
        cols = conn.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'concepts'"
        ).fetchall()
    assert ("match_keys",) not in cols
