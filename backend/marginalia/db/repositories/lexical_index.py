"""The lexical index's own tables, for maintenance and checks rather than queries:
statistics recomputed from ``chunks`` and read from the index, a workspace's rebuild, the
compaction of its posting blocks (migration 0015), and every posting listed (tests compare
the two)."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession


async def recomputed_term_stats(session: AsyncSession, workspace_id: uuid.UUID) -> dict[str, Any]:
    """N, total length and df of a workspace computed from ``chunks`` directly.

    The trigger-maintained tables must always equal this (tests compare the two; an
    operator can too, e.g. after restoring a dump without triggers).
    """
    row = (
        await session.execute(
            text(
                """SELECT count(*), coalesce(sum(l.dl), 0) FROM chunks c
                   CROSS JOIN LATERAL (
                     SELECT coalesce(sum(coalesce(array_length(u.positions, 1), 1)), 0) AS dl
                     FROM unnest(c.tsv) u) l
                   WHERE c.workspace_id = :ws"""
            ),
            {"ws": workspace_id},
        )
    ).one()
    df = await session.execute(
        text(
            "SELECT u.lexeme, count(*) FROM chunks c CROSS JOIN LATERAL unnest(c.tsv) u "
            "WHERE c.workspace_id = :ws GROUP BY u.lexeme"
        ),
        {"ws": workspace_id},
    )
    return {
        "n": int(row[0]),
        "total_len": int(row[1]),
        "df": {str(r[0]): int(r[1]) for r in df.all()},
    }


async def source_totals(session: AsyncSession, workspace_id: uuid.UUID) -> tuple[int, int]:
    """The workspace's chunk count and summed chunk length, as the index keeps them."""
    row = (
        await session.execute(
            text(
                "SELECT coalesce(sum(n_chunks), 0), coalesce(sum(total_len), 0) "
                "FROM retrieval_source_stats WHERE workspace_id = :ws"
            ),
            {"ws": workspace_id},
        )
    ).one()
    return int(row[0]), int(row[1])


async def indexed_term_stats(session: AsyncSession, workspace_id: uuid.UUID) -> dict[str, Any]:
    """The same figures as :func:`recomputed_term_stats`, read from the index tables:
    df both as ``retrieval_terms`` keeps it and as the postings count it."""
    n, total_len = await source_totals(session, workspace_id)
    df = await session.execute(
        text("SELECT lexeme, df FROM retrieval_terms WHERE workspace_id = :ws AND df > 0"),
        {"ws": workspace_id},
    )
    counted = await session.execute(
        text(
            "SELECT t.lexeme, sum(b.n) FROM retrieval_terms t "
            "JOIN retrieval_blocks b ON b.term_id = t.id "
            "WHERE t.workspace_id = :ws GROUP BY t.lexeme"
        ),
        {"ws": workspace_id},
    )
    stored = {str(r[0]): int(r[1]) for r in df.all()}
    if stored != {str(r[0]): int(r[1]) for r in counted.all()}:
        raise AssertionError("retrieval_terms.df differs from the postings it counts")
    return {"n": n, "total_len": total_len, "df": stored}


_LENGTH = "coalesce(sum(coalesce(array_length(u.positions, 1), 1)), 0)"

#: Postings of a CTE ``postings (term_id, impact, chunk_id)`` packed into block rows: runs
#: of <= 256 chunk ids per (term, bucket), offsets from the run's first id (int4, so a run
#: never spans 2^31 ids). The same statement as migration 0015's (migrations are frozen
#: history and do not import the application).
PACK_POSTINGS = """
SELECT term_id, bucket, min(chunk_id), max(chunk_id), count(*)::int2,
       array_agg((chunk_id - first_id)::int4 ORDER BY chunk_id),
       array_agg(impact ORDER BY chunk_id)
  FROM (SELECT p.*, first_value(p.chunk_id)
                      OVER (PARTITION BY p.term_id, p.bucket, p.run ORDER BY p.chunk_id) AS first_id
          FROM (SELECT x.term_id, x.impact, x.chunk_id, retrieval_bucket(x.impact) AS bucket,
                       (x.chunk_id >> 31) * 100000000
                       + (row_number() OVER (PARTITION BY x.term_id, retrieval_bucket(x.impact),
                                                          x.chunk_id >> 31
                                                 ORDER BY x.chunk_id) - 1) / 256 AS run
                  FROM postings AS x) AS p) AS q
 GROUP BY term_id, bucket, run
"""


