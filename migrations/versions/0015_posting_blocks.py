"""posting blocks: the lexical index stored as arrays of postings, appended and compacted

``retrieval_impacts`` (one 40-byte heap tuple plus a 28-byte index entry per posting:
~1.1 GB at 100k chunks, ~11 GB projected at 1M) becomes ``retrieval_blocks``: one row
holds up to 256 postings of one (term, impact bucket) as a base chunk id, ``int4``
offsets from it and the ``int2`` impacts, ~6 bytes a posting once compacted
(docs/decisions/0014-posting-blocks.md).

* ``bucket = least(impact / 300, 63)`` (``retrieval_bucket``): a term's blocks are read
  highest bucket first (``retrieval_term_postings``), and every posting of a bucket
  ranks above every posting of a lower one, so reading whole buckets until ``n``
  postings are in hand yields the exact top ``n`` by impact.
* An insert statement **appends** one row per (term, bucket) it touches (more when a
  group exceeds 256 postings). Nothing old is rewritten, so ingest costs what it did.
* A delete (or a text update) rewrites only the rows whose ``[base, last]`` range holds a
  removed chunk id, without those postings.
* :func:`retrieval_compact` merges a workspace's partial rows (``n < 256``) into full
  ones, under the workspace's advisory lock that the triggers take; the debounced
  knowledge refresh runs it (``marginalia.db.repositories.lexical_index.compact_postings``).

df, source statistics, the advisory lock and the transition-table triggers are those of
0009; only the postings' storage changes. The ``retrieval_postings`` view is rebuilt over
the blocks.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03 23:00:00
"""

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_LEN = "coalesce(sum(coalesce(array_length(u.positions, 1), 1)), 0)"
_TF = "coalesce(array_length(u.positions, 1), 1)"
BLOCK = 256

_BUCKET_FUNCTION = """
CREATE FUNCTION retrieval_bucket(impact integer) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT least(impact / 300, 63)::smallint $$
"""

# Postings -> block rows: consecutive runs of <= 256 chunk ids per (term, bucket), never
# spanning more than 2^31 ids (the offsets are int4). ``postings`` has term_id, impact,
# chunk_id.
_PACK = f"""
SELECT term_id, bucket, min(chunk_id), max(chunk_id), count(*)::int2,
       array_agg((chunk_id - first_id)::int4 ORDER BY chunk_id),
       array_agg(impact ORDER BY chunk_id)
  FROM (SELECT p.*, first_value(p.chunk_id)
                      OVER (PARTITION BY p.term_id, p.bucket, p.run ORDER BY p.chunk_id) AS first_id
          FROM (SELECT x.term_id, x.impact, x.chunk_id, retrieval_bucket(x.impact) AS bucket,
                       (x.chunk_id >> 31) * 100000000
                       + (row_number() OVER (PARTITION BY x.term_id, retrieval_bucket(x.impact),
                                                          x.chunk_id >> 31
                                                 ORDER BY x.chunk_id) - 1) / {BLOCK} AS run
                  FROM postings AS x) AS p) AS q
 GROUP BY term_id, bucket, run
"""

_INSERT_BLOCKS = "INSERT INTO retrieval_blocks (term_id, bucket, base, last, n, offsets, impacts)"


def _postings(rows: str) -> str:
    """(term_id, impact, chunk_id) of every posting of the chunks in relation ``rows``."""
    return f"""
    SELECT t.id AS term_id, retrieval_impact({_TF}, l.dl) AS impact, r.id AS chunk_id
      FROM {rows} AS r
     CROSS JOIN LATERAL (SELECT {_LEN} AS dl FROM unnest(r.tsv) AS u) AS l
     CROSS JOIN LATERAL unnest(r.tsv) AS u
      JOIN retrieval_terms AS t ON t.workspace_id = r.workspace_id AND t.lexeme = u.lexeme"""


def _lock(rows: str) -> str:
    return f"""
    PERFORM pg_advisory_xact_lock(hashtextextended(x.w::text, 19))
       FROM (SELECT DISTINCT workspace_id AS w FROM {rows} ORDER BY 1) AS x;"""


