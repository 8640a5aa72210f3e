"""The stored sentences of chunks (migration 0012; :mod:`marginalia.db.repositories.sentences`)."""

from __future__ import annotations

from typing import Any

from pgvector.sqlalchemy import Vector
from sqlalchemy import BigInteger, Boolean, Column, ForeignKey, Integer, SmallInteger, Text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlmodel import Field, SQLModel


class ChunkSentence(SQLModel, table=True):
    """One sentence of a chunk: its span in the chunk's text, whether it is prose, and for
    a sentence the offline engine scores its vector (L2-normalised, the pinned model) and
    lexemes. Written with the chunk, deleted with it."""

    __tablename__ = "chunk_sentences"
    chunk_id: int = Field(
        sa_column=Column(BigInteger, ForeignKey("chunks.id", ondelete="CASCADE"), primary_key=True)
    )
    ordinal: int = Field(sa_column=Column(SmallInteger, primary_key=True))
    char_start: int = Field(sa_column=Column(Integer, nullable=False))
    char_end: int = Field(sa_column=Column(Integer, nullable=False))
    prose: bool = Field(sa_column=Column(Boolean, nullable=False))
    lexemes: list[str] | None = Field(default=None, sa_column=Column(ARRAY(Text), nullable=True))
    # No dimension here, as for the other vector columns (the migration gives the pinned one).
    embedding: Any = Field(default=None, sa_column=Column(Vector(), nullable=True))
