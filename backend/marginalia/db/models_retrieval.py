"""Tables of the lexical index (BM25): terms with df, impact-ordered postings, per-source
length statistics. All written by the triggers on ``chunks`` (migrations 0002, 0009)."""

from __future__ import annotations

import uuid

from sqlalchemy import (
    BigInteger,
    Column,
    ForeignKey,
    Identity,
    Integer,
    SmallInteger,
    Text,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import UUID
from sqlmodel import Field, SQLModel


class RetrievalTerm(SQLModel, table=True):
    """A workspace's lexeme and its df, kept by the chunks triggers (migration 0009)."""

    __tablename__ = "retrieval_terms"
    __table_args__ = (UniqueConstraint("workspace_id", "lexeme", name="uq_retrieval_terms_lexeme"),)
    id: int | None = Field(default=None, sa_column=Column(Integer, Identity(), primary_key=True))
    workspace_id: uuid.UUID = Field(sa_column=Column(UUID(as_uuid=True), nullable=False))
    lexeme: str = Field(sa_column=Column(Text, nullable=False))
    df: int


class RetrievalImpact(SQLModel, table=True):
    """A posting with BM25's tf part (``retrieval_impact``, migration 0009), keyed so that
    a term's postings read highest impact first; written by the chunks triggers."""

    __tablename__ = "retrieval_impacts"
    term_id: int = Field(sa_column=Column(Integer, primary_key=True))
    impact: int = Field(sa_column=Column(SmallInteger, primary_key=True))
    chunk_id: int = Field(sa_column=Column(BigInteger, primary_key=True))


class RetrievalSourceStats(SQLModel, table=True):
    """Per-source chunk count and total length, summed per workspace for BM25's N and avgdl."""

    __tablename__ = "retrieval_source_stats"
    source_id: uuid.UUID = Field(
        sa_column=Column(
            UUID(as_uuid=True), ForeignKey("sources.id", ondelete="CASCADE"), primary_key=True
        )
    )
    workspace_id: uuid.UUID = Field(
        sa_column=Column(UUID(as_uuid=True), nullable=False, index=True)
    )
    n_chunks: int
    total_len: int = Field(sa_column=Column(BigInteger, nullable=False))
