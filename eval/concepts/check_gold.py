"""Check a concept gold set against the text of its documents.

    uv run --frozen python eval/concepts/check_gold.py [--set eval/concepts/gold.jsonl]
        [--docs ../shared/data/pdfs]
    uv run --frozen python eval/concepts/check_gold.py --set eval/concepts/heldout.jsonl

``--set`` (or its older name ``--gold``) names the set. Without ``--docs`` a set whose
documents are PDFs is read from ``../shared/data/pdfs``, and a set whose documents are
Markdown (the held-out set over the unarXive papers) from a temporary folder that
``eval/qa/render_unarxive.py`` renders them into. Each document is parsed with the
project's parser (``marginalia.ingest.parse_document``) and its pages joined. A string "is in the text" when it occurs on word boundaries after
both sides are normalised case-, whitespace- and hyphen-insensitively: the QA eval's
``normalize_text`` (NFKC, case folded, punctuation to spaces, line-break hyphenation
joined, in-word hyphens removed) and, as a second reading, the same with hyphens turned
into spaces (so "low-molecular-weight heparin" finds "low molecular weight heparin" and
"angiotensin-\\nconverting" finds "angiotensin-converting").

Checks (exit 1 listing every failure):

- shape: one line per document, no document twice; 8-12 concepts each with ``name``,
  ``level`` in {0, 1, 2}, ``aliases`` (list), ``in_text`` (non-empty list drawn from the
  name and the aliases); names unique within a document; 3-6 ``junk`` strings, none of
  them a concept name or alias;
- text: every ``in_text`` string and every junk string is in the document's text.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

from marginalia.evaluation.stats import normalize_text
from marginalia.ingest import parse_document

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DEFAULT_GOLD = HERE / "gold.jsonl"
DEFAULT_DOCS = REPO.parent / "shared" / "data" / "pdfs"
QA_SCRIPTS = REPO / "eval" / "qa"  # render_unarxive.py, the renderer of the Markdown docs
MIN_CONCEPTS, MAX_CONCEPTS = 8, 12
MIN_JUNK, MAX_JUNK = 3, 6
LEVELS = (0, 1, 2)

_HYPHENS = re.compile(r"[-\u00ad\u2010\u2011]")


def readings(text: str) -> tuple[str, str]:
    """The two normalised forms of a text: hyphens dropped, and hyphens as spaces."""
    spaced = normalize_text(_HYPHENS.sub(" ", text))
    return f" {normalize_text(text)} ", f" {spaced} "


def in_text(needle: str, haystacks: tuple[str, str]) -> bool:
    return any(
        f" {form.strip()} " in hay for form in readings(needle) for hay in haystacks if form.strip()
    )


def document_text(path: Path) -> str:
    parsed = parse_document(path.read_bytes(), path.name, max_bytes=200 * 2**20, max_pages=1000)
    return "\n".join(page.text for page in parsed.pages)


def shape_failures(row: dict[str, Any], where: str) -> list[str]:
    failures: list[str] = []
    concepts = row.get("concepts")
    if not isinstance(concepts, list) or not MIN_CONCEPTS <= len(concepts) <= MAX_CONCEPTS:
        n = len(concepts) if isinstance(concepts, list) else "no"
        failures.append(f"{where}: {n} concepts (want {MIN_CONCEPTS}-{MAX_CONCEPTS})")
        concepts = concepts if isinstance(concepts, list) else []
    names: set[str] = set()
    surface: set[str] = set()
    for concept in concepts:
        name = concept.get("name")
        if not isinstance(name, str) or not name.strip():
            failures.append(f"{where}: a concept has no name")
            continue
        if name.casefold() in names:
            failures.append(f"{where}: concept {name!r} twice")
        names.add(name.casefold())
        if concept.get("level") not in LEVELS:
            failures.append(f"{where}: {name!r} level {concept.get('level')!r} not in {LEVELS}")
        aliases = concept.get("aliases")
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            failures.append(f"{where}: {name!r} aliases must be a list of strings")
            aliases = []
        printed = concept.get("in_text")
        if not isinstance(printed, list) or not printed:
            failures.append(f"{where}: {name!r} needs at least one in_text alias")
            printed = []
        allowed = {name, *aliases}
        for alias in printed:
            if alias not in allowed:
                failures.append(f"{where}: {name!r} in_text {alias!r} is neither name nor alias")
        surface |= {s.casefold() for s in allowed}
    junk = row.get("junk")
    if not isinstance(junk, list) or not MIN_JUNK <= len(junk) <= MAX_JUNK:
        failures.append(f"{where}: want {MIN_JUNK}-{MAX_JUNK} junk strings")
        junk = junk if isinstance(junk, list) else []
    for item in junk:
        if not isinstance(item, str) or item.casefold() in surface:
            failures.append(f"{where}: junk {item!r} is not a string or is a concept's name/alias")
    return failures


def check(gold: Path, docs: Path) -> tuple[list[str], dict[str, int]]:
    failures: list[str] = []
    stats = {"documents": 0, "concepts": 0, "in_text": 0, "junk": 0}
    stats |= {f"level_{level}": 0 for level in LEVELS}
    seen: set[str] = set()
    for lineno, line in enumerate(gold.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            failures.append(f"line {lineno}: not JSON ({exc.msg})")
            continue
        doc = row.get("doc")
        where = f"line {lineno} ({doc})"
        if not isinstance(doc, str) or doc in seen:
            failures.append(f"{where}: missing or repeated 'doc'")
            continue
        seen.add(doc)
        failures += shape_failures(row, where)
        path = docs / doc
        if not path.is_file():
            failures.append(f"{where}: document not found in {docs}")
            continue
        haystacks = readings(document_text(path))
        stats["documents"] += 1
        for concept in row.get("concepts") or []:
            stats["concepts"] += 1
            if concept.get("level") in LEVELS:
                stats[f"level_{concept['level']}"] += 1
            for alias in concept.get("in_text") or []:
                stats["in_text"] += 1
                if not in_text(alias, haystacks):
                    failures.append(f"{doc}: {concept.get('name')!r}: {alias!r} is not in the text")
        for item in row.get("junk") or []:
            stats["junk"] += 1
            if isinstance(item, str) and not in_text(item, haystacks):
                failures.append(f"{doc}: junk {item!r} is not in the text")
    return failures, stats


def names_markdown(gold: Path) -> bool:
    """Whether the set's documents are Markdown (rendered unarXive papers), not PDFs."""
    return bool(markdown_ids(gold))


