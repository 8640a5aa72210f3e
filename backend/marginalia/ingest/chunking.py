"""Section-aware chunking sized to the embedding model's token window.

Invariant (DESIGN §5.1): every chunk satisfies count_tokens(chunk.text) <= max_tokens,
so nothing is ever truncated by the embedder. Chunks are exact slices of the page
text (`text_at(doc.pages, ...) == chunk.text`), so a quote can be located on its page.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from marginalia.ingest.documents import Chunk, PageIndex, ParsedDocument, Section, joined_text

CountTokens = Callable[[str], int]
CountTokensBatch = Callable[[Sequence[str]], list[int]]

# Words after which a period does not end a sentence (compared lower-cased, without
# the final period).
_ABBREVIATIONS = frozenset(
    [
        "e.g",
        "i.e",
        "cf",
        "vs",
        "viz",
        "al",
        "etc",
        "approx",
        "ca",
        "fig",
        "figs",
        "eq",
        "eqs",
        "eqn",
        "eqns",
        "sec",
        "secs",
        "tab",
        "tabs",
        "ref",
        "refs",
        "no",
        "nos",
        "vol",
        "vols",
        "pp",
        "p",
        "ch",
        "chap",
        "dr",
        "mr",
        "mrs",
        "ms",
        "prof",
        "st",
        "jr",
        "sr",
        "inc",
        "ltd",
        "co",
        "corp",
        "dept",
        "univ",
        "resp",
        "incl",
        "esp",
        "est",
        "min",
        "max",
        "avg",
        "std",
        "var",
        "suppl",
        "app",
        "alg",
        "def",
        "thm",
        "lem",
        "prop",
        "cor",
        "obs",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
    ]
)
# Sentence end: terminal punctuation (plus closing quotes/brackets), whitespace, then a
# capital letter or digit (optionally after an opening quote).
_BOUNDARY = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s+[\"'“‘]?[A-Z0-9])")
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_WORD_BEFORE = re.compile(r"(\S+)$")
# What BERT's normaliser reads as a space: tab, newline, carriage return and the Unicode
# spaces (Z*). Other whitespace (form feed, vertical tab, U+001C–U+001F, U+0085) is a
# control character to it, deleted, so "a\x0cb" is one word there.
_WORD_BREAK_CHARS = "\t\n\r\u0020\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
_WORD = re.compile(f"[^{_WORD_BREAK_CHARS}]+")
_WORD_BREAK = re.compile(f"[{_WORD_BREAK_CHARS}]")


def split_sentences(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentence spans (start, end) within text[start:end], trimmed of whitespace.

    Regex-based: a boundary is terminal punctuation followed by a capitalised word,
    unless the word before is a known abbreviation (e.g., Fig., et al.), an initial
    ("J. Smith") or a dotted abbreviation ("U.S."); blank lines always separate.
    Decimals never split since no whitespace follows their point.
    """
    end = len(text) if end is None else end
    cuts: list[int] = []
    for m in _BOUNDARY.finditer(text, start, end):
        punct = text[m.start()]
        if punct == ".":
            before = _WORD_BEFORE.search(text, max(start, m.start() - 40), m.start())
            word = before.group(1).lstrip("([{\"'“‘").lower() if before else ""
            if word in _ABBREVIATIONS or (len(word) == 1 and word.isalpha()):
                continue
            if "." in word and len(word) <= 6:
                continue  # "U.S.", "e.g" written without the last period handled above
        cuts.append(m.end())
    cuts.extend(m.start() for m in _PARAGRAPH.finditer(text, start, end))
    cuts.sort()

    spans: list[tuple[int, int]] = []
    pos = start
    for cut in [*cuts, end]:
        a, b = _trim(text, pos, cut)
        if a < b:
            spans.append((a, b))
        pos = max(pos, cut)
    return spans


def _trim(text: str, a: int, b: int) -> tuple[int, int]:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b


@dataclass(frozen=True)
class _Unit:
    start: int
    end: int
    tokens: int  # model tokens without the special tokens


