"""posting blocks: compaction rewrites a large partial row only to fill a block

0015's ``retrieval_compact`` merged *every* partial row of a (term, bucket) group that
had two or more. A common term's group keeps one large partial row (up to 255
postings), and nearly every group gets new postings between two compactions, so each
compaction re-wrote most of the partial postings of the workspace again: at 40k chunks
60% of the postings sat in partial rows, and a compaction took 8 s at 20k chunks and
14 s at 40k, growing with the workspace (docs/BENCHMARKS.md).

Now a row of ``SMALL`` (64) or more postings is rewritten only when its group's partial
rows hold a whole block (256) between them, so a large row is merged at most a few
times before its postings sit in full blocks, and a compaction's work follows what was
appended since the last one. Small rows merge as before, so a group has at most one
small row after a compaction, plus fewer than four large ones (they sum to < 256). Rows
of 64+ postings cost < 2 bytes a posting of row overhead, so the index size barely moves
(docs/decisions/0014-posting-blocks.md).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-04 03:00:00
"""

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BLOCK = 256
SMALL = 64


def _m0015() -> Any:
    stem = "0015_posting_blocks"
    spec = importlib.util.spec_from_file_location(stem, Path(__file__).with_name(f"{stem}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _compact_function() -> str:
    m = _m0015()
    return f"""
CREATE OR REPLACE FUNCTION retrieval_compact(ws uuid) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    merged bigint;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(ws::text, 19));
    WITH groups AS MATERIALIZED (
        SELECT b.term_id, b.bucket, sum(b.n) >= {BLOCK} AS fills
          FROM retrieval_blocks AS b JOIN retrieval_terms AS t ON t.id = b.term_id
         WHERE t.workspace_id = ws AND b.n < {BLOCK}
         GROUP BY b.term_id, b.bucket
        HAVING count(*) FILTER (WHERE b.n < {SMALL}) > 1
            OR (count(*) > 1 AND sum(b.n) >= {BLOCK})
    ),
    hit AS (
        DELETE FROM retrieval_blocks AS b USING groups AS g
         WHERE b.term_id = g.term_id AND b.bucket = g.bucket AND b.n < {BLOCK}
           AND (b.n < {SMALL} OR g.fills)
        RETURNING b.term_id, b.base, b.offsets, b.impacts
    ),
    postings AS (
        SELECT h.term_id, x.impact, h.base + x.offset_ AS chunk_id
          FROM hit AS h CROSS JOIN LATERAL unnest(h.offsets, h.impacts) AS x(offset_, impact)
    ),
    packed AS (
        {m._INSERT_BLOCKS}
        {m._PACK}
        RETURNING 1
    )
    SELECT count(*) INTO merged FROM packed;
    RETURN merged;
END
$$
"""


def upgrade() -> None:
    op.execute(_compact_function())


def downgrade() -> None:
    op.execute(_m0015()._COMPACT_FUNCTION.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION"))
