"""The answerability gate: features, the logistic model, its calibration file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from marginalia.answer import gate
from marginalia.answer.calibration import (
    GATE_SIGNAL,
    CalibrationError,
    load_calibration,
)
from marginalia.answer.schemas import Passage
from marginalia.evaluation.calibrate_gate import folds_of, out_of_fold
from marginalia.evaluation.qa_scoring import QAItem

PASSAGES = [
    Passage(
        n=1,
        document="SPECTER",
        score=1.0,
        text="SPECTER is trained on citation triplets built from the citation graph.",
    )
]


def test_salient_terms_are_named_things() -> None:
    terms = gate.salient_terms("How many triplets does SPECTER use on TREC-COVID with a V100?")
    assert terms == ["specter", "trec-covid", "v100"]
    assert gate.salient_terms("how are the hard negatives chosen?") == []


def test_a_named_system_missing_from_the_context_is_a_feature() -> None:
    ok = gate.named_missing("How are SPECTER's citation triplets built?", PASSAGES)
    absent = gate.named_missing("How are ZORBLAX's citation triplets built?", PASSAGES)
    assert ok == 0.0 and absent == 1.0


def test_features_and_leg_agreement() -> None:
    trace = {
        "legs": {
            "lexical": {"hits": [{"chunk_id": i} for i in (1, 2, 3, 4, 5)]},
            "vector": {"hits": [{"chunk_id": i} for i in (1, 2, 9, 8, 7)]},
        }
    }
    values = gate.features(
        question="How many triplets does SPECTER use?",
        sentences=[gate.SentenceView("We use 684K triplets.", 0.7, 0.6, 0.9)],
        passages=PASSAGES,
        trace=trace,
        absent_term=False,
    )
    assert set(values) == set(gate.FEATURES)
    assert values["leg_agreement"] == 0.4
    assert values["type_expected"] == 1.0 and values["type_offered"] == 1.0
    assert values["max_support"] == 0.7 and values["context_coverage"] == 0.9


def _rows() -> tuple[list[dict[str, float]], list[bool]]:
    rows, labels = [], []
    for i in range(40):
        answerable = i % 3 != 0
        rows.append(
            {
                "max_support": 0.5 + (0.2 if answerable else 0.0) + (i % 5) * 0.02,
                "named_missing": 0.0 if answerable else 1.0 * (i % 2),
                "leg_agreement": 0.2 * (i % 4),
            }
        )
        labels.append(answerable)
    return rows, labels


def test_fit_logistic_separates_and_round_trips() -> None:
    rows, labels = _rows()
    names = ("max_support", "named_missing", "leg_agreement")
    model = gate.fit_logistic(rows, labels, names=names, l2=1.0)
    probs = [model.probability(r) for r in rows]
    assert min(p for p, y in zip(probs, labels, strict=True) if y) > max(
        p for p, y in zip(probs, labels, strict=True) if not y
    )
    again = gate.GateModel.from_dict(model.as_dict())
    assert again.probability(rows[0]) == model.probability(rows[0])
    coef = dict(zip(model.features, model.coef, strict=True))
    assert coef["max_support"] > 0 and coef["named_missing"] < 0
    with pytest.raises(ValueError, match="answerable and unanswerable"):
        gate.fit_logistic(rows[:1], labels[:1])


def test_folds_keep_follow_ups_with_parents_and_out_of_fold_is_held_out() -> None:
    items = [QAItem(f"a{i}", "q", True, "d", ("g",)) for i in range(10)]
    items += [QAItem(f"u{i}", "q", False, None) for i in range(5)]
    items += [QAItem("f3", "q", True, "d", ("g",), follow_up_of="a3")]
    folds = folds_of(items, k=5)
    assert folds[-1] == folds[3]
    assert sorted(set(folds)) == [0, 1, 2, 3, 4]
    rows = [{"max_support": 0.8 if it.answerable else 0.3} for it in items]
    labels = [it.answerable for it in items]
    probs = out_of_fold(rows, labels, folds, l2=1.0)
    assert all(p > 0.5 for p, y in zip(probs, labels, strict=True) if y)


def _model() -> dict[str, object]:
    return gate.GateModel(("max_support",), (0.5,), (0.1,), (2.0,), 0.0).as_dict()


def test_a_gate_calibration_needs_a_valid_model(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"threshold": 0.5, "signal": GATE_SIGNAL, "model": _model()}))
    cal = load_calibration(path)
    model = cal.gate_model()
    assert model is not None and model.probability({"max_support": 0.5}) == 0.5
    for bad in (None, {**_model(), "scale": [0.0]}, {**_model(), "features": ["nope"]}):
        path.write_text(json.dumps({"threshold": 0.5, "signal": GATE_SIGNAL, "model": bad}))
        with pytest.raises(CalibrationError, match="model"):
            load_calibration(path)


def test_the_shipped_gate_file_holds_a_valid_model() -> None:
    from marginalia.answer.calibration import DEFAULT_PATH

    cal = load_calibration(DEFAULT_PATH.with_name("calibration-gate.json"))
    model = cal.gate_model()
    assert cal.signal == GATE_SIGNAL and model is not None
    assert set(model.features) <= set(gate.FEATURES)