def chunk_document(
    doc: ParsedDocument,
    count_tokens: CountTokens,
    *,
    max_tokens: int = 256,
    overlap: float = 0.12,
    count_tokens_batch: CountTokensBatch | None = None,
    counts_add_up: bool = False,
) -> list[Chunk]:
    """Chunks of every non-reference section, in document order.

    `count_tokens(text)` must return the model's token count including its special
    tokens ([CLS]/[SEP]); every chunk satisfies count_tokens(chunk.text) <= max_tokens.
    Consecutive chunks of a section share whole trailing sentences worth up to
    `overlap * max_tokens` tokens. `count_tokens_batch`, when given, must agree with
    `count_tokens`; it counts a section's sentences in one call (much cheaper).
    `counts_add_up` says the tokenizer never makes a token across a word boundary
    (WordPiece behind BERT's normaliser and pre-tokenizer): a chunk whose sentences are
    joined by whitespace then has exactly the sum of their counts, and is not counted
    again (see `_pack`).
    """
    specials = count_tokens("")
    budget = max_tokens - specials
    if budget < 8:
        raise ValueError(f"max_tokens={max_tokens} leaves no room for text")
    overlap_budget = round(max_tokens * overlap)
    text = joined_text(doc.pages)
    index = PageIndex(doc.pages)

    chunks: list[Chunk] = []
    for section in doc.sections:
        if section.section_type == "references":
            continue  # the reference list is kept apart in doc.references
        start = index.offset(section.page_start, section.char_start)
        end = index.offset(section.page_end, section.char_end)
        if _heading_only(text[start:end], section):
            continue
        units = _units(text, start, end, count_tokens, specials, budget, count_tokens_batch)
        for a, b, n in _pack(
            text, units, count_tokens, max_tokens, budget, overlap_budget, specials, counts_add_up
        ):
            page_start, char_start = index.locate(a)
            page_end, char_end = index.locate(b)
            chunks.append(
                Chunk(
                    index=len(chunks),
                    text=text[a:b],
                    section_type=section.section_type,
                    section_title=section.title,
                    page_start=page_start,
                    page_end=page_end,
                    char_start=char_start,
                    char_end=char_end,
                    token_count=n,
                )
            )
    return chunks


def _heading_only(section_text: str, section: Section) -> bool:
    """A section that is just its heading ("2 Model" right before "2.1 Overview")."""
    stripped = section_text.strip()
    return (
        section.title is not None
        and "\n" not in stripped
        and len(stripped) <= len(section.title) + 12
    )


def _units(
    text: str,
    start: int,
    end: int,
    count_tokens: CountTokens,
    specials: int,
    budget: int,
    count_tokens_batch: CountTokensBatch | None = None,
) -> list[_Unit]:
    """Sentences with their token counts; sentences over the budget split at words."""
    units: list[_Unit] = []
    spans = split_sentences(text, start, end)
    if count_tokens_batch is not None:
        counts = count_tokens_batch([text[a:b] for a, b in spans])
    else:
        counts = [count_tokens(text[a:b]) for a, b in spans]
    for (a, b), total in zip(spans, counts, strict=True):
        n = total - specials
        if n <= budget:
            units.append(_Unit(a, b, n))
        else:
            units.extend(_split_long(text, a, b, count_tokens, specials, budget))
    return units


def _split_long(
    text: str, a: int, b: int, count_tokens: CountTokens, specials: int, budget: int
) -> list[_Unit]:
    """Window-sized pieces of an over-long sentence, cut between words (at the breaks
    BERT's normaliser sees, so a piece's count is the sum of its words')."""
    words: list[_Unit] = []
    for m in _WORD.finditer(text, a, b):
        ws, we = _trim(text, m.start(), m.end())
        if ws == we:
            continue
        n = count_tokens(text[ws:we]) - specials
        if n <= budget:
            words.append(_Unit(ws, we, n))
        else:
            words.extend(_split_word(text, ws, we, count_tokens, specials, budget))
    pieces: list[_Unit] = []
    cur_start, cur_end, cur_n = -1, -1, 0
    for w in words:
        if cur_start >= 0 and cur_n + w.tokens <= budget:
            cur_end, cur_n = w.end, cur_n + w.tokens
            continue
        if cur_start >= 0:
            pieces.append(_Unit(cur_start, cur_end, cur_n))
        cur_start, cur_end, cur_n = w.start, w.end, w.tokens
    if cur_start >= 0:
        pieces.append(_Unit(cur_start, cur_end, cur_n))
    return pieces


