"""highlights keep robust anchors: the page range, the quote's context, its rectangles

A highlight (and the note on it) is anchored by the page and character range of the
backend's stored page text (``page``/``char_start`` … ``page_end``/``char_end``), the
quote itself with some text before and after it (``prefix``/``suffix``, to find it again
if the page text ever changes) and the rectangles of its characters on the PDF page
(``rects``, normalised 0–1, unrotated; empty for text sources). ``workspace_id`` lets a
workspace's notes be listed, searched and exported without a join; ``updated_at`` says
when a note was last edited. Rows still go with their source (``ON DELETE CASCADE``).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 22:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("highlights", sa.Column("workspace_id", sa.UUID(), nullable=True))
    op.execute(
        "UPDATE highlights h SET workspace_id = s.workspace_id FROM sources s WHERE s.id = h.source_id"
    )
    op.alter_column("highlights", "workspace_id", nullable=False)
    op.create_foreign_key(
        "highlights_workspace_id_fkey",
        "highlights",
        "workspaces",
        ["workspace_id"],
        ["id"],
        ondelete="CASCADE",
    )
    op.create_index(
        op.f("ix_highlights_workspace_id"), "highlights", ["workspace_id"], unique=False
    )
    op.add_column("highlights", sa.Column("page_end", sa.Integer(), nullable=True))
    op.execute("UPDATE highlights SET page_end = page")
    op.alter_column("highlights", "page_end", nullable=False)
    op.add_column(
        "highlights", sa.Column("prefix", sa.Text(), server_default=sa.text("''"), nullable=False)
    )
    op.add_column(
        "highlights", sa.Column("suffix", sa.Text(), server_default=sa.text("''"), nullable=False)
    )
    op.add_column(
        "highlights",
        sa.Column(
            "rects",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'[]'::jsonb"),
            nullable=False,
        ),
    )
    op.add_column(
        "highlights",
        sa.Column(
            "updated_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
    )


def downgrade() -> None:
    for column in ("updated_at", "rects", "suffix", "prefix", "page_end"):
        op.drop_column("highlights", column)
    op.drop_index(op.f("ix_highlights_workspace_id"), table_name="highlights")
    op.drop_constraint("highlights_workspace_id_fkey", "highlights", type_="foreignkey")
    op.drop_column("highlights", "workspace_id")
