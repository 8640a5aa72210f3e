"""The keyed QA sets, their overlap gate, the unarXive renderer and the concept gold checks."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from marginalia.evaluation.qa import load_qa_set
from marginalia.ingest import parse_document

ROOT = Path(__file__).resolve().parents[2]
QA = ROOT / "eval" / "qa"
CONCEPTS = ROOT / "eval" / "concepts"
SHARED = ROOT.parent / "shared" / "data"


def _load(path: Path) -> ModuleType:
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))  # the scripts import their siblings by name
    spec = importlib.util.spec_from_file_location(f"evalscript_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


overlap = _load(QA / "overlap.py")
render_unarxive = _load(QA / "render_unarxive.py")
verify_gold = _load(QA / "verify_gold.py")
check_gold = _load(CONCEPTS / "check_gold.py")
replay = _load(CONCEPTS / "replay.py")


# ----------------------------------------------------------------------------- overlap


def test_fold_is_the_documented_suffix_rule() -> None:
    assert overlap.fold("studies") == "study"
    assert overlap.fold("classes") == "class"
    assert overlap.fold("citations") == "citation"
    assert overlap.fold("trained") == overlap.fold("training") == "train"
    assert overlap.fold("corpus") == "corpus" and overlap.fold("analysis") == "analysis"
    assert overlap.fold("bed") == "bed"  # short words are never folded


def test_a_copied_question_scores_high_and_a_paraphrase_low() -> None:
    quote = "We train the model on a single Titan V GPU (12G memory) for 2 epochs"
    copied, _, _ = overlap.item_overlap(
        "On a single Titan V GPU, how many epochs was the model trained?", [quote]
    )
    paraphrase, _, missing = overlap.item_overlap(
        "What hardware was the system fitted on?", [quote]
    )
    assert copied > 0.8
    assert paraphrase == 0.0 and "hardware" in missing


@pytest.mark.parametrize("name", ["dev.jsonl", "test.jsonl"])
def test_the_sets_pass_the_overlap_gate(name: str) -> None:
    report = overlap.measure(QA / name)
    assert report["first_questions"]["median"] <= 0.2
    assert overlap.main(["--set", str(QA / name)]) == 0


def test_the_old_dev_set_fails_the_gate() -> None:
    assert overlap.measure(QA / "dev-v1.jsonl")["first_questions"]["median"] > 0.3
    assert overlap.main(["--set", str(QA / "dev-v1.jsonl")]) == 1


# ----------------------------------------------------------------------------- set shape


@pytest.mark.parametrize(
    ("name", "first", "unanswerable"), [("dev.jsonl", 52, 15), ("test.jsonl", 30, 10)]
)
def test_set_counts_and_follow_ups(name: str, first: int, unanswerable: int) -> None:
    path = QA / name
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert sum(r["answerable"] and not r.get("follow_up_of") for r in rows) >= first
    assert sum(not r["answerable"] for r in rows) >= unanswerable
    assert sum(1 for r in rows if r["doc"] is None) >= 2  # off-corpus questions
    failures, follow_ups = verify_gold.follow_up_failures(path)
    assert failures == [] and follow_ups >= 8
    assert len(load_qa_set(path)) == len(rows)  # the eval's loader accepts the new field


def test_a_dangling_follow_up_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "set.jsonl"
    rows = [
        {"id": "a", "question": "q?", "answerable": False, "doc": None, "gold_quotes": []},
        {
            "id": "b",
            "question": "And?",
            "answerable": True,
            "doc": "x.md",
            "follow_up_of": "a",
            "gold_quotes": ["one two three four five six seven eight"],
        },
        {
            "id": "c",
            "question": "And?",
            "answerable": True,
            "doc": "x.md",
            "follow_up_of": "zz",
            "gold_quotes": ["one two three four five six seven eight"],
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    failures, count = verify_gold.follow_up_failures(path)
    assert count == 2
    assert any("b: follow_up_of a" in f for f in failures)
    assert any("c: follow_up_of names no item" in f for f in failures)


# ----------------------------------------------------------------------------- rendering


def _paper(license_url: str = render_unarxive.CC_BY) -> dict[str, Any]:
    return {
        "paper_id": "0000.00001",
        "metadata": {
            "id": "0000.00001",
            "title": "A Study of\n  Widgets",
            "license": license_url,
            "categories": "cs.XX",
            "authors_parsed": [["Doe", "Jane", ""], ["Roe", "Richard", ""]],
        },
        "abstract": {"text": "  We study\nwidgets. "},
        "body_text": [
            {
                "section": "Introduction",
                "sec_number": "1",
                "content_type": "paragraph",
                "text": "Widgets matter {{cite:b1}}, as {{formula:f1}} shows.\nSecond line {{cite:b2}} {{cite:b1}} {{cite:b3}}.",
            },
            {
                "section": "Method",
                "sec_number": "2",
                "content_type": "list",
                "text": "\nfirst step\n\n# second step{{figure:g1}}\n",
            },
        ],
        "ref_entries": {"f1": {"type": "formula", "latex": "x^2"}, "g1": {"type": "figure"}},
        "bib_entries": {
            "b1": {
                "bib_entry_raw": "Ann Author and Bo Writer. 2020. Widgets in the wild: a field study. In Proceedings of the Widget Conference, pages 1–10."
            },
            "b3": {"bib_entry_raw": "Di Doer. 2019. Sprockets. Sprocket Letters, 2:1–9."},
            "b2": {
                "bib_entry_raw": "Cy Coder. 2021. Gadgets and their discontents. Journal of Gadget Research, 12(3):45–67."
            },
        },
    }


def test_render_is_deterministic_and_parses_into_sections() -> None:
    text = render_unarxive.render(_paper())
    assert text == render_unarxive.render(_paper())
    assert "# A Study of Widgets" in text and 'authors: "Jane Doe; Richard Roe"' in text
    assert "Widgets matter [1], as $x^2$ shows." in text and "Second line [2] [1] [3]." in text
    assert "- first step" in text and "- \\# second step" in text and "figure" not in text
    assert "[1] Ann Author and Bo Writer. 2020." in text and "[2] Cy Coder. 2021." in text
    parsed = parse_document(text.encode(), "0000.00001.md", max_bytes=2**20, max_pages=10)
    assert parsed.title == "A Study of Widgets" and parsed.authors == ["Jane Doe", "Richard Roe"]
    assert parsed.abstract == "We study widgets."
    assert {"Introduction", "Method", "References"} <= {s.title for s in parsed.sections}
    assert len(parsed.references) == 3  # the product splits numbered lists of >= 3


def test_render_refuses_the_repository_and_other_licences(tmp_path: Path) -> None:
    assert render_unarxive.main(["--out", str(ROOT / "eval" / "rendered")]) == 2
    source = tmp_path / "papers.jsonl"
    source.write_text(json.dumps(_paper("http://creativecommons.org/licenses/by-sa/4.0/")) + "\n")
    out = tmp_path / "out"
    assert (
        render_unarxive.main(["--out", str(out), "--source", str(source), "--ids", "0000.00001"])
        == 2
    )
    assert not out.exists()


# ----------------------------------------------------------------------------- concept gold


def test_check_gold_flags_strings_missing_from_the_text(tmp_path: Path) -> None:
    (tmp_path / "doc.md").write_text(
        "# Low-molecular-weight heparin in trauma\n\n## Abstract\n\nDeep vein\nthrombosis (DVT) "
        "and low molecular weight heparins.\n",
        encoding="utf-8",
    )
    concepts = [
        {"name": f"c{i}", "level": 1, "aliases": ["trauma"], "in_text": ["trauma"]}
        for i in range(7)
    ]
    concepts.append(
        {
            "name": "low molecular weight heparin",
            "level": 1,
            "aliases": ["LMWH", "low-molecular-weight heparin"],
            "in_text": ["low-molecular-weight heparin", "LMWH"],
        }
    )
    gold = tmp_path / "gold.jsonl"
    gold.write_text(
        json.dumps(
            {"doc": "doc.md", "concepts": concepts, "junk": ["DVT", "thrombosis", "platelet"]}
        )
        + "\n"
    )
    failures, stats = check_gold.check(gold, tmp_path)
    assert stats["concepts"] == 8
    assert failures == [
        "doc.md: 'low molecular weight heparin': 'LMWH' is not in the text",
        "doc.md: junk 'platelet' is not in the text",
    ]


def _concept_rows(name: str) -> list[dict[str, Any]]:
    lines = (CONCEPTS / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_the_heldout_concept_set_has_the_gold_shape_over_the_test_papers() -> None:
    rows = _concept_rows("heldout.jsonl")
    failures = [f for i, row in enumerate(rows, 1) for f in check_gold.shape_failures(row, str(i))]
    assert failures == []
    docs = [row["doc"] for row in rows]
    assert sorted(docs) == sorted(f"{pid}.md" for pid in render_unarxive.TEST_PAPERS)
    assert not set(docs) & {row["doc"] for row in _concept_rows("gold.jsonl")}
    levels = [c["level"] for row in rows for c in row["concepts"]]
    assert [levels.count(level) for level in (0, 1, 2)] == [37, 80, 27]  # docs/EVAL.md
    assert check_gold.names_markdown(CONCEPTS / "heldout.jsonl")
    assert not check_gold.names_markdown(CONCEPTS / "gold.jsonl")


@pytest.mark.parametrize(
    ("name", "papers", "levels"),
    [
        ("heldout2.jsonl", render_unarxive.SECOND_CONCEPT_PAPERS, [26, 68, 26]),
        ("dev2.jsonl", render_unarxive.DEV_CONCEPT_PAPERS, [36, 67, 17]),
        ("heldout3.jsonl", render_unarxive.THIRD_CONCEPT_PAPERS, [25, 70, 25]),
    ],
)
def test_the_unarxive_concept_sets_have_the_gold_shape_over_their_papers(
    name: str, papers: tuple[str, ...], levels: list[int]
) -> None:
    rows = _concept_rows(name)
    failures = [f for i, row in enumerate(rows, 1) for f in check_gold.shape_failures(row, str(i))]
    assert failures == []
    docs = [row["doc"] for row in rows]
    assert docs == [f"{pid}.md" for pid in papers]
    assert check_gold.markdown_ids(CONCEPTS / name) == list(papers)
    other_sets = {"gold.jsonl", "heldout.jsonl", "heldout2.jsonl", "dev2.jsonl", "heldout3.jsonl"}
    other_sets -= {name}
    assert not set(docs) & {row["doc"] for other in other_sets for row in _concept_rows(other)}
    found = [c["level"] for row in rows for c in row["concepts"]]
    assert [found.count(level) for level in (0, 1, 2)] == levels  # docs/EVAL.md


def test_concept_replay_ranks_as_the_extractor_and_merges_an_acronym_with_its_long_form() -> None:
    from marginalia.knowledge.sentences import ChunkText

    abstract = (
        "Low molecular weight heparin (LMWH) prevents deep venous thrombosis after trauma. "
        "We compare LMWH with mechanical compression devices."
    )
    chunk = ChunkText(
        0,
        "LMWH was given to 120 patients. Deep venous thrombosis occurred in 4 patients on "
        "LMWH and 9 with mechanical compression devices. LMWH dosing followed the protocol.",
        "results",
        "Results",
    )
    ranked = replay.ranked_concepts("LMWH against thrombosis in trauma", abstract, [chunk])
    # an initialism is titled by what it stands for (issue 35), the short form its alias
    assert ranked[0].name == "Low molecular weight heparin"
    assert "LMWH" in ranked[0].aliases
    assert len({p.name for p in ranked}) == len(ranked)  # each merged concept once


def test_check_gold_refuses_a_missing_documents_folder(tmp_path: Path) -> None:
    held_out = str(CONCEPTS / "heldout.jsonl")
    assert check_gold.main(["--set", held_out, "--docs", str(tmp_path / "absent")]) == 2
    assert check_gold.main(["--set", str(tmp_path / "absent.jsonl")]) == 2


# ----------------------------------------------------------------------------- real data


@pytest.fixture
def shared() -> Path:
    if not (SHARED / "pdfs").is_dir():
        pytest.skip(f"shared data not found at {SHARED}")
    return SHARED


def test_test_set_gold_quotes_verify_on_the_rendered_papers(shared: Path, tmp_path: Path) -> None:
    assert render_unarxive.main(["--out", str(tmp_path), "--quiet"]) == 0
    failures, counts = verify_gold.verify(QA / "test.jsonl", tmp_path, min_follow_ups=8)
    assert failures == []
    assert counts["quotes"] >= 30


def test_concept_gold_is_in_the_pdfs(shared: Path) -> None:
    failures, stats = check_gold.check(CONCEPTS / "gold.jsonl", shared / "pdfs")
    assert failures == [] and stats["documents"] == 9


def test_heldout_concept_set_is_in_the_rendered_papers(shared: Path) -> None:
    if not render_unarxive.DEFAULT_SOURCE.is_file():
        pytest.skip(f"unarXive source not found at {render_unarxive.DEFAULT_SOURCE}")
    result = check_gold.check_set(CONCEPTS / "heldout.jsonl")  # renders into a temp dir
    assert result is not None
    failures, stats = result
    assert failures == []
    assert stats["documents"] == 12 and stats["concepts"] == 144 and stats["junk"] == 60
    assert check_gold.main(["--set", str(CONCEPTS / "heldout.jsonl")]) == 0


def test_the_unarxive_concept_sets_are_the_rule_s_papers_and_in_their_text(shared: Path) -> None:
    source = render_unarxive.DEFAULT_SOURCE
    if not source.is_file():
        pytest.skip(f"unarXive source not found at {source}")
    papers = render_unarxive.load_papers(source)
    by_rule = render_unarxive.concept_set_papers(papers, n=20)
    assert by_rule[:10] == list(render_unarxive.SECOND_CONCEPT_PAPERS)
    assert by_rule[10:] == list(render_unarxive.DEV_CONCEPT_PAPERS)
    assert render_unarxive.third_concept_set_papers(papers) == list(
        render_unarxive.THIRD_CONCEPT_PAPERS
    )
    for name in ("heldout2.jsonl", "dev2.jsonl", "heldout3.jsonl"):
        result = check_gold.check_set(CONCEPTS / name)  # renders the set's 10 papers
        assert result is not None
        failures, stats = result
        assert failures == [], name
        assert stats["documents"] == 10 and stats["concepts"] == 120 and stats["junk"] == 50


def test_bibliography_gold_names_the_shared_pdfs(shared: Path) -> None:
    gold = json.loads((CONCEPTS / "bibliography_gold.json").read_text(encoding="utf-8"))
    pdfs = {p.name for p in (shared / "pdfs").glob("*.pdf")}
    assert set(gold["documents"]) == pdfs
    assert {(c["from"], c["to"]) for c in gold["cites"]} == {
        ("specter-acl2020.pdf", "literature-graph-naacl2018.pdf"),
        ("s2orc-acl2020.pdf", "literature-graph-naacl2018.pdf"),
    }
    assert all(isinstance(d["year"], int) for d in gold["documents"].values())
