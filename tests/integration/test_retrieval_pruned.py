"""The pruned lexical leg (impact-ordered posting blocks, migrations 0009 and 0015): the
same top 10 as exact BM25 with known scores, before and after the blocks are compacted;
postings equal to what the chunks imply after inserts, a text update, deletes and
compaction; and an index that stays consistent with the chunks when an ingest is killed
mid-batch."""

from __future__ import annotations

import asyncio
import random
import uuid

import numpy as np
import psycopg
import pytest
from sqlalchemy import text

from marginalia.db.repositories import lexical_index
from marginalia.db.repositories.sources import NewChunk, NewSource, insert_sources
from marginalia.retrieval import BM25Params, lexical_leg
from marginalia.retrieval import repository as repo
from marginalia.retrieval.bm25 import EXACT_PARAMS, K1, B
from marginalia.runtime import Runtime
from marginalia.usecases import workspaces as ws_service
from tests.integration.test_retrieval_bm25 import hand_bm25

DIM = 384
# Words that are their own English lexemes (no stemming, no stop words).
VOCAB = ["cat", "bird", "rain", "dog", "fish", "tree", "lake", "rock", "sand", "wind"]
QUERY = "cat bird rain"


def _vector(i: int) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[i % DIM] = 1.0
    return v


def _docs(n: int, seed: int) -> list[dict[str, int]]:
    """Bags of words: filler words everywhere, each query word once in about a third of the
    chunks and often in a few, so the best chunks are among a term's top postings by
    impact (as with real term distributions) while most postings are never read."""
    rng = random.Random(seed)
    docs = []
    for _ in range(n):
        tf = {w: rng.randint(0, 2) for w in VOCAB[3:]}
        tf |= {w: int(rng.random() < 0.12) for w in ("cat", "bird", "rain")}
        if rng.random() < 0.05:
            tf[rng.choice(["cat", "bird", "rain"])] += rng.randint(3, 8)
        tf = {w: c for w, c in tf.items() if c}
        docs.append(tf or {"rock": 1})
    return docs


def _text(tf: dict[str, int], rng: random.Random) -> str:
    words = [w for w, c in tf.items() for _ in range(c)]
    rng.shuffle(words)
    return " ".join(words)


async def _insert(services: Runtime, ws: uuid.UUID, docs: list[dict[str, int]]) -> list[int]:
    rng = random.Random(1)
    sources = [
        NewSource(
            fields={"kind": "text", "title": f"d{i}", "content_hash": uuid.uuid4().hex},
            pages=[],
            chunks=[
                NewChunk(0, _text(tf, rng), "body", None, None, None, None, None, 5, _vector(i))
            ],
        )
        for i, tf in enumerate(docs)
    ]
    async with services.db.transaction() as session:
        ids = await insert_sources(session, workspace_id=ws, sources=sources)
        rows = await session.execute(
            text("SELECT source_id, id FROM chunks WHERE workspace_id = :w"), {"w": ws}
        )
        by_source = {r[0]: int(r[1]) for r in rows.all()}
    return [by_source[s] for s in ids]


async def test_pruned_top10_equals_exact_bm25_with_known_scores(services: Runtime) -> None:
    ws = (await ws_service.create_workspace(services, name=f"pr-{uuid.uuid4().hex[:8]}")).id
    docs = _docs(600, seed=3)
    chunk_ids = await _insert(services, ws, docs)
    expected = hand_bm25(
        QUERY.split(), {str(c): tf for c, tf in zip(chunk_ids, docs, strict=True)}, K1, B
    )
    top10 = sorted(expected.items(), key=lambda kv: (-kv[1], int(kv[0])))[:10]

    # Real pruning: each query term has far more postings than the leg reads.
    async with services.db.session() as session:
        df = await repo.document_frequencies(session, ws, ["cat", "bird", "rain"])
    pruned = BM25Params(per_term=25, candidates=60, whole_budget=2 * max(df.values()))
    assert max(df.values()) > 2 * pruned.per_term  # the commonest term is cut

    got = await lexical_leg(services.db, workspace_id=ws, query=QUERY, depth=10, params=pruned)
    exact = await lexical_leg(
        services.db, workspace_id=ws, query=QUERY, depth=10, params=EXACT_PARAMS
    )
    assert [h.chunk_id for h in exact.hits] == [int(c) for c, _ in top10]
    assert [h.chunk_id for h in got.hits] == [int(c) for c, _ in top10]
    for hit, (_, score) in zip(got.hits, top10, strict=True):
        assert hit.score == pytest.approx(score, rel=1e-9)
    assert got.trace.details["exact"] is False and exact.trace.details["exact"] is True


