"""BM25 in SQL: exact scores against a hand computation, and term statistics that stay
exact through inserts and deletes (they are kept by a trigger on ``chunks``)."""

from __future__ import annotations

import math
import uuid

import numpy as np
import pytest
from sqlalchemy import text

from marginalia.db.repositories import lexical_index
from marginalia.db.repositories.sources import NewChunk, insert_source
from marginalia.retrieval import BM25Params, lexical_leg
from marginalia.retrieval import repository as repo
from marginalia.retrieval.bm25 import K1, B
from marginalia.runtime import Runtime
from marginalia.usecases import workspaces as ws_service

DIM = 384


def unit(i: int) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[i % DIM] = 1.0
    return v


async def add_source(
    services: Runtime,
    workspace_id: uuid.UUID,
    texts: list[str],
    *,
    vectors: list[np.ndarray] | None = None,
) -> tuple[uuid.UUID, list[int]]:
    vectors = vectors or [unit(i) for i in range(len(texts))]
    async with services.db.transaction() as session:
        source = await insert_source(
            session,
            workspace_id=workspace_id,
            fields={"kind": "text", "title": texts[0][:40], "content_hash": uuid.uuid4().hex},
            pages=[(1, "\n".join(texts))],
            chunks=[
                NewChunk(i, t, "other", None, 1, 1, 0, len(t), 10, vectors[i])
                for i, t in enumerate(texts)
            ],
        )
        rows = await session.execute(
            text("SELECT id FROM chunks WHERE source_id = :s ORDER BY chunk_index"),
            {"s": source.id},
        )
        return source.id, [int(r[0]) for r in rows.all()]


async def new_workspace(services: Runtime) -> uuid.UUID:
    ws = await ws_service.create_workspace(services, name=f"retr-{uuid.uuid4().hex[:8]}")
    return ws.id


# Lexemes (english config): stop words dropped, these words are their own stems.
DOCS = {
    "A": ("cat cat dog", {"cat": 2, "dog": 1}),
    "B": ("the dog and the bird", {"dog": 1, "bird": 1}),
    "C": ("fish fish fish tree bird", {"fish": 3, "tree": 1, "bird": 1}),
    "D": ("tree", {"tree": 1}),
}


def hand_bm25(
    query_terms: list[str], docs: dict[str, dict[str, int]], k1: float, b: float
) -> dict[str, float]:
    n = len(docs)
    avgdl = sum(sum(tf.values()) for tf in docs.values()) / n
    scores: dict[str, float] = {}
    for name, tf in docs.items():
        dl = sum(tf.values())
        s = 0.0
        for t in query_terms:
            if t not in tf:
                continue
            df = sum(1 for d in docs.values() if t in d)
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            s += idf * tf[t] * (k1 + 1) / (tf[t] + k1 * (1 - b + b * dl / avgdl))
        if s:
            scores[name] = s
    return scores


async def test_lexemes_are_what_the_hand_computation_assumes(services: Runtime) -> None:
    async with services.db.session() as session:
        for doc, expected in DOCS.values():
            rows = await session.execute(
                text(
                    "SELECT lexeme, array_length(positions, 1) FROM unnest(to_tsvector('english', :t))"
                ),
                {"t": doc},
            )
            assert {r[0]: r[1] for r in rows.all()} == expected
        assert await repo.query_lexemes(session, "Cats and the dogs") == ["cat", "dog"]


@pytest.mark.parametrize("k1,b", [(K1, B), (1.2, 0.75)])
async def test_bm25_scores_equal_hand_computation(services: Runtime, k1: float, b: float) -> None:
    ws = await new_workspace(services)
    ids: dict[str, int] = {}
    for name, (doc, _) in DOCS.items():
        _, (cid,) = await add_source(services, ws, [doc])
        ids[name] = cid
    expected = hand_bm25(["cat", "dog"], {n: tf for n, (_, tf) in DOCS.items()}, k1, b)

    out = await lexical_leg(
        services.db, workspace_id=ws, query="Cats and the dogs", params=BM25Params(k1, b)
    )
    got = {
        name: next(h.score for h in out.hits if h.chunk_id == cid)
        for name, cid in ids.items()
        if any(h.chunk_id == cid for h in out.hits)
    }
    assert set(got) == set(expected) == {"A", "B"}
    for name in expected:
        assert got[name] == pytest.approx(expected[name], rel=1e-12)
    assert [h.chunk_id for h in out.hits] == [ids["A"], ids["B"]]
    assert [e.rank for e in out.trace.hits] == [1, 2]
    assert out.trace.status == "ok"


