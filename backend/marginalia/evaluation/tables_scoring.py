"""The evidence-table eval's gold set and its scoring rules (pure; no database).

A gold file is JSON Lines, one cell a line (``eval/tables/README.md``)::

    {"source": "specter-acl2020.pdf" | "2212.11858", "kind": "pdf" | "unarxive",
     "column": "<question>", "answer": "...", "answer_type": "number" | "name" | "text",
     "not_reported": false, "accept": ["..."], "quotes": [{"text": "...", "page": 5}],
     "split": "dev" | "heldout"}

The matching rules (:data:`DEFINITIONS`) were fixed before any tuning:

- **number** cells: the shown answer is right when one of its numbers equals, as a number,
  a number of the gold answer or of an accept variant ("146K" = "146,000" = 146000,
  "81.1M" = "81.1 million"; years and numbers inside names such as "S2ORC" are not
  numbers), or when an accept variant is contained in it (below);
- **name** cells: the shown answer has at most :data:`MAX_NAME_WORDS` words and contains
  the gold answer or an accept variant — both normalised (:func:`normalize_text`), whole
  words;
- **text** cells: an accept variant is contained (normalised, whole words) in the answer or
  in one of its quotes, or one of its quotes overlaps a gold quote (the QA eval's rule,
  :func:`marginalia.evaluation.qa_scoring.quotes_overlap`);
- a cell whose gold is *not reported* is right exactly when the system says not reported;
  a cell with a gold answer is wrong when the system says not reported.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from marginalia.evaluation.qa_scoring import quotes_overlap
from marginalia.evaluation.stats import normalize_text, rate

AnswerType = Literal["number", "name", "text"]
Split = Literal["dev", "heldout"]

#: A name answer longer than this many words is a sentence, not a name: it counts wrong.
MAX_NAME_WORDS = 12

DEFINITIONS: dict[str, str] = {
    "normalisation": (
        "NFKC; line-break hyphenation joined; hyphens between letters removed; other "
        "punctuation and symbols become spaces; whitespace collapsed; case folded"
    ),
    "number_match": (
        "a number of the shown answer equals (as a number; K/M/B and thousand/million/"
        "billion scale it; years are not counted) a number of the gold answer or of an "
        "accept variant, or an accept variant is contained in the answer"
    ),
    "name_match": (
        f"the shown answer (at most {MAX_NAME_WORDS} words) contains the gold answer or an "
        "accept variant, normalised, as whole words"
    ),
    "text_match": (
        "an accept variant is contained (normalised, whole words) in the answer or one of "
        "its quotes, or one of its quotes overlaps a gold quote (a shared run of >= 8 "
        "normalised words, the QA eval's rule)"
    ),
    "not_reported": "a gold cell with no answer is right only when the system says not reported",
    "accuracy": "cells answered right by the rules above, over the cells counted",
    "not_reported_precision": "cells the system says not reported whose gold has no answer",
    "not_reported_recall": "gold cells with no answer that the system says not reported",
    "quote_verbatim": (
        "every quote shown (all cells) is, after the product's verbatim normalisation "
        "(marginalia.answer.quotes.normalize: case kept), a substring of the stored text of "
        "the pages it names (page .. page_end)"
    ),
    "quote_supports": (
        "answered cells with a gold answer: one of the cell's quotes overlaps a gold quote"
    ),
    "quote_page": "quotes overlapping a gold quote whose page is the gold quote's page",
}


class GoldError(ValueError):
    """The gold file is malformed."""


@dataclass(frozen=True)
class GoldQuote:
    text: str
    page: int


@dataclass(frozen=True)
class GoldCell:
    source: str
    kind: Literal["pdf", "unarxive"]
    column: str
    answer: str
    answer_type: AnswerType
    not_reported: bool
    accept: tuple[str, ...]
    quotes: tuple[GoldQuote, ...]
    split: Split

    @property
    def file_name(self) -> str:
        """The document file the cell is about (unarXive papers are rendered to ``<id>.md``)."""
        return self.source if self.kind == "pdf" else f"{self.source}.md"


def parse_cell(data: dict[str, Any], where: str) -> GoldCell:
    try:
        quotes = tuple(GoldQuote(str(q["text"]), int(q["page"])) for q in data["quotes"])
        cell = GoldCell(
            source=str(data["source"]),
            kind=data["kind"],
            column=str(data["column"]),
            answer=str(data["answer"]),
            answer_type=data["answer_type"],
            not_reported=bool(data["not_reported"]),
            accept=tuple(str(a) for a in data["accept"]),
            quotes=quotes,
            split=data["split"],
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise GoldError(f"{where}: {exc.__class__.__name__}: {exc}") from None
    if cell.kind not in ("pdf", "unarxive"):
        raise GoldError(f"{where}: kind must be pdf or unarxive")
    if cell.answer_type not in ("number", "name", "text"):
        raise GoldError(f"{where}: answer_type must be number, name or text")
    if cell.split not in ("dev", "heldout"):
        raise GoldError(f"{where}: split must be dev or heldout")
    if cell.not_reported and (cell.answer or cell.quotes):
        raise GoldError(f"{where}: a not-reported cell has no answer and no quotes")
    if not cell.not_reported and not cell.answer:
        raise GoldError(f"{where}: a reported cell needs an answer")
    return cell


def load_gold(path: Path | str) -> list[GoldCell]:
    target = Path(path)
    if not target.is_file():
        raise GoldError(f"no gold file at {target}")
    cells: list[GoldCell] = []
    for lineno, line in enumerate(target.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise GoldError(f"{target.name}:{lineno}: not JSON ({exc.msg})") from None
        if not isinstance(data, dict):
            raise GoldError(f"{target.name}:{lineno}: expected a JSON object")
        cells.append(parse_cell(data, f"{target.name}:{lineno}"))
    if not cells:
        raise GoldError(f"{target}: the gold file is empty")
    keys = [(c.source, c.column) for c in cells]
    if len(set(keys)) != len(keys):
        raise GoldError(f"{target}: a (source, column) pair appears twice")
    return cells


# ------------------------------------------------------------------------------ numbers

_SCALE_SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9}
_SCALE_WORD = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
_NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "hundred": 100,
}
_NUMBER = re.compile(
    r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s?([kKmMbB])?(?![\w.]*[A-Za-z]{2})"
    r"(?:\s+(thousand|million|billion)\b)?"
)
_WORD = re.compile(r"[A-Za-z]+")
_YEAR = re.compile(r"^(?:19|20)\d\d$")


def numbers_in(text: str) -> set[float]:
    """The numbers ``text`` states: digits (thousands commas, K/M/B or thousand/million/
    billion scale them) and number words; a bare year (1900-2099) is not one."""
    found: set[float] = set()
    for m in _NUMBER.finditer(text):
        raw, suffix, word = m.group(1), m.group(2), m.group(3)
        if _YEAR.match(raw) and not suffix and not word:
            continue
        value = float(raw.replace(",", ""))
        if suffix:
            value *= _SCALE_SUFFIX[suffix.lower()]
        if word:
            value *= _SCALE_WORD[word.lower()]
        found.add(round(value, 6))
    for w in _WORD.findall(text):
        if w.lower() in _NUMBER_WORDS:
            found.add(float(_NUMBER_WORDS[w.lower()]))
    return found


# ------------------------------------------------------------------------------ matching


def contains_words(haystack: str, needle: str) -> bool:
    """Is ``needle`` a run of whole words of ``haystack``, both normalised?"""
    n = normalize_text(needle)
    h = normalize_text(haystack)
    return bool(n) and f" {n} " in f" {h} "


def cell_matches(gold: GoldCell, *, answer: str, not_reported: bool, quotes: Sequence[str]) -> bool:
    """Is the system's cell right by the rules of the module doc?"""
    if gold.not_reported:
        return not_reported
    if not_reported or not answer.strip():
        return False
    variants = [gold.answer, *gold.accept]
    if gold.answer_type == "number":
        wanted: set[float] = set()
        for v in variants:
            wanted |= numbers_in(v)
        if numbers_in(answer) & wanted:
            return True
        return any(contains_words(answer, v) for v in gold.accept)
    if gold.answer_type == "name":
        if len(normalize_text(answer).split()) > MAX_NAME_WORDS:
            return False
        return any(contains_words(answer, v) for v in variants)
    texts = [answer, *quotes]
    if any(contains_words(t, v) for t in texts for v in gold.accept):
        return True
    return any(quotes_overlap(q, g.text) for q in quotes for g in gold.quotes)


