"""retrieval postings without a foreign key: the chunks trigger removes them

A posting row per (chunk, lexeme) — ~65 per chunk — each paid a foreign-key check
against ``chunks`` on insert: ~23% of inserting a chunk (docs/BENCHMARKS.md). The
trigger that writes the postings now also deletes them when their chunk goes (by
``chunk_id``, indexed), which the foreign key's cascade used to do.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29 15:30:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_FK = "retrieval_postings_chunk_id_fkey"
_LEN = "coalesce(sum(coalesce(array_length(u.positions, 1), 1)), 0)"


def _function(delete_postings_on: str) -> str:
    """The trigger function; ``delete_postings_on`` lists the operations whose old
    chunk's postings it deletes itself."""
    return f"""
CREATE OR REPLACE FUNCTION retrieval_chunks_index() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    n_len integer;
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        SELECT {_LEN} INTO n_len FROM unnest(OLD.tsv) AS u;
        UPDATE retrieval_source_stats
           SET n_chunks = n_chunks - 1, total_len = total_len - n_len
         WHERE source_id = OLD.source_id;
        IF TG_OP IN ({delete_postings_on}) THEN
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


def upgrade() -> None:
    op.execute(_function("'DELETE', 'UPDATE'"))
    op.drop_constraint(_FK, "retrieval_postings", type_="foreignkey")


def downgrade() -> None:
    op.execute(
        "DELETE FROM retrieval_postings AS p "
        "WHERE NOT EXISTS (SELECT 1 FROM chunks AS c WHERE c.id = p.chunk_id)"
    )
    op.create_foreign_key(
        _FK, "retrieval_postings", "chunks", ["chunk_id"], ["id"], ondelete="CASCADE"
    )
    op.execute(_function("'UPDATE'"))
