import time

import numpy as np
import pytest

from marginalia.knowledge.clusters import redundancy_clusters


def _vectors_with_gram(gram: np.ndarray) -> np.ndarray:
    return np.linalg.cholesky(gram)


def _naive_average_linkage(ids: list[str], emb: np.ndarray, threshold: float) -> list[list[str]]:
    """The earlier system's O(n^3) reference (seed), with a deterministic tie-break."""
    unit = emb / np.linalg.norm(emb, axis=1, keepdims=True)
    sim = unit @ unit.T
    order = sorted(range(len(ids)), key=lambda i: ids[i])
    clusters = [[i] for i in order]
    while True:
        best, bi, bj = -np.inf, -1, -1
        for i in range(len(clusters)):
            for j in range(i + 1, len(clusters)):
                s = float(np.mean(sim[np.ix_(clusters[i], clusters[j])]))
                if s > best + 1e-12:
                    best, bi, bj = s, i, j
        if best < threshold:
            break
        clusters[bi].extend(clusters[bj])
        clusters.pop(bj)
    return sorted(sorted(ids[i] for i in c) for c in clusters if len(c) >= 2)


def test_chain_does_not_merge_under_average_linkage() -> None:
    # A~B 0.85, B~C 0.85, A≁C 0.5: single linkage would put all three together.
    gram = np.array([[1.0, 0.85, 0.5], [0.85, 1.0, 0.85], [0.5, 0.85, 1.0]])
    emb = _vectors_with_gram(gram)
    clusters = redundancy_clusters(["A", "B", "C"], emb)
    assert [c.members for c in clusters] == [("A", "B")]
    assert clusters[0].mean_similarity == pytest.approx(0.85)


def test_only_clusters_of_two_or_more_and_order_independent() -> None:
    rng = np.random.default_rng(0)
    base = rng.normal(size=(3, 32))
    rows, ids = [], []
    for g in range(3):
        for k in range(g + 1):  # group sizes 1, 2, 3
            rows.append(base[g] + 0.05 * rng.normal(size=32))
            ids.append(f"s{g}-{k}")
    emb = np.array(rows)
    got = [c.members for c in redundancy_clusters(ids, emb)]
    assert got == [("s1-0", "s1-1"), ("s2-0", "s2-1", "s2-2")]
    perm = rng.permutation(len(ids))
    again = [c.members for c in redundancy_clusters([ids[i] for i in perm], emb[perm])]
    assert again == got


def test_matches_naive_reference_on_random_data() -> None:
    rng = np.random.default_rng(7)
    centers = rng.normal(size=(8, 16))
    emb = np.concatenate([c + 0.45 * rng.normal(size=(5, 16)) for c in centers])
    ids = [f"x{i:02d}" for i in range(len(emb))]
    ours = sorted(list(c.members) for c in redundancy_clusters(ids, emb))
    assert ours == _naive_average_linkage(ids, emb, 0.78)
    assert ours  # the fixture does produce clusters


def test_two_thousand_sources_is_fast() -> None:
    rng = np.random.default_rng(1)
    centers = rng.normal(size=(400, 384))
    emb = np.repeat(centers, 5, axis=0) + 0.2 * rng.normal(size=(2000, 384))
    ids = [f"s{i:04d}" for i in range(2000)]
    start = time.perf_counter()
    clusters = redundancy_clusters(ids, emb)
    assert time.perf_counter() - start < 30
    assert len(clusters) == 400


def test_bad_input() -> None:
    with pytest.raises(ValueError):
        redundancy_clusters(["a", "b"], np.zeros((3, 4)))
    assert redundancy_clusters(["a"], np.ones((1, 4))) == []
