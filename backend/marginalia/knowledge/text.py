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
from functools import lru_cache


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


# ---------------------------------------------------------------------------- display text

_BREAK_HYPHEN_RE = re.compile(r"(?<![\w-])((?:[^\W_]+-)*)([^\W\d_]\w*)-\s+([^\W\d_]\w*)")
_SUSPENDED = frozenset({"and", "or", "nor", "to"})


def vocabulary(texts: Iterable[str]) -> frozenset[str]:
    """Lower-case words (hyphenated compounds included, line-break ones excluded) of
    ``texts``: what :func:`dehyphenate` consults to tell ``cor- pus`` from ``state- of``."""
    words: set[str] = set()
    for text in texts:
        words.update(w.casefold() for w in re.findall(r"[^\W_]+(?:-[^\W_]+)*", text))
    return frozenset(words)


def dehyphenate(text: str, vocab: Set[str] | None = None) -> str:
    """Undo line-break hyphenation: ``"cor- pus"`` → ``"corpus"``.

    A hyphen right after a letter and followed by whitespace joins the two halves:
    with a hyphen where the document writes the compound hyphenated elsewhere (``vocab``
    holds ``"inter-annotator"``) or the second half is a function word (``state- of``); as one
    word where ``vocab`` knows it, or by default; unchanged before ``and``/``or``/``to``
    (a suspended hyphen, ``pre- and post-training``). Capitalised second halves keep the
    hyphen (``BERT- Base``) unless both halves are upper case (``SQuAL- ITY``).
    """
    known = vocab or frozenset()

    def join(m: re.Match[str]) -> str:
        prefix, left, right = m.group(1), m.group(2), m.group(3)
        lo_left, lo_right = left.casefold(), right.casefold()
        if lo_right in _SUSPENDED:
            return m.group(0)
        hyphenated, joined = f"{lo_left}-{lo_right}", lo_left + lo_right
        keep = f"{prefix}{left}-{right}"
        if prefix or (hyphenated in known and joined not in known):
            return keep  # a compound that goes on ("state-of-the- art")
        if joined in known:
            return prefix + left + right
        if lo_right in STOP_WORDS:
            return keep
        if right[:1].isupper() and not (left[-1:].isupper() and right.isupper()):
            return keep
        return prefix + left + right

    return _BREAK_HYPHEN_RE.sub(join, text)


_LEADING_HEADING_RE = re.compile(
    r"^(?:(?:\d+(?:\.\d+)*\.?\s+)?(?:ABSTRACT|INTRODUCTION|BACKGROUND|MATERIALS AND METHODS|METHODS|"
    r"RESULTS AND DISCUSSION|RESULTS|DISCUSSION|CONCLUSIONS?)\s+"
    r"|(?:Background|Objectives?|Aims?|Methods?|Results|Conclusions?|Findings|Purpose)\s*[:.]\s+"
    r"|(?:Abstract|Introduction|Background)\s+(?=(?:We|This|In|The|Our|Recent|Most|Many)\b))"
    r"(?=[A-Z][a-z]|[A-Z]+\s+[a-z])"
)
_INLINE_FOOTNOTE_RE = re.compile(r"(?<=[A-Za-z]),\d{1,2}(?=\s)")


def display_text(text: str, vocab: Set[str] | None = None) -> str:
    """A passage's sentence as shown: one line, line-break hyphenation undone, a section
    heading or structured-abstract label the PDF ran into its first sentence
    (``"RESULTS The …"``, ``"Objectives. Patient …"``) dropped, footnote marks after a word
    (``"S2ORC,1 a corpus"``, ``"benchmark.1"``) dropped."""
    text = _LEADING_HEADING_RE.sub("", dehyphenate(normalize_whitespace(text), vocab))
    text = _INLINE_FOOTNOTE_RE.sub(",", text)
    return _FOOTNOTE_END_RE.sub(r"\1", text)


_FOOTNOTE_END_RE = re.compile(r"(?<=[a-z)\]])([.!?])(?:\d{1,2}|[¹²³⁴⁵⁶⁷⁸⁹⁰*†‡]+)$")


