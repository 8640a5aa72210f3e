"""evidence tables: sources as rows, questions as columns, cells cached per source

``evidence_tables`` (a workspace's table), ``evidence_table_columns`` (its questions, in
order), ``evidence_table_rows`` (its sources, in order; deleted with the source) and
``evidence_cells``: one source's answer to one question by one engine — short answer,
"not reported", the verified quotes with their pages, the passages searched — keyed by
``(source_id, question_key, engine)`` and valid while the source's content hash is
``source_version``. A cell is shared by every table of the workspace that asks the same
question, so adding a column or a row computes only what is new (issue 37).

Revision ID: 0023
Revises: 0018
Create Date: 2026-12-06 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0023"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _created() -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(
        "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
    )


def _jsonb(name: str) -> sa.Column:  # type: ignore[type-arg]
    return sa.Column(
        name,
        postgresql.JSONB(astext_type=sa.Text()),
        server_default=sa.text("'[]'::jsonb"),
        nullable=True,
    )


def upgrade() -> None:
    op.create_table(
        "evidence_tables",
        sa.Column("id", sa.UUID(), server_default=sa.text("gen_random_uuid()"), nullable=False),
        sa.Column("workspace_id", sa.UUID(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        _created(),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_evidence_tables_workspace_id", "evidence_tables", ["workspace_id"])
    op.create_table(
        "evidence_table_columns",
        sa.Column("id", sa.UUID(), server_default=sa.text("gen_random_uuid()"), nullable=False),
        sa.Column("table_id", sa.UUID(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        _created(),
        sa.ForeignKeyConstraint(["table_id"], ["evidence_tables.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_evidence_table_columns_table_id", "evidence_table_columns", ["table_id"])
    op.create_table(
        "evidence_table_rows",
        sa.Column("table_id", sa.UUID(), nullable=False),
        sa.Column("source_id", sa.UUID(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        _created(),
        sa.ForeignKeyConstraint(["table_id"], ["evidence_tables.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["source_id"], ["sources.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("table_id", "source_id"),
    )
    op.create_index("ix_evidence_table_rows_source_id", "evidence_table_rows", ["source_id"])
    op.create_table(
        "evidence_cells",
        sa.Column("source_id", sa.UUID(), nullable=False),
        sa.Column("question_key", sa.Text(), nullable=False),
        sa.Column("engine", sa.Text(), nullable=False),
        sa.Column("source_version", sa.Text(), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("not_reported", sa.Boolean(), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=True),
        _jsonb("quotes"),
        _jsonb("searched"),
        sa.Column("note", sa.Text(), nullable=True),
        sa.Column("produced_by", sa.Text(), nullable=False),
        sa.Column("transient", sa.Boolean(), server_default=sa.false(), nullable=False),
        _created(),
        sa.ForeignKeyConstraint(["source_id"], ["sources.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("source_id", "question_key", "engine"),
    )
    op.create_index("ix_evidence_cells_question", "evidence_cells", ["question_key"])


def downgrade() -> None:
    op.drop_index("ix_evidence_cells_question", table_name="evidence_cells")
    op.drop_table("evidence_cells")
    op.drop_index("ix_evidence_table_rows_source_id", table_name="evidence_table_rows")
    op.drop_table("evidence_table_rows")
    op.drop_index("ix_evidence_table_columns_table_id", table_name="evidence_table_columns")
    op.drop_table("evidence_table_columns")
    op.drop_index("ix_evidence_tables_workspace_id", table_name="evidence_tables")
    op.drop_table("evidence_tables")
