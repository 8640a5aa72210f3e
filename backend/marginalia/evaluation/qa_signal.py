"""How well the answer's ``evidence_score`` separates answerable from unanswerable items.

- :func:`roc_auc`: the probability that a random answerable item scores above a random
  unanswerable one (ties count one half) — the Mann–Whitney statistic, threshold-free.
- :func:`bootstrap_auc`: its 95% percentile interval over :data:`BOOTSTRAP_REPS`
  stratified resamples (answerable and unanswerable items each drawn with replacement,
  a fixed seed, so a report is reproducible).
- :func:`threshold_curve`: the answer rate (answerable items with score ≥ t) and the
  refusal rate (unanswerable items with score < t) at every distinct score, thinned to
  at most :data:`CURVE_POINTS` points; it describes the gate's trade-off on the set it was
  measured on — reading a threshold off it would be fitting on that set.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from marginalia.evaluation.stats import rate

BOOTSTRAP_REPS = 2000
BOOTSTRAP_SEED = 17
CURVE_POINTS = 25


def roc_auc(positives: Sequence[float], negatives: Sequence[float]) -> float | None:
    """P(score of an answerable item > score of an unanswerable one), ties ½; None when
    either side is empty."""
    if not positives or not negatives:
        return None
    wins = 0.0
    for p in positives:
        for n in negatives:
            wins += 1.0 if p > n else 0.5 if p == n else 0.0
    return wins / (len(positives) * len(negatives))


def bootstrap_auc(
    positives: Sequence[float],
    negatives: Sequence[float],
    *,
    reps: int = BOOTSTRAP_REPS,
    seed: int = BOOTSTRAP_SEED,
) -> tuple[float, float] | None:
    """The 2.5th and 97.5th percentiles of :func:`roc_auc` over stratified resamples."""
    if not positives or not negatives:
        return None
    rng = random.Random(seed)
    values = []
    for _ in range(reps):
        pos = [rng.choice(positives) for _ in positives]
        neg = [rng.choice(negatives) for _ in negatives]
        auc = roc_auc(pos, neg)
        assert auc is not None
        values.append(auc)
    values.sort()
    lo = values[int(0.025 * (reps - 1))]
    hi = values[round(0.975 * (reps - 1))]
    return (lo, hi)


def threshold_curve(
    positives: Sequence[float], negatives: Sequence[float], *, points: int = CURVE_POINTS
) -> list[dict[str, Any]]:
    """``[{"threshold", "answer_rate", "refusal_rate"}]`` at (thinned) distinct scores,
    ascending; an item is answered when its score ≥ the threshold."""
    distinct = sorted({*positives, *negatives})
    if not distinct:
        return []
    if len(distinct) > points:
        step = (len(distinct) - 1) / (points - 1)
        distinct = sorted({distinct[round(i * step)] for i in range(points)})
    return [
        {
            "threshold": t,
            "answer_rate": rate(sum(1 for v in positives if v >= t), len(positives)),
            "refusal_rate": rate(sum(1 for v in negatives if v < t), len(negatives)),
        }
        for t in distinct
    ]


def best_on_curve(
    positives: Sequence[float], negatives: Sequence[float], *, min_refusal: float = 0.9
) -> dict[str, Any] | None:
    """The highest answer rate any threshold reaches with refusal ≥ ``min_refusal`` on
    these very items (an oracle bound, not a fitted threshold)."""
    best: tuple[int, int, float] | None = None
    for t in sorted({*positives, *negatives, float("inf")}):
        refused = sum(1 for v in negatives if v < t)
        if negatives and refused < min_refusal * len(negatives) - 1e-12:
            continue
        answered = sum(1 for v in positives if v >= t)
        if best is None or (answered, refused) > (best[0], best[1]):
            best = (answered, refused, t)
    if best is None:
        return None
    return {
        "min_refusal": min_refusal,
        "threshold": None if best[2] == float("inf") else best[2],
        "answer_rate": rate(best[0], len(positives)),
        "refusal_rate": rate(best[1], len(negatives)),
    }


def signal_report(outcomes: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """AUC with its bootstrap interval, the curve and the oracle point: for first
    questions against unanswerable items, and for follow-ups against the same."""
    neg = [float(o["evidence_score"] or 0.0) for o in outcomes if not o["answerable"]]
    out: dict[str, Any] = {"n_unanswerable": len(neg)}
    groups = {
        "first_questions": [o for o in outcomes if o["answerable"] and not o.get("follow_up_of")],
        "follow_ups": [o for o in outcomes if o["answerable"] and o.get("follow_up_of")],
        "all_answerable": [o for o in outcomes if o["answerable"]],
    }
    for name, members in groups.items():
        pos = [float(o["evidence_score"] or 0.0) for o in members]
        ci = bootstrap_auc(pos, neg)
        out[name] = {
            "n_answerable": len(pos),
            "auc": roc_auc(pos, neg),
            "auc_ci95": None if ci is None else list(ci),
        }
    pos_all = [float(o["evidence_score"] or 0.0) for o in groups["all_answerable"]]
    out["curve"] = threshold_curve(pos_all, neg)
    out["best_at_refusal_0.9"] = best_on_curve(pos_all, neg)
    return out