def quote_supports(gold: GoldCell, quotes: Sequence[str]) -> bool:
    """Does one of the cell's quotes overlap a gold quote?"""
    return any(quotes_overlap(q, g.text) for q in quotes for g in gold.quotes)


# ------------------------------------------------------------------------------ scoring


@dataclass
class ShownQuote:
    text: str
    page: int | None
    page_end: int | None
    #: Is the quote, normalised, in the stored text of its pages (checked by the eval)?
    verbatim: bool


@dataclass
class ScoredCell:
    gold: GoldCell
    answer: str
    not_reported: bool
    quotes: list[ShownQuote] = field(default_factory=list)
    confidence: float | None = None
    note: str | None = None
    correct: bool = False
    supports: bool | None = None
    page_agrees: list[bool] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.gold.source,
            "column": self.gold.column,
            "split": self.gold.split,
            "answer_type": self.gold.answer_type,
            "gold_answer": self.gold.answer,
            "gold_not_reported": self.gold.not_reported,
            "answer": self.answer,
            "not_reported": self.not_reported,
            "confidence": self.confidence,
            "note": self.note,
            "quotes": [
                {"text": q.text, "page": q.page, "page_end": q.page_end, "verbatim": q.verbatim}
                for q in self.quotes
            ],
            "correct": self.correct,
            "quote_supports": self.supports,
        }


