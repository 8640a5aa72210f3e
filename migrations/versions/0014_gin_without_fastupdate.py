"""the GIN indexes the per-source knowledge update searches: fastupdate off

With ``fastupdate`` on (PostgreSQL's default) a GIN index queues new entries in a pending
list that every search scans in full until (auto)vacuum merges it. The knowledge update
inserts concepts and reference entries with every source and searches
``ix_concepts_match_keys`` (0011) and ``ix_source_references_terms`` (0008) right after,
so the search cost grew with the workspace between vacuums: 146 pending pages, 9 ms per
look-up at 1,000 sources, 0.1 ms once merged (docs/benchmarks-knowledge.md). Off, each
insert updates the index itself. The pending entries already there are merged here.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03 12:35:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_INDEXES = ("ix_concepts_match_keys", "ix_source_references_terms")


def upgrade() -> None:
    for name in _INDEXES:
        op.execute(f"ALTER INDEX {name} SET (fastupdate = off)")
        op.execute(f"SELECT gin_clean_pending_list('{name}'::regclass)")


def downgrade() -> None:
    for name in _INDEXES:
        op.execute(f"ALTER INDEX {name} RESET (fastupdate)")
