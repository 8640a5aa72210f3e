"""Finding a selection in the stored page text.

The browser knows what the reader selected in pdf.js's text layer, which differs from
the backend's page text (ligatures, hyphenation, spacing). It sends the selected text and
a little text before and after it; the backend finds it in the page's stored text the way
quotes are verified (:func:`marginalia.answer.quotes.normalize`), choosing, among several
occurrences, the one whose surroundings agree best with that context.
"""

from __future__ import annotations

from dataclasses import dataclass

from marginalia.answer.locations import normalize_with_map
from marginalia.answer.quotes import normalize

#: Characters of context kept before and after a highlight.
CONTEXT_CHARS = 48
#: A quote matched with spaces ignored has at least this many other characters.
MIN_SQUASHED_CHARS = 12
#: Page furniture a selection may carry that the stored text lacks (the hygiene step took
#: out page numbers and running heads): at most this many words, skipped in one run.
MAX_FURNITURE_WORDS = 8
MIN_FURNITURE_KEPT_CHARS = 24


@dataclass(frozen=True)
class Anchor:
    start: int
    end: int
    text: str  # the stored page text of [start, end)
    prefix: str
    suffix: str


def _common_tail(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def _common_head(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def find_selection(page_text: str, quote: str, prefix: str = "", suffix: str = "") -> Anchor | None:
    """Where ``quote`` stands in ``page_text`` (normalised match), or None.

    A quote whose words a text layer glued at a line break ("suggeststhat": older readers
    dropped the line break between two text spans) is found with spaces ignored on both
    sides, when it is long enough to be unambiguous. A selection across a page break
    carries the page number and running head the PDF shows there but the stored text no
    longer has (:mod:`marginalia.ingest.hygiene`): one short run of such words is skipped."""
    needle = normalize(quote)
    if not needle:
        return None
    haystack, origin = normalize_with_map(page_text)
    found = _best(haystack, needle, normalize(prefix), normalize(suffix))
    if found is None and len(needle.replace(" ", "")) >= MIN_SQUASHED_CHARS:
        # Spaces ignored: search the text without them, then map back.
        kept = [i for i, c in enumerate(haystack) if c != " "]
        squashed = "".join(haystack[i] for i in kept)
        at_end = _best(
            squashed,
            needle.replace(" ", ""),
            normalize(prefix).replace(" ", ""),
            normalize(suffix).replace(" ", ""),
        )
        if at_end is not None:
            found = (kept[at_end[0]], kept[at_end[1] - 1] + 1)
    if found is None:
        found = _skipping_furniture(haystack, needle, normalize(prefix), normalize(suffix))
    if found is None:
        return None
    start, end = origin[found[0]], origin[found[1] - 1] + 1
    return Anchor(
        start=start,
        end=end,
        text=page_text[start:end],
        prefix=page_text[max(0, start - CONTEXT_CHARS) : start],
        suffix=page_text[end : end + CONTEXT_CHARS],
    )


def _skipping_furniture(
    haystack: str, needle: str, before: str, after: str
) -> tuple[int, int] | None:
    """``needle`` with one run of at most :data:`MAX_FURNITURE_WORDS` words left out, the
    shortest run first; what is left must be most of the quote (the skipped words at most
    a third of its characters, and at least :data:`MIN_FURNITURE_KEPT_CHARS` kept)."""
    words = needle.split(" ")
    for size in range(1, min(MAX_FURNITURE_WORDS, len(words) - 1) + 1):
        for at in range(len(words) - size + 1):
            skipped = " ".join(words[at : at + size])
            kept = " ".join(words[:at] + words[at + size :])
            if len(skipped) * 3 > len(needle) or len(kept) < MIN_FURNITURE_KEPT_CHARS:
                continue
            found = _best(haystack, kept, before, after)
            if found is not None:
                return found
    return None


def _best(haystack: str, needle: str, before: str, after: str) -> tuple[int, int] | None:
    """[start, end) of the occurrence of ``needle`` whose surroundings agree best with the
    context ``before`` and ``after``."""
    best: tuple[int, int] | None = None
    at = haystack.find(needle)
    while at >= 0:
        end = at + len(needle)
        score = _common_tail(haystack[:at].rstrip(), before) + _common_head(
            haystack[end:].lstrip(), after
        )
        if best is None or score > best[1]:
            best = (at, score)
        at = haystack.find(needle, at + 1)
    return None if best is None else (best[0], best[0] + len(needle))