def score_cell(
    gold: GoldCell,
    *,
    answer: str,
    not_reported: bool,
    quotes: Sequence[ShownQuote],
    confidence: float | None = None,
    note: str | None = None,
) -> ScoredCell:
    texts = [q.text for q in quotes]
    scored = ScoredCell(
        gold=gold,
        answer=answer,
        not_reported=not_reported,
        quotes=list(quotes),
        confidence=confidence,
        note=note,
        correct=cell_matches(gold, answer=answer, not_reported=not_reported, quotes=texts),
    )
    if not gold.not_reported and not not_reported:
        scored.supports = quote_supports(gold, texts)
        for q in quotes:
            for g in gold.quotes:
                if quotes_overlap(q.text, g.text):
                    scored.page_agrees.append(q.page == g.page)
                    break
    return scored


def aggregate(cells: Iterable[ScoredCell]) -> dict[str, Any]:
    """Every rate of the report over ``cells`` (k/n with a Wilson 95% interval)."""
    cells = list(cells)
    typed = [c for c in cells if c.gold.answer_type in ("number", "name")]
    typed_answered = [c for c in typed if not c.gold.not_reported]
    said_nr = [c for c in cells if c.not_reported]
    gold_nr = [c for c in cells if c.gold.not_reported]
    quotes = [q for c in cells for q in c.quotes]
    supported = [c for c in cells if c.supports is not None]
    pages = [p for c in cells for p in c.page_agrees]

    def share(group: Sequence[ScoredCell]) -> dict[str, Any]:
        return rate(sum(c.correct for c in group), len(group))

    return {
        "cells": len(cells),
        "accuracy": share(cells),
        "accuracy_number_name": share(typed_answered),
        "accuracy_number_name_with_not_reported": share(typed),
        "accuracy_number": share([c for c in typed_answered if c.gold.answer_type == "number"]),
        "accuracy_name": share([c for c in typed_answered if c.gold.answer_type == "name"]),
        "accuracy_text": share(
            [c for c in cells if c.gold.answer_type == "text" and not c.gold.not_reported]
        ),
        "not_reported_precision": rate(sum(c.gold.not_reported for c in said_nr), len(said_nr)),
        "not_reported_recall": rate(sum(c.not_reported for c in gold_nr), len(gold_nr)),
        "quote_verbatim": rate(sum(q.verbatim for q in quotes), len(quotes)),
        "quote_supports": rate(sum(bool(c.supports) for c in supported), len(supported)),
        "quote_page": rate(sum(pages), len(pages)),
    }