def markdown_ids(gold: Path) -> list[str]:
    """The arXiv ids of the set's Markdown documents ("2212.11765.md" -> "2212.11765")."""
    ids = []
    for line in gold.read_text(encoding="utf-8").splitlines():
        try:
            doc = json.loads(line).get("doc") if line.strip() else None
        except (json.JSONDecodeError, AttributeError):
            continue
        if isinstance(doc, str) and doc.endswith(".md"):
            ids.append(doc.removesuffix(".md"))
    return ids


def render_markdown_docs(out: Path, ids: list[str]) -> bool:
    """Render the set's unarXive papers into ``out``; False when that fails."""
    if str(QA_SCRIPTS) not in sys.path:
        sys.path.insert(0, str(QA_SCRIPTS))
    from render_unarxive import main as render  # a sibling folder's script, not a package

    return render(["--out", str(out), "--quiet", "--ids", *ids]) == 0


def check_set(gold: Path, docs: Path | None = None) -> tuple[list[str], dict[str, int]] | None:
    """``check`` with the documents folder chosen as ``main`` does; None when it is missing."""
    with tempfile.TemporaryDirectory(prefix="concept-docs-") as scratch:
        if docs is None and names_markdown(gold):
            docs = Path(scratch)
            if not render_markdown_docs(docs, markdown_ids(gold)):
                return None
        docs = docs or DEFAULT_DOCS
        if not docs.is_dir():
            return None
        return check(gold, docs)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", "--gold", type=Path, default=DEFAULT_GOLD, dest="gold")
    parser.add_argument("--docs", type=Path, default=None)
    args = parser.parse_args(argv)
    if not args.gold.is_file():
        print(f"no concept set at {args.gold}", file=sys.stderr)
        return 2
    result = check_set(args.gold, args.docs)
    if result is None:
        where = args.docs or "the rendered unarXive papers or ../shared/data/pdfs"
        print(f"no documents folder for {args.gold} ({where})", file=sys.stderr)
        return 2
    failures, stats = result
    print(
        f"{args.gold}: {stats['documents']} documents, {stats['concepts']} concepts, "
        f"{stats['in_text']} in-text aliases, {stats['junk']} junk strings; levels "
        + " / ".join(f"{level}: {stats[f'level_{level}']}" for level in LEVELS)
    )
    if failures:
        print(f"{len(failures)} failure(s):", file=sys.stderr)
        for failure in failures:
            print(f"  {failure}", file=sys.stderr)
        return 1
    print("every in-text alias and junk string is in its document's text")
    return 0


if __name__ == "__main__":
    sys.exit(main())
