"""drop the GIN index on chunks.tsv: no query reads it

Lexical retrieval scores BM25 from ``retrieval_postings`` (migration 0002); no query
filters ``chunks.tsv`` with ``@@`` any more, so the index was only upkeep: a GIN entry
per (chunk, lexeme) on every insert, and its pending-list clean-ups, on the ingest's
critical path (docs/BENCHMARKS.md). The generated ``tsv`` column stays: the postings
trigger reads it.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 09:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_index("ix_chunks_tsv", table_name="chunks", postgresql_using="gin")


def downgrade() -> None:
    op.create_index("ix_chunks_tsv", "chunks", ["tsv"], unique=False, postgresql_using="gin")
