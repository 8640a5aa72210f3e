"""Invariant 3: a claim cites passages of the context and quotes one of them verbatim.

Verbatim means: equal after :func:`normalize` of both sides — unicode compatibility
forms (ligatures, no-break spaces), typographic quotes and dashes unified, line-break
hyphenation undone ("ingre-\\ndient" → "ingredient"), whitespace collapsed. Case is
preserved. A claim that fails is dropped with its reason; nothing is ever repaired.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

from marginalia.answer.schemas import AnswerClaim, DroppedClaim, Passage

#: A quote shorter than this many words verifies nothing (any passage has "the model").
MIN_QUOTE_WORDS = 3

_CHAR_MAP = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u00b4": "'",
        "`": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u00ad": None,  # soft hyphen
        "\u200b": None,  # zero-width space
        "\ufeff": None,
    }
)
# A hyphen at a line break between two letters: "ingre-\ndient" (also "- \n", "-\r\n").
_LINE_BREAK_HYPHEN = re.compile(r"(?<=[^\W\d_])-[ \t]*\r?\n\s*(?=[^\W\d_])")


def normalize(text: str) -> str:
    """The comparison form of ``text`` (case-preserving)."""
    text = unicodedata.normalize("NFKC", text).translate(_CHAR_MAP)
    text = _LINE_BREAK_HYPHEN.sub("", text)
    return " ".join(text.split())


def quote_in_passage(quote: str, passage: str) -> bool:
    """Is ``quote`` a normalised substring of ``passage``? (An empty quote is not.)"""
    q = normalize(quote)
    return bool(q) and q in normalize(passage)


def check_claim(claim: AnswerClaim, passages: Sequence[Passage]) -> str | None:
    """Why ``claim`` must be dropped, or None when it holds.

    Rules: it cites at least one passage; every cited number is in the context; it has
    a quote of at least :data:`MIN_QUOTE_WORDS` words; the quote is a normalised
    substring of at least one passage it cites.
    """
    by_n = {p.n: p for p in passages}
    if not claim.text.strip():
        return "the claim is empty"
    if not claim.citations:
        return "the claim cites no passage"
    outside = sorted({n for n in claim.citations if n not in by_n})
    if outside:
        listed = ", ".join(f"[{n}]" for n in outside)
        return f"it cites {listed}, which is not in the retrieved context"
    if claim.quote is None or not normalize(claim.quote):
        return "the claim has no quote"
    if len(normalize(claim.quote).split()) < MIN_QUOTE_WORDS:
        return f"the quote is shorter than {MIN_QUOTE_WORDS} words"
    cited = sorted(set(claim.citations))
    if not any(quote_in_passage(claim.quote, by_n[n].text) for n in cited):
        listed = ", ".join(f"[{n}]" for n in cited)
        return f"the quote is not a verbatim substring of the cited passage {listed}"
    return None


def validate_claims(
    claims: Iterable[AnswerClaim], passages: Sequence[Passage]
) -> tuple[list[AnswerClaim], list[DroppedClaim]]:
    """Split ``claims`` into those that hold and those dropped (with the reason)."""
    kept: list[AnswerClaim] = []
    dropped: list[DroppedClaim] = []
    for claim in claims:
        reason = check_claim(claim, passages)
        if reason is None:
            kept.append(claim)
        else:
            dropped.append(DroppedClaim(claim=claim, reason=reason))
    return kept, dropped


def render_answer_text(claims: Sequence[AnswerClaim]) -> str:
    """The answer as prose: each claim followed by its citation marks."""
    parts = []
    for claim in claims:
        marks = "".join(f"[{n}]" for n in dict.fromkeys(claim.citations))
        parts.append(f"{claim.text.strip()} {marks}")
    return " ".join(parts)


#: Longest document title the lead line quotes in full.
LEAD_TITLE_CHARS = 80


def _where(p: Passage) -> str:
    title = " ".join(p.document.split())
    if len(title) > LEAD_TITLE_CHARS:
        title = title[: LEAD_TITLE_CHARS - 1].rstrip() + "…"
    bits = [b for b in (p.section_title, None if p.page is None else f"p. {p.page}") if b]
    return f"“{title}”" + (f" ({', '.join(bits)})" if bits else "")


def lead_line(claims: Sequence[AnswerClaim], passages: Sequence[Passage]) -> str:
    """One short line saying where the answer was found: the cited documents (the first
    cited passage of each, with its section and page), e.g. ``From “SPECTER…” (Method,
    p. 4) and “S2ORC…” (p. 2):``; empty without claims."""
    by_n = {p.n: p for p in passages}
    first: dict[str, Passage] = {}
    for claim in claims:
        for n in claim.citations:
            p = by_n.get(n)
            if p is not None and p.document not in first:
                first[p.document] = p
    places = [_where(p) for p in first.values()]
    if not places:
        return ""
    if len(places) == 1:
        return f"From {places[0]}:"
    if len(places) == 2:
        return f"From {places[0]} and {places[1]}:"
    return f"From {places[0]} and {len(places) - 1} other sources:"
