"""learning paths: stale when the knowledge changed, steps marked read on the server

``workspaces.knowledge_version`` is bumped by every knowledge update (a source added or
removed, a rebuild); ``learning_paths.knowledge_version`` records the version a path was
made at, so a path whose version is older is stale, and ``learning_paths.source_ids`` the
sources it was planned over (what was added or removed since). ``learning_path_steps.read_at`` is
when the reader marked the step read (NULL: not read).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 22:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "workspaces",
        sa.Column("knowledge_version", sa.Integer(), nullable=False, server_default="0"),
    )
    op.add_column(
        "learning_paths",
        sa.Column("knowledge_version", sa.Integer(), nullable=False, server_default="0"),
    )
    op.add_column(
        "learning_paths",
        sa.Column(
            "source_ids",
            postgresql.JSONB(astext_type=sa.Text()),
            nullable=True,
            server_default=sa.text("'[]'::jsonb"),
        ),
    )
    op.add_column(
        "learning_path_steps", sa.Column("read_at", sa.DateTime(timezone=True), nullable=True)
    )


def downgrade() -> None:
    op.drop_column("learning_path_steps", "read_at")
    op.drop_column("learning_paths", "source_ids")
    op.drop_column("learning_paths", "knowledge_version")
    op.drop_column("workspaces", "knowledge_version")
