"""drop the HNSW index on sources.mean_embedding: nearest sources are found exactly

The only query ordering by ``sources.mean_embedding`` is the embedding dedup layer's
nearest source *within one workspace*. An approximate index shared by every workspace
answers that badly whenever the planner picks it (a workspace it expects to be large):
the index yields the ``hnsw.ef_search`` nearest sources of the whole database and the
workspace filter runs afterwards, so a workspace whose sources are not among them gets
no match at all (tests/integration/test_ingest.py shows it with two workspaces of 1,500
sources). Without the index the planner reads the workspace's sources through
``ix_sources_workspace_id`` and ranks them exactly (a few thousand 384-d vectors: a
millisecond or two), and an ingest no longer pays an HNSW insert per source
(docs/decisions/0006).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 09:00:01
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_index("ix_sources_mean_embedding_hnsw", table_name="sources", postgresql_using="hnsw")


def downgrade() -> None:
    op.create_index(
        "ix_sources_mean_embedding_hnsw",
        "sources",
        ["mean_embedding"],
        unique=False,
        postgresql_using="hnsw",
        postgresql_ops={"mean_embedding": "vector_cosine_ops"},
    )
