"""The QA eval's follow-ups and the evidence-signal report (AUC, bootstrap, curve)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from marginalia.evaluation.qa_scoring import QASetError, aggregate, load_qa_set, split_items
from marginalia.evaluation.qa_signal import (
    best_on_curve,
    bootstrap_auc,
    roc_auc,
    signal_report,
    threshold_curve,
)

GOLD = "We train the model on a single Titan V GPU (12G memory) for 2 epochs"


def _write(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def _row(i: str, answerable: bool = True, **extra: object) -> dict[str, object]:
    return {
        "id": i,
        "question": f"question {i}?",
        "answerable": answerable,
        "doc": "x.pdf",
        "gold_quotes": [GOLD] if answerable else [],
        **extra,
    }


def test_follow_up_of_is_read_and_checked(tmp_path: Path) -> None:
    items = load_qa_set(_write(tmp_path, [_row("a1"), _row("f1", follow_up_of="a1")]))
    assert items[1].follow_up_of == "a1" and items[0].follow_up_of is None
    for rows, message in (
        ([_row("a1"), _row("f1", follow_up_of="zz")], "not an answerable first question"),
        ([_row("u1", False), _row("f1", follow_up_of="u1")], "not an answerable first question"),
        (
            [_row("a1"), _row("f1", follow_up_of="a1"), _row("f2", follow_up_of="f1")],
            "not an answerable first question",
        ),
        ([_row("a1"), _row("u1", False, follow_up_of="a1")], "must be answerable"),
    ):
        with pytest.raises(QASetError, match=message):
            load_qa_set(_write(tmp_path, rows))


def test_split_keeps_a_follow_up_with_its_parent(tmp_path: Path) -> None:
    rows = [_row(f"a{i}") for i in range(4)] + [
        _row("f0", follow_up_of="a0"),
        _row("f1", follow_up_of="a1"),
        _row("u0", False),
        _row("u1", False),
    ]
    items = load_qa_set(_write(tmp_path, rows))
    fit = {it.id for it in split_items(items, "fit")}
    held = {it.id for it in split_items(items, "eval")}
    assert fit == {"a0", "a2", "f0", "u0"}
    assert held == {"a1", "a3", "f1", "u1"}


def _outcome(score: float, answerable: bool, follow_up: bool = False) -> dict[str, object]:
    return {
        "answerable": answerable,
        "follow_up_of": "a" if follow_up else None,
        "evidence_score": score,
        "answered": score >= 0.5,
        "retrieval_hit": True if answerable else None,
        "success": answerable and score >= 0.5,
        "faithful_claims": 1 if answerable and score >= 0.5 else (0 if answerable else None),
        "claims": [],
        "dropped": [],
        "stage": None,
    }


def test_aggregate_reports_follow_ups_separately() -> None:
    outcomes = [_outcome(0.9, True), _outcome(0.4, True), _outcome(0.6, True, follow_up=True)]
    by_kind = aggregate(outcomes)["by_kind"]
    assert by_kind["first_questions"]["answer_rate"]["k"] == 1
    assert by_kind["first_questions"]["answer_rate"]["n"] == 2
    assert by_kind["follow_ups"]["answer_rate"]["k"] == 1
    assert by_kind["follow_ups"]["answer_rate"]["n"] == 1


def test_roc_auc_counts_pairs_and_ties() -> None:
    assert roc_auc([0.9, 0.8], [0.1, 0.2]) == 1.0
    assert roc_auc([0.1], [0.9]) == 0.0
    assert roc_auc([0.5], [0.5]) == 0.5
    assert roc_auc([0.9, 0.3], [0.5]) == 0.5
    assert roc_auc([], [0.1]) is None


def test_bootstrap_interval_brackets_the_auc_and_is_reproducible() -> None:
    pos = [0.9, 0.8, 0.55, 0.7, 0.4, 0.65]
    neg = [0.3, 0.5, 0.6, 0.2]
    auc = roc_auc(pos, neg)
    assert auc is not None
    ci = bootstrap_auc(pos, neg, reps=500)
    assert ci is not None
    lo, hi = ci
    assert 0.0 <= lo <= auc <= hi <= 1.0 and lo < hi
    assert bootstrap_auc(pos, neg, reps=500) == ci
    assert bootstrap_auc([1.0, 0.9], [0.1, 0.2], reps=200) == (1.0, 1.0)


def test_threshold_curve_trades_answers_for_refusals() -> None:
    pos, neg = [0.9, 0.7, 0.5], [0.6, 0.3]
    curve = threshold_curve(pos, neg)
    assert [p["threshold"] for p in curve] == [0.3, 0.5, 0.6, 0.7, 0.9]
    answers = [p["answer_rate"]["k"] for p in curve]
    refusals = [p["refusal_rate"]["k"] for p in curve]
    assert answers == [3, 3, 2, 2, 1]
    assert refusals == [0, 1, 1, 2, 2]
    assert len(threshold_curve([i / 100 for i in range(100)], [0.5], points=10)) <= 10
    best = best_on_curve(pos, neg, min_refusal=0.9)
    assert best is not None and best["threshold"] == 0.7 and best["answer_rate"]["k"] == 2


def test_signal_report_separates_follow_ups() -> None:
    outcomes = [
        _outcome(0.9, True),
        _outcome(0.8, True),
        _outcome(0.2, True, follow_up=True),
        _outcome(0.5, False),
        _outcome(0.3, False),
    ]
    sig = signal_report(outcomes)
    assert sig["first_questions"]["auc"] == 1.0
    assert sig["follow_ups"]["auc"] == 0.0
    assert sig["all_answerable"]["n_answerable"] == 3
    assert sig["curve"] and sig["best_at_refusal_0.9"]["refusal_rate"]["k"] == 2