async def test_blocks_hold_exactly_the_postings_of_the_chunks(services: Runtime) -> None:
    """Appended rows (one insert statement per source here), a text update, deletes and
    compaction: after each, the blocks hold every posting of the chunks once, with its
    impact, and nothing else."""
    ws = (await ws_service.create_workspace(services, name=f"blk-{uuid.uuid4().hex[:8]}")).id
    # 700 one-chunk sources in one statement: the commonest terms fill whole blocks.
    chunk_ids = await _insert(services, ws, _docs(700, seed=11))
    await _insert(services, ws, _docs(40, seed=12))

    async def check() -> None:
        async with services.db.session() as session:
            assert await lexical_index.indexed_postings(
                session, ws
            ) == await lexical_index.recomputed_postings(session, ws)
            assert await lexical_index.indexed_term_stats(
                session, ws
            ) == await lexical_index.recomputed_term_stats(session, ws)

    async def rows() -> tuple[int, int]:
        async with services.db.session() as session:
            r = (
                await session.execute(
                    text(
                        "SELECT count(*), count(*) FILTER (WHERE b.n < 256) FROM retrieval_blocks b "
                        "JOIN retrieval_terms t ON t.id = b.term_id WHERE t.workspace_id = :w"
                    ),
                    {"w": ws},
                )
            ).one()
        return int(r[0]), int(r[1])

    await check()
    async with services.db.transaction() as session:
        await session.execute(
            text("UPDATE chunks SET text = 'cat cat cat lake' WHERE id = ANY(:ids)"),
            {"ids": chunk_ids[5:60]},
        )
        await session.execute(
            text("DELETE FROM chunks WHERE id = ANY(:ids)"), {"ids": chunk_ids[100:130]}
        )
    await check()
    before = await rows()
    async with services.db.transaction() as session:
        assert await lexical_index.compact_postings(session, ws) > 0
    await check()
    after = await rows()
    assert after[0] < before[0] and after[1] < before[1]
    async with services.db.session() as session:
        # A compacted (term, bucket) has at most one small row (< 64 postings), and its
        # partial rows hold less than a whole block between them.
        assert not await session.scalar(
            text(
                "SELECT count(*) FROM (SELECT 1 FROM retrieval_blocks b JOIN retrieval_terms t "
                "ON t.id = b.term_id WHERE t.workspace_id = :w AND b.n < 256 "
                "GROUP BY b.term_id, b.bucket HAVING count(*) FILTER (WHERE b.n < 64) > 1 "
                "OR (count(*) > 1 AND sum(b.n) >= 256)) x"
            ),
            {"w": ws},
        )
    async with services.db.transaction() as session:
        await session.execute(
            text("DELETE FROM chunks WHERE id = ANY(:ids)"), {"ids": chunk_ids[200:420]}
        )
        assert await lexical_index.compact_postings(session, ws) >= 0
    await check()


async def test_pruned_ranking_is_the_same_after_compaction(services: Runtime) -> None:
    ws = (await ws_service.create_workspace(services, name=f"prc-{uuid.uuid4().hex[:8]}")).id
    docs = _docs(300, seed=3) + _docs(300, seed=4)
    first = await _insert(services, ws, docs[:300])
    second = await _insert(services, ws, docs[300:])
    async with services.db.session() as session:
        df = await repo.document_frequencies(session, ws, ["cat", "bird", "rain"])
    params = BM25Params(per_term=30, candidates=60, whole_budget=2 * max(df.values()))
    assert min(df.values()) > 2 * params.per_term  # every term is cut
    exact = await lexical_leg(
        services.db, workspace_id=ws, query=QUERY, depth=10, params=EXACT_PARAMS
    )
    got = await lexical_leg(services.db, workspace_id=ws, query=QUERY, depth=10, params=params)
    async with services.db.transaction() as session:
        assert await lexical_index.compact_postings(session, ws) > 0
    compacted = await lexical_leg(
        services.db, workspace_id=ws, query=QUERY, depth=10, params=params
    )
    expected = hand_bm25(
        QUERY.split(), {str(c): tf for c, tf in zip(first + second, docs, strict=True)}, K1, B
    )
    top10 = [int(c) for c, _ in sorted(expected.items(), key=lambda kv: (-kv[1], int(kv[0])))[:10]]
    assert [h.chunk_id for h in exact.hits] == top10
    # The top ``per_term`` by impact do not depend on how the postings are blocked.
    assert [(h.chunk_id, h.score) for h in compacted.hits] == [
        (h.chunk_id, h.score) for h in got.hits
    ]