async def test_query_term_frequency_option(services: Runtime) -> None:
    ws = await new_workspace(services)
    ids = {}
    for name, (doc, _) in DOCS.items():
        _, (cid,) = await add_source(services, ws, [doc])
        ids[name] = cid
    docs = {n: tf for n, (_, tf) in DOCS.items()}
    once = hand_bm25(["bird"], docs, K1, B)
    out = await lexical_leg(
        services.db, workspace_id=ws, query="bird birds", params=BM25Params(query_tf=True)
    )
    by_id = {h.chunk_id: h.score for h in out.hits}
    assert by_id[ids["C"]] == pytest.approx(2 * once["C"], rel=1e-12)
    out = await lexical_leg(services.db, workspace_id=ws, query="bird birds")
    assert {h.chunk_id: h.score for h in out.hits}[ids["C"]] == pytest.approx(once["C"], rel=1e-12)


async def test_stats_stay_exact_after_deleting_a_source(services: Runtime) -> None:
    ws = await new_workspace(services)
    sources: dict[str, uuid.UUID] = {}
    ids: dict[str, int] = {}
    for name, (doc, _) in DOCS.items():
        sid, (cid,) = await add_source(services, ws, [doc])
        sources[name], ids[name] = sid, cid
    # A second, multi-chunk source that we then delete.
    extra, _ = await add_source(services, ws, ["dog dog dog dog", "cat bird", "nothing relevant"])
    async with services.db.session() as session:
        assert await lexical_index.indexed_term_stats(
            session, ws
        ) == await lexical_index.recomputed_term_stats(session, ws)
        assert (await repo.workspace_term_stats(session, ws))["n"] == 7

    async with services.db.transaction() as session:
        await session.execute(text("DELETE FROM sources WHERE id = :s"), {"s": extra})
    async with services.db.transaction() as session:
        await session.execute(text("DELETE FROM sources WHERE id = :s"), {"s": sources["D"]})
    remaining = {n: tf for n, (_, tf) in DOCS.items() if n != "D"}
    async with services.db.session() as session:
        stats = await lexical_index.indexed_term_stats(session, ws)
        assert stats == await lexical_index.recomputed_term_stats(session, ws)
        assert stats["n"] == 3 and stats["total_len"] == 3 + 2 + 5
        assert stats["df"] == {"cat": 1, "dog": 2, "bird": 2, "fish": 1, "tree": 1}

    out = await lexical_leg(services.db, workspace_id=ws, query="tree dog")
    expected = hand_bm25(["tree", "dog"], remaining, K1, B)
    got = {h.chunk_id: h.score for h in out.hits}
    assert set(got) == {ids[n] for n in expected}
    for name, score in expected.items():
        assert got[ids[name]] == pytest.approx(score, rel=1e-12)

    # Editing a chunk's text re-indexes it; rebuilding from scratch changes nothing.
    async with services.db.transaction() as session:
        await session.execute(
            text("UPDATE chunks SET text = 'bird bird tree' WHERE id = :c"), {"c": ids["A"]}
        )
    async with services.db.transaction() as session:
        before = await lexical_index.indexed_term_stats(session, ws)
        assert before == await lexical_index.recomputed_term_stats(session, ws)
        await lexical_index.rebuild_term_stats(session, ws)
        assert await lexical_index.indexed_term_stats(session, ws) == before


async def test_deleting_the_workspace_leaves_no_stats(services: Runtime) -> None:
    ws = await new_workspace(services)
    await add_source(services, ws, ["cat dog", "bird"])
    await ws_service.delete_workspace(services, ws)
    async with services.db.session() as session:
        left = (
            await session.execute(
                text(
                    "SELECT (SELECT count(*) FROM retrieval_postings WHERE workspace_id = :ws), "
                    "(SELECT count(*) FROM retrieval_source_stats WHERE workspace_id = :ws)"
                ),
                {"ws": ws},
            )
        ).one()
    assert tuple(left) == (0, 0)


async def test_per_source_scope_uses_workspace_statistics(services: Runtime) -> None:
    ws = await new_workspace(services)
    ids: dict[str, int] = {}
    sources: dict[str, uuid.UUID] = {}
    for name, (doc, _) in DOCS.items():
        sid, (cid,) = await add_source(services, ws, [doc])
        ids[name], sources[name] = cid, sid
    out = await lexical_leg(services.db, workspace_id=ws, query="dog", source_id=sources["B"])
    assert [h.chunk_id for h in out.hits] == [ids["B"]]
    expected = hand_bm25(["dog"], {n: tf for n, (_, tf) in DOCS.items()}, K1, B)["B"]
    assert out.hits[0].score == pytest.approx(expected, rel=1e-12)


async def test_stop_word_query_is_empty_with_a_reason(services: Runtime) -> None:
    ws = await new_workspace(services)
    await add_source(services, ws, ["cat dog"])
    out = await lexical_leg(services.db, workspace_id=ws, query="the and of")
    assert out.hits == [] and out.trace.status == "empty"
    assert out.trace.note and "stop words" in out.trace.note
    out = await lexical_leg(services.db, workspace_id=ws, query="zebra")
    assert out.hits == [] and out.trace.note == "no chunk in scope contains any query term"
