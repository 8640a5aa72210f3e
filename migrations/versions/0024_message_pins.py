"""message pins: an answer is on the canvas when the user pins it

``messages.pinned_at`` (null: not pinned). The canvas graph's syntheses are the pinned
answers only; before this, every answered message was added automatically (issue 33).

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-06 13:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("messages", sa.Column("pinned_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    op.drop_column("messages", "pinned_at")