_URL_RE = re.compile(r"https?://|www\.|\b[\w.-]+\.(?:org|com|edu|net|gov)/", re.IGNORECASE)
_EMAIL_RE = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")
_LICENCE_RE = re.compile(
    r"©|\(c\) \d{4}|\bcopyright\b|creative commons|\blicen[cs]e[ed]?\b|\bcc[- ]by\b|"
    r"open access article|all rights reserved|\bpermission (?:is|to)\b|distributed under the terms|"
    r"paid for this article|full list of author information|\bpublished by\b",
    re.IGNORECASE,
)
_FRONT_MATTER_RE = re.compile(
    r"^\s*(?:\*?\s*correspondence|keywords?|key words|received|accepted|published|"
    r"corresponding author|e-?mail|affiliations?|author details|citation)\s*:",
    re.IGNORECASE,
)
_AFFILIATION_RE = re.compile(
    r"\b(?:universit(?:y|ies|é|ät|at)|institute|department|faculty|school of|college|"
    r"laborator(?:y|ies)|centre|center|hospital|inc|ltd|gmbh)\b",
    re.IGNORECASE,
)
_RUNNING_HEADER_RE = re.compile(
    r"\bpage \d+ of \d+\b|\bproceedings of the\b.*\bpages? \d+|\bvol(?:ume)?\.? \d+\b.*\b\d{4}\b"
    r"|\b\d{4},\s*\d+:\d+\b|journal compilation|\bet al\.\s*(?:[A-Z][\w&]+\s+){1,6}\d{4}",
    re.IGNORECASE,
)
_REFERENCE_RE = re.compile(
    r"(?i:\bin proceedings of\b|\barxiv preprint\b|\barxiv:\s*\d|\bdoi:|\bpp\.\s*\d)|"
    r"\b\d+\s*\(\d+\)\s*:\s*\d+|^\s*\[\d+\]\s+[A-Z]|^\s*\d+\.\s+[A-Z][\w'-]+,\s+[A-Z]\.|"
    r"^\s*[A-Z][\w'-]+,\s+(?:[A-Z]\.\s*)+(?:,|and|&)|\(\d{4}[a-z]?\)\.\s+[A-Z]|"
    r"\bet al\.\s*\(?\d{4}[a-z]?\)?\.\s+[A-Z]",
)
_STRONG_MATH = frozenset("∑∏∫√∞∈∉⊂⊆∪∩∀∃∂∇ŒŁ→←⇒")
_WEAK_MATH = frozenset("=+−×÷<>^_{}|≤≥≈≠")
_PLUS_MINUS_RE = re.compile(r"\+\s?−|±")
_CITE_NUMBERS_RE = re.compile(r"\[\d+(?:\s*[-–,]\s*\d+)*\]")
_VANCOUVER_RE = re.compile(
    r"^(?:[A-Z][\w'’-]+ [A-Z]{1,3}(?: Jr)?, )+(?:[A-Z][\w'’-]+ [A-Z]{1,3}|et al)[:.]"
)
_CAPTION_RE = re.compile(
    r"^(?:Table|Figure|Fig\.|Scheme|Algorithm)\s*[A-Z]?\d+[.:]?\s+(?:\(|[A-Z])"
)
_HEADING_WORD_RE = re.compile(
    r"\b(?:ABSTRACT|INTRODUCTION|BACKGROUND|METHODS?|MATERIALS|RESULTS|DISCUSSION|CONCLUSIONS?|"
    r"REFERENCES|ACKNOWLEDGE?MENTS?)\b|\bKeywords\b|\bR E S\b"
)
_LETTER_SPACED_RE = re.compile(r"(?:\b[A-Z]\s){3,}")
_ENDS_SENTENCE_RE = re.compile(r"[.!?][\"'”’)\]]*(?:\d{1,2}|[¹²³⁴⁵⁶⁷⁸⁹⁰*†‡]+)?$")
MAX_PROSE_CHARS = 450
_BULLETS_RE = re.compile(r"(?:^|\s)-\s+\S")


@lru_cache(maxsize=32768)
def prose_problem(sentence: str) -> str | None:
    """Why ``sentence`` is not a prose sentence worth showing (None when it is).

    Rejected: front matter (correspondence, keywords, e-mail addresses), affiliations,
    licence and copyright text, running headers and footers, reference-list entries, URLs,
    equations and table rows (many symbols, numbers or one-letter tokens), lists, and text
    that does not read as a sentence (starts in the middle of one, few lower-case words or
    function words). Deterministic; tuned on the shared PDFs' first pages."""
    text = display_text(sentence)
    words = text.split()
    if len(words) < 6:
        return "too short"
    if len(text) > MAX_PROSE_CHARS:
        return "too long (text run together)"
    if not _ENDS_SENTENCE_RE.search(text):
        return "does not end as a sentence"
    if _CAPTION_RE.search(text):
        return "caption"
    if _HEADING_WORD_RE.search(text) or _LETTER_SPACED_RE.search(text):
        return "heading run into the text"
    first = text[0]
    if not (first.isupper() or first.isdigit() or first in "\"'“‘("):
        return "starts mid-sentence"
    if _FRONT_MATTER_RE.search(text):
        return "front matter"
    if _EMAIL_RE.search(text):
        return "e-mail address"
    if _URL_RE.search(text):
        return "URL"
    if _LICENCE_RE.search(text):
        return "licence or copyright text"
    if _RUNNING_HEADER_RE.search(text):
        return "running header"
    if _REFERENCE_RE.search(text) or _VANCOUVER_RE.search(text):
        return "reference entry"
    if len(_BULLETS_RE.findall(text)) >= 3 or any(b in text for b in "•▪◦"):
        return "list"
    tokens = _WORD_RE.findall(_CITE_NUMBERS_RE.sub(" ", text))
    if not tokens:
        return "no words"
    if any(ch in _STRONG_MATH for ch in text):
        return "equation or symbols"
    weak = sum(ch in _WEAK_MATH for ch in _PLUS_MINUS_RE.sub(" ", text))
    if weak >= 5 or weak / len(text) > 0.03:
        return "equation or symbols"
    numeric = sum(any(c.isdigit() for c in t) for t in tokens)
    if numeric / len(tokens) > 0.4:
        return "numbers or table row"
    single = sum(len(t) == 1 and t.casefold() not in {"a", "i"} and not t.isdigit() for t in tokens)
    if single / len(tokens) > 0.15:
        return "equation or letter-spaced text"
    lower = sum(t[:1].islower() for t in tokens)
    if lower / len(tokens) < 0.4:
        return "few lower-case words (heading, names or affiliation)"
    function = sum(t.casefold() in STOP_WORDS for t in tokens)
    if function / len(tokens) < 0.08:
        return "few function words"
    if _AFFILIATION_RE.search(text):
        capital = sum(t[:1].isupper() for t in tokens)
        if capital / len(tokens) > 0.55 or (text.count(",") >= 3 and function / len(tokens) < 0.2):
            return "affiliation"
    return None


def is_prose(sentence: str) -> bool:
    """:func:`prose_problem` found nothing."""
    return prose_problem(sentence) is None
