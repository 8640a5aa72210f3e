"""Type comparison for Alembic autogenerate.

SQLModel maps `str` to an unbounded VARCHAR ("AutoString"); the migrations use TEXT.
In PostgreSQL both are the same unbounded string, so that pair is not a change. The
schema's vector columns carry no dimension (the database's columns do: the configured
model's, pinned in ``embedding_model``), so two vector types are not a change either.
"""

from __future__ import annotations

from typing import Any

from pgvector.sqlalchemy import Vector
from sqlalchemy import Text


def compare_type(
    context: Any,
    inspected_column: Any,
    metadata_column: Any,
    inspected_type: Any,
    metadata_type: Any,
) -> bool | None:
    if isinstance(inspected_type, Text) and type(metadata_type).__name__ == "AutoString":
        return False
    if isinstance(metadata_type, Vector) and isinstance(inspected_type, Vector):
        return False
    return None  # fall back to Alembic's default comparison
