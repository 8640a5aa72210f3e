"""Reciprocal rank fusion (Cormack et al., 2009).

    score(d) = Σ_legs 1 / (k + rank_leg(d)),  rank starting at 1

A document absent from a leg contributes nothing for that leg. Ties break on the best
(lowest) single-leg rank, then on the number of legs that found the document, then on
the id, so the order is deterministic.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)

#: DESIGN §1/§6; the effective value comes from ``settings.retrieval.rrf_k``.
DEFAULT_RRF_K = 60


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
    order = sorted(
        scores,
        key=lambda key: (-scores[key], min(ranks[key].values()), -len(ranks[key]), _sortable(key)),
    )
    return [Fused(key, scores[key], dict(ranks[key])) for key in order]


def _sortable(key: Hashable) -> str:
    return f"{key:020d}" if isinstance(key, int) else str(key)
