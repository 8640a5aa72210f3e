"""Fitting the refusal threshold on synthetic evidence scores."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from marginalia.evaluation.calibrate import build_calibration, fit_threshold
from marginalia.evaluation.qa_scoring import QAItem


def test_separable_scores_give_the_midpoint_of_the_gap() -> None:
    fit = fit_threshold([0.6, 0.7, 0.8], [0.1, 0.2, 0.3], min_refusal=0.9)
    assert fit.threshold == pytest.approx(0.45)
    assert (fit.answered, fit.refused) == (3, 3)
    assert (fit.below, fit.above) == (0.3, 0.6)


def test_overlapping_scores_meet_the_refusal_target_and_maximise_answers() -> None:
    pos = [0.40, 0.50, 0.55, 0.60, 0.70]
    neg = [0.10, 0.20, 0.30, 0.35, 0.38, 0.41, 0.42, 0.45, 0.47, 0.52]  # 10 items
    fit = fit_threshold(pos, neg, min_refusal=0.9)
    # 9 of 10 negatives must be refused: threshold above 0.47, so 0.50 is the lowest answered.
    assert fit.refused == 9 and fit.answered == 4
    assert fit.threshold == pytest.approx((0.47 + 0.50) / 2)
    strict = fit_threshold(pos, neg, min_refusal=1.0)
    assert strict.refused == 10 and strict.answered == 3
    assert strict.threshold == pytest.approx((0.52 + 0.55) / 2)
    loose = fit_threshold(pos, neg, min_refusal=0.0)
    assert loose.answered == 5 and loose.threshold == pytest.approx((0.38 + 0.40) / 2)


def test_ties_between_answer_counts_prefer_more_refusals() -> None:
    # Any threshold in (0.2, 0.9] answers the single positive; the best also refuses 0.3.
    fit = fit_threshold([0.9], [0.1, 0.2, 0.3], min_refusal=0.5)
    assert fit.answered == 1 and fit.refused == 3
    assert fit.threshold == pytest.approx(0.6)


def test_edges_everything_refused_and_everything_answered() -> None:
    fit = fit_threshold([0.1], [0.5], min_refusal=1.0)
    assert fit.answered == 0 and fit.refused == 1
    assert fit.threshold > 0.5 and fit.threshold == math.nextafter(0.5, math.inf)
    # With no refusal target, answering everything wins: the lowest score is the threshold.
    low = fit_threshold([0.1, 0.9], [0.5], min_refusal=0.0)
    assert low.answered == 2 and low.refused == 0 and low.threshold == pytest.approx(0.1)


def test_fit_needs_unanswerable_scores_and_a_valid_target() -> None:
    with pytest.raises(ValueError, match="unanswerable"):
        fit_threshold([0.5], [])
    with pytest.raises(ValueError):
        fit_threshold([0.5], [0.1], min_refusal=1.5)


def test_calibration_document_has_the_fields_the_answer_layer_reads() -> None:
    from marginalia.answer.calibration import SIGNAL, Calibration

    items = [QAItem(f"a{i}", "q", True, "x.pdf", ("g",)) for i in range(3)]
    items += [QAItem(f"u{i}", "q", False, None, ()) for i in range(2)]
    scores = [0.6, 0.7, 0.8, 0.1, 0.2]
    doc = build_calibration(
        list(zip(items, scores, strict=True)),
        set_path=Path("eval/qa/dev.jsonl"),
        split="all",
        docs_dir=Path("docs"),
        files=["x.pdf"],
        signal=SIGNAL,
    )
    assert doc["threshold"] == pytest.approx(0.4)
    assert doc["fitted_on"]["n_answerable"] == 3 and doc["fitted_on"]["n_unanswerable"] == 2
    assert doc["expected_on_fit_set"]["refusal_rate"]["k"] == 2
    assert {"method", "created_at", "scores", "sweep"} <= set(doc)
    Calibration.model_validate(doc)
