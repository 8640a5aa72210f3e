"""Evidence tables (issue 37): sources as rows, questions as columns, every cell a short
answer backed by verbatim-checked quotes with their page — or "not reported".

Tables and their columns and rows are edited here (every request checked first: an
unknown id is a 404, an empty or oversized column a 422, and nothing is written); cells
are computed by the ``tables.fill`` job (:func:`fill_job`), which fills only the cells
missing for the current engine and the sources' current content, one per event (live
progress per cell over SSE), each stored as it is computed — so a cancelled or interrupted
job resumes where it stopped and a new column or row costs only its own cells. The CLI
(``marginalia table``) and the MCP tool (``extract_table``) run the same job and wait.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, Literal

from marginalia.db.models import Job
from marginalia.db.models_tables import EvidenceTable
from marginalia.errors import NotFoundError, ValidationFailed
from marginalia.jobs.context import JobContext
from marginalia.jobs.registry import job
from marginalia.runtime import Runtime
from marginalia.tables import repository as repo
from marginalia.tables.columns import (
    MAX_COLUMNS,
    MAX_ROWS,
    SUGGESTED_COLUMNS,
    clean_question,
    column_problem,
    question_key,
)
from marginalia.tables.evidence import EvidenceCache
from marginalia.tables.export import exported_rows, to_csv, to_markdown
from marginalia.tables.fill import cell_values, compute_cell, engine_key, source_pages
from marginalia.tables.schemas import (
    ColumnValuesOut,
    ExportedRow,
    SuggestedColumnOut,
    TableJobOut,
    TableOut,
    TableSummaryOut,
)
from marginalia.tables.view import table_out, todo_cells
from marginalia.usecases.jobs import job_events
from marginalia.usecases.workspaces import get_workspace

FILL_KIND = "tables.fill"
#: A fill job looks again for new cells (a column or row added while it ran) this often.
FILL_PASSES = 3
#: Longest table name (characters).
MAX_NAME_CHARS = 200

ExportFormat = Literal["csv", "markdown"]


def suggestions() -> list[SuggestedColumnOut]:
    """The suggested columns: the fields extraction fills, and the sample size."""
    return [
        SuggestedColumnOut(key=s.key, label=s.label, question=s.question) for s in SUGGESTED_COLUMNS
    ]


# ------------------------------------------------------------------------------ checks


def _questions(texts: Sequence[str], *, existing: int = 0) -> list[str]:
    """The column texts, cleaned; a 422 naming the first bad one."""
    if not texts:
        raise ValidationFailed("give at least one column (a question)")
    if existing + len(texts) > MAX_COLUMNS:
        raise ValidationFailed(f"a table has at most {MAX_COLUMNS} columns")
    out = []
    for i, text in enumerate(texts, 1):
        problem = column_problem(text)
        if problem is not None:
            raise ValidationFailed(f"column {existing + i}: {problem}")
        out.append(clean_question(text))
    return out


def _name(name: str | None, questions: Sequence[str]) -> str:
    cleaned = " ".join((name or "").split())
    if name is not None and not cleaned:
        raise ValidationFailed("the table name is empty")
    if len(cleaned) > MAX_NAME_CHARS:
        raise ValidationFailed(f"the table name is longer than {MAX_NAME_CHARS} characters")
    if cleaned:
        return cleaned
    joined = "; ".join(questions)
    return joined if len(joined) <= 80 else joined[:79].rstrip() + "…"


async def _sources(
    rt: Runtime,
    workspace_id: uuid.UUID,
    source_ids: Sequence[uuid.UUID] | None,
    *,
    existing: int = 0,
) -> list[uuid.UUID]:
    """The rows' sources: all of the workspace's (None), or these ones — each must be a
    source of the workspace (422 naming those that are not)."""
    async with rt.db.session() as session:
        found = await repo.workspace_sources(session, workspace_id, source_ids)
    if source_ids is not None:
        missing = [str(s) for s in dict.fromkeys(source_ids) if s not in set(found)]
        if missing:
            raise ValidationFailed(
                f"not sources of workspace {workspace_id}: {', '.join(missing[:5])}"
                + (f" (+{len(missing) - 5} more)" if len(missing) > 5 else "")
            )
        found = [s for s in dict.fromkeys(source_ids)]
    if existing + len(found) > MAX_ROWS:
        raise ValidationFailed(f"a table has at most {MAX_ROWS} rows")
    return found


async def _table(rt: Runtime, workspace_id: uuid.UUID, table_id: uuid.UUID) -> EvidenceTable:
    async with rt.db.session() as session:
        table = await repo.get_table(session, table_id)
    if table is None or table.workspace_id != workspace_id:
        raise NotFoundError(f"no table with id {table_id} in workspace {workspace_id}")
    return table


# ------------------------------------------------------------------------------ reading


async def list_tables(rt: Runtime, workspace_id: uuid.UUID) -> list[TableSummaryOut]:
    await get_workspace(rt, workspace_id)
    async with rt.db.session() as session:
        found = await repo.list_tables(session, workspace_id)
    return [
        TableSummaryOut(
            id=s.table.id,
            workspace_id=s.table.workspace_id,
            name=s.table.name,
            columns=s.columns,
            rows=s.rows,
            created_at=s.table.created_at,
            updated_at=s.table.updated_at,
        )
        for s in found
    ]


async def get_table(rt: Runtime, workspace_id: uuid.UUID, table_id: uuid.UUID) -> TableOut:
    """The table with every cell of the current engine (pending where not filled yet)."""
    table = await _table(rt, workspace_id, table_id)
    engine = engine_key(rt.llm)
    async with rt.db.session() as session:
        columns = await repo.columns(session, table_id)
        rows = await repo.rows(session, table_id)
        cells = await repo.cells(
            session,
            [r.source_id for r in rows],
            sorted({question_key(c.question) for c in columns}),
            engine,
        )
        pending = await repo.pending_fill(session, FILL_KIND, workspace_id, table_id)
    return table_out(
        table, columns, rows, cells, engine=engine, job_id=pending.id if pending else None
    )


async def column_values(
    rt: Runtime, workspace_id: uuid.UUID, table_id: uuid.UUID, column_id: uuid.UUID
) -> ColumnValuesOut:
    """A column as a node attribute: source id → short answer (None when not reported or
    not filled yet)."""
    table = await get_table(rt, workspace_id, table_id)
    index = next((i for i, c in enumerate(table.columns) if c.id == column_id), None)
    if index is None:
        raise NotFoundError(f"no column with id {column_id} in table {table_id}")
    values: dict[str, str | None] = {}
    for row in table.rows:
        cell = row.cells[index]
        filled = cell.state == "filled" and not cell.not_reported
        values[str(row.source_id)] = cell.answer if filled else None
    return ColumnValuesOut(
        column_id=column_id, question=table.columns[index].question, values=values
    )


async def export_table(
    rt: Runtime, workspace_id: uuid.UUID, table_id: uuid.UUID, fmt: ExportFormat
) -> tuple[str, str, str]:
    """``(content, media type, file name)`` of the table as CSV or Markdown."""
    table = await get_table(rt, workspace_id, table_id)
    stem = "".join(c if c.isalnum() or c in "-_" else "-" for c in table.name)[:60].strip("-")
    stem = stem or "table"
    if fmt == "csv":
        return to_csv(table), "text/csv; charset=utf-8", f"{stem}.csv"
    return to_markdown(table), "text/markdown; charset=utf-8", f"{stem}.md"


# ------------------------------------------------------------------------------ changing


async def _after_change(
    rt: Runtime, workspace_id: uuid.UUID, table_id: uuid.UUID, fill: bool
) -> TableJobOut:
    job_id = (await start_fill(rt, workspace_id, table_id)).id if fill else None
    table = await get_table(rt, workspace_id, table_id)
    return TableJobOut(table=table, job_id=job_id or table.job_id)


async def create_table(
    rt: Runtime,
    workspace_id: uuid.UUID,
    *,
    columns: Sequence[str],
    name: str | None = None,
    source_ids: Sequence[uuid.UUID] | None = None,
    fill: bool = True,
) -> TableJobOut:
    """A new table over ``source_ids`` (default: every source of the workspace)."""
    await get_workspace(rt, workspace_id)
    questions = _questions(columns)
    title = _name(name, questions)
    sources = await _sources(rt, workspace_id, source_ids)
    async with rt.db.transaction() as session:
        table = await repo.create_table(
            session,
            workspace_id=workspace_id,
            name=title,
            questions=questions,
            source_ids=sources,
        )
    return await _after_change(rt, workspace_id, table.id, fill)


async def rename_table(
    rt: Runtime, workspace_id: uuid.UUID, table_id: uuid.UUID, name: str
) -> TableOut:
    await _table(rt, workspace_id, table_id)
    title = _name(name, [])
    async with rt.db.transaction() as session:
        await repo.rename_table(session, table_id, title)
    return await get_table(rt, workspace_id, table_id)


async def delete_table(rt: Runtime, workspace_id: uuid.UUID, table_id: uuid.UUID) -> None:
    await _table(rt, workspace_id, table_id)
    async with rt.db.transaction() as session:
        await repo.delete_table(session, table_id)


async def add_columns(
    rt: Runtime,
    workspace_id: uuid.UUID,
    table_id: uuid.UUID,
    questions: Sequence[str],
    *,
    fill: bool = True,
) -> TableJobOut:
    """New columns at the end; only their cells are computed (the others are cached)."""
    await _table(rt, workspace_id, table_id)
    async with rt.db.session() as session:
        existing = len(await repo.columns(session, table_id))
    cleaned = _questions(questions, existing=existing)
    async with rt.db.transaction() as session:
        await repo.add_columns(session, table_id, cleaned)
        await repo.touch_table(session, table_id)
    return await _after_change(rt, workspace_id, table_id, fill)


async def update_column(
    rt: Runtime,
    workspace_id: uuid.UUID,
    table_id: uuid.UUID,
    column_id: uuid.UUID,
    question: str,
    *,
    fill: bool = True,
) -> TableJobOut:
    """A column's new question: its cells are those of the new text (computed if new)."""
    await _table(rt, workspace_id, table_id)
    (cleaned,) = _questions([question])
    async with rt.db.transaction() as session:
        if await repo.get_column(session, table_id, column_id) is None:
            raise NotFoundError(f"no column with id {column_id} in table {table_id}")
        await repo.update_column(session, column_id, cleaned)
        await repo.touch_table(session, table_id)
    return await _after_change(rt, workspace_id, table_id, fill)


