"""Verify every gold quote of a keyed QA set against the parsed text of its document.

    uv run --frozen python eval/qa/verify_gold.py [--set eval/qa/dev.jsonl] [--docs DIR]
    uv run --frozen python eval/qa/verify_gold.py --set eval/qa/test.jsonl   # renders the docs

Each document is parsed with the project's parser (``marginalia.ingest.parse_document``,
as ingest does — PDFs for the dev set, the Markdown rendered by ``render_unarxive.py``
for the test set); a gold quote passes when, after
``marginalia.evaluation.stats.normalize_text`` (case, whitespace, line-break hyphenation,
punctuation — the eval's own normalisation), it is a substring of one page's text (quotes
never span a page break; a Markdown document is one page). When the set names ``.md``
documents and ``--docs`` is not given, the unarXive papers are rendered into a temporary
directory first (nothing is written into the repository).

It also checks the set's shape: ids, answerable items have quotes of 8-40 words, at least
``--min-follow-ups`` follow-ups whose ``follow_up_of`` names an answerable first question
of the same set, the minimum counts; and for every Markdown document that the parser found
a title, an abstract and at least 3 sections. It prints the set's counts and exits 1
listing every failure.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

from marginalia.evaluation.qa_scoring import QASetError, contains_quote, load_qa_set
from marginalia.ingest import parse_document

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DEFAULT_SET = HERE / "dev.jsonl"
DEFAULT_DOCS = REPO.parent / "shared" / "data" / "pdfs"
MIN_WORDS, MAX_WORDS = 8, 40
MIN_ANSWERABLE, MIN_UNANSWERABLE = 30, 10
MIN_SECTIONS = 3


def parse_pages(path: Path, failures: list[str]) -> list[str]:
    parsed = parse_document(path.read_bytes(), path.name, max_bytes=200 * 2**20, max_pages=1000)
    if parsed.kind == "markdown":
        if not parsed.title:
            failures.append(f"{path.name}: the parser found no title")
        if not parsed.abstract:
            failures.append(f"{path.name}: the parser found no abstract")
        if len(parsed.sections) < MIN_SECTIONS:
            failures.append(f"{path.name}: only {len(parsed.sections)} sections parsed")
    return [page.text for page in parsed.pages]


def follow_up_failures(set_path: Path) -> tuple[list[str], int]:
    """``follow_up_of`` must name an answerable first question of the same set."""
    rows = [
        json.loads(line)
        for line in set_path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    by_id = {row.get("id"): row for row in rows}
    failures: list[str] = []
    count = 0
    for row in rows:
        parent_id = row.get("follow_up_of")
        if parent_id is None:
            continue
        count += 1
        parent = by_id.get(parent_id)
        if not row.get("answerable"):
            failures.append(f"{row['id']}: a follow-up must be answerable")
        if parent is None:
            failures.append(f"{row['id']}: follow_up_of names no item of the set: {parent_id!r}")
        elif not parent.get("answerable") or parent.get("follow_up_of"):
            failures.append(
                f"{row['id']}: follow_up_of {parent_id} is not an answerable first question"
            )
    return failures, count


def verify(set_path: Path, docs: Path, min_follow_ups: int = 0) -> tuple[list[str], Counter[str]]:
    failures: list[str] = []
    counts: Counter[str] = Counter()
    try:
        items = load_qa_set(set_path)
    except QASetError as exc:
        return [str(exc)], counts
    shape, counts["follow_ups"] = follow_up_failures(set_path)
    failures += shape
    pages: dict[str, list[str]] = {}
    for item in items:
        counts["answerable" if item.answerable else "unanswerable"] += 1
        if item.doc is None:
            continue
        counts[f"doc:{item.doc}"] += 1
        if item.doc not in pages:
            path = docs / item.doc
            if not path.is_file():
                failures.append(f"{item.id}: document {item.doc} is not in {docs}")
                pages[item.doc] = []
                continue
            pages[item.doc] = parse_pages(path, failures)
        for quote in item.gold_quotes:
            counts["quotes"] += 1
            words = len(quote.split())
            if not MIN_WORDS <= words <= MAX_WORDS:
                failures.append(
                    f"{item.id}: quote has {words} words (want {MIN_WORDS}-{MAX_WORDS}): {quote!r}"
                )
            if not any(contains_quote(text, quote) for text in pages[item.doc]):
                failures.append(f"{item.id}: quote not found in {item.doc}: {quote!r}")
    if counts["answerable"] < MIN_ANSWERABLE:
        failures.append(f"only {counts['answerable']} answerable items (want >= {MIN_ANSWERABLE})")
    if counts["unanswerable"] < MIN_UNANSWERABLE:
        failures.append(
            f"only {counts['unanswerable']} unanswerable items (want >= {MIN_UNANSWERABLE})"
        )
    if counts["follow_ups"] < min_follow_ups:
        failures.append(f"only {counts['follow_ups']} follow-ups (want >= {min_follow_ups})")
    return failures, counts


def _names_markdown(set_path: Path) -> bool:
    try:
        return any((item.doc or "").endswith(".md") for item in load_qa_set(set_path))
    except QASetError:
        return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=DEFAULT_SET, dest="set_path")
    parser.add_argument("--docs", type=Path, default=None)
    parser.add_argument(
        "--min-follow-ups", type=int, default=8, help="0 for dev-v1.jsonl, which has none"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="qa-docs-") as scratch:
        docs = args.docs
        if docs is None and _names_markdown(args.set_path):
            from render_unarxive import main as render  # a sibling script, not a package

            docs = Path(scratch)
            if render(["--out", str(docs), "--quiet"]) != 0:
                return 2
        docs = docs or DEFAULT_DOCS
        if not docs.is_dir():
            print(f"no documents folder at {docs}", file=sys.stderr)
            return 2
        failures, counts = verify(args.set_path, docs, args.min_follow_ups)
    per_doc = {k[4:]: v for k, v in sorted(counts.items()) if k.startswith("doc:")}
    print(
        f"{args.set_path}: {counts['answerable']} answerable ({counts['follow_ups']} of them "
        f"follow-ups), {counts['unanswerable']} unanswerable, {counts['quotes']} gold quotes "
        f"over {len(per_doc)} documents"
    )
    for name, n in per_doc.items():
        print(f"  {name}: {n} items")
    if failures:
        print(f"{len(failures)} failure(s):", file=sys.stderr)
        for failure in failures:
            print(f"  {failure}", file=sys.stderr)
        return 1
    print("all gold quotes verified against the parsed text")
    return 0


if __name__ == "__main__":
    sys.exit(main())
