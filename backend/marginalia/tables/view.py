"""A table as it is shown: its columns, its rows and, for each, the cached cell of the
current engine for the source's current content — or what is still to fill (pure)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from marginalia.db.models_tables import EvidenceCell, EvidenceTable, EvidenceTableColumn
from marginalia.tables.cells import CellQuote, SearchedRef
from marginalia.tables.columns import profile_of, question_key
from marginalia.tables.repository import RowSource
from marginalia.tables.schemas import CellOut, ColumnOut, RowOut, TableOut

#: The offline engine's cache key; bumped when its cells would come out differently.
OFFLINE_ENGINE = "offline:v1"


def source_version(row: RowSource) -> str:
    """What a cell of this source is valid for: the hash of its content (a source filled
    in place, a metadata record upgraded to a document, gets a new one)."""
    return row.content_hash or f"{row.kind}:no-content"


def ready(row: RowSource) -> bool:
    return row.status == "ready"


@dataclass(frozen=True)
class Todo:
    """A cell to compute: a ready source and a question (once per distinct question)."""

    row: RowSource
    question: str
    key: str


def cell_is_current(cell: EvidenceCell | None, row: RowSource) -> bool:
    return cell is not None and not cell.transient and cell.source_version == source_version(row)


def todo_cells(
    columns: Sequence[EvidenceTableColumn],
    rows: Sequence[RowSource],
    cells: Mapping[tuple[uuid.UUID, str], EvidenceCell],
) -> list[Todo]:
    """The cells to compute, row by row: ready sources whose cell for a question is
    missing, made for other content, or left by a failed model call."""
    questions: dict[str, str] = {}
    for c in columns:
        questions.setdefault(question_key(c.question), c.question)
    out: list[Todo] = []
    for row in rows:
        if not ready(row):
            continue
        for key, question in questions.items():
            if not cell_is_current(cells.get((row.source_id, key)), row):
                out.append(Todo(row, question, key))
    return out


def column_out(column: EvidenceTableColumn) -> ColumnOut:
    profile = profile_of(column.question)
    return ColumnOut(
        id=column.id,
        position=column.position,
        question=column.question,
        kind=profile.kind,
        answer_type=profile.answer_type,
    )


def cell_out(column: EvidenceTableColumn, row: RowSource, cell: EvidenceCell | None) -> CellOut:
    if not ready(row):
        return CellOut(column_id=column.id, state="unavailable")
    if cell is None or cell.source_version != source_version(row):
        return CellOut(column_id=column.id, state="pending")
    return CellOut(
        column_id=column.id,
        state="filled",
        answer=cell.answer,
        not_reported=cell.not_reported,
        quotes=[CellQuote.model_validate(q) for q in cell.quotes or []],
        confidence=cell.confidence,
        note=cell.note,
        searched=[SearchedRef.model_validate(s) for s in cell.searched or []],
        produced_by=cell.produced_by,
    )


def table_out(
    table: EvidenceTable,
    columns: Sequence[EvidenceTableColumn],
    rows: Sequence[RowSource],
    cells: Mapping[tuple[uuid.UUID, str], EvidenceCell],
    *,
    engine: str,
    job_id: uuid.UUID | None,
) -> TableOut:
    keys = [question_key(c.question) for c in columns]
    out_rows = [
        RowOut(
            source_id=row.source_id,
            title=row.title,
            file_name=row.file_name,
            status=row.status,
            cells=[
                cell_out(c, row, cells.get((row.source_id, k)))
                for c, k in zip(columns, keys, strict=True)
            ],
        )
        for row in rows
    ]
    pending = sum(1 for r in out_rows for c in r.cells if c.state == "pending")
    return TableOut(
        id=table.id,
        workspace_id=table.workspace_id,
        name=table.name,
        created_at=table.created_at,
        updated_at=table.updated_at,
        engine=engine,
        columns=[column_out(c) for c in columns],
        rows=out_rows,
        pending=pending,
        job_id=job_id,
    )