async def delete_column(
    rt: Runtime, workspace_id: uuid.UUID, table_id: uuid.UUID, column_id: uuid.UUID
) -> TableOut:
    await _table(rt, workspace_id, table_id)
    async with rt.db.transaction() as session:
        if await repo.get_column(session, table_id, column_id) is None:
            raise NotFoundError(f"no column with id {column_id} in table {table_id}")
        await repo.delete_column(session, column_id)
        await repo.touch_table(session, table_id)
    return await get_table(rt, workspace_id, table_id)


async def add_rows(
    rt: Runtime,
    workspace_id: uuid.UUID,
    table_id: uuid.UUID,
    source_ids: Sequence[uuid.UUID],
    *,
    fill: bool = True,
) -> TableJobOut:
    """New rows at the end (sources already in the table are left as they are)."""
    await _table(rt, workspace_id, table_id)
    if not source_ids:
        raise ValidationFailed("give at least one source")
    async with rt.db.session() as session:
        existing = len(await repo.rows(session, table_id))
    sources = await _sources(rt, workspace_id, source_ids, existing=existing)
    async with rt.db.transaction() as session:
        await repo.add_rows(session, table_id, sources)
        await repo.touch_table(session, table_id)
    return await _after_change(rt, workspace_id, table_id, fill)


