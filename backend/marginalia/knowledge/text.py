"""Tokenisation helpers shared by the knowledge layer.

Everything here is pure and deterministic: a fixed English stop-word list, word tokens,
title token sets and their Jaccard overlap (dedup and source edges, DESIGN §6), an
abbreviation-aware sentence splitter that reports character spans (so a quote is always a
verbatim substring of its text), and slugs.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Set


def wordset(words: str) -> frozenset[str]:
    """The whitespace-separated words of ``words`` as a frozenset."""
    return frozenset(words.split())


STOP_WORDS: frozenset[str] = wordset(
    """
    a about above across after afterwards again against all almost alone along already also
    although always am among amongst an and another any anyhow anyone anything anyway anywhere
    are around as at be became because become becomes becoming been before beforehand behind
    being below beside besides between beyond both but by can cannot could did do does doing
    done down due during each either else elsewhere enough etc even ever every everyone
    everything everywhere except few for former formerly from further had has have having he
    hence her here hereafter hereby herein hers herself him himself his how however i ie if in
    indeed into is it its itself just latter latterly least less many may me meanwhile might
    mine more moreover most mostly much must my myself namely neither never nevertheless next
    no nobody none noone nor not nothing now nowhere of off often on once one only onto or
    other others otherwise our ours ourselves out over own per perhaps rather same several
    she should since so some somehow someone something sometime sometimes somewhere still such
    than that the their theirs them themselves then thence there thereafter thereby therefore
    therein thereupon these they this those though through throughout thru thus to together
    too toward towards under until up upon us very via was we well were what whatever when
    whence whenever where whereafter whereas whereby wherein whereupon wherever whether which
    while whither who whoever whole whom whose why will with within without would yet you your
    yours yourself yourselves eg vs
    """
)
"""A fixed English stop-word set (function words only; no domain words)."""

_WORD_RE = re.compile(r"[^\W_]+", re.UNICODE)

ABBREVIATIONS: frozenset[str] = wordset(
    """
    e.g i.e et al fig figs eq eqs sec secs tab tabs ref refs no nos vol approx cf vs resp
    dr mr mrs prof jr sr inc ltd corp dept univ ch chap pp eds viz incl excl
    """
)
"""Tokens (lower-case, without the final period) after which a period does not end a sentence."""


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens (letters/digits, punctuation and underscores split)."""
    return [t.casefold() for t in _WORD_RE.findall(text)]


def content_tokens(text: str) -> list[str]:
    """:func:`tokenize` without stop words."""
    return [t for t in tokenize(text) if t not in STOP_WORDS]


def title_tokens(title: str | None) -> set[str]:
    """Title words for Jaccard comparison: lower-case, punctuation stripped, stop words removed."""
    if not title:
        return set()
    return set(content_tokens(title))


def jaccard(a: Set[str] | Iterable[str], b: Set[str] | Iterable[str]) -> float:
    """|a ∩ b| / |a ∪ b|; 0.0 when both are empty."""
    sa = a if isinstance(a, Set) else set(a)
    sb = b if isinstance(b, Set) else set(b)
    union = len(sa | sb)
    if union == 0:
        return 0.0
    return len(sa & sb) / union


def normalize_whitespace(text: str) -> str:
    """Collapse runs of whitespace to single spaces and strip the ends."""
    return " ".join(text.split())


# A candidate boundary: terminal punctuation, optional closing quotes/brackets, whitespace.
_BOUNDARY_RE = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s)")
_PARAGRAPH_RE = re.compile(r"\n\s*\n")
_PREV_TOKEN_RE = re.compile(r"([A-Za-z][A-Za-z.]*)\.$")


def _is_abbreviation(text: str, end: int) -> bool:
    """True if the period ending at ``end`` (exclusive) closes a known abbreviation or initial."""
    if text[end - 1] != ".":
        return False
    start = end - 1
    while start > 0 and not text[start - 1].isspace() and text[start - 1] not in "([{\"'":
        start -= 1
    word = text[start:end]
    m = _PREV_TOKEN_RE.search(word)
    if m is None:
        return False
    token = m.group(1)
    if token.casefold() in ABBREVIATIONS:
        return True
    if "." in token:  # dotted abbreviations ("U.S.", "e.g.")
        return True
    if len(token) == 1 and token.isupper():
        # an initial ("J. Smith", "John F. Kennedy", "J. R. R. Tolkien") when it starts a
        # sentence or follows a capitalised word or another initial; "we call it X. Results"
        # still splits (and so, unavoidably, does "by A. Vaswani")
        before = text[:start].rstrip()
        if not before or before[-1] in ".!?":  # starts a sentence or follows an initial
            return True
        prev = before.split()[-1]
        return prev[:1].isupper()
    return False


def _next_starts_sentence(text: str, pos: int) -> bool:
    """Does the text after whitespace at ``pos`` look like a sentence start?"""
    n = len(text)
    while pos < n and text[pos].isspace():
        pos += 1
    if pos >= n:
        return True
    ch = text[pos]
    if ch in "\"'“‘([":
        pos += 1
        if pos >= n:
            return True
        ch = text[pos]
    return ch.isupper() or ch.isdigit()


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the sentences of ``text``.

    ``text[start:end]`` is each sentence exactly as written (leading/trailing whitespace
    excluded). Periods of abbreviations (``e.g.``, ``i.e.``, ``et al.``, ``Fig.``, initials)
    and decimals (``3.5``) do not end a sentence; blank lines always do.
    """
    spans: list[tuple[int, int]] = []
    para_start = 0
    paragraphs: list[tuple[int, int]] = []
    for m in _PARAGRAPH_RE.finditer(text):
        paragraphs.append((para_start, m.start()))
        para_start = m.end()
    paragraphs.append((para_start, len(text)))

    for p_start, p_end in paragraphs:
        segment_start = p_start
        for m in _BOUNDARY_RE.finditer(text, p_start, p_end):
            end = m.end()
            punct_end = end
            # find the position of the last terminal punctuation mark in the match
            while punct_end > m.start() and text[punct_end - 1] not in ".!?":
                punct_end -= 1
            if text[punct_end - 1] == "." and (
                _is_abbreviation(text, punct_end) and m.group().count(".") == 1
            ):
                continue
            if not _next_starts_sentence(text, end):
                continue
            _append_span(text, segment_start, end, spans)
            segment_start = end
        _append_span(text, segment_start, p_end, spans)
    return spans


def _append_span(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        spans.append((start, end))


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` (verbatim; see :func:`sentence_spans`)."""
    return [text[s:e] for s, e in sentence_spans(text)]


def slugify(name: str) -> str:
    """URL- and wiki-link-safe slug: ASCII lower-case words joined by ``-``.

    ``"Multi-Head Attention"`` → ``"multi-head-attention"``. Returns ``"untitled"`` when
    nothing usable is left.
    """
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")
    return slug or "untitled"
