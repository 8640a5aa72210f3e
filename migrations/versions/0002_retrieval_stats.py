"""retrieval term statistics: a BM25 inverted index of chunks kept by triggers

``retrieval_postings`` holds one row per (workspace, lexeme, chunk) with the term
frequency and the chunk length (both in lexeme positions of ``chunks.tsv``, i.e. after
English stemming and stop-word removal). ``retrieval_source_stats`` holds per source
the number of chunks and their total length, from which a workspace's N and avgdl
are summed at query time. A row trigger on ``chunks`` keeps both exact on insert,
update of the text and delete (including cascaded deletes of a source or workspace);
postings go with their chunk through the foreign key.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 14:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Length of a tsvector in lexeme positions (a stripped lexeme counts once).
_LEN = "coalesce(sum(coalesce(array_length(u.positions, 1), 1)), 0)"

_FUNCTION = f"""
CREATE FUNCTION retrieval_chunks_index() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    n_len integer;
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        SELECT {_LEN} INTO n_len FROM unnest(OLD.tsv) AS u;
        UPDATE retrieval_source_stats
           SET n_chunks = n_chunks - 1, total_len = total_len - n_len
         WHERE source_id = OLD.source_id;
        IF TG_OP = 'UPDATE' THEN
            DELETE FROM retrieval_postings WHERE chunk_id = OLD.id;
        END IF;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        SELECT {_LEN} INTO n_len FROM unnest(NEW.tsv) AS u;
        INSERT INTO retrieval_postings (workspace_id, lexeme, chunk_id, source_id, tf, dl)
        SELECT NEW.workspace_id, u.lexeme, NEW.id, NEW.source_id,
               coalesce(array_length(u.positions, 1), 1), n_len
          FROM unnest(NEW.tsv) AS u;
        INSERT INTO retrieval_source_stats AS s (source_id, workspace_id, n_chunks, total_len)
        VALUES (NEW.source_id, NEW.workspace_id, 1, n_len)
        ON CONFLICT (source_id) DO UPDATE
           SET n_chunks = s.n_chunks + 1, total_len = s.total_len + excluded.total_len;
    END IF;
    RETURN NULL;
END
$$
"""

_TRIGGER = """
CREATE TRIGGER trg_chunks_retrieval_index
AFTER INSERT OR DELETE OR UPDATE OF text, workspace_id, source_id ON chunks
FOR EACH ROW EXECUTE FUNCTION retrieval_chunks_index()
"""

_BACKFILL_POSTINGS = f"""
INSERT INTO retrieval_postings (workspace_id, lexeme, chunk_id, source_id, tf, dl)
SELECT c.workspace_id, u.lexeme, c.id, c.source_id,
       coalesce(array_length(u.positions, 1), 1), l.dl
  FROM chunks AS c
 CROSS JOIN LATERAL (SELECT {_LEN} AS dl FROM unnest(c.tsv) AS u) AS l
 CROSS JOIN LATERAL unnest(c.tsv) AS u
"""

_BACKFILL_STATS = f"""
INSERT INTO retrieval_source_stats (source_id, workspace_id, n_chunks, total_len)
SELECT c.source_id, (array_agg(c.workspace_id))[1], count(*), coalesce(sum(l.dl), 0)
  FROM chunks AS c
 CROSS JOIN LATERAL (SELECT {_LEN} AS dl FROM unnest(c.tsv) AS u) AS l
 GROUP BY c.source_id
"""


def upgrade() -> None:
    op.create_table(
        "retrieval_postings",
        sa.Column("workspace_id", sa.UUID(), nullable=False),
        sa.Column("lexeme", sa.Text(), nullable=False),
        sa.Column("chunk_id", sa.BigInteger(), nullable=False),
        sa.Column("source_id", sa.UUID(), nullable=False),
        sa.Column("tf", sa.Integer(), nullable=False),
        sa.Column("dl", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["chunk_id"], ["chunks.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("workspace_id", "lexeme", "chunk_id"),
    )
    op.create_index(
        op.f("ix_retrieval_postings_chunk_id"), "retrieval_postings", ["chunk_id"], unique=False
    )
    op.create_table(
        "retrieval_source_stats",
        sa.Column("source_id", sa.UUID(), nullable=False),
        sa.Column("workspace_id", sa.UUID(), nullable=False),
        sa.Column("n_chunks", sa.Integer(), nullable=False),
        sa.Column("total_len", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(["source_id"], ["sources.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("source_id"),
    )
    op.create_index(
        op.f("ix_retrieval_source_stats_workspace_id"),
        "retrieval_source_stats",
        ["workspace_id"],
        unique=False,
    )
    op.execute(_FUNCTION)
    op.execute(_TRIGGER)
    op.execute(_BACKFILL_POSTINGS)
    op.execute(_BACKFILL_STATS)


def downgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS trg_chunks_retrieval_index ON chunks")
    op.execute("DROP FUNCTION IF EXISTS retrieval_chunks_index()")
    op.drop_index(
        op.f("ix_retrieval_source_stats_workspace_id"), table_name="retrieval_source_stats"
    )
    op.drop_table("retrieval_source_stats")
    op.drop_index(op.f("ix_retrieval_postings_chunk_id"), table_name="retrieval_postings")
    op.drop_table("retrieval_postings")
