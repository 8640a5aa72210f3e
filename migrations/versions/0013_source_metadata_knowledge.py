"""sources.metadata_concepts, sources.metadata_references: what a source's record says

A source found by research carries its record's subject and references: OpenAlex
``concepts`` (with their level 0–5) and ``topics``, and the works it cites (OpenAlex
``referenced_works``, unarXive ``bib_entries`` with their DOI / arXiv id / OpenAlex id).
The knowledge update uses them as concepts (through the same filters as extracted ones)
and as reference entries for ``cites`` edges (issue 13). Both default to an empty list.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-03 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    for column in ("metadata_concepts", "metadata_references"):
        op.add_column(
            "sources",
            sa.Column(
                column,
                postgresql.JSONB(astext_type=sa.Text()),
                server_default=sa.text("'[]'::jsonb"),
                nullable=True,
            ),
        )


def downgrade() -> None:
    op.drop_column("sources", "metadata_references")
    op.drop_column("sources", "metadata_concepts")
