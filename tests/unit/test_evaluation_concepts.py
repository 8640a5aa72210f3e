"""The concept eval's scoring: matching, precision@10, recall, generic words, levels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from marginalia.errors import ValidationFailed
from marginalia.evaluation.concepts import (
    GoldConcept,
    GoldDoc,
    Predicted,
    aggregate,
    build_report,
    is_generic_word,
    load_gold,
    match_key,
    score_doc,
)

REPO = Path(__file__).resolve().parents[2]

GOLD = GoldDoc(
    doc="specter.pdf",
    concepts=(
        GoldConcept(
            "SPECTER", 2, ("Scientific Paper Embeddings using Citation-informed TransformERs",)
        ),
        GoldConcept("pretrained language model", 0, ("pretrained LMs",)),
        GoldConcept("triplet loss", 1, ()),
        GoldConcept("SciBERT", 1, ()),
    ),
    junk=("document", "train"),
)


def test_match_key_is_case_space_hyphen_and_plural_insensitive() -> None:
    assert match_key("Pre-trained Language Models") == match_key("pretrained language model")
    assert match_key("Triplet  losses") == match_key("triplet loss")
    assert match_key("LLMs") == match_key("LLM")
    assert match_key("SPECTER") != match_key("SciBERT")


def test_generic_word_is_one_plain_word() -> None:
    assert is_generic_word("document")
    assert is_generic_word("Department")
    assert not is_generic_word("SciBERT")
    assert not is_generic_word("S2ORC")
    assert not is_generic_word("Tyr369")
    assert not is_generic_word("triplet loss")


def test_score_counts_each_gold_concept_once_and_matches_aliases() -> None:
    predicted = [
        Predicted(
            "SPECTER", 2, ("Scientific Paper Embeddings using Citation-Informed Transformers",)
        ),
        Predicted("Scientific paper embeddings using citation-informed transformers", 1),
        Predicted("document", 1),
        Predicted("pretrained LM", 1),
        Predicted("train", 0),
    ]
    score = score_doc(GOLD, predicted)
    # SPECTER matched once (the duplicate is not a second hit), the LM alias matches
    assert score.hits_at_k == 2 and score.k_shown == 5
    assert score.recalled == ["SPECTER", "pretrained language model"]
    assert score.generic == ["document", "train"]
    assert score.junk_hits == ["document", "train"]
    assert score.level_pairs == [("SPECTER", 2, 2), ("pretrained language model", 0, 1)]
    m = score.metrics()
    assert m["precision@10"]["value"] == pytest.approx(2 / 5)
    assert m["recall"]["value"] == pytest.approx(2 / 4)
    assert m["generic_rate"]["k"] == 2 and m["generic_rate"]["n"] == 5
    assert m["level_agreement"]["value"] == pytest.approx(0.5)
    assert set(m["recall"]) >= {"value", "k", "n", "ci95"}


def test_precision_looks_at_the_first_ten_only() -> None:
    filler = [Predicted(f"filler phrase {i}", 1) for i in range(10)]
    score = score_doc(GOLD, [*filler, Predicted("triplet loss", 1)])
    assert score.hits_at_k == 0 and score.k_shown == 10
    assert score.recalled == ["triplet loss"]  # recall looks at every concept


def test_no_concepts_has_undefined_precision_and_zero_recall() -> None:
    m = score_doc(GOLD, []).metrics()
    assert m["precision@10"]["value"] is None and m["precision@10"]["n"] == 0
    assert m["recall"]["value"] == 0.0


def test_aggregate_pools_counts_over_sources() -> None:
    a = score_doc(GOLD, [Predicted("SciBERT", 1), Predicted("files", 1)])
    b = score_doc(GOLD, [Predicted("triplet loss", 1)])
    overall = aggregate([a, b])
    assert overall["precision@10"]["k"] == 2 and overall["precision@10"]["n"] == 3
    assert overall["recall"]["n"] == 8 and overall["recall"]["k"] == 2
    assert overall["generic_rate"]["k"] == 1


def test_report_has_per_source_and_overall(tmp_path: Path) -> None:
    report = build_report(
        [GOLD],
        {"specter.pdf": [Predicted("SPECTER", 2), Predicted("document", 1)]},
        set_path=tmp_path / "gold.jsonl",
        docs_dir=tmp_path,
    )
    assert set(report["overall"]) == {"precision@10", "recall", "generic_rate", "level_agreement"}
    (row,) = report["per_source"]
    assert row["doc"] == "specter.pdf" and row["concepts"] == 2
    assert "triplet loss" in row["missed"]
    assert report["min_concepts_per_source"] == 2
    json.dumps(report)


def test_load_gold_reads_the_shipped_sets_and_refuses_bad_rows(tmp_path: Path) -> None:
    gold = load_gold(REPO / "eval" / "concepts" / "gold.jsonl")
    assert len(gold) == 9 and all(8 <= len(g.concepts) <= 12 for g in gold)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"doc": "x.pdf"}\n', encoding="utf-8")
    with pytest.raises(ValidationFailed):
        load_gold(bad)
    with pytest.raises(ValidationFailed):
        load_gold(tmp_path / "absent.jsonl")
