"""sources.pages and sources.metadata_origins (issue 36)

``pages`` — the work's page range as a bibliography gives it ("4171--4186"), kept
through import and export. ``metadata_origins`` — where a bibliographic field's value
came from when it was not the source's own record, ``{"doi": "catalog", ...}``, so an
export can say which fields were filled from the best metadata match.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-06 10:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("sources", sa.Column("pages", sa.Text(), nullable=True))
    op.add_column(
        "sources",
        sa.Column(
            "metadata_origins",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'{}'::jsonb"),
            nullable=True,
        ),
    )


def downgrade() -> None:
    op.drop_column("sources", "metadata_origins")
    op.drop_column("sources", "pages")
