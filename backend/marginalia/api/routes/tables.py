"""Evidence tables. Thin: :mod:`marginalia.usecases.tables` does the work."""

from __future__ import annotations

import uuid
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Response, status

from marginalia.api.deps import RuntimeDep
from marginalia.api.downloads import attachment
from marginalia.api.schemas import ErrorOut
from marginalia.tables.schemas import (
    ColumnsAdd,
    ColumnUpdate,
    ColumnValuesOut,
    RowsAdd,
    SuggestedColumnOut,
    TableCreate,
    TableJobOut,
    TableOut,
    TableSummaryOut,
    TableUpdate,
)
from marginalia.usecases import tables as service

router = APIRouter(
    prefix="/api/workspaces/{workspace_id}/tables",
    tags=["tables"],
    responses={404: {"model": ErrorOut}, 422: {"model": ErrorOut}},
)


@router.get("", response_model=list[TableSummaryOut], summary="The workspace's tables")
async def list_tables(workspace_id: uuid.UUID, rt: RuntimeDep) -> list[TableSummaryOut]:
    return await service.list_tables(rt, workspace_id)


@router.get(
    "/suggestions",
    response_model=list[SuggestedColumnOut],
    summary="Suggested columns (the fields extraction fills, and the sample size)",
)
async def suggested_columns(workspace_id: uuid.UUID) -> list[SuggestedColumnOut]:
    return service.suggestions()


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    response_model=TableJobOut,
    summary="Create a table (rows: the sources, columns: questions) and start filling it",
)
async def create_table(workspace_id: uuid.UUID, body: TableCreate, rt: RuntimeDep) -> TableJobOut:
    return await service.create_table(
        rt,
        workspace_id,
        columns=body.columns,
        name=body.name,
        source_ids=body.source_ids,
        fill=body.fill,
    )


# `:uuid`: so /tables/suggestions with another method is a 405, not a malformed table id.
@router.get("/{table_id:uuid}", response_model=TableOut, summary="A table with its cells")
async def get_table(workspace_id: uuid.UUID, table_id: uuid.UUID, rt: RuntimeDep) -> TableOut:
    return await service.get_table(rt, workspace_id, table_id)


@router.patch("/{table_id:uuid}", response_model=TableOut, summary="Rename a table")
async def rename_table(
    workspace_id: uuid.UUID, table_id: uuid.UUID, body: TableUpdate, rt: RuntimeDep
) -> TableOut:
    return await service.rename_table(rt, workspace_id, table_id, body.name)


@router.delete("/{table_id:uuid}", status_code=status.HTTP_204_NO_CONTENT, summary="Delete a table")
async def delete_table(workspace_id: uuid.UUID, table_id: uuid.UUID, rt: RuntimeDep) -> Response:
    await service.delete_table(rt, workspace_id, table_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post(
    "/{table_id}/fill",
    response_model=TableJobOut,
    responses={409: {"model": ErrorOut}},
    summary="Fill the cells not computed yet (the running fill job, if there is one)",
)
async def fill_table(workspace_id: uuid.UUID, table_id: uuid.UUID, rt: RuntimeDep) -> TableJobOut:
    job = await service.start_fill(rt, workspace_id, table_id)
    return TableJobOut(table=await service.get_table(rt, workspace_id, table_id), job_id=job.id)


@router.post(
    "/{table_id}/columns",
    response_model=TableJobOut,
    summary="Add columns; only their cells are computed",
)
async def add_columns(
    workspace_id: uuid.UUID, table_id: uuid.UUID, body: ColumnsAdd, rt: RuntimeDep
) -> TableJobOut:
    return await service.add_columns(rt, workspace_id, table_id, body.questions, fill=body.fill)


@router.patch(
    "/{table_id}/columns/{column_id}",
    response_model=TableJobOut,
    summary="Change a column's question (its cells are recomputed for the new text)",
)
async def update_column(
    workspace_id: uuid.UUID,
    table_id: uuid.UUID,
    column_id: uuid.UUID,
    body: ColumnUpdate,
    rt: RuntimeDep,
) -> TableJobOut:
    return await service.update_column(
        rt, workspace_id, table_id, column_id, body.question, fill=body.fill
    )


@router.delete(
    "/{table_id}/columns/{column_id}", response_model=TableOut, summary="Remove a column"
)
async def delete_column(
    workspace_id: uuid.UUID, table_id: uuid.UUID, column_id: uuid.UUID, rt: RuntimeDep
) -> TableOut:
    return await service.delete_column(rt, workspace_id, table_id, column_id)


@router.get(
    "/{table_id}/columns/{column_id}/values",
    response_model=ColumnValuesOut,
    summary="A column as a node attribute: source id → short answer",
)
async def column_values(
    workspace_id: uuid.UUID, table_id: uuid.UUID, column_id: uuid.UUID, rt: RuntimeDep
) -> ColumnValuesOut:
    return await service.column_values(rt, workspace_id, table_id, column_id)


@router.post(
    "/{table_id}/rows",
    response_model=TableJobOut,
    summary="Add sources as rows; only their cells are computed",
)
async def add_rows(
    workspace_id: uuid.UUID, table_id: uuid.UUID, body: RowsAdd, rt: RuntimeDep
) -> TableJobOut:
    return await service.add_rows(rt, workspace_id, table_id, body.source_ids, fill=body.fill)


@router.delete(
    "/{table_id}/rows/{source_id}", response_model=TableOut, summary="Remove a source's row"
)
async def delete_row(
    workspace_id: uuid.UUID, table_id: uuid.UUID, source_id: uuid.UUID, rt: RuntimeDep
) -> TableOut:
    return await service.delete_row(rt, workspace_id, table_id, source_id)


@router.get(
    "/{table_id}/export",
    response_class=Response,
    responses={
        200: {
            "description": "The table as CSV or Markdown, each value with its quote and page",
            "content": {"text/csv": {}, "text/markdown": {}},
        }
    },
    summary="Export a table (CSV or Markdown)",
)
async def export_table(
    workspace_id: uuid.UUID,
    table_id: uuid.UUID,
    rt: RuntimeDep,
    format: Annotated[Literal["csv", "markdown"], Query(description="csv or markdown")] = "csv",
) -> Response:
    content, media_type, file_name = await service.export_table(rt, workspace_id, table_id, format)
    return Response(
        content=content,
        media_type=media_type,
        headers=attachment(file_name),
    )
