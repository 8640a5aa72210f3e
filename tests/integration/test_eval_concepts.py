"""`marginalia eval concepts` end to end on two small Markdown documents: real ingest, the
real knowledge update (offline engine), each source's concepts read as the product ranks
them, scored against a tiny gold set; the throwaway workspace is gone afterwards."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import text

from marginalia.evaluation.concepts import build_report, load_gold, predicted_concepts
from marginalia.runtime import Runtime

DOC_A = """# Heparin prophylaxis after trauma

## Abstract

Low molecular weight heparin (LMWH) prevents deep vein thrombosis (DVT) after major trauma.
We compare enoxaparin with unfractionated heparin in trauma patients.

## Methods

Patients received enoxaparin or unfractionated heparin. Deep vein thrombosis was detected by
duplex ultrasound. Low molecular weight heparin was given twice daily. Enoxaparin dosing was
adjusted for weight. Unfractionated heparin was given three times daily.

## Results

Enoxaparin reduced deep vein thrombosis compared with unfractionated heparin (p < 0.05).
Bleeding was rare with low molecular weight heparin.
"""

DOC_B = """# Citation graphs for scientific document embeddings

## Abstract

We train a transformer on the citation graph to learn document embeddings. A triplet loss
pulls cited papers together. SciBERT initialises the encoder.

## Method

The triplet loss uses hard negatives drawn from the citation graph. SciBERT is fine-tuned
with the triplet loss. The citation graph has millions of papers. Hard negatives improve the
document embeddings.
"""


async def _eval_workspaces(services: Runtime) -> int:
    async with services.db.session() as session:
        row = (
            await session.execute(
                text("SELECT count(*) FROM workspaces WHERE name LIKE 'eval-concepts-%'")
            )
        ).first()
    return int(row[0]) if row else 0


async def test_concept_eval_end_to_end(services: Runtime, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text(DOC_A, encoding="utf-8")
    (docs / "b.md").write_text(DOC_B, encoding="utf-8")
    gold_path = tmp_path / "gold.jsonl"
    rows = [
        {
            "doc": "a.md",
            "concepts": [
                {"name": "low molecular weight heparin", "level": 1, "aliases": ["LMWH"]},
                {"name": "deep vein thrombosis", "level": 1, "aliases": ["DVT"]},
                {"name": "enoxaparin", "level": 2, "aliases": []},
                {"name": "unfractionated heparin", "level": 1, "aliases": []},
            ],
            "junk": ["patients", "weight"],
        },
        {
            "doc": "b.md",
            "concepts": [
                {"name": "citation graph", "level": 0, "aliases": []},
                {"name": "triplet loss", "level": 1, "aliases": []},
                {"name": "SciBERT", "level": 1, "aliases": []},
                {"name": "hard negatives", "level": 1, "aliases": []},
            ],
            "junk": ["papers", "encoder"],
        },
    ]
    gold_path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    gold = load_gold(gold_path)
    before = await _eval_workspaces(services)

    predicted, cost = await predicted_concepts(services, [docs / "a.md", docs / "b.md"])
    assert await _eval_workspaces(services) == before  # the throwaway workspace is deleted
    assert cost["knowledge"]["status"] == "ok"
    assert set(predicted) == {"a.md", "b.md"}
    assert all(predicted[d] for d in predicted)

    report = build_report(gold, predicted, set_path=gold_path, docs_dir=docs, cost=cost)
    for metric in ("precision@10", "recall", "generic_rate", "level_agreement"):
        r = report["overall"][metric]
        assert set(r) >= {"value", "k", "n", "ci95"}
    assert report["overall"]["recall"]["n"] == 8
    assert report["overall"]["precision@10"]["n"] == sum(
        min(10, len(p)) for p in predicted.values()
    )
    by_doc = {s["doc"]: s for s in report["per_source"]}
    assert by_doc["a.md"]["concepts"] == len(predicted["a.md"])
    # the product finds the obvious ones in these short texts
    assert report["overall"]["recall"]["k"] >= 4
    assert {"recalled", "missed", "top10", "generic", "junk_hits"} <= set(by_doc["b.md"])
