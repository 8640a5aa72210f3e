"""A claim's quote: the chosen sentence exactly as its passage has it, with the adjacent
sentence that offers the expected answer type when the chosen one does not (the answer
spans two sentences), with the sentence before when it opens by referring back ("This",
"It", "However" …), and without the section headings the PDF layout glued above it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from marginalia.answer import prose
from marginalia.answer.prose import MIN_WORDS

if TYPE_CHECKING:
    from marginalia.answer.offline import ScoredSentence


_BACK_REFERENCE = re.compile(
    r"^\s*(?:this|these|those|it|its|they|their|such|the\s+latter|the\s+former|here|"
    r"however|thus|therefore|consequently|moreover|furthermore|in\s+addition)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Quote:
    """A claim's quote: one sentence, or two adjacent ones of the same passage."""

    passage_n: int
    start: int
    end: int
    text: str  # exactly as in the passage
    lead: ScoredSentence


def _adjacent(
    s: ScoredSentence, scored: Sequence[ScoredSentence]
) -> tuple[ScoredSentence | None, ScoredSentence | None]:
    """The scored sentences just before and just after ``s`` in its passage."""
    same = [o for o in scored if o.passage_n == s.passage_n and o is not s]
    before = max((o for o in same if o.end <= s.start), key=lambda o: o.end, default=None)
    after = min((o for o in same if o.start >= s.end), key=lambda o: o.start, default=None)
    return before, after


def _gap_ok(text: str, a: ScoredSentence, b: ScoredSentence) -> bool:
    """Nothing but whitespace lies between two sentences (no skipped heading or table)."""
    return not text[a.end : b.start].strip()


def quote_for(
    s: ScoredSentence,
    scored: Sequence[ScoredSentence],
    texts: dict[int, str],
    *,
    want_type: bool,
) -> Quote:
    """``s``'s quote, with a neighbour when the answer needs it (see the module doc)."""
    text = texts.get(s.passage_n)
    start, end = s.start, s.end
    if text is not None:
        before, after = _adjacent(s, scored)
        if want_type and not s.answer_type:
            for n in (after, before):
                if n is not None and n.answer_type:
                    a, b = (s, n) if n is after else (n, s)
                    if _gap_ok(text, a, b):
                        start, end = min(start, n.start), max(end, n.end)
                        break
        body = prose.skip_headings(text, s.start, s.end)
        back = before is not None and _BACK_REFERENCE.match(text[body : s.end]) is not None
        if start == s.start and back and before is not None and _gap_ok(text, before, s):
            start = before.start
        # Section headings the layout glued above the sentence are not quoted.
        trimmed = prose.skip_headings(text, start, end)
        if len(text[trimmed:end].split()) >= MIN_WORDS:
            start = trimmed
        return Quote(s.passage_n, start, end, text[start:end], s)
    return Quote(s.passage_n, start, end, s.text, s)