async def delete_row(
    rt: Runtime, workspace_id: uuid.UUID, table_id: uuid.UUID, source_id: uuid.UUID
) -> TableOut:
    await _table(rt, workspace_id, table_id)
    async with rt.db.transaction() as session:
        if not await repo.delete_row(session, table_id, source_id):
            raise NotFoundError(f"source {source_id} is not a row of table {table_id}")
        await repo.touch_table(session, table_id)
    return await get_table(rt, workspace_id, table_id)


# ------------------------------------------------------------------------------ filling


async def start_fill(rt: Runtime, workspace_id: uuid.UUID, table_id: uuid.UUID) -> Job:
    """The table's fill job: the one already queued or running (it looks again for new
    cells before it ends), else a new one."""
    await _table(rt, workspace_id, table_id)
    async with rt.db.session() as session:
        pending = await repo.pending_fill(session, FILL_KIND, workspace_id, table_id)
    if pending is not None:
        return pending
    return await rt.jobs.submit(
        FILL_KIND,
        {"workspace_id": str(workspace_id), "table_id": str(table_id)},
        workspace_id=workspace_id,
    )


@job(FILL_KIND)
async def fill_job(ctx: JobContext) -> dict[str, Any]:
    """``{"workspace_id", "table_id"}``: compute the table's missing cells, one event per
    cell; cells are stored as they are computed (the checkpoint counts them)."""
    rt = ctx.runtime
    workspace_id = uuid.UUID(str(ctx.params["workspace_id"]))
    table_id = uuid.UUID(str(ctx.params["table_id"]))
    engine = engine_key(rt.llm)
    done = int(ctx.checkpoint.get("filled", 0))
    filled = not_reported = 0
    total_cells = 0
    await ctx.emit("looking for cells to fill", stage="plan", progress=0.0)
    for _ in range(FILL_PASSES):
        async with rt.db.session() as session:
            if await repo.get_table(session, table_id) is None:
                raise NotFoundError(f"table {table_id} was deleted")
            columns = await repo.columns(session, table_id)
            rows = await repo.rows(session, table_id)
            keys = sorted({question_key(c.question) for c in columns})
            cells = await repo.cells(session, [r.source_id for r in rows], keys, engine)
        total_cells = len(rows) * len(keys)
        todo = todo_cells(columns, rows, cells)
        if not todo:
            break
        await ctx.emit(
            f"{len(todo)} cells to fill ({total_cells - len(todo)} cached)",
            stage="plan",
            progress=0.0,
            data={"todo": len(todo), "cached": total_cells - len(todo), "engine": engine},
        )
        pages: dict[uuid.UUID, Any] = {}
        cache = EvidenceCache()
        for i, item in enumerate(todo, 1):
            async with rt.db.session() as session:
                if await repo.job_status(session, ctx.job_id) == "cancelled":
                    ctx.mark_cancelled()  # now, not at the next heartbeat
            ctx.raise_if_cancelled()
            row = item.row
            if row.source_id not in pages:
                pages = {row.source_id: await source_pages(rt, row.source_id)}
            result = await compute_cell(
                rt,
                workspace_id=workspace_id,
                row=row,
                question=item.question,
                pages=pages[row.source_id],
                cache=cache,
            )
            values = cell_values(
                row=row, question=item.question, key=item.key, engine=engine, result=result
            )
            async with rt.db.transaction() as session:
                await repo.save_cell(session, values)
            filled += 1
            not_reported += result.not_reported
            await ctx.emit(
                f"{row.title or row.file_name or row.source_id} — {item.question}",
                stage="cell",
                progress=round(i / len(todo), 4),
                data={
                    "source_id": str(row.source_id),
                    "question_key": item.key,
                    "answer": result.answer[:200],
                    "not_reported": result.not_reported,
                },
            )
            if i % 10 == 0 or i == len(todo):
                await ctx.save_checkpoint(filled=done + filled)
    return {
        "table_id": str(table_id),
        "engine": engine,
        "filled": filled,
        "not_reported": not_reported,
        "cells": total_cells,
        "cached": max(0, total_cells - filled),
    }


