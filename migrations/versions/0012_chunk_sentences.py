"""chunk sentences: each chunk's sentences with their vectors, computed once at ingest

The offline engine scores every sentence of an answer's passages against the question;
it used to split and embed them for every answer (issue 19, item 3). ``chunk_sentences``
holds, per chunk, a row per sentence (:func:`marginalia.answer.sentences.split`): its span
in the chunk's text, whether it is prose, and for a scored sentence (prose, within the
model window) its vector — L2-normalised, the model pinned in ``embedding_model``, the
dimension of ``chunks.embedding`` — and its Snowball lexemes. Written in the chunks'
transaction, deleted with the chunk (``ON DELETE CASCADE``), rebuilt by ``marginalia
reembed``. Existing chunks get no rows here (the model is not available to a migration):
their sentences are computed at question time, as before, until ``reembed`` stores them
(docs/decisions/0013-sentence-vectors-at-ingest.md). No HNSW index: the vectors are only
read by chunk id.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from pgvector.sqlalchemy import Vector
from sqlalchemy.dialects import postgresql

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _chunks_dim() -> int:
    """The dimension of ``chunks.embedding`` (a database re-embedded with another model
    has changed it since 0001)."""
    dim = (
        op.get_bind()
        .execute(
            sa.text(
                "SELECT atttypmod FROM pg_attribute "
                "WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'"
            )
        )
        .scalar()
    )
    return int(dim)


def upgrade() -> None:
    op.create_table(
        "chunk_sentences",
        sa.Column("chunk_id", sa.BigInteger(), nullable=False),
        sa.Column("ordinal", sa.SmallInteger(), nullable=False),
        sa.Column("char_start", sa.Integer(), nullable=False),
        sa.Column("char_end", sa.Integer(), nullable=False),
        sa.Column("prose", sa.Boolean(), nullable=False),
        sa.Column("lexemes", postgresql.ARRAY(sa.Text()), nullable=True),
        sa.Column("embedding", Vector(_chunks_dim()), nullable=True),
        sa.ForeignKeyConstraint(["chunk_id"], ["chunks.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("chunk_id", "ordinal"),
    )


def downgrade() -> None:
    op.drop_table("chunk_sentences")
