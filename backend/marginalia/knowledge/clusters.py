"""Redundancy clusters: average-linkage agglomerative clustering at 0.78 (DESIGN §6).

Average linkage (UPGMA) merges two clusters only when the *mean* pairwise cosine similarity
between their members is ≥ the threshold, so a chain A~B, B~C with A≁C does not collapse
into one cluster the way single linkage (union-find over similar pairs) would.

Implementation: one n×n cluster-similarity matrix (O(n²) memory), updated after each merge by
the Lance–Williams formula for average linkage,
``s(i∪j, k) = (|i|·s(i,k) + |j|·s(j,k)) / (|i| + |j|)``, with a cached best partner per row so
each merge costs O(n) (plus rescans of rows whose partner disappeared). Inputs are sorted by
id first and ties are broken by the lowest index pair, so the output is deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

REDUNDANCY_THRESHOLD = 0.78


@dataclass(frozen=True)
class RedundancyCluster:
    """Members sorted by id; ``representative`` has the highest mean similarity to the others."""

    members: tuple[str, ...]
    mean_similarity: float
    representative: str


def _row_best(sim: np.ndarray, active: np.ndarray, i: int) -> tuple[float, int]:
    row = np.where(active, sim[i], -np.inf)
    row[i] = -np.inf
    j = int(np.argmax(row))
    return float(row[j]), j


def redundancy_clusters(
    ids: Sequence[str],
    embeddings: np.ndarray,
    threshold: float = REDUNDANCY_THRESHOLD,
) -> list[RedundancyCluster]:
    """Clusters (size ≥ 2) of near-duplicate sources by average-linkage cosine ≥ ``threshold``.

    ``embeddings``: one row per id (normalised here; zero rows never cluster).
    """
    n = len(ids)
    if n != len(embeddings):
        raise ValueError(f"{n} ids but {len(embeddings)} embeddings")
    if len(set(ids)) != n:
        raise ValueError("ids must be unique")
    if n < 2:
        return []
    order = sorted(range(n), key=lambda i: ids[i])
    sorted_ids = [ids[i] for i in order]
    vecs = np.asarray(embeddings, dtype=np.float64)[order]
    norms = np.linalg.norm(vecs, axis=1)
    vecs = np.divide(vecs, norms[:, None], out=np.zeros_like(vecs), where=norms[:, None] > 0)
    base = vecs @ vecs.T  # pairwise cosine, kept for the reported means
    sim = base.copy()
    np.fill_diagonal(sim, -np.inf)

    active = np.ones(n, dtype=bool)
    sizes = np.ones(n, dtype=np.int64)
    members: list[list[int]] = [[i] for i in range(n)]
    best_val = np.full(n, -np.inf)
    best_idx = np.zeros(n, dtype=np.int64)
    for i in range(n):
        best_val[i], best_idx[i] = _row_best(sim, active, i)

    while True:
        cand = np.where(active, best_val, -np.inf)
        i = int(np.argmax(cand))
        if not np.isfinite(cand[i]) or cand[i] < threshold:
            break
        j = int(best_idx[i])
        i, j = min(i, j), max(i, j)
        # Lance–Williams update for average linkage: cluster i absorbs cluster j
        ni, nj = sizes[i], sizes[j]
        merged = (ni * sim[i] + nj * sim[j]) / (ni + nj)
        sim[i, :] = merged
        sim[:, i] = merged
        sim[i, i] = -np.inf
        active[j] = False
        sim[j, :] = -np.inf
        sim[:, j] = -np.inf
        sizes[i] = ni + nj
        members[i].extend(members[j])
        members[j] = []
        best_val[j] = -np.inf
        best_val[i], best_idx[i] = _row_best(sim, active, i)
        for k in np.flatnonzero(active).tolist():
            if k == i:
                continue
            if best_idx[k] in (i, j):
                best_val[k], best_idx[k] = _row_best(sim, active, k)
            elif sim[k, i] > best_val[k] or (sim[k, i] == best_val[k] and i < best_idx[k]):
                best_val[k], best_idx[k] = float(sim[k, i]), i

    clusters: list[RedundancyCluster] = []
    for idx in range(n):
        group = sorted(members[idx])
        if not active[idx] or len(group) < 2:
            continue
        sub = base[np.ix_(group, group)]
        m = len(group)
        mean = float((sub.sum() - np.trace(sub)) / (m * (m - 1)))
        per_member = (sub.sum(axis=1) - np.diag(sub)) / (m - 1)
        rep = group[int(np.argmax(per_member))]
        clusters.append(
            RedundancyCluster(
                members=tuple(sorted_ids[g] for g in group),
                mean_similarity=round(mean, 6),
                representative=sorted_ids[rep],
            )
        )
    return sorted(clusters, key=lambda c: c.members)
