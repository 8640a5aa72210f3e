"""Evidence tables as the API, the CLI and the MCP tool see them."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from marginalia.answer.schemas import NOT_BLANK
from marginalia.tables.cells import CellQuote, SearchedRef
from marginalia.tables.columns import MAX_COLUMNS, MAX_ROWS

CellState = Literal["filled", "pending", "unavailable"]

#: A column's question. Its rule (a letter or digit somewhere: ``column_problem`` tests
#: ``str.isalnum``) is not stated as a pattern: JSON Schema's ECMA dialect has no Unicode
#: letter class (its ``\w`` is ASCII), so any pattern would refuse "Àü" or admit "¿?".
#: The fuzzer is told this refusal is semantic (scripts/fuzz_api.py, SEMANTIC).
ColumnText = str
#: A name: not blank (``str.split()``'s whitespace), no NUL.
TableName = Annotated[str, Field(json_schema_extra={"pattern": NOT_BLANK})]
#: Likewise a list the service refuses empty (with its own message).
AT_LEAST_ONE: dict[str, Any] = {"minItems": 1}


class TableCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: TableName | None = Field(
        default=None, max_length=200, description="The table's name (default: its columns)"
    )
    columns: list[ColumnText] = Field(
        max_length=MAX_COLUMNS,
        json_schema_extra=AT_LEAST_ONE,
        description="Questions, one per column (at least one)",
    )
    source_ids: list[uuid.UUID] | None = Field(
        default=None,
        max_length=MAX_ROWS,
        description="The rows: sources of the workspace (default: all of them)",
    )
    fill: StrictBool = Field(default=True, description="Start filling the cells now")


class TableUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: TableName = Field(max_length=200, description="The new name")


class ColumnsAdd(BaseModel):
    model_config = ConfigDict(extra="forbid")

    questions: list[ColumnText] = Field(
        max_length=MAX_COLUMNS, json_schema_extra=AT_LEAST_ONE, description="Questions to add"
    )
    fill: StrictBool = True


class ColumnUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: ColumnText = Field(description="The column's new question")
    fill: StrictBool = True


class RowsAdd(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source_ids: list[uuid.UUID] = Field(
        max_length=MAX_ROWS, json_schema_extra=AT_LEAST_ONE, description="Sources to add"
    )
    fill: StrictBool = True


class ColumnOut(BaseModel):
    id: uuid.UUID
    position: int
    question: str
    #: What the question asks for: count, dataset, method, result, limitation, generic.
    kind: str
    answer_type: str


class CellOut(BaseModel):
    """One cell: ``filled`` (an answer with its verified quotes, or not reported),
    ``pending`` (not computed yet for the source's current content and this question) or
    ``unavailable`` (the source is not ready)."""

    column_id: uuid.UUID
    state: CellState
    answer: str = ""
    not_reported: bool = False
    quotes: list[CellQuote] = Field(default_factory=list)
    confidence: float | None = None
    note: str | None = None
    searched: list[SearchedRef] = Field(default_factory=list)
    produced_by: str | None = None


class RowOut(BaseModel):
    source_id: uuid.UUID
    title: str | None
    file_name: str | None
    status: str
    cells: list[CellOut]


class TableSummaryOut(BaseModel):
    id: uuid.UUID
    workspace_id: uuid.UUID
    name: str
    columns: int
    rows: int
    created_at: datetime
    updated_at: datetime


class TableOut(BaseModel):
    id: uuid.UUID
    workspace_id: uuid.UUID
    name: str
    created_at: datetime
    updated_at: datetime
    #: The engine the cells are shown for: ``offline`` or ``llm:<provider>:<model>``.
    engine: str
    columns: list[ColumnOut]
    rows: list[RowOut]
    #: Cells not filled yet (pending) among the ready sources.
    pending: int
    #: The table's queued or running fill job, if any.
    job_id: uuid.UUID | None = None


class TableJobOut(BaseModel):
    """A table after a change, and the fill job started for it (None: nothing to fill)."""

    table: TableOut
    job_id: uuid.UUID | None = None


class SuggestedColumnOut(BaseModel):
    key: str
    label: str
    question: str


class ColumnValuesOut(BaseModel):
    """A column as a node attribute: each row's short answer (None: not reported or not
    filled), for filtering or colouring sources on the canvas."""

    column_id: uuid.UUID
    question: str
    values: dict[str, str | None]


class ExportedQuote(BaseModel):
    text: str
    page: int | None


class ExportedCell(BaseModel):
    column: str
    answer: str
    not_reported: bool
    quotes: list[ExportedQuote]


class ExportedRow(BaseModel):
    """One source of a table as ``marginalia table --json`` and the MCP tool give it."""

    source_id: str
    title: str | None
    file_name: str | None
    cells: list[ExportedCell]