def _add(rows: str) -> str:
    """Statements indexing the chunks of relation ``rows`` (source stats, df, blocks)."""
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
    WITH postings AS ({_postings(rows)})
    {_INSERT_BLOCKS}
    {_PACK};"""


def _remove(rows: str) -> str:
    """Statements removing the chunks of relation ``rows`` from the index: the block rows
    holding one of their postings are replaced by rows without them."""
    return f"""
    UPDATE retrieval_source_stats AS s
       SET n_chunks = s.n_chunks - x.n, total_len = s.total_len - x.len
      FROM (SELECT r.source_id, count(*) AS n, coalesce(sum(l.dl), 0) AS len
              FROM {rows} AS r
             CROSS JOIN LATERAL (SELECT {_LEN} AS dl FROM unnest(r.tsv) AS u) AS l
             GROUP BY r.source_id) AS x
     WHERE s.source_id = x.source_id;
    WITH gone AS MATERIALIZED ({_postings(rows)}),
    hit AS (
        DELETE FROM retrieval_blocks AS b
         USING (SELECT DISTINCT term_id, retrieval_bucket(impact) AS bucket, chunk_id
                  FROM gone) AS g
         WHERE b.term_id = g.term_id AND b.bucket = g.bucket
           AND b.base <= g.chunk_id AND g.chunk_id <= b.last
        RETURNING b.term_id, b.base, b.offsets, b.impacts
    ),
    postings AS (
        SELECT h.term_id, x.impact, h.base + x.offset_ AS chunk_id
          FROM hit AS h CROSS JOIN LATERAL unnest(h.offsets, h.impacts) AS x(offset_, impact)
         WHERE NOT EXISTS (SELECT 1 FROM gone AS g
                            WHERE g.term_id = h.term_id AND g.chunk_id = h.base + x.offset_)
    )
    {_INSERT_BLOCKS}
    {_PACK};
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
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
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

# A term's postings, highest impact first as far as the query needs them: every block of
# each bucket from the top down until ``want`` postings are in hand (NULL: all of them).
# The caller orders and cuts; reading whole buckets is what makes its top ``want`` exact.
_TERM_POSTINGS_FUNCTION = """
CREATE FUNCTION retrieval_term_postings(term integer, want bigint)
RETURNS TABLE (chunk_id bigint, impact smallint)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    lowest smallint := 0;
    seen bigint := 0;
    blk record;
BEGIN
    IF want IS NOT NULL THEN
        lowest := NULL;
        FOR blk IN SELECT b.bucket, b.n FROM retrieval_blocks AS b
                    WHERE b.term_id = term ORDER BY b.bucket DESC LOOP
            EXIT WHEN seen >= want AND blk.bucket < lowest;
            lowest := blk.bucket;
            seen := seen + blk.n;
        END LOOP;
    END IF;
    RETURN QUERY
        SELECT b.base + x.o, x.i
          FROM retrieval_blocks AS b CROSS JOIN LATERAL unnest(b.offsets, b.impacts) AS x(o, i)
         WHERE b.term_id = term AND b.bucket >= coalesce(lowest, 0);
END
$$
"""

# Merge a workspace's partial block rows into full ones, group by group.
_COMPACT_FUNCTION = f"""
CREATE FUNCTION retrieval_compact(ws uuid) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    merged bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(ws::text, 19));
    WITH groups AS MATERIALIZED (
        SELECT b.term_id, b.bucket
          FROM retrieval_blocks AS b JOIN retrieval_terms AS t ON t.id = b.term_id
         WHERE t.workspace_id = ws AND b.n < {BLOCK}
         GROUP BY b.term_id, b.bucket HAVING count(*) > 1
    ),
    hit AS (
        DELETE FROM retrieval_blocks AS b USING groups AS g
         WHERE b.term_id = g.term_id AND b.bucket = g.bucket AND b.n < {BLOCK}
        RETURNING b.term_id, b.base, b.offsets, b.impacts
    ),
    postings AS (
        SELECT h.term_id, x.impact, h.base + x.offset_ AS chunk_id
          FROM hit AS h CROSS JOIN LATERAL unnest(h.offsets, h.impacts) AS x(offset_, impact)
    ),
    packed AS (
        {_INSERT_BLOCKS}
        {_PACK}
        RETURNING 1
    )
    SELECT count(*) INTO merged FROM packed;
    RETURN merged;
END
$$
"""

