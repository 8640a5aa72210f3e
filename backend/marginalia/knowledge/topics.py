"""Topic clusters of a workspace's sources: the groups the canvas draws and the learning
path keeps together (issue 33).

The graph: one node per source; edge weights add up what the backend already knows links
two sources — a ``similar`` source edge (strong 1.0, weak 0.5), a citation either way (1.0),
embedding neighbours (each source's two nearest by mean chunk embedding, weight = cosine,
when ≥ 0.25) and the concepts they share (the cosine of their concept sets weighted by inverse document
frequency; concepts in more than half the sources say nothing about a topic and are left
out). Communities: Louvain with a fixed seed (deterministic for the same input). Sources
with no link to any other form one cluster of their own ("unlinked"), so a workspace of
unrelated papers is not hundreds of singletons.

A cluster's label is its most characteristic concepts: those in the largest share of its
members minus their share among the other sources (frequent here, rare elsewhere).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np

STRONG_SIMILAR = 1.0
WEAK_SIMILAR = 0.5
CITATION_WEIGHT = 1.0
EMBEDDING_NEIGHBOURS = 2
EMBEDDING_FLOOR = 0.25
"""Each source links to its nearest sources by mean chunk embedding (cosine ≥ the floor)."""
MAX_CONCEPT_SHARE = 0.5
"""Concepts in more than this share of the sources are not topic evidence."""
LABEL_CONCEPTS = 3
LOUVAIN_SEED = 33
UNLINKED = "unlinked"


@dataclass(frozen=True)
class TopicCluster:
    """``members``: source ids, sorted; ``concepts``: the characteristic concept keys,
    best first; ``label``: their names joined (or what the cluster is, when it has none)."""

    id: str
    members: tuple[str, ...]
    concepts: tuple[str, ...]
    label: str


def _concept_weights(
    concepts_of: Mapping[str, Iterable[str]], n_sources: int
) -> dict[tuple[str, str], float]:
    """Pairwise IDF-weighted cosine of the sources' concept sets."""
    df = Counter(c for cs in concepts_of.values() for c in set(cs))
    limit = max(2, int(MAX_CONCEPT_SHARE * n_sources))
    idf = {c: math.log((1 + n_sources) / (1 + d)) + 1.0 for c, d in df.items() if 2 <= d <= limit}
    vectors = {s: {c: idf[c] for c in set(cs) if c in idf} for s, cs in concepts_of.items()}
    norms = {s: math.sqrt(sum(w * w for w in v.values())) for s, v in vectors.items()}
    holders: dict[str, list[str]] = defaultdict(list)
    for s in sorted(vectors):
        for c in vectors[s]:
            holders[c].append(s)
    dots: dict[tuple[str, str], float] = defaultdict(float)
    for c, ss in holders.items():
        w2 = idf[c] * idf[c]
        for i, a in enumerate(ss):
            for b in ss[i + 1 :]:
                dots[(a, b)] += w2
    return {pair: dot / (norms[pair[0]] * norms[pair[1]]) for pair, dot in dots.items()}


def embedding_neighbours(
    embeddings: Mapping[str, Sequence[float]],
    *,
    k: int = EMBEDDING_NEIGHBOURS,
    floor: float = EMBEDDING_FLOOR,
) -> list[tuple[str, str, float]]:
    """(a, b, cosine) for each source's ``k`` nearest others at cosine ≥ ``floor``."""
    ids = sorted(embeddings)
    if len(ids) < 2:
        return []
    matrix = np.asarray([embeddings[i] for i in ids], dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1)
    matrix = np.divide(matrix, norms[:, None], out=np.zeros_like(matrix), where=norms[:, None] > 0)
    sims = matrix @ matrix.T
    np.fill_diagonal(sims, -np.inf)
    out: list[tuple[str, str, float]] = []
    for i, a in enumerate(ids):
        for j in np.argsort(-sims[i], kind="stable")[:k].tolist():
            if sims[i, j] >= floor:
                out.append((a, ids[j], float(sims[i, j])))
    return out


