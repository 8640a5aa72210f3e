"""Evidence tables (migration 0023; SQL in :mod:`marginalia.tables.repository`): a table
of a workspace, its columns (questions) and rows (sources), and the cells — cached per
source, question and engine, shared by every table that asks the same question."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, Column, Float, ForeignKey, Index, Integer, Text
from sqlalchemy.dialects.postgresql import UUID
from sqlmodel import Field, SQLModel

from marginalia.db.models_columns import created, fk, jsonb, updated, uuid_pk


class EvidenceTable(SQLModel, table=True):
    __tablename__ = "evidence_tables"
    id: uuid.UUID = uuid_pk()
    workspace_id: uuid.UUID = fk("workspaces.id")
    name: str
    created_at: datetime = created()
    updated_at: datetime = updated()


class EvidenceTableColumn(SQLModel, table=True):
    """A column: a question asked of every row's source."""

    __tablename__ = "evidence_table_columns"
    id: uuid.UUID = uuid_pk()
    table_id: uuid.UUID = fk("evidence_tables.id")
    position: int = Field(sa_column=Column(Integer, nullable=False))
    question: str
    created_at: datetime = created()


class EvidenceTableRow(SQLModel, table=True):
    """A row: one source of the table's workspace (deleted with the source)."""

    __tablename__ = "evidence_table_rows"
    table_id: uuid.UUID = Field(
        sa_column=Column(
            UUID(as_uuid=True),
            ForeignKey("evidence_tables.id", ondelete="CASCADE"),
            primary_key=True,
        )
    )
    source_id: uuid.UUID = Field(
        sa_column=Column(
            UUID(as_uuid=True),
            ForeignKey("sources.id", ondelete="CASCADE"),
            primary_key=True,
            index=True,
        )
    )
    position: int = Field(sa_column=Column(Integer, nullable=False))
    created_at: datetime = created()


class EvidenceCell(SQLModel, table=True):
    """One source's answer to one question by one engine, valid while the source's
    content is ``source_version`` (a changed source or question is a new key)."""

    __tablename__ = "evidence_cells"
    __table_args__ = (Index("ix_evidence_cells_question", "question_key"),)
    source_id: uuid.UUID = Field(
        sa_column=Column(
            UUID(as_uuid=True),
            ForeignKey("sources.id", ondelete="CASCADE"),
            primary_key=True,
        )
    )
    question_key: str = Field(sa_column=Column(Text, primary_key=True))
    engine: str = Field(sa_column=Column(Text, primary_key=True))
    source_version: str
    question: str
    answer: str = ""
    not_reported: bool = Field(sa_column=Column(Boolean, nullable=False))
    confidence: float | None = Field(default=None, sa_column=Column(Float, nullable=True))
    quotes: list[dict[str, Any]] = jsonb([])
    searched: list[dict[str, Any]] = jsonb([])
    note: str | None = None
    produced_by: str
    #: A cell a failed model call left: recomputed by the next fill.
    transient: bool = Field(default=False, sa_column=Column(Boolean, nullable=False))
    created_at: datetime = created()