async def rebuild_term_stats(session: AsyncSession, workspace_id: uuid.UUID) -> None:
    """Rebuild a workspace's terms, postings and source stats from its chunks (repair tool)."""
    ws = {"ws": workspace_id}
    await session.execute(
        text(
            "DELETE FROM retrieval_blocks b USING retrieval_terms t "
            "WHERE b.term_id = t.id AND t.workspace_id = :ws"
        ),
        ws,
    )
    await session.execute(text("DELETE FROM retrieval_terms WHERE workspace_id = :ws"), ws)
    await session.execute(text("DELETE FROM retrieval_source_stats WHERE workspace_id = :ws"), ws)
    await session.execute(
        text(
            """INSERT INTO retrieval_terms (workspace_id, lexeme, df)
               SELECT :ws, u.lexeme, count(*) FROM chunks c CROSS JOIN LATERAL unnest(c.tsv) u
                WHERE c.workspace_id = :ws GROUP BY u.lexeme ORDER BY u.lexeme"""
        ),
        ws,
    )
    await session.execute(
        text(
            f"""WITH postings AS (
                    SELECT t.id AS term_id, c.id AS chunk_id,
                           retrieval_impact(coalesce(array_length(u.positions, 1), 1), l.dl)
                             AS impact
                      FROM chunks c
                     CROSS JOIN LATERAL (SELECT {_LENGTH} AS dl FROM unnest(c.tsv) u) l
                     CROSS JOIN LATERAL unnest(c.tsv) u
                      JOIN retrieval_terms t ON t.workspace_id = :ws AND t.lexeme = u.lexeme
                     WHERE c.workspace_id = :ws)
                INSERT INTO retrieval_blocks (term_id, bucket, base, last, n, offsets, impacts)
                {PACK_POSTINGS}"""
        ),
        ws,
    )
    await session.execute(
        text(
            f"""INSERT INTO retrieval_source_stats (source_id, workspace_id, n_chunks, total_len)
                SELECT c.source_id, :ws, count(*), coalesce(sum(l.dl), 0)
                  FROM chunks c
                 CROSS JOIN LATERAL (SELECT {_LENGTH} AS dl FROM unnest(c.tsv) u) l
                 WHERE c.workspace_id = :ws
                 GROUP BY c.source_id"""
        ),
        ws,
    )


async def compact_postings(session: AsyncSession, workspace_id: uuid.UUID) -> int:
    """Merge the workspace's partial posting blocks (each insert statement appends its own
    rows) into full ones; returns the rows written. Takes the workspace's index lock, so
    it waits for (and holds off) the chunks triggers of that workspace."""
    merged = await session.scalar(text("SELECT retrieval_compact(:ws)"), {"ws": workspace_id})
    return int(merged or 0)


async def indexed_postings(
    session: AsyncSession, workspace_id: uuid.UUID
) -> set[tuple[str, int, int]]:
    """Every (lexeme, chunk id, impact) the blocks hold for a workspace (tests compare it
    with :func:`recomputed_postings`)."""
    rows = await session.execute(
        text(
            "SELECT t.lexeme, b.base + x.o, x.i FROM retrieval_terms t "
            "JOIN retrieval_blocks b ON b.term_id = t.id "
            "CROSS JOIN LATERAL unnest(b.offsets, b.impacts) x(o, i) WHERE t.workspace_id = :ws"
        ),
        {"ws": workspace_id},
    )
    postings = [(str(r[0]), int(r[1]), int(r[2])) for r in rows.all()]
    found = set(postings)
    if len(found) != len(postings):
        raise AssertionError("a posting is stored twice")
    return found


async def recomputed_postings(
    session: AsyncSession, workspace_id: uuid.UUID
) -> set[tuple[str, int, int]]:
    """The (lexeme, chunk id, impact) postings a workspace's chunks imply."""
    rows = await session.execute(
        text(
            f"""SELECT u.lexeme, c.id,
                       retrieval_impact(coalesce(array_length(u.positions, 1), 1), l.dl)
                  FROM chunks c
                 CROSS JOIN LATERAL (SELECT {_LENGTH} AS dl FROM unnest(c.tsv) u) l
                 CROSS JOIN LATERAL unnest(c.tsv) u
                 WHERE c.workspace_id = :ws"""
        ),
        {"ws": workspace_id},
    )
    return {(str(r[0]), int(r[1]), int(r[2])) for r in rows.all()}
