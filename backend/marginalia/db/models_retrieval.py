"""Tables of the lexical index (BM25): terms with df, blocks of impact-ordered postings,
per-source length statistics. All written by the triggers on ``chunks`` (migrations 0002, 0009, 0015)."""

from __future__ import annotations

import uuid

from sqlalchemy import (
    BigInteger,
    Column,
    ForeignKey,
    Identity,
    Index,
    Integer,
    SmallInteger,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, UUID
from sqlmodel import Field, SQLModel


class RetrievalTerm(SQLModel, table=True):
    """A workspace's lexeme and its df, kept by the chunks triggers (migration 0009)."""

    __tablename__ = "retrieval_terms"
    __table_args__ = (UniqueConstraint("workspace_id", "lexeme", name="uq_retrieval_terms_lexeme"),)
    id: int | None = Field(default=None, sa_column=Column(Integer, Identity(), primary_key=True))
    workspace_id: uuid.UUID = Field(sa_column=Column(UUID(as_uuid=True), nullable=False))
    lexeme: str = Field(sa_column=Column(Text, nullable=False))
    df: int


class RetrievalBlock(SQLModel, table=True):
    """Up to 256 postings of one (term, impact bucket): chunk ids as ``base`` plus int4
    ``offsets``, with BM25's tf part per posting (``retrieval_impact``); appended by the
    chunks triggers and merged by ``retrieval_compact`` (migration 0015)."""

    __tablename__ = "retrieval_blocks"
    __table_args__ = (
        Index(
            "ix_retrieval_blocks_partial",
            "term_id",
            "bucket",
            postgresql_where=text("n < 256"),
        ),
    )
    term_id: int = Field(sa_column=Column(Integer, primary_key=True))
    bucket: int = Field(sa_column=Column(SmallInteger, primary_key=True))
    base: int = Field(sa_column=Column(BigInteger, primary_key=True))
    last: int = Field(sa_column=Column(BigInteger, nullable=False))
    n: int = Field(sa_column=Column(SmallInteger, nullable=False))
    offsets: list[int] = Field(sa_column=Column(ARRAY(Integer), nullable=False))
    impacts: list[int] = Field(sa_column=Column(ARRAY(SmallInteger), nullable=False))


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
