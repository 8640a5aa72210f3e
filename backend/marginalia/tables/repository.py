"""Every SQL statement of evidence tables: tables, their columns and rows, the cached
cells, the chunks and pages a cell reads, and the table's pending fill job."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, select, text, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from marginalia.db.models import Chunk, Job, Source, SourcePage
from marginalia.db.models_tables import (
    EvidenceCell,
    EvidenceTable,
    EvidenceTableColumn,
    EvidenceTableRow,
)

# ------------------------------------------------------------------------------ tables


async def create_table(
    session: AsyncSession,
    *,
    workspace_id: uuid.UUID,
    name: str,
    questions: Sequence[str],
    source_ids: Sequence[uuid.UUID],
) -> EvidenceTable:
    table = EvidenceTable(workspace_id=workspace_id, name=name)
    session.add(table)
    await session.flush()
    await add_columns(session, table.id, questions)
    await add_rows(session, table.id, source_ids)
    await session.refresh(table)
    return table


async def get_table(session: AsyncSession, table_id: uuid.UUID) -> EvidenceTable | None:
    return await session.get(EvidenceTable, table_id)


@dataclass(frozen=True)
class TableSummary:
    table: EvidenceTable
    columns: int
    rows: int


async def list_tables(session: AsyncSession, workspace_id: uuid.UUID) -> list[TableSummary]:
    """The workspace's tables, newest first, with their column and row counts."""
    columns = (
        select(func.count())
        .where(col(EvidenceTableColumn.table_id) == col(EvidenceTable.id))
        .scalar_subquery()
    )
    rows = (
        select(func.count())
        .where(col(EvidenceTableRow.table_id) == col(EvidenceTable.id))
        .scalar_subquery()
    )
    result = await session.execute(
        select(EvidenceTable, columns, rows)
        .where(col(EvidenceTable.workspace_id) == workspace_id)
        .order_by(col(EvidenceTable.updated_at).desc(), col(EvidenceTable.id))
    )
    return [TableSummary(t, int(c), int(r)) for t, c, r in result.all()]


async def rename_table(session: AsyncSession, table_id: uuid.UUID, name: str) -> None:
    await session.execute(
        update(EvidenceTable)
        .where(col(EvidenceTable.id) == table_id)
        .values(name=name, updated_at=func.now())
    )


async def touch_table(session: AsyncSession, table_id: uuid.UUID) -> None:
    await session.execute(
        update(EvidenceTable).where(col(EvidenceTable.id) == table_id).values(updated_at=func.now())
    )


async def delete_table(session: AsyncSession, table_id: uuid.UUID) -> None:
    await session.execute(delete(EvidenceTable).where(col(EvidenceTable.id) == table_id))


# ------------------------------------------------------------------------------ columns


async def columns(session: AsyncSession, table_id: uuid.UUID) -> list[EvidenceTableColumn]:
    result = await session.execute(
        select(EvidenceTableColumn)
        .where(col(EvidenceTableColumn.table_id) == table_id)
        .order_by(col(EvidenceTableColumn.position), col(EvidenceTableColumn.created_at))
    )
    return list(result.scalars().all())


async def add_columns(
    session: AsyncSession, table_id: uuid.UUID, questions: Sequence[str]
) -> list[EvidenceTableColumn]:
    start = await _next_position(session, EvidenceTableColumn, table_id)
    added = [
        EvidenceTableColumn(table_id=table_id, position=start + i, question=q)
        for i, q in enumerate(questions)
    ]
    session.add_all(added)
    await session.flush()
    for column in added:
        await session.refresh(column)
    return added


async def get_column(
    session: AsyncSession, table_id: uuid.UUID, column_id: uuid.UUID
) -> EvidenceTableColumn | None:
    column = await session.get(EvidenceTableColumn, column_id)
    return column if column is not None and column.table_id == table_id else None


async def update_column(session: AsyncSession, column_id: uuid.UUID, question: str) -> None:
    await session.execute(
        update(EvidenceTableColumn)
        .where(col(EvidenceTableColumn.id) == column_id)
        .values(question=question)
    )


async def delete_column(session: AsyncSession, column_id: uuid.UUID) -> None:
    await session.execute(
        delete(EvidenceTableColumn).where(col(EvidenceTableColumn.id) == column_id)
    )


# ------------------------------------------------------------------------------ rows


@dataclass(frozen=True)
class RowSource:
    """A row's source as a cell needs it."""

    source_id: uuid.UUID
    position: int
    title: str | None
    file_name: str | None
    url: str | None
    kind: str
    status: str
    content_hash: str | None
    year: int | None


async def rows(session: AsyncSession, table_id: uuid.UUID) -> list[RowSource]:
    result = await session.execute(
        select(
            col(EvidenceTableRow.source_id),
            col(EvidenceTableRow.position),
            col(Source.title),
            col(Source.file_name),
            col(Source.url),
            col(Source.kind),
            col(Source.status),
            col(Source.content_hash),
            col(Source.year),
        )
        .join(Source, col(Source.id) == col(EvidenceTableRow.source_id))
        .where(col(EvidenceTableRow.table_id) == table_id)
        .order_by(col(EvidenceTableRow.position), col(EvidenceTableRow.source_id))
    )
    return [RowSource(*r) for r in result.all()]


