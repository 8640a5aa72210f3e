"""Text hygiene: one step between parsing and every consumer (issue 35).

A PDF's page text, as PDFium reads it, carries what the page layout puts around the
prose: running headers and footers, page numbers, footnote markers glued to words
("SCIDOCS3", "benchmark.1", a "2" on a line of its own inside a sentence), footnote
bodies in the middle of a sentence that continues in the next column, and words split
at line ends ("chal-\\nlenging"). :func:`clean_document` removes the furniture, takes the
markers out, moves each footnote body to the end of its page after a blank line (so no
sentence runs through it) and undoes line-break hyphenation — before chunking, so the
stored pages and chunks, and everything read from them (claims, wiki pages, answers,
evidence, the reader's text), read the same clean text, and quotes are verified against
it (invariant 3).

Every character of a cleaned page knows which character of the parser's page text it
came from (:attr:`CleanPage.origin`; -1 for an inserted line break), so the reader's
highlights, which map stored offsets to PDFium character boxes
(:mod:`marginalia.ingest.geometry`), stay on the right words. The function is
deterministic in the page texts alone: the geometry recomputes the same map from the
PDF instead of storing it.

Only PDFs are cleaned; HTML (trafilatura), Markdown and plain text have no page layout.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from marginalia.ingest.documents import Page, ParsedDocument, Section
from marginalia.ingest.metadata import clean_abstract
from marginalia.ingest.text import assemble_document

#: Lines at the top and at the bottom of a page where headers, footers and page
#: numbers stand.
_ZONE_LINES = 6
_PAGE_NUMBER = re.compile(r"^(?:page\s+)?(\d{1,5})(?:\s*(?:of|/)\s*\d{1,5})?$", re.IGNORECASE)
_DIGITS = re.compile(r"\d+")
_EDGE_NUMBER = re.compile(r"^\d{1,5}\s+|\s+\d{1,5}$")
#: A footnote body's first line: its number glued to the text ("1Due to…", "3https://…"),
#: its number and a space ("1 https://…"), or a symbol ("∗ Equal contribution").
_FOOTNOTE_GLUED = re.compile(r"^(\d{1,2})(?=[A-Za-z“\"'(]|https?:|www\.)")
_FOOTNOTE_SPACED = re.compile(r"^(\d{1,2})\s+(?=\S)")
_FOOTNOTE_SYMBOL = re.compile(r"^[∗*†‡]+\s*(?=[A-Za-z])")
_BARE_NUMBER = re.compile(r"^(\d{1,2})$")
_URLISH = re.compile(r"(?:https?:|www\.|\.(?:org|com|edu|net|io|html?|shtml)\b)\S*$", re.IGNORECASE)
_ENDS_SENTENCE = re.compile(r"[.!?][\"'”’)\]]*$")
_MAX_FOOTNOTE_LINES = 5
_LINE_BREAK_HYPHEN = re.compile(r"(?<=[^\W\d_])-\n(?=[^\W\d_])")
_SUSPENDED = frozenset({"and", "or", "nor", "to"})
_FUNCTION_WORDS = frozenset(
    {"a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "into", "is"}
    | {"it", "of", "on", "or", "the", "to", "with"}
)


@dataclass(frozen=True)
class CleanPage:
    """A page's clean text and, per character, its index in the parser's page text
    (-1: a line break this step inserted)."""

    number: int
    text: str
    origin: tuple[int, ...]


@dataclass
class _Line:
    start: int  # offset of the line's first character in the page text
    text: str  # without its "\n"


@dataclass
class _Footnote:
    number: str | None  # None for a symbol footnote
    first: int  # line indices [first, last]
    last: int


def _lines(text: str) -> list[_Line]:
    out, pos = [], 0
    for part in text.split("\n"):
        out.append(_Line(pos, part))
        pos += len(part) + 1
    return out


def _zone(lines: Sequence[_Line]) -> set[int]:
    """Indices of the first and last few non-empty lines of a page."""
    filled = [i for i, ln in enumerate(lines) if ln.text.strip()]
    return set(filled[:_ZONE_LINES]) | set(filled[-_ZONE_LINES:])


def _furniture(pages: Sequence[Page], lines: Sequence[Sequence[_Line]]) -> list[set[int]]:
    """Per page, the line indices of running headers/footers and page numbers."""
    out: list[set[int]] = [set() for _ in pages]
    if len(pages) < 3:
        return out
    keys: Counter[str] = Counter()
    offsets: Counter[int] = Counter()
    for page, page_lines in zip(pages, lines, strict=True):
        zone = _zone(page_lines)
        keys.update({_running_key(page_lines[i].text) for i in zone})
        for i in zone:
            m = _PAGE_NUMBER.match(page_lines[i].text.strip())
            if m:
                offsets[int(m.group(1)) - page.number] += 1
    threshold = max(3, len(pages) // 2)
    running = {k for k, n in keys.items() if n >= threshold and re.search(r"[A-Za-z]", k)}
    numbering = {o for o, n in offsets.items() if n >= threshold}
    for p, (page, page_lines) in enumerate(zip(pages, lines, strict=True)):
        for i in _zone(page_lines):
            stripped = page_lines[i].text.strip()
            m = _PAGE_NUMBER.match(stripped)
            numbered = m is not None and int(m.group(1)) - page.number in numbering
            if numbered or _running_key(stripped) in running:
                out[p].add(i)
    return out


def _running_key(line: str) -> str:
    """A header or footer line without its page number ("2 Rehabilitation Research and
    Practice" and "Rehabilitation Research and Practice 3" are one), other digits as #."""
    return _DIGITS.sub("#", _EDGE_NUMBER.sub("", line.strip()))


def _footnote_end(lines: Sequence[_Line], first: int, starts: set[int], stop: int) -> int:
    """The last line of the footnote that begins at line ``first``."""
    last = first
    while last < min(stop, first + _MAX_FOOTNOTE_LINES) - 1:
        text = lines[last].text.rstrip()
        following = lines[last + 1].text.strip()
        if last + 1 in starts or not following:
            break
        if _URLISH.search(text) or text.endswith(("http://", "https:")):
            # a URL goes on only into a line that is the rest of it ("html", "org/x/")
            if " " in following or len(following) > 60:
                break
            last += 1
            continue
        if _ENDS_SENTENCE.search(text) and not text.endswith(("e.g.", "i.e.", "et al.")):
            break
        last += 1
    return last


def _marker_pattern(number: str) -> re.Pattern[str]:
    # A footnote number right after a word or its punctuation, not inside a name
    # ("S2ORC", "RXP407"): "SCIDOCS3", "benchmark.1", "(RNNs).2", "TagMe)5".
    return re.compile(
        rf"(?<=(?:[^\W\d_]|[)\]”’])(?:[.,;:)”\"’']|[^\W\d_]|[)\]”’]))({number})(?=[\s,.;:)]|$)"
    )


def _footnotes(
    lines: Sequence[_Line], skip: set[int], expected: int
) -> tuple[list[_Footnote], list[tuple[int, int, int]], int]:
    """Footnote bodies of a page and the markers pointing at them.

    Returns the bodies (line ranges), the markers as (line, start, end) character ranges
    within the line, and the next footnote number expected. A numbered body counts only
    when its number continues the document's sequence (or restarts it at 1) and the
    page shows its marker earlier; markers are taken out only for such bodies."""
    bodies: list[_Footnote] = []
    markers: list[tuple[int, int, int]] = []
    n = len(lines)
    # (line, number, bare, label end): the label is the number or symbol that opens the
    # body, taken out with it ("8The papers" reads "The papers").
    candidates: list[tuple[int, str | None, bool, int]] = []
    for i, ln in enumerate(lines):
        if i in skip:
            continue
        text = ln.text.strip()
        lead = len(ln.text) - len(ln.text.lstrip())
        bare = _BARE_NUMBER.match(text)
        after_sentence = i > 0 and bool(_ENDS_SENTENCE.search(lines[i - 1].text.rstrip()))
        if bare and i + 1 < n and (lines[i + 1].text[:1].isupper() or after_sentence):
            candidates.append((i, bare.group(1), True, len(ln.text)))
            continue
        m = _FOOTNOTE_GLUED.match(text) or _spaced_footnote(text)
        symbol = _FOOTNOTE_SYMBOL.match(text)
        if m:
            candidates.append((i, m.group(1), False, lead + m.end()))
        elif symbol and i > 12:
            candidates.append((i, None, False, lead + symbol.end()))
    starts: set[int] = set()
    for i, number, is_bare, label_end in candidates:
        if number is None:
            starts.add(i)
            bodies.append(_Footnote(None, i, i))
            markers.append((i, 0, label_end))
            continue
        value = int(number)
        if value != 1 and not expected <= value <= expected + 3:
            continue  # a missed footnote or two do not lose the sequence
        marker = _find_marker(lines, number, i, skip)
        if marker is None:
            continue
        markers.extend((marker, (i, 0, label_end)))
        first = i + 1 if is_bare else i
        starts.add(first)
        bodies.append(_Footnote(number, i, first))
        expected = value + 1
    resolved = []
    for body in sorted(bodies, key=lambda b: b.first):
        first = body.first
        content = body.last  # for numbered bodies, the first content line
        last = _footnote_end(lines, content, starts, n)
        resolved.append(_Footnote(body.number, first, last))
    return resolved, markers, expected


def _spaced_footnote(text: str) -> re.Match[str] | None:
    """ "1 https://…" or "2 The corpus is…", not a numbered heading ("1 Introduction",
    "2 Structure of The Literature Graph") or a list item."""
    m = _FOOTNOTE_SPACED.match(text)
    if m is None:
        return None
    rest = text[m.end() :]
    if _URLISH.match(rest):
        return m
    words = rest.split()
    lower = sum(w[:1].islower() for w in words)
    return m if len(words) >= 4 and lower >= len(words) / 2 else None


_EQUATION_LABEL = re.compile(r"^\(\d{1,3}[a-z]?\)$")
_MATH_LINE_CHARS = 16


def _equation_blocks(lines: Sequence[_Line], skip: set[int]) -> list[tuple[int, int]]:
    """Display equations as PDFium reads them: short lines of symbols ("L = maxn d",
    "P", "+ m", ", 0") up to an equation number alone on its line ("(2)"). Returned as
    line ranges ``[first, last]``, so the page can set them apart from the sentences
    around them."""
    blocks = []
    for j, ln in enumerate(lines):
        if j in skip or not _EQUATION_LABEL.match(ln.text.strip()):
            continue
        first = j
        while first - 1 >= 0 and first - 1 not in skip and _math_line(lines[first - 1].text):
            first -= 1
        if first < j:
            blocks.append((first, j))
    return blocks


def _math_line(text: str) -> bool:
    stripped = text.strip()
    if not stripped:
        return True
    words = re.findall(r"[A-Za-z]{3,}", stripped)
    return (len(stripped) <= _MATH_LINE_CHARS and len(words) <= 2) or (
        "=" in stripped and len(words) <= 3 and not _ENDS_SENTENCE.search(stripped)
    )


def _find_marker(
    lines: Sequence[_Line], number: str, before: int, skip: set[int]
) -> tuple[int, int, int] | None:
    """The marker of footnote ``number``: the last occurrence before line ``before``,
    glued to a word or alone on a line inside a sentence."""
    pattern = _marker_pattern(number)
    for i in range(before - 1, -1, -1):
        if i in skip:
            continue
        text = lines[i].text
        if text.strip() == number and i > 0 and lines[i - 1].text.strip():
            return i, text.index(number), text.index(number) + len(number)
        hits = list(pattern.finditer(text))
        if hits:
            m = hits[-1]
            return i, m.start(1), m.end(1)
    return None


def _dehyphenate(
    chars: list[str], origin: list[int], vocabulary: frozenset[str]
) -> tuple[list[str], list[int]]:
    """Undo line-break hyphenation in place of the page's characters: "chal-\\nlenging
    is" becomes "challenging\\nis" (the line break moves to the next space, so lines stay
    lines), "state-\\nof-the-art" becomes "state-of-the-art"."""
    text = "".join(chars)
    drop: set[int] = set()
    newline_at: set[int] = set()
    for m in _LINE_BREAK_HYPHEN.finditer(text):
        left_start = m.start()
        while left_start > 0 and (text[left_start - 1].isalnum() or text[left_start - 1] == "-"):
            left_start -= 1
        right_end = m.end()
        while right_end < len(text) and (text[right_end].isalnum() or text[right_end] == "-"):
            right_end += 1
        left, right = text[left_start : m.start()], text[m.end() : right_end]
        if right.casefold() in _SUSPENDED:
            continue  # "pre-\nand post-training"
        if _keep_hyphen(left, right, vocabulary):
            drop.add(m.start() + 1)  # the line break only
        else:
            drop.update((m.start(), m.start() + 1))
        space = right_end
        while space < len(text) and not text[space].isspace():
            space += 1
        if space < len(text) and text[space] == " ":
            newline_at.add(space)
    out_chars: list[str] = []
    out_origin: list[int] = []
    for k, ch in enumerate(chars):
        if k in drop:
            continue
        out_chars.append("\n" if k in newline_at else ch)
        out_origin.append(origin[k])
    return out_chars, out_origin


def _keep_hyphen(left: str, right: str, vocabulary: frozenset[str]) -> bool:
    last_left = left.split("-")[-1]
    head = right.split("-")[0]
    joined = (last_left + head).casefold()
    hyphenated = f"{last_left}-{head}".casefold()
    if "-" in left or "-" in right:
        return True  # a compound that goes on ("state-\nof-the-art", "long-\nform")
    if hyphenated in vocabulary and joined not in vocabulary:
        return True
    if joined in vocabulary or _known_word(joined):
        return False
    if head.casefold() in _FUNCTION_WORDS:
        return True
    if head[:1].isupper() and not (last_left[-1:].isupper() and head.isupper()):
        return True  # "BERT-\nBase", not "SCI-\nDOCS"
    # two words of their own ("automatically-\ndetected"), not the halves of one
    return min(len(last_left), len(head)) >= 4 and all(
        _known_word(w.casefold()) for w in (last_left, head)
    )


@lru_cache(maxsize=65536)
def _known_word(word: str) -> bool:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en") > 0


def _vocabulary(pages: Sequence[Page]) -> frozenset[str]:
    """Words the document writes whole (line-break hyphenation excluded)."""
    words: set[str] = set()
    for page in pages:
        text = _LINE_BREAK_HYPHEN.sub(" ", page.text)
        words.update(w.casefold() for w in re.findall(r"[^\W_]+(?:-[^\W_]+)*", text))
    return frozenset(words)


def clean_pages(
    pages: Sequence[Page], protected: Sequence[set[int]] | None = None
) -> list[CleanPage]:
    """The clean text of every page of a PDF (see the module doc).

    ``protected``: per page, character offsets of the parser's text that footnote
    detection must leave alone (a numbered reference list reads like footnotes)."""
    lines = [_lines(p.text) for p in pages]
    furniture = _furniture(pages, lines)
    vocabulary = _vocabulary(pages)
    expected = 1
    out: list[CleanPage] = []
    for p, page in enumerate(pages):
        guarded = set(furniture[p])
        if protected is not None and protected[p]:
            guarded |= {
                i
                for i, ln in enumerate(lines[p])
                if ln.start in protected[p] or ln.start + len(ln.text) - 1 in protected[p]
            }
        notes, markers, expected = _footnotes(lines[p], guarded, expected)
        builder = _PageBuilder(page, lines[p], markers)
        note_lines = {i for f in notes for i in range(f.first, f.last + 1)}
        equations = _equation_blocks(lines[p], guarded | note_lines)
        starts = {a for a, _ in equations}
        ends = {b for _, b in equations}
        for i in range(len(lines[p])):
            if i in starts:
                builder.blank_line()  # no sentence runs into or out of an equation
            if i not in furniture[p] and i not in note_lines:
                builder.emit(i)
            if i in ends:
                builder.blank_line()
        for note in notes:  # each its own paragraph, after the page's text
            builder.blank_line()
            for i in range(note.first, note.last + 1):
                if i not in furniture[p]:
                    builder.emit(i)
        chars, origin = _dehyphenate(builder.chars, builder.origin, vocabulary)
        while chars and chars[-1] == "\n":
            chars.pop()
            origin.pop()
        out.append(CleanPage(page.number, "".join(chars), tuple(origin)))
    return out


class _PageBuilder:
    """A page's clean characters, each with its offset in the parser's text."""

    def __init__(
        self, page: Page, lines: Sequence[_Line], markers: Sequence[tuple[int, int, int]]
    ) -> None:
        self.page, self.lines = page, lines
        self.markers: dict[int, set[int]] = {}
        for i, a, b in markers:
            self.markers.setdefault(i, set()).update(range(a, b))
        self.chars: list[str] = []
        self.origin: list[int] = []

    def emit(self, i: int) -> None:
        ln = self.lines[i]
        drop = self.markers.get(i, set())
        kept = [k for k in range(len(ln.text)) if k not in drop]
        if drop and not "".join(ln.text[k] for k in kept).strip():
            return  # a marker alone on its line: the line goes with it
        self.chars.extend(ln.text[k] for k in kept)
        self.origin.extend(ln.start + k for k in kept)
        following = self.lines[i + 1].text[:1] if i + 1 < len(self.lines) else ""
        if drop and max(drop) == len(ln.text) - 1 and following and following in ",.;:)":
            return  # "SCIDOCS3\n, a novel" → "SCIDOCS, a novel"
        end = ln.start + len(ln.text)
        self.chars.append("\n")
        self.origin.append(end if end < len(self.page.text) else -1)

    def blank_line(self) -> None:
        if not self.chars:
            return
        while self.chars and self.chars[-1] == "\n":
            self.chars.pop()
            self.origin.pop()
        self.chars.extend("\n\n")
        self.origin.extend((-1, -1))


def _reference_offsets(pages: Sequence[Page], sections: Sequence[Section]) -> list[set[int]]:
    """Per page, the character offsets inside the reference list's sections."""
    out: list[set[int]] = [set() for _ in pages]
    index = {page.number: k for k, page in enumerate(pages)}
    for section in sections:
        if section.section_type != "references":
            continue
        for number in range(section.page_start, section.page_end + 1):
            k = index.get(number)
            if k is None:
                continue
            start = section.char_start if number == section.page_start else 0
            end = section.char_end if number == section.page_end else len(pages[k].text)
            out[k].update(range(start, end))
    return out


def clean_pdf_pages(
    pages: Sequence[Page], sections: Sequence[Section] | None = None
) -> list[CleanPage]:
    """:func:`clean_pages` of a PDF's parsed pages, its reference list left alone.

    ``sections``: the parser's sections of these pages, when at hand; otherwise they are
    detected again (the same, deterministic detection), which is how the geometry
    recomputes the map from the PDF alone."""
    if sections is None:
        sections = assemble_document(
            "pdf", list(pages), title=None, authors=[], markdown=False
        ).sections
    return clean_pages(pages, _reference_offsets(pages, sections))


def clean_document(doc: ParsedDocument) -> ParsedDocument:
    """``doc`` with clean page text, its sections, abstract and reference list read again
    from that text; everything the parser read from the layout (title, authors, year,
    venue, identifiers, metadata) is kept. Documents other than PDFs come back as they
    are."""
    if doc.kind != "pdf" or not doc.pages:
        return doc
    cleaned = clean_pdf_pages(doc.pages, doc.sections)
    pages = [Page(number=c.number, text=c.text) for c in cleaned]
    again = assemble_document("pdf", pages, title=doc.title, authors=doc.authors, markdown=False)
    return replace(
        doc,
        pages=pages,
        sections=again.sections,
        references=again.references or doc.references,
        abstract=clean_abstract(again.abstract) or doc.abstract,
    )
