"""impact-ordered postings: a lexical index the query reads top-k by impact, not whole

``retrieval_postings`` (one row per (workspace, lexeme, chunk) with uuid, text and two
integers, plus a primary key and a chunk index: ~150 bytes a posting, 15 GB at 1M chunks)
is replaced by

* ``retrieval_terms``: one row per (workspace, lexeme) with an ``int4`` id and the
  document frequency ``df``, kept exact by the triggers below;
* ``retrieval_impacts``: one row per (term, chunk) holding only ``(term_id int4,
  impact int2, chunk_id int8)``; its primary key ``(term_id, impact, chunk_id)`` lets a
  query read a term's highest-impact postings first and stop after ``n``
  (docs/decisions/0010-impact-ordered-postings.md).

``impact`` is BM25's term-frequency part at the default k1 0.9 / b 0.4 against a fixed
reference length of 100 lexemes, times 10,000 (``retrieval_impact(tf, dl)``): it depends
on the chunk alone, so a chunk's postings never need rewriting when the workspace grows,
and a delete recomputes the exact keys it removes. Exact scores are recomputed from
``chunks.tsv`` for the candidates the impacts select.

The row trigger of 0002/0003 becomes three statement-level triggers with transition
tables (insert, update of the text, delete), which aggregate df and source statistics per
statement; each takes a transaction-level advisory lock per workspace first, so
concurrent writers of one workspace update the shared ``retrieval_terms`` rows one
transaction at a time, never in a deadlock. A view named ``retrieval_postings``
(workspace_id, lexeme, chunk_id) stays for readers of the old table.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02 10:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_LEN = "coalesce(sum(coalesce(array_length(u.positions, 1), 1)), 0)"
_TF = "coalesce(array_length(u.positions, 1), 1)"

_IMPACT_FUNCTION = """
CREATE FUNCTION retrieval_impact(tf bigint, dl bigint) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT round(10000.0 * tf * 1.9 / (tf + 0.9 * (0.6 + 0.4 * dl / 100.0)))::smallint
$$
"""


def _lock(rows: str) -> str:
    return f"""
    PERFORM pg_advisory_xact_lock(hashtextextended(x.w::text, 19))
       FROM (SELECT DISTINCT workspace_id AS w FROM {rows} ORDER BY 1) AS x;"""


def _add(rows: str) -> str:
    """Statements indexing the chunks of relation ``rows`` (source stats, df, impacts)."""
    return f"""
    INSERT INTO retrieval_source_stats AS s (source_id, workspace_id, n_chunks, total_len)
    SELECT r.source_id, r.workspace_id, count(*), coalesce(sum(l.dl), 0)
      FROM {rows} AS r CROSS JOIN LATERAL (SELECT {_LEN} AS dl FROM unnest(r.tsv) AS u) AS l
     GROUP BY r.source_id, r.workspace_id ORDER BY r.source_id
    ON CONFLICT (source_id) DO UPDATE
       SET n_chunks = s.n_chunks + excluded.n_chunks,
           total_len = s.total_len + excluded.total_len;
    INSERT INTO retrieval_terms (workspace_id, lexeme, df)
    SELECT x.workspace_id, x.lexeme, 0
      FROM (SELECT DISTINCT r.workspace_id, u.lexeme
              FROM {rows} AS r CROSS JOIN LATERAL unnest(r.tsv) AS u) AS x
     WHERE NOT EXISTS (SELECT 1 FROM retrieval_terms AS t
                        WHERE t.workspace_id = x.workspace_id AND t.lexeme = x.lexeme)
     ORDER BY 1, 2
    ON CONFLICT (workspace_id, lexeme) DO NOTHING;
    UPDATE retrieval_terms AS t SET df = t.df + x.n
      FROM (SELECT r.workspace_id, u.lexeme, count(*) AS n
              FROM {rows} AS r CROSS JOIN LATERAL unnest(r.tsv) AS u
             GROUP BY 1, 2) AS x
     WHERE t.workspace_id = x.workspace_id AND t.lexeme = x.lexeme;
    INSERT INTO retrieval_impacts (term_id, impact, chunk_id)
    SELECT t.id, retrieval_impact({_TF}, l.dl), r.id
      FROM {rows} AS r
     CROSS JOIN LATERAL (SELECT {_LEN} AS dl FROM unnest(r.tsv) AS u) AS l
     CROSS JOIN LATERAL unnest(r.tsv) AS u
      JOIN retrieval_terms AS t ON t.workspace_id = r.workspace_id AND t.lexeme = u.lexeme;"""


def _remove(rows: str) -> str:
    """Statements removing the chunks of relation ``rows`` from the index."""
    return f"""
    UPDATE retrieval_source_stats AS s
       SET n_chunks = s.n_chunks - x.n, total_len = s.total_len - x.len
      FROM (SELECT r.source_id, count(*) AS n, coalesce(sum(l.dl), 0) AS len
              FROM {rows} AS r
             CROSS JOIN LATERAL (SELECT {_LEN} AS dl FROM unnest(r.tsv) AS u) AS l
             GROUP BY r.source_id) AS x
     WHERE s.source_id = x.source_id;
    DELETE FROM retrieval_impacts AS i
     USING (SELECT t.id, retrieval_impact({_TF}, l.dl) AS impact, r.id AS chunk_id
              FROM {rows} AS r
             CROSS JOIN LATERAL (SELECT {_LEN} AS dl FROM unnest(r.tsv) AS u) AS l
             CROSS JOIN LATERAL unnest(r.tsv) AS u
              JOIN retrieval_terms AS t
                ON t.workspace_id = r.workspace_id AND t.lexeme = u.lexeme) AS x
     WHERE i.term_id = x.id AND i.impact = x.impact AND i.chunk_id = x.chunk_id;
    UPDATE retrieval_terms AS t SET df = t.df - x.n
      FROM (SELECT r.workspace_id, u.lexeme, count(*) AS n
              FROM {rows} AS r CROSS JOIN LATERAL unnest(r.tsv) AS u
             GROUP BY 1, 2) AS x
     WHERE t.workspace_id = x.workspace_id AND t.lexeme = x.lexeme;
    DELETE FROM retrieval_terms AS t
     USING (SELECT DISTINCT r.workspace_id, u.lexeme
              FROM {rows} AS r CROSS JOIN LATERAL unnest(r.tsv) AS u) AS x
     WHERE t.workspace_id = x.workspace_id AND t.lexeme = x.lexeme AND t.df <= 0;"""


_CHANGED = """(SELECT {side}.* FROM old_rows AS o JOIN new_rows AS n ON n.id = o.id
        WHERE o.tsv IS DISTINCT FROM n.tsv OR o.workspace_id <> n.workspace_id
           OR o.source_id <> n.source_id)"""


def _function(name: str, body: str) -> str:
    return f"""
CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN{body}
    RETURN NULL;
END
$$
"""


_FUNCTIONS = {
    "retrieval_chunks_inserted": _lock("new_rows") + _add("new_rows"),
    "retrieval_chunks_deleted": _lock("old_rows") + _remove("old_rows"),
    "retrieval_chunks_updated": _lock("old_rows")
    + _lock("new_rows")
    + _remove(_CHANGED.format(side="o"))
    + _add(_CHANGED.format(side="n")),
}

_TRIGGERS = {
    "trg_chunks_retrieval_insert": (
        "AFTER INSERT ON chunks REFERENCING NEW TABLE AS new_rows",
        "retrieval_chunks_inserted",
    ),
    "trg_chunks_retrieval_delete": (
        "AFTER DELETE ON chunks REFERENCING OLD TABLE AS old_rows",
        "retrieval_chunks_deleted",
    ),
    "trg_chunks_retrieval_update": (
        "AFTER UPDATE ON chunks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows",
        "retrieval_chunks_updated",
    ),
}

# The 0003 row trigger, restored by the downgrade.
_OLD_FUNCTION = f"""
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
        IF TG_OP IN ('DELETE', 'UPDATE') THEN
            DELETE FROM retrieval_postings WHERE chunk_id = OLD.id;
        END IF;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        SELECT {_LEN} INTO n_len FROM unnest(NEW.tsv) AS u;
        INSERT INTO retrieval_postings (workspace_id, lexeme, chunk_id, source_id, tf, dl)
        SELECT NEW.workspace_id, u.lexeme, NEW.id, NEW.source_id, {_TF}, n_len
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