def _split_word(
    text: str, a: int, b: int, count_tokens: CountTokens, specials: int, budget: int
) -> list[_Unit]:
    """A single 'word' over the window (a long URL, a base64 blob): cut by characters."""
    out: list[_Unit] = []
    while a < b:
        lo, hi = a + 1, b  # largest end with count <= budget, by binary search
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if count_tokens(text[a:mid]) - specials <= budget:
                lo = mid
            else:
                hi = mid - 1
        # A word may hold control whitespace (a form feed): no piece starts or ends in it.
        piece_start, piece_end = _trim(text, a, lo)
        if piece_start < piece_end:
            n = count_tokens(text[piece_start:piece_end]) - specials
            out.append(_Unit(piece_start, piece_end, n))
        a = lo
    return out


def _pack(
    text: str,
    units: list[_Unit],
    count_tokens: CountTokens,
    max_tokens: int,
    budget: int,
    overlap_budget: int,
    specials: int,
    counts_add_up: bool = False,
) -> list[tuple[int, int, int]]:
    """Greedy packing of units into windows; returns (start, end, verified count)."""
    verify_margin = max(8, max_tokens // 10)
    out: list[tuple[int, int, int]] = []
    prev: list[_Unit] = []
    i = 0
    while i < len(units):
        carried: list[_Unit] = []
        carried_tokens = 0
        for u in reversed(prev):  # whole trailing sentences of the previous chunk
            if carried_tokens + u.tokens > overlap_budget:
                break
            carried.insert(0, u)
            carried_tokens += u.tokens
        if carried and carried_tokens + units[i].tokens > budget:
            carried, carried_tokens = [], 0  # no overlap rather than break the window
        fresh: list[_Unit] = []
        tokens = carried_tokens
        while i < len(units) and (not fresh or tokens + units[i].tokens <= budget):
            fresh.append(units[i])
            tokens += units[i].tokens
            i += 1
        # Sums of sentence counts are exact where the tokenizer cannot make a token
        # across the whitespace joining them (`counts_add_up`, `_joined_at_word_breaks`).
        # Otherwise they can differ by a token or two where pieces join, so a chunk
        # estimated near the window is counted for real and shrunk if needed; far below
        # it, the estimate is kept (tokenizing is the slow part).
        while True:
            members = carried + fresh
            a, b = members[0].start, members[-1].end
            n = sum(u.tokens for u in members) + specials
            if (
                len(members) > 1
                and n > max_tokens - verify_margin
                and not (counts_add_up and _joined_at_word_breaks(text, members))
            ):
                n = count_tokens(text[a:b])
            if n <= max_tokens:
                break
            if len(fresh) > 1:
                fresh.pop()
                i -= 1
            elif carried:
                carried = carried[1:]
            else:  # a lone unit is within budget by construction
                raise AssertionError("a single sentence exceeds the token window")
        out.append((a, b, n))
        prev = members
    return out


def _joined_at_word_breaks(text: str, members: list[_Unit]) -> bool:
    """Whether every join between consecutive units is a word break for BERT's
    normaliser: whitespace that holds a tab, newline, carriage return or a Unicode space
    (Z*). Other whitespace — form feeds, vertical tabs, the information separators — is
    a control character there, removed rather than read as a space, and the pieces of a
    word cut by characters (`_split_word`) have no whitespace between them at all."""
    return all(
        _WORD_BREAK.search(text, left.end, right.start) is not None
        for left, right in itertools.pairwise(members)
    )