_VIEW = """
CREATE VIEW retrieval_postings AS
SELECT t.workspace_id, t.lexeme, b.base + x.o AS chunk_id
  FROM retrieval_terms AS t JOIN retrieval_blocks AS b ON b.term_id = t.id
 CROSS JOIN LATERAL unnest(b.offsets) AS x(o)
"""

_OLD_VIEW = """
CREATE VIEW retrieval_postings AS
SELECT t.workspace_id, t.lexeme, i.chunk_id
  FROM retrieval_terms AS t JOIN retrieval_impacts AS i ON i.term_id = t.id
"""


def upgrade() -> None:
    op.create_table(
        "retrieval_blocks",
        sa.Column("term_id", sa.Integer(), nullable=False),
        sa.Column("bucket", sa.SmallInteger(), nullable=False),
        sa.Column("base", sa.BigInteger(), nullable=False),
        sa.Column("last", sa.BigInteger(), nullable=False),
        sa.Column("n", sa.SmallInteger(), nullable=False),
        sa.Column("offsets", postgresql.ARRAY(sa.Integer()), nullable=False),
        sa.Column("impacts", postgresql.ARRAY(sa.SmallInteger()), nullable=False),
        sa.PrimaryKeyConstraint("term_id", "bucket", "base"),
    )
    # Compaction leaves a dead version of every row it merges: vacuum soon, so the space
    # is reused by the next appends instead of growing the table (default: at 20% dead).
    op.execute(
        "ALTER TABLE retrieval_blocks SET (autovacuum_vacuum_scale_factor = 0.02, "
        "autovacuum_vacuum_insert_scale_factor = 0.05)"
    )
    # The rows compaction merges; a compacted group has at most one.
    op.create_index(
        "ix_retrieval_blocks_partial",
        "retrieval_blocks",
        ["term_id", "bucket"],
        postgresql_where=sa.text(f"n < {BLOCK}"),
    )
    op.execute(_BUCKET_FUNCTION)
    op.execute(
        "WITH postings AS (SELECT term_id, impact, chunk_id FROM retrieval_impacts) "
        f"{_INSERT_BLOCKS} {_PACK}"
    )
    op.execute("DROP VIEW retrieval_postings")
    op.drop_table("retrieval_impacts")
    op.execute(_VIEW)
    for name, body in _FUNCTIONS.items():
        op.execute(_function(name, body))
    op.execute(_TERM_POSTINGS_FUNCTION)
    op.execute(_COMPACT_FUNCTION)


def downgrade() -> None:
    op.execute("DROP FUNCTION retrieval_compact(uuid)")
    op.execute("DROP FUNCTION retrieval_term_postings(integer, bigint)")
    op.create_table(
        "retrieval_impacts",
        sa.Column("term_id", sa.Integer(), nullable=False),
        sa.Column("impact", sa.SmallInteger(), nullable=False),
        sa.Column("chunk_id", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("term_id", "impact", "chunk_id"),
    )
    op.execute(
        "INSERT INTO retrieval_impacts (term_id, impact, chunk_id) "
        "SELECT b.term_id, x.i, b.base + x.o FROM retrieval_blocks AS b "
        "CROSS JOIN LATERAL unnest(b.offsets, b.impacts) AS x(o, i)"
    )
    op.execute("DROP VIEW retrieval_postings")
    op.drop_table("retrieval_blocks")
    op.execute("DROP FUNCTION retrieval_bucket(integer)")
    op.execute(_OLD_VIEW)
    # The 0009 trigger functions, restored (same names, so the triggers stay).
    m0009 = _revision_module("0009_impact_ordered_postings")
    for name, body in m0009._FUNCTIONS.items():
        op.execute(
            m0009._function(name, body).replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION")
        )


def _revision_module(stem: str) -> Any:
    spec = importlib.util.spec_from_file_location(stem, Path(__file__).with_name(f"{stem}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
