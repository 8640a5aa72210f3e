"""Fitting the answerability gate (:mod:`marginalia.answer.gate`) for ``eval calibrate``.

Method, all on the development set's items (their ``score_only`` gate features):

0. Out-of-fold probabilities come from stratified :data:`FOLDS`-fold cross-validation
   (answerable and unanswerable items each dealt to folds in file order; a follow-up
   always in its parent's fold).
1. Features: greedy forward selection from :data:`marginalia.answer.gate.FEATURES` (L2
   strength 1.0) — add the feature that raises the out-of-fold ROC AUC most, stop when no
   feature adds :data:`MIN_GAIN` or at :data:`MAX_FEATURES`.
2. For each L2 strength in :data:`L2_GRID`, the out-of-fold AUC of the chosen features;
   keep the best strength (ties: the stronger penalty).
2. The threshold: :func:`marginalia.evaluation.calibrate.fit_threshold` on those
   out-of-fold probabilities — the highest answer rate with refusal ≥ ``min_refusal`` —
   so it is chosen on probabilities of items the model did not see.
3. The model written is fitted on every item with that strength.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from marginalia.answer.gate import FEATURES, SIGNAL, GateModel, fit_logistic
from marginalia.evaluation.calibrate import _display_path, fit_threshold, summarize
from marginalia.evaluation.qa_scoring import AnswerView, QAItem, Split
from marginalia.evaluation.qa_signal import bootstrap_auc, roc_auc

FOLDS = 5
L2_GRID = (0.1, 0.3, 1.0, 3.0, 10.0)
MIN_GAIN = 0.005
MAX_FEATURES = 5

METHOD = (
    "logistic regression over gate features chosen by greedy forward selection on "
    "{folds}-fold out-of-fold ROC AUC (L2 strength chosen from {grid} by "
    "{folds}-fold out-of-fold ROC AUC); threshold = max answer rate with refusal >= "
    "{target} on the out-of-fold probabilities (midpoint between neighbouring scores); "
    "model refitted on every item"
)


def folds_of(items: Sequence[QAItem], k: int = FOLDS) -> list[int]:
    """A fold number per item: stratified by answerability, follow-ups with parents."""
    fold: dict[str, int] = {}
    counters = {True: 0, False: 0}
    for it in items:
        if it.follow_up_of is None:
            fold[it.id] = counters[it.answerable] % k
            counters[it.answerable] += 1
    return [fold.get(it.follow_up_of or it.id, 0) for it in items]


def out_of_fold(
    rows: Sequence[Mapping[str, float]],
    labels: Sequence[bool],
    folds: Sequence[int],
    l2: float,
    names: Sequence[str] = FEATURES,
) -> list[float]:
    """Each item's probability from a model fitted on the other folds."""
    probs = [0.0] * len(rows)
    for f in sorted(set(folds)):
        train = [i for i, g in enumerate(folds) if g != f]
        model = fit_logistic(
            [rows[i] for i in train], [labels[i] for i in train], names=names, l2=l2
        )
        for i, g in enumerate(folds):
            if g == f:
                probs[i] = model.probability(rows[i])
    return probs


def _auc(probs: Sequence[float], labels: Sequence[bool]) -> float:
    pos = [p for p, y in zip(probs, labels, strict=True) if y]
    neg = [p for p, y in zip(probs, labels, strict=True) if not y]
    return roc_auc(pos, neg) or 0.0


def forward_select(
    rows: Sequence[Mapping[str, float]], labels: Sequence[bool], folds: Sequence[int]
) -> tuple[list[str], list[dict[str, Any]]]:
    """The features greedy forward selection keeps, and each step's out-of-fold AUC."""
    chosen: list[str] = []
    steps: list[dict[str, Any]] = []
    best = 0.5
    while len(chosen) < MAX_FEATURES:
        trials = [
            (_auc(out_of_fold(rows, labels, folds, 1.0, [*chosen, f]), labels), f)
            for f in FEATURES
            if f not in chosen
        ]
        if not trials:
            break
        auc, feature = max(trials, key=lambda t: (round(t[0], 9), -FEATURES.index(t[1])))
        if auc < best + MIN_GAIN:
            break
        chosen.append(feature)
        best = auc
        steps.append({"added": feature, "oof_auc": auc})
    return (chosen or list(FEATURES)), steps


def build_gate_calibration(
    views: Sequence[tuple[QAItem, AnswerView]],
    *,
    set_path: Path,
    split: Split,
    docs_dir: Path,
    files: Sequence[str],
    min_refusal: float,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``eval/calibration.json`` document of a fitted gate."""
    items = [it for it, _ in views]
    rows = [dict(v.features) for _, v in views]
    missing = [it.id for it, row in zip(items, rows, strict=True) if set(FEATURES) - set(row)]
    if missing:
        raise ValueError(f"items without gate features: {', '.join(missing[:5])}")
    labels = [it.answerable for it in items]
    folds = folds_of(items)
    names, steps = forward_select(rows, labels, folds)
    trials = []
    for l2 in L2_GRID:
        oof = out_of_fold(rows, labels, folds, l2, names)
        trials.append((_auc(oof, labels), l2, oof))
    best_auc, l2, oof = max(trials, key=lambda t: (round(t[0], 9), t[1]))
    pos = [p for p, y in zip(oof, labels, strict=True) if y]
    neg = [p for p, y in zip(oof, labels, strict=True) if not y]
    fit = fit_threshold(pos, neg, min_refusal=min_refusal)
    model: GateModel = fit_logistic(rows, labels, names=names, l2=l2)
    in_sample = [model.probability(r) for r in rows]
    ci = bootstrap_auc(pos, neg)
    return {
        "threshold": fit.threshold,
        "signal": SIGNAL,
        "model": model.as_dict(),
        "method": METHOD.format(grid=list(L2_GRID), folds=FOLDS, target=min_refusal),
        "fitted_on": {
            "set": _display_path(set_path),
            "split": split,
            "n_answerable": len(pos),
            "n_unanswerable": len(neg),
            "docs": _display_path(docs_dir),
            "files": list(files),
        },
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "feature_selection": steps,
        "l2": l2,
        "l2_trials": [{"l2": t[1], "oof_auc": t[0]} for t in trials],
        "expected_on_fit_set": {
            **fit.as_dict(),
            "oof_auc": best_auc,
            "oof_auc_ci95": None if ci is None else list(ci),
            "in_sample_auc": roc_auc(
                [p for p, y in zip(in_sample, labels, strict=True) if y],
                [p for p, y in zip(in_sample, labels, strict=True) if not y],
            ),
        },
        "scores": {
            "answerable": summarize(pos),
            "unanswerable": summarize(neg),
            "items": [
                {
                    "id": it.id,
                    "answerable": it.answerable,
                    "fold": f,
                    "oof_probability": p,
                    "features": row,
                }
                for it, f, p, row in zip(items, folds, oof, rows, strict=True)
            ],
        },
        "warning": (
            "fitted on a development set; the threshold was chosen on out-of-fold "
            "probabilities, but report the floors on the held-out test set"
        ),
        **(extra or {}),
    }
