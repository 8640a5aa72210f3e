import math

import numpy as np
import pytest

from marginalia.knowledge.edges import (
    SourceForEdges,
    all_edges,
    classify,
    edges_for_new_source,
)


def _unit_at(cos: float) -> np.ndarray:
    return np.array([cos, math.sqrt(1.0 - cos * cos)])


E0 = np.array([1.0, 0.0])


def _pair(
    title_a: str = "alpha",
    title_b: str = "omega",
    concepts_a: dict[str, int] | None = None,
    concepts_b: dict[str, int] | None = None,
    cos: float | None = None,
) -> list[SourceForEdges]:
    return [
        SourceForEdges("a", title_a, concepts_a or {}, None if cos is None else E0),
        SourceForEdges("b", title_b, concepts_b or {}, None if cos is None else _unit_at(cos)),
    ]


def _strength(sources: list[SourceForEdges]) -> str | None:
    edges = all_edges(sources)
    return edges[0].strength if edges else None


def test_classify_rule_table() -> None:
    assert classify(2, 0.0, 0.0) == "strong"
    assert classify(0, 0.51, 0.0) == "strong"
    assert classify(0, 0.5, 0.0) is None
    assert classify(0, 0.0, 0.71) == "strong"
    assert classify(0, 0.0, 0.70) is None
    assert classify(1, 0.26, 0.0) == "weak"
    assert classify(1, 0.25, 0.0) is None
    assert classify(1, 0.0, 0.61) == "weak"
    assert classify(1, 0.0, 0.60) is None
    assert classify(0, 0.3, 0.65) is None


def test_title_jaccard_boundary() -> None:
    # {x, y, z} vs {x, y, w}: 2/4 = 0.5 exactly -> not strong, and no shared concept -> no edge
    assert _strength(_pair("x y z", "x y w")) is None
    # {w, x, y, z} vs {w, x, y, v}: 3/5 = 0.6 -> strong
    assert _strength(_pair("w x y z", "w x y v")) == "strong"
    # 0.5 with one shared concept -> weak (title > 0.25)
    assert _strength(_pair("x y z", "x y w", {"c": 1}, {"c": 1})) == "weak"
    # {x, y, z, u} vs {x, v, w, t}: 1/7 < 0.25; {x, y} vs {x, z}: 1/3 > 0.25
    assert _strength(_pair("x y z u", "x v w t", {"c": 1}, {"c": 1})) is None
    assert _strength(_pair("x y", "x z", {"c": 1}, {"c": 1})) == "weak"
    # {x, y, z} vs {x, w}: 1/4 exactly -> not weak
    assert _strength(_pair("x y z", "x w", {"c": 1}, {"c": 1})) is None


def test_embedding_boundaries() -> None:
    assert _strength(_pair(cos=0.70)) is None
    assert _strength(_pair(cos=0.7001)) == "strong"
    assert _strength(_pair(concepts_a={"c": 1}, concepts_b={"c": 1}, cos=0.60)) is None
    assert _strength(_pair(concepts_a={"c": 1}, concepts_b={"c": 1}, cos=0.6001)) == "weak"
    assert _strength(_pair(concepts_a={"c": 1, "d": 0}, concepts_b={"c": 1, "d": 0})) == "strong"


def test_signals_and_label_is_most_specific_shared_concept() -> None:
    sources = [
        SourceForEdges("a", "t1", {"attention": 0, "flash-attention": 2, "tiling": 2}, E0),
        SourceForEdges("b", "t2", {"attention": 0, "flash-attention": 2, "tiling": 2}, E0),
        SourceForEdges("c", "t3", {"tiling": 2}, None),
    ]
    edges = all_edges(sources)
    ab = next(e for e in edges if (e.a, e.b) == ("a", "b"))
    assert ab.strength == "strong"
    assert ab.signals.shared_concepts == ("attention", "flash-attention", "tiling")
    assert ab.signals.embedding_sim == pytest.approx(1.0)
    # level 2 beats level 0; among level 2, flash-attention (df 2) is rarer than tiling (df 3)
    assert ab.label == "flash-attention"


def test_incremental_equals_batch() -> None:
    rng = np.random.default_rng(3)
    vocab = [f"c{i}" for i in range(12)]
    words = ["graph", "attention", "sparse", "long", "memory", "retrieval", "dense", "model"]
    base = rng.normal(size=(4, 24))
    sources = []
    for i in range(40):
        vec = base[i % 4] + 0.6 * rng.normal(size=24)
        concepts = {c: int(rng.integers(0, 3)) for c in rng.choice(vocab, 3, replace=False)}
        title = " ".join(rng.choice(words, 3, replace=False))
        sources.append(SourceForEdges(f"s{i:02d}", title, concepts, vec / np.linalg.norm(vec)))
    batch = all_edges(sources)
    assert batch, "fixture should produce edges"
    order = rng.permutation(len(sources))
    incremental = []
    seen: list[SourceForEdges] = []
    final_df: dict[str, int] = {}
    for s in sources:
        for c in s.concepts:
            final_df[c] = final_df.get(c, 0) + 1
    for idx in order:
        new = sources[idx]
        incremental.extend(edges_for_new_source(new, seen, concept_df=final_df))
        seen.append(new)
    assert sorted(incremental, key=lambda e: (e.a, e.b)) == batch
    # with default frequencies the last source added agrees with the batch on its pairs
    last = sources[order[-1]]
    others = [s for s in sources if s.id != last.id]
    mine = [e for e in batch if last.id in (e.a, e.b)]
    assert edges_for_new_source(last, others) == mine