async def forget_cells(rt: Runtime, workspace_id: uuid.UUID) -> int:
    """Drop every cached cell of the workspace's sources (an eval measuring the engine as
    it is now, not cells an earlier version computed)."""
    async with rt.db.transaction() as session:
        sources = await repo.workspace_sources(session, workspace_id)
        return await repo.delete_cells(session, sources)


async def wait_for(rt: Runtime, job_id: uuid.UUID) -> Job:
    """Follow the job's events until it ends; the finished job."""
    async for _event in job_events(rt, job_id):
        pass
    return await rt.jobs.get(job_id)


async def find_or_create(
    rt: Runtime,
    workspace_id: uuid.UUID,
    columns: Sequence[str],
    source_ids: Sequence[uuid.UUID] | None = None,
) -> TableJobOut:
    """The CLI's and the agent's table: one of the workspace whose columns are exactly
    ``columns`` and whose rows are every source (or ``source_ids``), made when missing,
    rows added for sources that arrived since; its fill job started."""
    questions = _questions(columns)
    wanted = await _sources(rt, workspace_id, source_ids)
    for summary in await list_tables(rt, workspace_id):
        table = await get_table(rt, workspace_id, summary.id)
        if [c.question for c in table.columns] != questions:
            continue
        have = {r.source_id for r in table.rows}
        if source_ids is not None and have != set(wanted):
            continue
        if not have <= set(wanted):
            continue
        missing = [s for s in wanted if s not in have]
        if missing:
            async with rt.db.transaction() as session:
                await repo.add_rows(session, table.id, missing)
        return await _after_change(rt, workspace_id, table.id, True)
    return await create_table(rt, workspace_id, columns=questions, source_ids=source_ids, fill=True)


async def extract_table(
    rt: Runtime,
    workspace_id: uuid.UUID,
    columns: Sequence[str],
    source_ids: Sequence[uuid.UUID] | None = None,
) -> tuple[TableOut, list[ExportedRow], Job | None]:
    """Fill (or reuse) the table of ``columns`` over the workspace's sources and wait for
    it: the table, its rows as exported, and the fill job (None when all was cached)."""
    started = await find_or_create(rt, workspace_id, columns, source_ids)
    finished = await wait_for(rt, started.job_id) if started.job_id else None
    table = await get_table(rt, workspace_id, started.table.id)
    return table, exported_rows(table), finished
