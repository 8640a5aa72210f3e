"""The concept graph as data, and its analysis (PageRank centrality, components): pure
functions, no database, no model."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

import networkx as nx
import numpy as np

ConceptEdgeType = Literal["prerequisite", "specialization", "related"]
SourceId = str


@dataclass(frozen=True)
class CanonicalConcept:
    """One concept of the workspace, merged over sources."""

    key: str
    name: str
    slug: str
    description: str | None
    source_ids: tuple[SourceId, ...]
    aliases: tuple[str, ...]
    level: int
    member_keys: tuple[str, ...] = ()

    @property
    def df(self) -> int:
        """Number of sources that discuss the concept."""
        return len(self.source_ids)


@dataclass(frozen=True)
class ConceptEdge:
    """A directed concept edge (``related`` edges are stored with ``source < target``)."""

    source: str
    target: str
    type: ConceptEdgeType
    weight: float
    evidence: str


@dataclass(frozen=True)
class ConceptGraphData:
    concepts: tuple[CanonicalConcept, ...]
    edges: tuple[ConceptEdge, ...]
    source_concepts: dict[SourceId, tuple[str, ...]] = field(default_factory=dict)
    """Source id → slugs of the canonical concepts it discusses (sorted)."""

    def by_slug(self) -> dict[str, CanonicalConcept]:
        return {c.slug: c for c in self.concepts}


@dataclass(frozen=True)
class GraphAnalysis:
    components: tuple[tuple[str, ...], ...]
    """Connected components (undirected), largest first, slugs sorted inside."""
    pagerank: dict[str, float]
    degree: dict[str, int]


def weighted_pagerank(
    n: int,
    edges: Iterable[tuple[int, int, float]],
    *,
    alpha: float = 0.85,
    tol: float = 1e-10,
    max_iter: int = 200,
) -> np.ndarray:
    """PageRank of an undirected weighted graph on nodes ``0..n-1`` (numpy power iteration).

    Dangling nodes spread their rank uniformly. Deterministic; no scipy needed.
    """
    if n == 0:
        return np.zeros(0)
    # Sparse: each undirected edge as two directed arcs (O(edges) memory, not O(n²); a
    # 1,000-source workspace has ~10k concepts).
    src: list[int] = []
    dst: list[int] = []
    wts: list[float] = []
    for i, j, weight in edges:
        if i != j and weight > 0:
            src += (i, j)
            dst += (j, i)
            wts += (weight, weight)
    s_arr = np.asarray(src, dtype=np.int64)
    d_arr = np.asarray(dst, dtype=np.int64)
    w_arr = np.asarray(wts, dtype=np.float64)
    out = np.bincount(s_arr, weights=w_arr, minlength=n)
    dangling = out == 0
    share = np.divide(w_arr, out[s_arr], out=np.zeros_like(w_arr), where=out[s_arr] > 0)
    rank = np.full(n, 1.0 / n)
    for _ in range(max_iter):
        spread = np.bincount(d_arr, weights=rank[s_arr] * share, minlength=n)
        new = alpha * (spread + rank[dangling].sum() / n) + (1 - alpha) / n
        if np.abs(new - rank).sum() < tol:
            rank = new
            break
        rank = new
    return np.asarray(rank / rank.sum())


def analyze(graph: ConceptGraphData) -> GraphAnalysis:
    """Connected components, PageRank (undirected, weighted) and degree of every concept."""
    slugs = sorted(c.slug for c in graph.concepts)
    index = {s: i for i, s in enumerate(slugs)}
    g = nx.Graph()
    g.add_nodes_from(slugs)
    for e in graph.edges:
        if e.source in index and e.target in index:
            g.add_edge(e.source, e.target)
    components = sorted(
        (tuple(sorted(c)) for c in nx.connected_components(g)), key=lambda c: (-len(c), c)
    )
    ranks = weighted_pagerank(
        len(slugs),
        (
            (index[e.source], index[e.target], e.weight)
            for e in graph.edges
            if e.source in index and e.target in index
        ),
    )
    return GraphAnalysis(
        components=tuple(components),
        pagerank={s: float(ranks[i]) for s, i in index.items()},
        degree={s: int(g.degree(s)) for s in slugs},
    )
