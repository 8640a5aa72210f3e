"""concepts.match_keys: the tagged merge keys of a concept's name and aliases, GIN-indexed

The per-source knowledge update finds the stored concepts that may merge with a new
source's (same key, same compact key, the acronym/initials rules) with
``match_keys && :probe`` through ``ix_concepts_match_keys`` instead of reading every concept
of the workspace (issue 19, item 2; docs/decisions/0012). The column is written with the
name and aliases (``knowledge/match_keys.py``); this migration fills it for the concepts
already stored, with the same function.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03 11:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BATCH = 5000


def upgrade() -> None:
    from marginalia.knowledge.match_keys import concept_match_keys

    op.add_column(
        "concepts",
        sa.Column(
            "match_keys",
            postgresql.ARRAY(sa.Text()),
            server_default=sa.text("'{}'::text[]"),
            nullable=False,
        ),
    )
    conn = op.get_bind()
    rows = conn.execute(sa.text("SELECT id, name, aliases FROM concepts ORDER BY id")).all()
    for start in range(0, len(rows), _BATCH):
        part = rows[start : start + _BATCH]
        conn.execute(
            sa.text(
                """
                UPDATE concepts c SET match_keys = CAST(v.keys AS text[])
                  FROM (SELECT unnest(CAST(:ids AS uuid[])) AS id,
                               unnest(CAST(:keys AS text[])) AS keys) AS v
                 WHERE c.id = v.id
                """
            ),
            {
                "ids": [r[0] for r in part],
                # one text[] literal per row (unnest flattens a 2-D array)
                "keys": [_array_literal(concept_match_keys(r[1], list(r[2] or []))) for r in part],
            },
        )
    op.create_index("ix_concepts_match_keys", "concepts", ["match_keys"], postgresql_using="gin")


def _array_literal(values: list[str]) -> str:
    quoted = ('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values)
    return "{" + ",".join(quoted) + "}"


def downgrade() -> None:
    op.drop_index("ix_concepts_match_keys", table_name="concepts", postgresql_using="gin")
    op.drop_column("concepts", "match_keys")
