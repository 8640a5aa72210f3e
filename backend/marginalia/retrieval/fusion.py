"""Fusion of the legs' ranked lists: relative-score fusion (default) or RRF.

Relative-score fusion (CombSUM of min-max normalised scores; Fox & Shaw 1994, Lee 1997):

    score(d) = Σ_legs (s_leg(d) − min_leg) / (max_leg − min_leg)

min and max are over the list the leg returned (its top ``depth``); a list whose scores
are all equal gives each entry 1. It keeps how far apart a leg's scores are — a chunk
far ahead lexically stays far ahead — which rank-only fusion throws away.

Reciprocal rank fusion (Cormack et al., 2009):

    score(d) = Σ_legs 1 / (k + rank_leg(d)),  rank starting at 1

In both, a document absent from a leg contributes nothing for that leg. Ties break on
the best (lowest) single-leg rank, then on the number of legs that found the document,
then on the id, so the order is deterministic.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)

#: DESIGN §1/§6; the effective value comes from ``settings.retrieval.rrf_k``.
DEFAULT_RRF_K = 60

SCORE = "score"
RRF = "rrf"
FUSION_METHODS: tuple[str, ...] = (SCORE, RRF)
#: The method ``hybrid_search`` uses unless told otherwise (see docs/retrieval.md).
DEFAULT_FUSION = SCORE


@dataclass(frozen=True)
class Fused(Generic[K]):
    key: K
    score: float
    ranks: dict[str, int] = field(default_factory=dict)


def rrf_fuse(
    rankings: Mapping[str, Sequence[K]], *, k: int = DEFAULT_RRF_K, depth: int | None = None
) -> list[Fused[K]]:
    """Fuse ranked lists (best first) given per leg name; each list's first item is rank 1.

    ``depth`` cuts each list before fusing (None: use it whole). A key repeated in one
    list keeps its first (best) rank.
    """
    if k < 0:
        raise ValueError("rrf k must be >= 0")
    scores: dict[K, float] = {}
    ranks: dict[K, dict[str, int]] = {}
    for leg, ranked in rankings.items():
        items = ranked if depth is None else ranked[:depth]
        for rank, key in enumerate(items, start=1):
            leg_ranks = ranks.setdefault(key, {})
            if leg in leg_ranks:
                continue
            leg_ranks[leg] = rank
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
    return _ordered(scores, ranks)


def score_fuse(
    rankings: Mapping[str, Sequence[tuple[K, float]]], *, depth: int | None = None
) -> list[Fused[K]]:
    """Relative-score fusion of ``(key, score)`` lists given per leg name, best first.

    Each list's scores are min-max normalised to [0, 1] over the list (cut to ``depth``
    first when given); a list whose scores are all equal gives 1 to each. A key repeated
    in one list keeps its first (best) entry; the repeats are dropped before normalising.
    """
    scores: dict[K, float] = {}
    ranks: dict[K, dict[str, int]] = {}
    for leg, ranked in rankings.items():
        items = ranked if depth is None else ranked[:depth]
        first: dict[K, tuple[int, float]] = {}
        for rank, (key, value) in enumerate(items, start=1):
            first.setdefault(key, (rank, float(value)))
        if not first:
            continue
        lo = min(v for _, v in first.values())
        span = max(v for _, v in first.values()) - lo
        for key, (rank, value) in first.items():
            ranks.setdefault(key, {})[leg] = rank
            norm = (value - lo) / span if span > 0 else 1.0
            scores[key] = scores.get(key, 0.0) + norm
    return _ordered(scores, ranks)


def _ordered(scores: dict[K, float], ranks: dict[K, dict[str, int]]) -> list[Fused[K]]:
    order = sorted(
        scores,
        key=lambda key: (-scores[key], min(ranks[key].values()), -len(ranks[key]), _sortable(key)),
    )
    return [Fused(key, scores[key], dict(ranks[key])) for key in order]


def _sortable(key: Hashable) -> str:
    return f"{key:020d}" if isinstance(key, int) else str(key)
