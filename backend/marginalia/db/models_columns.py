"""Column helpers shared by the schema modules (:mod:`marginalia.db.models` and its
companions): primary keys, foreign keys, timestamps, JSONB, vectors and HNSW indexes."""

from __future__ import annotations

import uuid
from typing import Any

from pgvector.sqlalchemy import Vector
from sqlalchemy import Column, DateTime, ForeignKey, Index, Text, func, text
from sqlalchemy.dialects.postgresql import JSONB, UUID
from sqlmodel import Field


def uuid_pk() -> Any:
    return Field(
        default_factory=uuid.uuid4,
        sa_column=Column(
            UUID(as_uuid=True), primary_key=True, server_default=text("gen_random_uuid()")
        ),
    )


def fk(
    target: str, *, ondelete: str = "CASCADE", nullable: bool = False, index: bool = True
) -> Any:
    return Field(
        default=None,
        sa_column=Column(
            UUID(as_uuid=True),
            ForeignKey(target, ondelete=ondelete),
            nullable=nullable,
            index=index,
        ),
    )


def created() -> Any:
    return Field(
        default=None,
        sa_column=Column(DateTime(timezone=True), nullable=False, server_default=func.now()),
    )


def updated() -> Any:
    return Field(
        default=None,
        sa_column=Column(
            DateTime(timezone=True), nullable=False, server_default=func.now(), onupdate=func.now()
        ),
    )


def empty_text() -> Any:
    return Field(default="", sa_column=Column(Text, nullable=False, server_default=text("''")))


def jsonb(default: Any = None, *, nullable: bool = True) -> Any:
    server_default = None
    if isinstance(default, list):
        server_default = text("'[]'::jsonb")
    elif isinstance(default, dict):
        server_default = text("'{}'::jsonb")
    return Field(
        default_factory=(lambda: type(default)()) if default is not None else (lambda: None),
        sa_column=Column(JSONB, nullable=nullable, server_default=server_default),
    )


def hnsw(table: str, column: str = "embedding") -> Index:
    """HNSW (cosine) index: every embedding column searched by nearest neighbour has one."""
    return Index(
        f"ix_{table}_{column}_hnsw",
        column,
        postgresql_using="hnsw",
        postgresql_ops={column: "vector_cosine_ops"},
    )


def vector() -> Any:
    # No dimension here: the column's dimension lives in the database (the migration gives
    # it the configured model's, pinned in embedding_model), so importing the schema reads
    # no settings.
    return Field(default=None, sa_column=Column(Vector(), nullable=True))
