"""Section detection measured against S2ORC reference parses of two real PDFs.

Ground truth: `pdfs/<name>.s2orc.json` (S2ORC doc2json parses: every paragraph carries
its section name and number). For each paper we compare

* headings: the section headings of the ground truth (Abstract, numbered body
  sections, back matter, plus References when it has a bibliography) against the
  headings our detector finds in the PDF; a match is an equal normalised title
  (lower-cased, numbering and punctuation removed). Precision and recall, each with
  its denominator and a Wilson 95% interval.
* section_type: every ground-truth paragraph is located in our page text; the type
  of the section we put it in is compared with the type its ground-truth section
  gets from the same title→type table (with subsections inheriting their parent's
  type). This measures whether the boundaries put text in the right section.

Usage: uv run --frozen python eval/section_detection.py [--data DIR] [--markdown PATH]
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from marginalia.ingest.documents import PageIndex, joined_text
from marginalia.ingest.parse import parse_document
from marginalia.ingest.sections import classify_title, detect_headings

PAPERS = ["specter-acl2020", "literature-graph-naacl2018"]
REPO_ROOT = Path(__file__).resolve().parents[1]


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def rate(successes: int, n: int) -> dict[str, Any]:
    lo, hi = wilson(successes, n)
    return {
        "value": round(successes / n, 3) if n else None,
        "successes": successes,
        "n": n,
        "wilson95": [round(lo, 3), round(hi, 3)],
    }


def norm_title(title: str) -> str:
    title = re.sub(r"^\s*(\d+(\.\d+)*\.?|[IVX]+\.|[A-H](\.\d+)*)\s+", "", title)
    return re.sub(r"[^a-z0-9]+", " ", title.lower()).strip()


@dataclass
class GtHeading:
    number: str | None
    title: str


def ground_truth_headings(gt: dict[str, Any]) -> tuple[list[GtHeading], list[str]]:
    """Headings in order, after documented clean-up of known parse artefacts."""
    notes: list[str] = []
    parse = gt["pdf_parse"]
    raw: list[GtHeading] = []
    for part in ("abstract", "body_text", "back_matter"):
        for para in parse[part]:
            h = GtHeading(para.get("sec_num"), para.get("section") or "")
            if all((x.number, x.title) != (h.number, h.title) for x in raw):
                raw.append(h)
    out: list[GtHeading] = []
    last_top = 0
    for h in raw:
        if not h.title.strip():
            notes.append("dropped an empty section name (footnote paragraphs)")
            continue
        if h.title == "annex":
            notes.append("dropped 'annex' (doc2json's marker for tables/figures)")
            continue
        merged = re.fullmatch(r"(?P<a>.+?) (?P<num>\d+(?:\.\d+)+) (?P<b>.+)", h.title)
        if merged and h.number:
            notes.append(f"split merged heading '{h.title}'")
            out.append(GtHeading(h.number, merged["a"]))
            out.append(GtHeading(merged["num"], merged["b"]))
            last_top = int(h.number.split(".")[0])
            continue
        if h.number:
            top = int(h.number.rstrip(".").split(".")[0])
            if top < last_top:
                notes.append(
                    f"dropped out-of-order '{h.number} {h.title}' (a table parsed as text)"
                )
                continue
            last_top = top
        out.append(h)
    if parse.get("bib_entries"):
        out.append(GtHeading(None, "References"))
    return out, sorted(set(notes))


def gt_types(headings: list[GtHeading]) -> dict[str, str]:
    """Section type of each ground-truth heading title, with numbered inheritance."""
    types: dict[str, str] = {}
    by_number: dict[str, str] = {}
    for h in headings:
        own = classify_title(h.title)
        if own is None and h.number and "." in h.number.rstrip("."):
            parent = h.number.rstrip(".").rsplit(".", 1)[0]
            own = by_number.get(parent)
        elif own is None and not h.number and types:
            own = list(types.values())[-1]  # a run-in paragraph heading inside a section
        own = own or "other"
        if h.number:
            by_number[h.number.rstrip(".")] = own
        types[h.title] = own
    return types


def _alnum_index(text: str) -> tuple[str, list[int]]:
    chars: list[str] = []
    offsets: list[int] = []
    for i, ch in enumerate(text):
        if ch.isalnum():
            chars.append(ch.lower())
            offsets.append(i)
    return "".join(chars), offsets


def evaluate_paper(pdf_path: Path, gt_path: Path) -> dict[str, Any]:
    gt = json.loads(gt_path.read_text())
    doc = parse_document(pdf_path.read_bytes(), pdf_path.name, max_bytes=100_000_000, max_pages=500)
    predicted = detect_headings(doc.pages)
    truth, notes = ground_truth_headings(gt)

    # Heading precision/recall by normalised title (each heading matched at most once).
    unmatched_truth = [norm_title(h.title) for h in truth]
    matched = 0
    false_positives: list[str] = []
    for h in predicted:
        key = norm_title(h.title)
        if key in unmatched_truth:
            unmatched_truth.remove(key)
            matched += 1
        else:
            false_positives.append(h.title)
    missed = [h.title for h in truth if norm_title(h.title) in unmatched_truth]

    # Paragraph-level section_type agreement.
    expected_types = gt_types(truth)
    text = joined_text(doc.pages)
    index = PageIndex(doc.pages)
    haystack, offsets = _alnum_index(text)
    section_starts = [index.offset(s.page_start, s.char_start) for s in doc.sections]
    located = agree = 0
    paragraphs = 0
    disagreements: dict[str, int] = {}
    for part in ("abstract", "body_text", "back_matter"):
        for para in gt["pdf_parse"][part]:
            section = para.get("section") or ""
            if section not in expected_types:
                continue  # artefacts dropped from the ground truth above
            paragraphs += 1
            needle, _ = _alnum_index(para["text"])
            needle = needle[:60]
            pos = haystack.find(needle) if len(needle) >= 20 else -1
            if pos < 0:
                continue
            located += 1
            at = offsets[pos]
            i = max(j for j, s in enumerate(section_starts) if s <= at) if section_starts else 0
            got = doc.sections[i].section_type if doc.sections else "other"
            want = expected_types[section]
            if got == want:
                agree += 1
            else:
                key = f"{section!r}: expected {want}, got {got}"
                disagreements[key] = disagreements.get(key, 0) + 1

    return {
        "paper": pdf_path.stem,
        "ground_truth_headings": len(truth),
        "predicted_headings": len(predicted),
        "heading_precision": rate(matched, len(predicted)),
        "heading_recall": rate(matched, len(truth)),
        "missed": missed,
        "false_positives": false_positives,
        "paragraphs_located": rate(located, paragraphs),
        "section_type_agreement": rate(agree, located),
        "type_disagreements": disagreements,
        "ground_truth_cleanup": notes,
    }


def run(data_dir: Path) -> dict[str, Any]:
    pdf_dir = data_dir / "pdfs"
    papers = [
        evaluate_paper(pdf_dir / f"{name}.pdf", pdf_dir / f"{name}.s2orc.json") for name in PAPERS
    ]

    def total(key: str, field: str) -> int:
        return sum(int(p[key][field]) for p in papers)

    return {
        "data": str(pdf_dir),
        "papers": papers,
        "overall": {
            "heading_precision": rate(
                total("heading_precision", "successes"), total("heading_precision", "n")
            ),
            "heading_recall": rate(
                total("heading_recall", "successes"), total("heading_recall", "n")
            ),
            "section_type_agreement": rate(
                total("section_type_agreement", "successes"), total("section_type_agreement", "n")
            ),
        },
    }


def _fmt(r: dict[str, Any]) -> str:
    lo, hi = r["wilson95"]
    return f"{r['value']:.3f} ({r['successes']}/{r['n']}; 95% CI {lo:.2f}–{hi:.2f})"


def markdown(report: dict[str, Any]) -> str:
    o = report["overall"]
    lines = [
        "# Section detection",
        "",
        "What: `eval/section_detection.py` runs `marginalia.ingest` heading detection on",
        "the PDFs that have S2ORC reference parses (`../shared/data/pdfs/*.s2orc.json`)",
        "and compares (1) detected headings with the reference section names (match =",
        "equal title after lower-casing and removing numbering/punctuation) and (2) for",
        "every reference paragraph located in our page text, the section_type of the",
        "section we put it in with the type its reference section gets from the same",
        "title→type table (subsections inherit their parent's type).",
        "",
        "Reproduce:",
        "`uv run --frozen python eval/section_detection.py --markdown docs/section-detection.md`",
        "",
        "## Result",
        "",
        f"- Heading precision: {_fmt(o['heading_precision'])}",
        f"- Heading recall: {_fmt(o['heading_recall'])}",
        f"- section_type agreement (paragraphs): {_fmt(o['section_type_agreement'])}",
        "- reference paragraphs located in our page text (the denominator above): "
        + ", ".join(f"{p['paper']} {_fmt(p['paragraphs_located'])}" for p in report["papers"]),
        "",
        "| paper | GT headings | detected | precision | recall | type agreement |",
        "|---|---|---|---|---|---|",
    ]
    for p in report["papers"]:
        lines.append(
            f"| {p['paper']} | {p['ground_truth_headings']} | {p['predicted_headings']} "
            f"| {_fmt(p['heading_precision'])} | {_fmt(p['heading_recall'])} "
            f"| {_fmt(p['section_type_agreement'])} |"
        )
    lines += [
        "",
        "## Misses, false positives, type disagreements",
        "",
        "The reference parses have errors of their own (e.g. appendix paragraphs filed",
        "under the last body section), so read each line below before counting it as a",
        "detector error.",
        "",
    ]
    for p in report["papers"]:
        lines.append(
            f"- {p['paper']}: missed {p['missed'] or 'none'}; "
            f"false positives {p['false_positives'] or 'none'}"
        )
        for k, v in p["type_disagreements"].items():
            lines.append(f"  - type disagreement ({v} paragraphs) {k}")
    lines += ["", "## Ground-truth clean-up (reference parse artefacts)", ""]
    for p in report["papers"]:
        for note in p["ground_truth_cleanup"]:
            lines.append(f"- {p['paper']}: {note}")
    lines += [
        "",
        "Caveat: two papers (both ACL-style, numbered headings) is a small sample; the",
        "other seven PDFs have no reference parse and are covered by tests only",
        "(introduction/references found, spans valid).",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=REPO_ROOT.parent / "shared" / "data")
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    if not (args.data / "pdfs").is_dir():
        print(f"data directory not found: {args.data / 'pdfs'}", file=sys.stderr)
        return 2
    report = run(args.data)
    print(json.dumps(report, indent=2, ensure_ascii=False))
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(markdown(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