_OLD_TRIGGER = """
CREATE TRIGGER trg_chunks_retrieval_index
AFTER INSERT OR DELETE OR UPDATE OF text, workspace_id, source_id ON chunks
FOR EACH ROW EXECUTE FUNCTION retrieval_chunks_index()
"""

_VIEW = """
CREATE VIEW retrieval_postings AS
SELECT t.workspace_id, t.lexeme, i.chunk_id
  FROM retrieval_terms AS t JOIN retrieval_impacts AS i ON i.term_id = t.id
"""


def upgrade() -> None:
    op.execute("DROP TRIGGER IF EXISTS trg_chunks_retrieval_index ON chunks")
    op.execute("DROP FUNCTION IF EXISTS retrieval_chunks_index()")
    op.create_table(
        "retrieval_terms",
        sa.Column("id", sa.Integer(), sa.Identity(always=False), nullable=False),
        sa.Column("workspace_id", sa.UUID(), nullable=False),
        sa.Column("lexeme", sa.Text(), nullable=False),
        sa.Column("df", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("workspace_id", "lexeme", name="uq_retrieval_terms_lexeme"),
    )
    op.create_table(
        "retrieval_impacts",
        sa.Column("term_id", sa.Integer(), nullable=False),
        sa.Column("impact", sa.SmallInteger(), nullable=False),
        sa.Column("chunk_id", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("term_id", "impact", "chunk_id"),
    )
    op.execute(_IMPACT_FUNCTION)
    # Backfill from the old postings (df and impacts; the source stats are unchanged).
    op.execute(
        "INSERT INTO retrieval_terms (workspace_id, lexeme, df) "
        "SELECT workspace_id, lexeme, count(*) FROM retrieval_postings "
        "GROUP BY workspace_id, lexeme ORDER BY workspace_id, lexeme"
    )
    op.execute(
        "INSERT INTO retrieval_impacts (term_id, impact, chunk_id) "
        "SELECT t.id, retrieval_impact(p.tf, p.dl), p.chunk_id FROM retrieval_postings AS p "
        "JOIN retrieval_terms AS t ON t.workspace_id = p.workspace_id AND t.lexeme = p.lexeme"
    )
    op.drop_index("ix_retrieval_postings_chunk_id", table_name="retrieval_postings")
    op.drop_table("retrieval_postings")
    op.execute(_VIEW)
    for name, body in _FUNCTIONS.items():
        op.execute(_function(name, body))
    for trigger, (when, function) in _TRIGGERS.items():
        op.execute(
            f"CREATE TRIGGER {trigger} {when} FOR EACH STATEMENT EXECUTE FUNCTION {function}()"
        )


def downgrade() -> None:
    for trigger in _TRIGGERS:
        op.execute(f"DROP TRIGGER IF EXISTS {trigger} ON chunks")
    for name in _FUNCTIONS:
        op.execute(f"DROP FUNCTION IF EXISTS {name}()")
    op.execute("DROP VIEW IF EXISTS retrieval_postings")
    op.create_table(
        "retrieval_postings",
        sa.Column("workspace_id", sa.UUID(), nullable=False),
        sa.Column("lexeme", sa.Text(), nullable=False),
        sa.Column("chunk_id", sa.BigInteger(), nullable=False),
        sa.Column("source_id", sa.UUID(), nullable=False),
        sa.Column("tf", sa.Integer(), nullable=False),
        sa.Column("dl", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("workspace_id", "lexeme", "chunk_id"),
    )
    op.create_index(
        "ix_retrieval_postings_chunk_id", "retrieval_postings", ["chunk_id"], unique=False
    )
    op.execute(
        f"""INSERT INTO retrieval_postings (workspace_id, lexeme, chunk_id, source_id, tf, dl)
            SELECT c.workspace_id, u.lexeme, c.id, c.source_id, {_TF}, l.dl
              FROM chunks AS c
             CROSS JOIN LATERAL (SELECT {_LEN} AS dl FROM unnest(c.tsv) AS u) AS l
             CROSS JOIN LATERAL unnest(c.tsv) AS u"""
    )
    op.drop_table("retrieval_impacts")
    op.drop_table("retrieval_terms")
    op.execute("DROP FUNCTION IF EXISTS retrieval_impact(bigint, bigint)")
    op.execute(_OLD_FUNCTION)
    op.execute(_OLD_TRIGGER)
