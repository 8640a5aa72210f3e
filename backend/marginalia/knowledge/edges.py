"""Deterministic source-to-source edges (DESIGN §6), no model involved.

For a pair of sources with ``shared`` = number of shared concepts, ``title`` = Jaccard of
their title token sets (stop words removed) and ``emb`` = cosine of their mean chunk
embeddings:

* **strong** if ``shared ≥ 2`` or ``title > 0.5`` or ``emb > 0.70``;
* **weak** if ``shared ≥ 1`` and (``title > 0.25`` or ``emb > 0.60``);
* otherwise no edge.

Thresholds are strict (``>``) exactly as written: a title Jaccard of exactly 0.5 is not
strong. Signals are rounded to :data:`SIGNAL_DECIMALS` decimals before the comparison so the
incremental path (:func:`edges_for_new_source`) and the batch path (:func:`all_edges`) decide
every pair identically even though they compute the dot products in different batches.

The edge label is the most specific shared concept: the highest level, then the rarest in the
workspace, then the slug.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from marginalia.knowledge.text import jaccard, title_tokens

EdgeStrength = Literal["strong", "weak"]

STRONG_SHARED = 2
STRONG_TITLE = 0.5
STRONG_EMBEDDING = 0.70
WEAK_SHARED = 1
WEAK_TITLE = 0.25
WEAK_EMBEDDING = 0.60
SIGNAL_DECIMALS = 6


@dataclass(frozen=True)
class SourceForEdges:
    """What the edge rules need to know about a source.

    ``concepts``: canonical concept slug → level. ``embedding``: the L2-normalised mean of the
    source's chunk vectors (None if it has none: the embedding signal is then 0).
    """

    id: str
    title: str
    concepts: Mapping[str, int] = field(default_factory=dict)
    embedding: np.ndarray | None = None


@dataclass(frozen=True)
class EdgeSignals:
    shared_concepts: tuple[str, ...]
    title_jaccard: float
    embedding_sim: float


@dataclass(frozen=True)
class SourceEdge:
    """An undirected edge, stored with ``a < b``."""

    a: str
    b: str
    strength: EdgeStrength
    signals: EdgeSignals
    label: str | None


def classify(shared: int, title_sim: float, embedding_sim: float) -> EdgeStrength | None:
    """The DESIGN §6 rule on already computed signals."""
    if shared >= STRONG_SHARED or title_sim > STRONG_TITLE or embedding_sim > STRONG_EMBEDDING:
        return "strong"
    if shared >= WEAK_SHARED and (title_sim > WEAK_TITLE or embedding_sim > WEAK_EMBEDDING):
        return "weak"
    return None


def concept_frequencies(sources: Sequence[SourceForEdges]) -> dict[str, int]:
    """How many of ``sources`` discuss each concept (used to find the rarest shared one)."""
    counts: Counter[str] = Counter()
    for s in sources:
        counts.update(set(s.concepts))
    return dict(counts)


def _label(
    shared: Sequence[str], a: SourceForEdges, b: SourceForEdges, df: Mapping[str, int]
) -> str | None:
    if not shared:
        return None

    def level(slug: str) -> int:
        return max(a.concepts.get(slug, 0), b.concepts.get(slug, 0))

    return sorted(shared, key=lambda s: (-level(s), df.get(s, 0), s))[0]


def _as_unit(vec: np.ndarray | None) -> np.ndarray | None:
    if vec is None:
        return None
    v = np.asarray(vec, dtype=np.float64).ravel()
    norm = float(np.linalg.norm(v))
    return v / norm if norm > 0 else None


def _edges_against(
    new: SourceForEdges,
    others: Sequence[SourceForEdges],
    df: Mapping[str, int],
) -> list[SourceEdge]:
    new_vec = _as_unit(new.embedding)
    new_title = title_tokens(new.title)
    sims: list[float] = [0.0] * len(others)
    if new_vec is not None and others:
        rows: list[int] = []
        vectors: list[np.ndarray] = []
        for i, o in enumerate(others):
            u = _as_unit(o.embedding)
            if u is not None and u.shape == new_vec.shape:
                rows.append(i)
                vectors.append(u)
        if rows:
            products = np.stack(vectors) @ new_vec
            for i, val in zip(rows, products, strict=True):
                sims[i] = float(val)
    edges: list[SourceEdge] = []
    for other, sim in zip(others, sims, strict=True):
        if other.id == new.id:
            continue
        shared = tuple(sorted(set(new.concepts) & set(other.concepts)))
        title_sim = round(jaccard(new_title, title_tokens(other.title)), SIGNAL_DECIMALS)
        emb_sim = round(sim, SIGNAL_DECIMALS)
        strength = classify(len(shared), title_sim, emb_sim)
        if strength is None:
            continue
        a, b = (new, other) if new.id < other.id else (other, new)
        edges.append(
            SourceEdge(
                a=a.id,
                b=b.id,
                strength=strength,
                signals=EdgeSignals(shared, title_sim, emb_sim),
                label=_label(shared, a, b, df),
            )
        )
    return edges


def edges_for_new_source(
    new: SourceForEdges,
    existing: Sequence[SourceForEdges],
    concept_df: Mapping[str, int] | None = None,
) -> list[SourceEdge]:
    """Edges between a newly added source and the sources already in the workspace.

    ``concept_df`` (concept → number of sources) defaults to the frequencies over
    ``existing + [new]``, which is what :func:`all_edges` uses for the same workspace.
    """
    df = concept_df if concept_df is not None else concept_frequencies([*existing, new])
    return sorted(_edges_against(new, existing, df), key=lambda e: (e.a, e.b))


def all_edges(
    sources: Sequence[SourceForEdges], concept_df: Mapping[str, int] | None = None
) -> list[SourceEdge]:
    """Every edge of the workspace, sorted by ``(a, b)``."""
    ordered = sorted(sources, key=lambda s: s.id)
    df = concept_df if concept_df is not None else concept_frequencies(ordered)
    edges: list[SourceEdge] = []
    for i in range(1, len(ordered)):
        edges.extend(_edges_against(ordered[i], ordered[:i], df))
    return sorted(edges, key=lambda e: (e.a, e.b))