async def add_rows(
    session: AsyncSession, table_id: uuid.UUID, source_ids: Sequence[uuid.UUID]
) -> int:
    """Append the sources not yet rows of the table; how many were added."""
    if not source_ids:
        return 0
    start = await _next_position(session, EvidenceTableRow, table_id)
    values = [
        {"table_id": table_id, "source_id": sid, "position": start + i}
        for i, sid in enumerate(dict.fromkeys(source_ids))
    ]
    result = await session.execute(
        insert(EvidenceTableRow)
        .values(values)
        .on_conflict_do_nothing(index_elements=["table_id", "source_id"])
        .returning(col(EvidenceTableRow.source_id))
    )
    return len(result.all())


async def delete_row(session: AsyncSession, table_id: uuid.UUID, source_id: uuid.UUID) -> bool:
    result = await session.execute(
        delete(EvidenceTableRow)
        .where(
            col(EvidenceTableRow.table_id) == table_id,
            col(EvidenceTableRow.source_id) == source_id,
        )
        .returning(col(EvidenceTableRow.source_id))
    )
    return result.first() is not None


async def _next_position(session: AsyncSession, model: Any, table_id: uuid.UUID) -> int:
    result = await session.execute(
        select(func.coalesce(func.max(model.position), -1)).where(model.table_id == table_id)
    )
    return int(result.scalar_one()) + 1


async def workspace_sources(
    session: AsyncSession, workspace_id: uuid.UUID, source_ids: Sequence[uuid.UUID] | None = None
) -> list[uuid.UUID]:
    """The workspace's sources in the order a new table lists them (oldest first), or,
    with ``source_ids``, those of them that belong to the workspace."""
    query = select(col(Source.id)).where(col(Source.workspace_id) == workspace_id)
    if source_ids is not None:
        query = query.where(col(Source.id).in_(list(source_ids)))
    result = await session.execute(query.order_by(col(Source.created_at), col(Source.id)))
    return list(result.scalars().all())


# ------------------------------------------------------------------------------ cells


async def cells(
    session: AsyncSession,
    source_ids: Sequence[uuid.UUID],
    question_keys: Sequence[str],
    engine: str,
) -> dict[tuple[uuid.UUID, str], EvidenceCell]:
    """The cached cells of these sources and questions by ``engine``."""
    if not source_ids or not question_keys:
        return {}
    result = await session.execute(
        select(EvidenceCell).where(
            col(EvidenceCell.source_id).in_(list(source_ids)),
            col(EvidenceCell.question_key).in_(list(question_keys)),
            col(EvidenceCell.engine) == engine,
        )
    )
    return {(c.source_id, c.question_key): c for c in result.scalars().all()}


async def save_cell(session: AsyncSession, values: dict[str, Any]) -> None:
    """Insert or replace the cell keyed by ``(source_id, question_key, engine)``."""
    stmt = insert(EvidenceCell).values(**values)
    keys = ("source_id", "question_key", "engine")
    await session.execute(
        stmt.on_conflict_do_update(
            index_elements=list(keys),
            set_={k: stmt.excluded[k] for k in values if k not in keys}
            | {"created_at": func.now()},
        )
    )


async def delete_cells(session: AsyncSession, source_ids: Sequence[uuid.UUID]) -> int:
    """Forget the cached cells of these sources (every question, every engine)."""
    if not source_ids:
        return 0
    result = await session.execute(
        delete(EvidenceCell)
        .where(col(EvidenceCell.source_id).in_(list(source_ids)))
        .returning(col(EvidenceCell.source_id))
    )
    return len(result.all())


# ------------------------------------------------------------------------------ reading a source


@dataclass(frozen=True)
class ChunkRow:
    id: int
    chunk_index: int
    text: str
    section_type: str
    section_title: str | None
    page_start: int | None
    page_end: int | None
    char_start: int | None


async def source_chunks(session: AsyncSession, source_id: uuid.UUID) -> list[ChunkRow]:
    result = await session.execute(
        select(
            col(Chunk.id),
            col(Chunk.chunk_index),
            col(Chunk.text),
            col(Chunk.section_type),
            col(Chunk.section_title),
            col(Chunk.page_start),
            col(Chunk.page_end),
            col(Chunk.char_start),
        )
        .where(col(Chunk.source_id) == source_id)
        .order_by(col(Chunk.chunk_index))
    )
    return [
        ChunkRow(int(r[0] or 0), r[1], r[2], r[3], r[4], r[5], r[6], r[7]) for r in result.all()
    ]


async def source_pages(session: AsyncSession, source_id: uuid.UUID) -> list[tuple[int, str]]:
    result = await session.execute(
        select(col(SourcePage.page_number), col(SourcePage.text))
        .where(col(SourcePage.source_id) == source_id)
        .order_by(col(SourcePage.page_number))
    )
    return [(int(n), str(t)) for n, t in result.all()]


# ------------------------------------------------------------------------------ jobs

_PENDING_FILL = text(
    """SELECT id FROM jobs
        WHERE kind = :kind AND workspace_id = :ws AND status IN ('queued', 'running')
          AND params->>'table_id' = :table
        ORDER BY created_at LIMIT 1"""
)


async def job_status(session: AsyncSession, job_id: uuid.UUID) -> str | None:
    """A job's status now (a fill job checks it between cells: a cancel stops it at once)."""
    found = await session.execute(select(col(Job.status)).where(col(Job.id) == job_id))
    return found.scalar()


async def pending_fill(
    session: AsyncSession, kind: str, workspace_id: uuid.UUID, table_id: uuid.UUID
) -> Job | None:
    """The table's queued or running fill job, if any."""
    found = (
        await session.execute(
            _PENDING_FILL, {"kind": kind, "ws": workspace_id, "table": str(table_id)}
        )
    ).scalar()
    return await session.get(Job, found) if found is not None else None
