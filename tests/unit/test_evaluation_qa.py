"""The QA eval's scoring: set loading, quote matching, the stage classifier, aggregation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from marginalia.evaluation.qa_scoring import (
    AnswerView,
    ClaimView,
    PassageView,
    QAItem,
    QASetError,
    aggregate,
    classify_stage,
    contains_quote,
    load_qa_set,
    longest_common_run,
    quotes_overlap,
    score_item,
    split_items,
)

GOLD = "We train the model on a single Titan V GPU (12G memory) for 2 epochs"


def _write(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def _item(i: int, answerable: bool = True) -> dict[str, object]:
    return {
        "id": f"{'a' if answerable else 'u'}{i}",
        "question": f"question {i}?",
        "answerable": answerable,
        "doc": "x.pdf",
        "gold_quotes": [GOLD] if answerable else [],
    }


# ----------------------------------------------------------------------------- the set


def test_load_qa_set_reads_and_validates(tmp_path: Path) -> None:
    items = load_qa_set(_write(tmp_path, [_item(1), _item(2, answerable=False)]))
    assert [it.id for it in items] == ["a1", "u2"]
    assert items[0].gold_quotes == (GOLD,)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({**_item(1), "gold_quotes": []}, "needs gold quotes"),
        ({**_item(1, answerable=False), "gold_quotes": [GOLD]}, "no gold quotes"),
        ({k: v for k, v in _item(1).items() if k != "question"}, "missing field"),
        ({**_item(1), "answerable": "yes"}, "true or false"),
        ({**_item(1), "doc": None}, "names its 'doc'"),
    ],
)
def test_load_qa_set_rejects_bad_items(
    tmp_path: Path, row: dict[str, object], message: str
) -> None:
    with pytest.raises(QASetError, match=message):
        load_qa_set(_write(tmp_path, [row]))


def test_load_qa_set_rejects_duplicate_ids(tmp_path: Path) -> None:
    with pytest.raises(QASetError, match="duplicate id"):
        load_qa_set(_write(tmp_path, [_item(1), _item(1)]))


def test_split_is_deterministic_stratified_and_disjoint(tmp_path: Path) -> None:
    rows = [_item(i) for i in range(7)] + [_item(i, answerable=False) for i in range(4)]
    items = load_qa_set(_write(tmp_path, rows))
    fit, held = split_items(items, "fit"), split_items(items, "eval")
    assert {it.id for it in fit} | {it.id for it in held} == {it.id for it in items}
    assert not {it.id for it in fit} & {it.id for it in held}
    assert sum(it.answerable for it in fit) == 4 and sum(it.answerable for it in held) == 3
    assert sum(not it.answerable for it in fit) == 2 == sum(not it.answerable for it in held)
    assert split_items(items, "fit") == fit
    assert split_items(items, "all") == items


def test_the_dev_set_has_the_required_shape() -> None:
    path = Path(__file__).resolve().parents[2] / "eval" / "qa" / "dev.jsonl"
    items = load_qa_set(path)
    assert sum(it.answerable for it in items) >= 30
    assert sum(not it.answerable for it in items) >= 10


# ----------------------------------------------------------------------------- matching


def test_contains_quote_ignores_layout_but_respects_word_boundaries() -> None:
    passage = "We train the model on a single Titan V GPU (12G\nmemory) for 2 epochs, with batch"
    assert contains_quote(passage, GOLD)
    assert contains_quote(passage, "single TITAN V gpu")
    assert not contains_quote(passage, "ngle Titan")
    assert not contains_quote(passage, "")


def test_longest_common_run() -> None:
    assert longest_common_run(["a", "b", "c", "d"], ["x", "b", "c", "d", "y"]) == 3
    assert longest_common_run([], ["a"]) == 0


def test_quotes_overlap_needs_eight_shared_words() -> None:
    claim = "on a single Titan V GPU 12G memory for three days"  # 8 shared words
    assert quotes_overlap(claim, GOLD)
    assert not quotes_overlap("a single Titan V GPU and nothing else here", GOLD)  # 5 shared
    # A quote shorter than 8 words overlaps when it lies whole inside the gold quote.
    assert quotes_overlap("single Titan V GPU", GOLD)
    assert not quotes_overlap("single Titan X GPU", GOLD)


# ----------------------------------------------------------------------------- stages


@pytest.mark.parametrize(
    ("kwargs", "stage"),
    [
        (
            {
                "retrieval_hit": True,
                "refused": False,
                "kept_claims": 2,
                "valid_claims": 2,
                "faithful_claims": 1,
            },
            None,
        ),
        (
            {
                "retrieval_hit": False,
                "refused": True,
                "kept_claims": 0,
                "valid_claims": 0,
                "faithful_claims": 0,
            },
            "retrieval",
        ),
        (
            {
                "retrieval_hit": False,
                "refused": False,
                "kept_claims": 1,
                "valid_claims": 1,
                "faithful_claims": 0,
            },
            "retrieval",
        ),
        # A faithful answer is a success even when the strict recall check missed.
        (
            {
                "retrieval_hit": False,
                "refused": False,
                "kept_claims": 1,
                "valid_claims": 1,
                "faithful_claims": 1,
            },
            None,
        ),
        (
            {
                "retrieval_hit": True,
                "refused": True,
                "kept_claims": 0,
                "valid_claims": 0,
                "faithful_claims": 0,
            },
            "refusal",
        ),
        (
            {
                "retrieval_hit": True,
                "refused": True,
                "kept_claims": 0,
                "valid_claims": 0,
                "faithful_claims": 0,
                "dropped_claims": 3,
            },
            "citation",
        ),
        (
            {
                "retrieval_hit": True,
                "refused": False,
                "kept_claims": 2,
                "valid_claims": 0,
                "faithful_claims": 0,
            },
            "citation",
        ),
        (
            {
                "retrieval_hit": True,
                "refused": False,
                "kept_claims": 2,
                "valid_claims": 2,
                "faithful_claims": 0,
            },
            "faithfulness",
        ),
    ],
)
def test_classify_stage_answerable(kwargs: dict[str, object], stage: str | None) -> None:
    assert classify_stage(answerable=True, **kwargs) == stage  # type: ignore[arg-type]


def test_classify_stage_unanswerable() -> None:
    common = {"retrieval_hit": False, "valid_claims": 0, "faithful_claims": 0}
    assert classify_stage(answerable=False, refused=True, kept_claims=0, **common) is None
    assert classify_stage(answerable=False, refused=False, kept_claims=0, **common) is None
    assert classify_stage(answerable=False, refused=False, kept_claims=1, **common) == "refusal"


# ----------------------------------------------------------------------------- scoring


def _passages() -> tuple[PassageView, ...]:
    return (
        PassageView(1, "Unrelated text about something else entirely."),
        PassageView(2, "Training. " + GOLD + ", with batch size of 4."),
    )


def test_score_item_success_and_aggregate() -> None:
    ans = QAItem("a1", "q?", True, "x.pdf", (GOLD,))
    una = QAItem("u1", "q?", False, "x.pdf", ())
    good = AnswerView(
        refused=False,
        claims=(
            ClaimView("trained on a Titan V", (2,), GOLD),
            ClaimView("other", (1,), "something else entirely"),
            ClaimView("bad cite", (9,), "Unrelated text"),
        ),
        passages=_passages(),
        evidence_score=0.7,
    )
    refused = AnswerView(refused=True, passages=_passages(), evidence_score=0.2)
    o1 = score_item(ans, good)
    assert o1["retrieval_hit"] and o1["gold_ranks"] == [2]
    assert [c["cited_ok"] for c in o1["claims"]] == [True, True, False]
    assert [c["faithful"] for c in o1["claims"]] == [True, False, False]
    assert o1["stage"] is None and o1["success"]
    o2 = score_item(una, refused)
    assert o2["stage"] is None and not o2["answered"]
    o3 = score_item(ans, refused)
    assert o3["stage"] == "refusal"
    report = aggregate([o1, o2, o3])
    assert report["recall@8"]["k"] == 2 and report["recall@8"]["n"] == 2
    assert (report["answer_rate"]["k"], report["answer_rate"]["n"]) == (1, 2)
    assert (report["refusal_rate"]["k"], report["refusal_rate"]["n"]) == (1, 1)
    assert (report["citation_precision"]["k"], report["citation_precision"]["n"]) == (2, 3)
    assert (report["faithfulness"]["k"], report["faithfulness"]["n"]) == (1, 3)
    assert report["stages"]["refusal"] == 1
    for key in ("recall@8", "answer_rate", "refusal_rate", "citation_precision", "faithfulness"):
        assert set(report[key]) >= {"value", "k", "n", "ci95"}


def test_recall_counts_only_the_first_eight_passages() -> None:
    item = QAItem("a1", "q?", True, "x.pdf", (GOLD,))
    filler = tuple(PassageView(n, f"filler passage number {n}") for n in range(1, 9))
    late = (*filler, PassageView(9, GOLD))
    view = AnswerView(refused=True, passages=late)
    assert score_item(item, view)["retrieval_hit"] is False
    assert score_item(item, view)["stage"] == "retrieval"


def test_aggregate_with_no_unanswerable_items_reports_undefined_rate() -> None:
    item = QAItem("a1", "q?", True, "x.pdf", (GOLD,))
    report = aggregate([score_item(item, AnswerView(refused=True))])
    assert report["refusal_rate"]["value"] is None
    assert report["refusal_rate"]["n"] == 0


def test_cli_register_adds_qa_and_calibrate() -> None:
    import typer
    from typer.testing import CliRunner

    from marginalia.cli.qa_eval_cmds import register

    group = typer.Typer()
    register(group)
    runner = CliRunner()
    for command, option in (("qa", "--set"), ("calibrate", "--min-refusal")):
        result = runner.invoke(group, [command, "--help"])
        assert result.exit_code == 0, result.output
        assert option in result.output


def test_outcomes_and_evidence_at_3() -> None:
    ans = QAItem("a1", "q?", True, "x.pdf", (GOLD,))
    ans2 = QAItem("a2", "q?", True, "x.pdf", (GOLD,))
    una = QAItem("u1", "q?", False, "x.pdf", ())
    other = ("Unrelated text about something else entirely.", "More unrelated words here.")
    # gold at evidence rank 3: counts; at rank 4: does not
    third = AnswerView(
        refused=True, passages=_passages(), outcome="closest", evidence=(*other, GOLD)
    )
    fourth = AnswerView(
        refused=True,
        passages=_passages(),
        outcome="nothing",
        evidence=(*other, "third unrelated sentence of text", GOLD),
    )
    nothing = AnswerView(refused=True, outcome="nothing")
    o1, o2, o3 = score_item(ans, third), score_item(ans2, fourth), score_item(una, nothing)
    assert o1["outcome"] == "closest" and o1["evidence"][2] == GOLD
    assert o1["evidence_gold_ranks"] == [3] and o2["evidence_gold_ranks"] == [4]
    report = aggregate([o1, o2, o3])
    assert (report["evidence@3"]["k"], report["evidence@3"]["n"]) == (1, 2)
    assert (report["nothing_unanswerable"]["k"], report["nothing_unanswerable"]["n"]) == (1, 1)
    assert (report["nothing_answerable"]["k"], report["nothing_answerable"]["n"]) == (1, 2)
    assert report["answered_with_gold"]["n"] == 0
    assert report["outcomes"] == {
        "answerable": {"closest": 1, "nothing": 1},
        "unanswerable": {"nothing": 1},
    }
    assert set(report["evidence@3"]) >= {"value", "k", "n", "ci95"}
    # a view without an outcome (an older answer) is derived from `refused`
    assert score_item(ans, AnswerView(refused=True))["outcome"] == "closest"
