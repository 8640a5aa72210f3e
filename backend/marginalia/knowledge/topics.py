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

A cluster's label is its most characteristic concepts, c-TF-IDF-like (:func:`characteristic_concepts`):
a concept scores its standing in the cluster's members (the sum of its link weights there,
per member) times its rarity in the workspace (log(1 + sources / sources holding it));
generic phrases ("demographic data") are left out, and names of things (acronyms, tools, places: "SCIBERT", "PubMed Central",
"33RE") count a quarter, so a descriptive term ("deep venous thrombosis") comes first when
there is one. The label's concepts are picked greedily, each from a member the earlier
ones do not cover when one scores close, never two that contain one another.
"""

from __future__ import annotations

import math
import re
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
NAME_FACTOR = 0.25
"""A name of a thing (acronym, tool, place, code) counts this much as a label concept."""
NEW_MEMBER_FACTOR = 2.0
"""A label concept from a member no earlier pick covers counts this much more."""
GENERIC_TERMS = frozenset(
    {
        "analysis",
        "approach",
        "background",
        "case study",
        "conclusion",
        "conclusions",
        "data",
        "data collection",
        "demographic data",
        "discussion",
        "evaluation",
        "experiment",
        "experiments",
        "findings",
        "framework",
        "future work",
        "introduction",
        "literature review",
        "method",
        "methodology",
        "methods",
        "model",
        "models",
        "paper",
        "qualitative methods",
        "related work",
        "research",
        "results",
        "status quo",
        "study",
        "system",
        "systematic review",
    }
)
"""Phrases any paper may use that say nothing about its topic."""
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
    weights: Mapping[tuple[str, str], float] | None = None,
) -> list[TopicCluster]:
    """The sources' topic clusters, largest first (ties: smallest member id), unlinked last.

    ``concepts_of``: source id → its concept keys; ``similar``: (a, b, strength) source
    edges; ``citations``: (citing, cited); ``embeddings``: source id → its mean chunk
    embedding; ``concept_names``: key → display name; ``weights``: (source, concept) →
    the concept's standing in that source (1 when absent), for the labels."""
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
        keys = characteristic_concepts(
            members, concepts, df, len(ids), names=names, weights=weights
        )
        label = " · ".join(names.get(k, k) for k in keys) or f"Topic {i}"
        out.append(TopicCluster(f"topic-{i}", tuple(members), keys, label))
    if unlinked:
        keys = characteristic_concepts(
            unlinked, concepts, df, len(ids), names=names, weights=weights
        )
        out.append(TopicCluster(UNLINKED, tuple(unlinked), keys, "Sources not linked to others"))
    return out


_WORD = re.compile(r"[^\W_]+")


def is_name(name: str) -> bool:
    """A name of a thing rather than a descriptive term: a word mixing letters and digits
    ("33RE", "RXP407") or nothing but numbers, an acronym or a word with a capital inside ("SCIBERT", "codeML", "S2ORC"),
    or every word capitalised ("PubMed Central", "Central Region", "Semantic Scholar")."""
    words = [w for w in _WORD.findall(name) if not w.isdigit()]  # "angiotensin-1-…" is a term
    if not words or any(any(ch.isdigit() for ch in w) for w in words):
        return True
    if any(any(ch.isupper() for ch in w[1:]) for w in words):
        return True
    return all(w[0].isupper() for w in words)


def characteristic_concepts(
    members: Sequence[str],
    concepts: Mapping[str, set[str]],
    df: Mapping[str, int],
    n_sources: int,
    *,
    top: int = LABEL_CONCEPTS,
    names: Mapping[str, str] | None = None,
    weights: Mapping[tuple[str, str], float] | None = None,
) -> tuple[str, ...]:
    """The concepts that say what ``members`` are about, best first (see the module's
    docstring): c-TF-IDF — the concept's weight summed over the members, per member, times
    log(1 + n_sources / sources holding it); generic phrases left out; names of things a
    quarter. Picked greedily: a concept from a member no earlier pick covers counts double,
    one containing (or contained in) an earlier pick's name is skipped."""
    name = (names or {}).get
    w = weights or {}
    size = len(members)
    holders: dict[str, list[str]] = defaultdict(list)
    tf: dict[str, float] = defaultdict(float)
    for s in sorted(members):
        for c in concepts.get(s, ()):
            holders[c].append(s)
            tf[c] += w.get((s, c), 1.0)
    score: dict[str, float] = {}
    for c, total in tf.items():
        label = name(c, c)
        if label.casefold().strip() in GENERIC_TERMS or not _WORD.search(label):
            continue
        idf = math.log(1 + n_sources / max(1, df.get(c, len(holders[c]))))
        value = total / size * idf * (NAME_FACTOR if is_name(label) else 1.0)
        if value > 0:
            score[c] = value
    picks: list[str] = []
    covered: set[str] = set()
    while len(picks) < top:
        best: tuple[float, str, str] | None = None
        for c, value in score.items():
            if c in picks:
                continue
            folded = name(c, c).casefold()
            if any(folded in p or p in folded for p in (name(x, x).casefold() for x in picks)):
                continue
            v = value * (NEW_MEMBER_FACTOR if set(holders[c]) - covered else 1.0)
            # Ties: by name, then key (ids differ between two ingests of the same papers).
            key = (-v, folded, c)
            if best is None or key < best:
                best = key
        if best is None:
            break
        picks.append(best[2])
        covered.update(holders[best[2]])
    return tuple(picks)


def cluster_of(clusters: Sequence[TopicCluster]) -> dict[str, str]:
    """Source id → its cluster's id."""
    return {s: c.id for c in clusters for s in c.members}