async def test_ingest_killed_mid_batch_leaves_the_index_consistent(services: Runtime) -> None:
    """A batch of 1,200 chunks (three INSERT statements) is killed after its first
    statements ran: the postings, df and source stats written so far vanish with it."""
    ws = (await ws_service.create_workspace(services, name=f"kill-{uuid.uuid4().hex[:8]}")).id
    await _insert(services, ws, _docs(50, seed=5))
    async with services.db.session() as session:
        before = await lexical_index.indexed_term_stats(session, ws)
    assert before == await _recomputed(services, ws)

    async with services.db.transaction() as session:
        (source,) = await insert_sources(
            session,
            workspace_id=ws,
            sources=[
                NewSource(
                    fields={"kind": "text", "title": "k", "content_hash": uuid.uuid4().hex},
                    pages=[],
                    chunks=[],
                )
            ],
        )
    url = services.db.location.url
    rng = random.Random(9)
    rows = [_text(tf, rng) for tf in _docs(1200, seed=6)]
    with psycopg.connect(url) as killer:
        conn = await psycopg.AsyncConnection.connect(url)
        pid = conn.info.backend_pid
        try:
            async with conn.cursor() as cur:
                for start in range(0, 1200, 500):
                    if start >= 1000:
                        # The process dies between two statements of the batch.
                        killer.execute("SELECT pg_terminate_backend(%s)", (pid,))
                        await asyncio.sleep(0.2)
                    await cur.executemany(
                        "INSERT INTO chunks (source_id, workspace_id, chunk_index, text, "
                        "token_count, section_type) VALUES (%s, %s, %s, %s, 5, %s)",
                        [
                            (source, ws, i, rows[i], "body")
                            for i in range(start, min(start + 500, 1200))
                        ],
                    )
            pytest.fail("the killed connection went on")
        except psycopg.OperationalError:
            pass
        finally:
            await conn.close()

    async with services.db.session() as session:
        after = await lexical_index.indexed_term_stats(session, ws)
        orphans = await session.scalar(
            text(
                "SELECT count(*) FROM retrieval_blocks b JOIN retrieval_terms t "
                "ON t.id = b.term_id CROSS JOIN LATERAL unnest(b.offsets) x(o) "
                "WHERE t.workspace_id = :w "
                "AND NOT EXISTS (SELECT 1 FROM chunks c WHERE c.id = b.base + x.o)"
            ),
            {"w": ws},
        )
    assert after == before == await _recomputed(services, ws)
    assert orphans == 0


async def _recomputed(services: Runtime, ws: uuid.UUID) -> dict[str, object]:
    async with services.db.session() as session:
        return await lexical_index.recomputed_term_stats(session, ws)


async def test_compaction_rewrites_a_large_partial_row_only_to_fill_a_block(
    services: Runtime,
) -> None:
    """A compaction's work follows what was appended: a partial row of 64+ postings stays
    as it is (same row version) while small rows merge, until its group's partial rows
    hold a whole block between them."""
    ws = (await ws_service.create_workspace(services, name=f"tier-{uuid.uuid4().hex[:8]}")).id

    async def cat_rows() -> list[tuple[int, str]]:
        async with services.db.session() as session:
            rows = await session.execute(
                text(
                    "SELECT b.n, b.xmin::text FROM retrieval_blocks b "
                    "JOIN retrieval_terms t ON t.id = b.term_id "
                    "WHERE t.workspace_id = :w AND t.lexeme = 'cat' ORDER BY b.base"
                ),
                {"w": ws},
            )
            return [(int(r[0]), str(r[1])) for r in rows.all()]

    async def compact() -> None:
        async with services.db.transaction() as session:
            await lexical_index.compact_postings(session, ws)

    # Every chunk the same text, so every 'cat' posting falls in one (term, bucket).
    await _insert(services, ws, [{"cat": 1, "sat": 1}] * 100)
    [(n, version)] = await cat_rows()
    assert n == 100
    await _insert(services, ws, [{"cat": 1, "sat": 1}] * 3)
    await _insert(services, ws, [{"cat": 1, "sat": 1}] * 4)
    await compact()
    rows = await cat_rows()
    assert (100, version) in rows  # the large row was not rewritten
    assert sorted(n for n, _ in rows) == [7, 100]  # the two small rows merged
    await _insert(services, ws, [{"cat": 1, "sat": 1}] * 150)
    await compact()
    # 100 + 7 + 150 = 257 postings: the partial rows now fill a block, and all merge.
    assert sorted(n for n, _ in await cat_rows()) == [1, 256]
    async with services.db.session() as session:
        assert await lexical_index.indexed_postings(
            session, ws
        ) == await lexical_index.recomputed_postings(session, ws)
