"""source_references: each source's reference list and the workspace source it cites

A row per reference entry (as parsed from the source's pages, or given by the source's
metadata), with the DOI / arXiv id / OpenAlex id it names and its normalised text. A row
whose ``cited_source_id`` is set is a paper -> paper ``cites`` edge; it goes with either
source (``ON DELETE CASCADE`` for the citing one, ``SET NULL`` for the cited one). The
identifier indexes and the GIN index on ``terms`` (``to_tsvector('simple', norm)``) let
the knowledge update find the references that cite a new source without a scan
(issue 13, item 3).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 22:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "source_references",
        sa.Column("id", sa.BigInteger(), autoincrement=True, nullable=False),
        sa.Column("workspace_id", postgresql.UUID(as_uuid=True), nullable=False),
        sa.Column("source_id", postgresql.UUID(as_uuid=True), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("norm", sa.Text(), nullable=False),
        sa.Column("doi", sa.Text(), nullable=True),
        sa.Column("arxiv_id", sa.Text(), nullable=True),
        sa.Column("openalex_id", sa.Text(), nullable=True),
        sa.Column("year", sa.Integer(), nullable=True),
        sa.Column("cited_source_id", postgresql.UUID(as_uuid=True), nullable=True),
        sa.Column("match", sa.Text(), nullable=True),
        sa.Column("match_score", sa.Float(), nullable=True),
        sa.Column(
            "terms",
            postgresql.TSVECTOR(),
            sa.Computed("to_tsvector('simple', norm)", persisted=True),
            nullable=True,
        ),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["source_id"], ["sources.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["cited_source_id"], ["sources.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_source_references_workspace_id", "source_references", ["workspace_id"], unique=False
    )
    op.create_index(
        "ix_source_references_source_id", "source_references", ["source_id"], unique=False
    )
    op.create_index(
        "ix_source_references_cited_source_id",
        "source_references",
        ["cited_source_id"],
        unique=False,
    )
    op.create_index(
        "ix_source_references_workspace_doi", "source_references", ["workspace_id", "doi"]
    )
    op.create_index(
        "ix_source_references_workspace_arxiv", "source_references", ["workspace_id", "arxiv_id"]
    )
    op.create_index(
        "ix_source_references_workspace_openalex",
        "source_references",
        ["workspace_id", "openalex_id"],
    )
    op.create_index(
        "ix_source_references_terms", "source_references", ["terms"], postgresql_using="gin"
    )


def downgrade() -> None:
    op.drop_table("source_references")
