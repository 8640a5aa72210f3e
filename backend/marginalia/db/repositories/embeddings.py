"""SQL for re-embedding: every vector column, read in batches, written back."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

# (table, key column, vector column, SQL expression of the text that is embedded)
VECTOR_COLUMNS: list[tuple[str, str, str, str]] = [
    ("chunks", "id", "embedding", "text"),
    ("workspaces", "id", "description_embedding", "description"),
    ("concepts", "id", "embedding", "name || coalesce(': ' || description, '')"),
    ("claims", "id", "embedding", "text"),
    ("wiki_pages", "id", "embedding", "title || E'\\n' || body"),
]


async def column_dims(session: AsyncSession) -> dict[tuple[str, str], int]:
    rows = await session.execute(
        text(
            """SELECT c.relname, a.attname, a.atttypmod
                 FROM pg_attribute a
                 JOIN pg_class c ON c.oid = a.attrelid
                 JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname = current_schema() AND c.relkind = 'r'
                  AND a.atttypid = 'vector'::regtype AND NOT a.attisdropped"""
        )
    )
    return {(r[0], r[1]): int(r[2]) for r in rows.all()}


async def change_dimension(session: AsyncSession, dim: int) -> None:
    """Retype every vector column (their values are cleared, then re-embedded); the
    HNSW indexes a column has are dropped first and rebuilt as they were."""
    for (table, column), _old in (await column_dims(session)).items():
        indexes = await session.execute(
            text(
                """SELECT i.relname, pg_get_indexdef(i.oid)
                     FROM pg_index x
                     JOIN pg_class i ON i.oid = x.indexrelid
                     JOIN pg_class t ON t.oid = x.indrelid
                     JOIN pg_am am ON am.oid = i.relam
                     JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = ANY(x.indkey)
                    WHERE t.relname = :table AND a.attname = :column AND am.amname = 'hnsw'
                      AND t.relnamespace = current_schema()::regnamespace"""
            ),
            {"table": table, "column": column},
        )
        definitions = [(str(r[0]), str(r[1])) for r in indexes.all()]
        for name, _ in definitions:
            await session.execute(text(f'DROP INDEX "{name}"'))
        await session.execute(
            text(f"ALTER TABLE {table} ALTER COLUMN {column} TYPE vector({dim}) USING NULL")
        )
        for _, definition in definitions:
            await session.execute(text(definition))


async def texts_after(
    session: AsyncSession,
    table: str,
    key: str,
    expression: str,
    after: str | int | None,
    limit: int,
) -> list[tuple[str | int, str]]:
    where = f"WHERE {key} > :after" if after is not None else ""
    rows = await session.execute(
        text(f"SELECT {key}, {expression} FROM {table} {where} ORDER BY {key} LIMIT :limit"),
        {"after": after, "limit": limit},
    )
    return [(r[0], r[1] or "") for r in rows.all()]


async def write_vectors(
    session: AsyncSession,
    table: str,
    key: str,
    column: str,
    items: Sequence[tuple[str | int, np.ndarray | None]],
) -> None:
    if not items:
        return
    await session.execute(
        text(f"UPDATE {table} SET {column} = CAST(:v AS vector) WHERE {key} = :k"),
        [
            {"k": k, "v": None if v is None else "[" + ",".join(f"{x:.7g}" for x in v) + "]"}
            for k, v in items
        ],
    )


async def refresh_source_means(session: AsyncSession) -> None:
    """Each source's mean embedding = the normalised mean of its chunk vectors."""
    await session.execute(
        text(
            """UPDATE sources s SET mean_embedding = m.v
                 FROM (SELECT source_id, l2_normalize(avg(embedding)) AS v
                         FROM chunks WHERE embedding IS NOT NULL GROUP BY source_id) m
                WHERE m.source_id = s.id"""
        )
    )
