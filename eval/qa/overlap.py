"""How much of each question's wording is copied from its gold quotes.

    uv run --frozen python eval/qa/overlap.py [--set eval/qa/dev.jsonl] [--json] [--max-median 0.2]

For every answerable item: the share of the question's distinct content words that
also occur among the content words of its gold quotes (all quotes of the item pooled).
A set whose questions restate the answering sentence scores high; questions written as
paraphrases score low. The rule, applied to the question and the quotes alike:

1. ``marginalia.evaluation.stats.normalize_text`` — the QA eval's own normalisation
   (NFKC, line-break hyphenation joined, in-word hyphens removed, other punctuation and
   symbols to spaces, case folded);
2. split on whitespace; keep tokens of >= 2 characters containing a letter or a digit;
3. drop stop words (``STOP_WORDS``: English function words, question words, and a few
   meta words a question uses to point at a paper — "paper", "authors", "study",
   "according" — so that such filler counts neither for nor against a question);
4. fold inflections with ``fold`` (a deliberately simple suffix rule, not a stemmer):
   ``-ies`` → ``-y``; ``-sses``/``-shes``/``-ches``/``-xes``/``-zes`` lose ``-es``;
   a final ``-s`` is dropped unless the word ends in ``-ss``, ``-us`` or ``-is``;
   then ``-ing`` is dropped when >= 3 characters remain, and ``-ed`` when >= 3
   characters remain; a word of <= 3 characters is never folded;
5. the item's ratio = |question words ∩ quote words| / |question words| over distinct
   folded words (an item whose question has no content word counts 0).

Items with ``follow_up_of`` (a follow-up asked after its parent in one conversation)
are listed separately: they are short by nature, so they are not allowed to pull the
set's median down. The gate (exit 1) applies to the first questions — answerable items
without ``follow_up_of`` — whose median must not exceed ``--max-median``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from marginalia.evaluation.stats import normalize_text

HERE = Path(__file__).resolve().parent
DEFAULT_SET = HERE / "dev.jsonl"
HIGH = 0.3

_STOP_TEXT = """
    a about above across after again against all almost along also although always am
    among an and another any anything are around as at be became because become been
    before being below between both but by can could did do does doing done down during
    each either else enough etc even ever every few for from further get gets got had has
    have having he her here hers him his how however if in into is it its itself just
    least less let like made make makes many may me might more most much must my neither
    no nor not now of off often on once one only onto or other others otherwise our ours
    out over own per rather same she should since so some such than that the their theirs
    them then there these they this those though through thus to too toward towards under
    until up upon us use used uses using very via was we were what whatever when where
    whether which while who whom whose why will with within without would yet you your
    say says said tell told give given kind way ways thing things part
    paper papers article study studies author authors according work report reported
    describe described mention mentioned state stated
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())


def fold(word: str) -> str:
    """Fold simple plural and inflection endings (see the module docstring, rule 4)."""
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("sses", "shes", "ches", "xes", "zes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if word.endswith("ing") and len(word) - 3 >= 3:
        word = word[:-3]
    elif word.endswith("ed") and len(word) - 2 >= 3:
        word = word[:-2]
    return word


def content_words(text: str) -> set[str]:
    words: set[str] = set()
    for token in normalize_text(text).split():
        if len(token) < 2 or not any(ch.isalnum() for ch in token):
            continue
        if token in STOP_WORDS:
            continue
        words.add(fold(token))
    return words


def item_overlap(question: str, quotes: list[str]) -> tuple[float, list[str], list[str]]:
    """The ratio, the shared words and the question's words not in the quotes."""
    asked = content_words(question)
    quoted: set[str] = set()
    for quote in quotes:
        quoted |= content_words(quote)
    if not asked:
        return 0.0, [], []
    shared = sorted(asked & quoted)
    return len(shared) / len(asked), shared, sorted(asked - quoted)


def summarise(ratios: list[float]) -> dict[str, Any]:
    return {
        "n": len(ratios),
        "median": round(statistics.median(ratios), 4) if ratios else None,
        "mean": round(statistics.fmean(ratios), 4) if ratios else None,
        f"over_{HIGH}": sum(r > HIGH for r in ratios),
    }


def measure(set_path: Path) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    for line in set_path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        data = json.loads(line)
        if not data.get("answerable"):
            continue
        ratio, shared, unshared = item_overlap(data["question"], data.get("gold_quotes", []))
        rows.append(
            {
                "id": data["id"],
                "follow_up_of": data.get("follow_up_of"),
                "ratio": round(ratio, 4),
                "shared": shared,
                "not_in_quotes": unshared,
                "question": data["question"],
            }
        )
    first = [r["ratio"] for r in rows if not r["follow_up_of"]]
    follow = [r["ratio"] for r in rows if r["follow_up_of"]]
    return {
        "set": str(set_path),
        "first_questions": summarise(first),
        "follow_ups": summarise(follow),
        "all_answerable": summarise([r["ratio"] for r in rows]),
        "items": rows,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", type=Path, default=DEFAULT_SET, dest="set_path")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--max-median", type=float, default=0.2)
    args = parser.parse_args(argv)
    if not args.set_path.is_file():
        print(f"no QA set at {args.set_path}", file=sys.stderr)
        return 2
    report = measure(args.set_path)
    median = report["first_questions"]["median"]
    report["max_median"] = args.max_median
    report["pass"] = median is not None and median <= args.max_median
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        for row in report["items"]:
            tag = f" (follow-up of {row['follow_up_of']})" if row["follow_up_of"] else ""
            print(f"{row['id']:>6}  {row['ratio']:.2f}  shared={','.join(row['shared'])}{tag}")
        for key in ("first_questions", "follow_ups", "all_answerable"):
            s = report[key]
            if s["n"]:
                print(
                    f"{key}: n={s['n']} median={s['median']:.3f} mean={s['mean']:.3f} "
                    f"over {HIGH}: {s[f'over_{HIGH}']}"
                )
        verdict = "ok" if report["pass"] else "FAIL"
        print(f"gate: first-question median {median} <= {args.max_median}: {verdict}")
    return 0 if report["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