def topic_clusters(
    source_ids: Sequence[str],
    concepts_of: Mapping[str, Iterable[str]],
    *,
    similar: Iterable[tuple[str, str, str]] = (),
    citations: Iterable[tuple[str, str]] = (),
    embeddings: Mapping[str, Sequence[float]] | None = None,
    concept_names: Mapping[str, str] | None = None,
) -> list[TopicCluster]:
    """The sources' topic clusters, largest first (ties: smallest member id), unlinked last.

    ``concepts_of``: source id → its concept keys; ``similar``: (a, b, strength) source
    edges; ``citations``: (citing, cited); ``embeddings``: source id → its mean chunk
    embedding; ``concept_names``: key → display name."""
    ids = sorted(set(source_ids))
    known = set(ids)
    names = concept_names or {}
    concepts = {s: set(concepts_of.get(s, ())) for s in ids}
    weight: dict[tuple[str, str], float] = defaultdict(float)
    seen_pairs: set[tuple[str, str]] = set()  # a mutual nearest pair counts once

    def add(a: str, b: str, w: float) -> None:
        if a != b and a in known and b in known and w > 0:
            weight[(min(a, b), max(a, b))] += w

    for a, b, strength in similar:
        add(a, b, STRONG_SIMILAR if strength == "strong" else WEAK_SIMILAR)
    for a, b in citations:
        add(a, b, CITATION_WEIGHT)
    for (a, b), w in _concept_weights(concepts, len(ids)).items():
        add(a, b, w)
    known_vectors = {s: v for s, v in (embeddings or {}).items() if s in known}
    for a, b, cosine in embedding_neighbours(known_vectors):
        if (min(a, b), max(a, b)) not in seen_pairs:
            seen_pairs.add((min(a, b), max(a, b)))
            add(a, b, cosine)
    graph = nx.Graph()
    graph.add_nodes_from(ids)
    for (a, b), w in sorted(weight.items()):
        graph.add_edge(a, b, weight=w)
    linked = [s for s in ids if graph.degree(s) > 0]
    unlinked = [s for s in ids if graph.degree(s) == 0]
    groups: list[list[str]] = []
    if linked:
        communities = nx.community.louvain_communities(
            graph.subgraph(linked), weight="weight", seed=LOUVAIN_SEED
        )
        groups = [sorted(c) for c in communities]
    groups.sort(key=lambda g: (-len(g), g[0]))
    df = Counter(c for cs in concepts.values() for c in cs)
    out: list[TopicCluster] = []
    for i, members in enumerate(groups, start=1):
        keys = characteristic_concepts(members, concepts, df, len(ids), names=names)
        label = " · ".join(names.get(k, k) for k in keys) or f"Topic {i}"
        out.append(TopicCluster(f"topic-{i}", tuple(members), keys, label))
    if unlinked:
        keys = characteristic_concepts(unlinked, concepts, df, len(ids), names=names)
        out.append(TopicCluster(UNLINKED, tuple(unlinked), keys, "Sources not linked to others"))
    return out


def characteristic_concepts(
    members: Sequence[str],
    concepts: Mapping[str, set[str]],
    df: Mapping[str, int],
    n_sources: int,
    *,
    top: int = LABEL_CONCEPTS,
    names: Mapping[str, str] | None = None,
) -> tuple[str, ...]:
    """The concepts most frequent in ``members`` and rarest among the other sources: share
    inside minus share outside, in at least two members — else (members that share no
    concept) one concept of each member, none found outside the cluster."""
    inside = Counter(c for s in members for c in concepts.get(s, ()))
    size = len(members)
    rest = n_sources - size
    scored = []
    for c, k in inside.items():
        outside = (df.get(c, k) - k) / rest if rest else 0.0
        score = k / size - outside
        if score > 0:
            scored.append((-score, -k, c))
    shared = [c for _, k, c in sorted(scored) if -k >= 2]
    if shared:
        return tuple(shared[:top])
    own = {c for _, _, c in scored}
    # By name, not by key (ids differ between two ingests of the same papers).
    name = (names or {}).get
    picks = [
        min(cs & own, key=lambda c: (name(c, c).casefold(), c))
        for s in sorted(members)
        if (cs := set(concepts.get(s, ()))) & own
    ]
    return tuple(picks[:top])


def cluster_of(clusters: Sequence[TopicCluster]) -> dict[str, str]:
    """Source id → its cluster's id."""
    return {s: c.id for c in clusters for s in c.members}
