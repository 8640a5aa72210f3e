"""Verify every gold quote of a keyed QA set against the parsed text of its PDF.

    uv run --frozen python eval/qa/verify_gold.py [--set eval/qa/dev.jsonl] [--docs ../shared/data/pdfs]

Each PDF is parsed with the project's parser (``marginalia.ingest.parse_document``, as
ingest does); a gold quote passes when, after ``marginalia.evaluation.stats.normalize_text``
(case, whitespace, line-break hyphenation, punctuation — the eval's own normalisation),
it is a substring of one page's text (quotes never span a page break). It also checks
the set's shape (ids, answerable items have quotes, quote length 8-40 words) and prints
the set's counts. Exits 1 listing every failure.
"""

from __future__ import annotations

import argparse
import sys
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


def page_texts(pdf: Path) -> list[str]:
    parsed = parse_document(pdf.read_bytes(), pdf.name, max_bytes=200 * 2**20, max_pages=1000)
    return [page.text for page in parsed.pages]


def verify(set_path: Path, docs: Path) -> tuple[list[str], Counter[str]]:
    failures: list[str] = []
    counts: Counter[str] = Counter()
    try:
        items = load_qa_set(set_path)
    except QASetError as exc:
        return [str(exc)], counts
    pages: dict[str, list[str]] = {}
    for item in items:
        counts["answerable" if item.answerable else "unanswerable"] += 1
        if item.doc is None:
            continue
        counts[f"doc:{item.doc}"] += 1
        if item.doc not in pages:
            pdf = docs / item.doc
            if not pdf.is_file():
                failures.append(f"{item.id}: document {item.doc} is not in {docs}")
                pages[item.doc] = []
                continue
            pages[item.doc] = page_texts(pdf)
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
    return failures, counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=DEFAULT_SET, dest="set_path")
    parser.add_argument("--docs", type=Path, default=DEFAULT_DOCS)
    args = parser.parse_args(argv)
    if not args.docs.is_dir():
        print(f"no documents folder at {args.docs}", file=sys.stderr)
        return 2
    failures, counts = verify(args.set_path, args.docs)
    docs = {k[4:]: v for k, v in sorted(counts.items()) if k.startswith("doc:")}
    print(
        f"{args.set_path}: {counts['answerable']} answerable, {counts['unanswerable']} "
        f"unanswerable, {counts['quotes']} gold quotes over {len(docs)} documents"
    )
    for name, n in docs.items():
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
