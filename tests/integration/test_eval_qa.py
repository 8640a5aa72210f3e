"""`marginalia eval calibrate` + `eval qa` end to end on a 3-item set over two shared PDFs.

Real ingest, real retrieval and the real answer layer (offline engine); the knowledge
update is skipped to keep the test short (the full run does it).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text

from marginalia.runtime import Runtime

pytest.importorskip(
    "marginalia.answer.service",
    reason="the answer layer (marginalia.answer.service) is not there yet",
)

from marginalia.answer.calibration import SIGNAL, Calibration
from marginalia.evaluation.calibrate import build_calibration, collect_scores
from marginalia.evaluation.qa import evaluate, write_reports
from marginalia.evaluation.qa_scoring import load_qa_set

pytestmark = pytest.mark.slow

DOCS = ("specter-acl2020.pdf", "trauma-bmc2010.pdf")
ITEMS = [
    {
        "id": "a1",
        "question": "On what hardware and for how many epochs was SPECTER trained?",
        "answerable": True,
        "doc": "specter-acl2020.pdf",
        "gold_quotes": [
            "We train the model on a single Titan V GPU (12G memory) for 2 epochs, with batch size of 4"
        ],
    },
    {
        "id": "a2",
        "question": "What bleeding and heparin-induced thrombocytopenia risks did the review calculate?",
        "answerable": True,
        "doc": "trauma-bmc2010.pdf",
        "gold_quotes": [
            "In this review we calculated the risk of bleeding and HIT to be 3.9% and 0.7% respectively."
        ],
    },
    {
        "id": "f1",
        "question": "And with what batch size?",
        "answerable": True,
        "doc": "specter-acl2020.pdf",
        "follow_up_of": "a1",
        "gold_quotes": [
            "We train the model on a single Titan V GPU (12G memory) for 2 epochs, with batch size of 4"
        ],
    },
    {
        "id": "u1",
        "question": "What is the boiling point of ethanol at sea level?",
        "answerable": False,
        "doc": None,
        "gold_quotes": [],
    },
]


async def _eval_workspaces(services: Runtime) -> int:
    async with services.db.session() as session:
        row = (
            await session.execute(text("SELECT count(*) FROM workspaces WHERE name LIKE 'eval-%'"))
        ).first()
    return int(row[0]) if row else 0


async def test_calibrate_then_qa_eval(services: Runtime, shared_data: Path, tmp_path: Path) -> None:
    pdfs = shared_data / "pdfs"
    files = [pdfs / name for name in DOCS]
    for f in files:
        if not f.is_file():
            pytest.skip(f"{f} is not in the shared data")
    set_path = tmp_path / "mini.jsonl"
    set_path.write_text("\n".join(json.dumps(it) for it in ITEMS) + "\n", encoding="utf-8")
    items = load_qa_set(set_path)
    before = await _eval_workspaces(services)

    scored, run = await collect_scores(
        services, items, files, set_path=set_path, split="all", knowledge=False
    )
    assert [it.id for it, _ in scored] == ["a1", "a2", "f1", "u1"]
    assert all(0.0 <= s <= 1.0 for _, s in scored)
    assert run["workspace_id"] is None  # deleted
    doc = build_calibration(
        scored,
        set_path=set_path,
        split="all",
        docs_dir=pdfs,
        files=list(DOCS),
        min_refusal=1.0,
        signal=SIGNAL,
    )
    calibration = Calibration.model_validate(doc)
    assert doc["expected_on_fit_set"]["refusal_rate"]["k"] == 1

    report = await evaluate(
        services,
        items,
        files,
        set_path=set_path,
        docs_dir=pdfs,
        knowledge=False,
        calibration=calibration,
    )
    for key in ("recall@8", "answer_rate", "refusal_rate", "citation_precision", "faithfulness"):
        r = report[key]
        assert set(r) >= {"value", "k", "n", "ci95"}, key
        if r["n"]:
            lo, hi = r["ci95"]
            assert 0.0 <= lo <= r["value"] <= hi <= 1.0
    assert report["recall@8"]["n"] == 3
    assert report["answer_rate"]["n"] == 3
    # The follow-up was asked after its parent, with it as history: it retrieves the
    # parent's passage although "And with what batch size?" names nothing.
    assert report["by_kind"]["follow_ups"]["answer_rate"]["n"] == 1
    assert report["by_kind"]["first_questions"]["answer_rate"]["n"] == 2
    follow_up = next(o for o in report["items"] if o["id"] == "f1")
    assert follow_up["follow_up_of"] == "a1" and follow_up["retrieval_hit"]
    signal = report["evidence_signal"]
    assert signal["n_unanswerable"] == 1 and signal["first_questions"]["n_answerable"] == 2
    assert signal["curve"] and 0.0 <= signal["all_answerable"]["auc"] <= 1.0
    assert report["refusal_rate"]["n"] == 1
    # The threshold was fitted to refuse the unanswerable item on these very scores.
    assert report["refusal_rate"]["k"] == 1
    # Invariant 3 seen from outside: every kept claim quotes the passage it cites.
    assert report["citation_precision"]["value"] in (None, 1.0)
    assert len(report["items"]) == 4
    for outcome in report["items"]:
        assert outcome["stage"] in (None, "retrieval", "refusal", "citation", "faithfulness")
        assert outcome["success"] == (outcome["stage"] is None)
    assert report["refusal_threshold"]["thresholds"] == [calibration.threshold]
    assert set(report["cost"]) >= {"total_s", "ingest_s", "answer_s", "model_calls", "retries"}
    assert report["cost"]["model_calls"] == 0  # offline engine
    assert report["run"]["workspace_id"] is None
    assert await _eval_workspaces(services) == before

    json_path, md_path = write_reports(report, tmp_path / "reports")
    assert json_path.name == "qa-mini.json"
    assert json.loads(json_path.read_text())["set"]["n_items"] == 4
    assert "recall@8" in md_path.read_text()
