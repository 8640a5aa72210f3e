"""Section heading detection and section typing.

Works on plain text lines (PDF page text, .txt files) or Markdown `#` headings.
The line detector is deliberately conservative: a wrong heading splits a section
and mislabels its chunks, while a missed subsection heading only means its text
keeps the parent's type. So numbered headings must follow a plausible numbering
sequence, and unnumbered ones must be a known section name on a line of its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from marginalia.ingest.documents import Page, PageIndex, Section, joined_text


@dataclass(frozen=True)
class Heading:
    start: int  # offset of the heading's first character in the joined text
    end: int  # offset just past the heading text (incl. a wrapped second line)
    number: str | None
    title: str
    level: int
    section_type: str


# --- title → section_type -------------------------------------------------------------

# Checked in order; the first pattern found in the lower-cased title wins. Order
# matters: "Conclusions and Future Work" is a conclusion, "Results and Discussion"
# results, "Statistical analysis" methods although "analysis" alone means results.
_TYPE_RULES: list[tuple[str, re.Pattern[str]]] = [
    ("references", re.compile(r"\b(references?|bibliography|literature cited|works cited)\b")),
    (
        "other",
        re.compile(
            r"\b(acknowledge?ments?|appendix|appendices|supplementary|supplemental|funding"
            r"|competing interests?|conflicts? of interests?|declarations?|author'?s?'? "
            r"contributions?|ethic(s|al)|abbreviations|availability|disclosure)\b"
        ),
    ),
    ("abstract", re.compile(r"^(abstract|summary)$")),
    ("introduction", re.compile(r"\b(introduction|motivation)\b")),
    (
        "related_work",
        re.compile(
            r"\b(related work|background|prior work|previous work|literature review"
            r"|related research|state of the art)\b"
        ),
    ),
    ("conclusion", re.compile(r"\b(conclusions?|concluding|limitations?|future work)\b")),
    (
        "methods",
        re.compile(
            r"\b(statistical analys[ie]s|data analysis|experimental (setup|set-up|design|settings?)"
            r"|study design|implementation details)\b"
        ),
    ),
    (
        "results",
        re.compile(
            r"\b(results?|experiments?|evaluations?|findings|analysis|ablations?|performance)\b"
        ),
    ),
    ("discussion", re.compile(r"\bdiscussions?\b")),
    (
        "methods",
        re.compile(
            r"\b(methods?|methodology|materials?|approach(es)?|models?|architecture"
            r"|participants|patients|subjects|procedures?|implementation|dataset|data)\b"
        ),
    ),
]


def classify_title(title: str) -> str | None:
    """Map a heading title to a section_type, or None when no keyword applies."""
    t = _clean_title(title).lower()
    for section_type, pattern in _TYPE_RULES:
        if pattern.search(t):
            return section_type
    return None


# Unnumbered headings are accepted only when the whole line is one of these names.
_KNOWN_NAMES = re.compile(
    r"(abstract|summary|introduction|background|motivation|related works?|prior work"
    r"|previous work|literature review|methods?|methodology|materials and methods"
    r"|methods and materials|material and methods|patients and methods|subjects and methods"
    r"|experimental( section| procedures?| setup)?|experiments?|evaluation|results"
    r"|results and discussion|discussion|discussions|general discussion|conclusions?"
    r"|conclusions? and future work|concluding remarks|summary and conclusions?|limitations"
    r"|future work|references|bibliography|literature cited|acknowledge?ments?|appendix"
    r"|appendices|supplementary (online )?(data|materials?|information)|funding"
    r"|competing interests|conflicts? of interests?|declaration of interests"
    r"|declarations|authors'? contributions?|author contributions?|ethical considerations"
    r"|ethics statement|abbreviations|data availability|availability of data and materials"
    r"|broader impact)",
    re.IGNORECASE,
)

_NUMBERED = re.compile(r"(?P<num>\d{1,2}(?:\.\d{1,2}){0,3}\.?|[IVX]{1,6}\.)\s+(?P<title>\S.*)")
_LETTERED = re.compile(r"(?P<num>[A-H](?:\.\d{1,2}){0,2})\.?\s+(?P<title>\S.*)")
_MARKDOWN = re.compile(r"^(?P<hashes>#{1,6})[ \t]+(?P<title>.+?)[ \t]*#*[ \t]*$", re.MULTILINE)
_FENCE = re.compile(r"^(```|~~~)", re.MULTILINE)
_LEADING_NUMBER = re.compile(
    r"^(\d{1,2}(?:\.\d{1,2}){0,3}\.?|[IVX]{1,6}\.|[A-H](\.\d{1,2})*\.?)\s+"
)
_FUNCTION_WORDS = frozenset(
    [
        "of",
        "for",
        "and",
        "the",
        "in",
        "on",
        "with",
        "to",
        "a",
        "an",
        "via",
        "from",
        "by",
        "at",
        "as",
        "or",
        "between",
        "using",
        "towards",
        "toward",
    ]
)
_ROMAN = {"I": 1, "V": 5, "X": 10}


def _clean_title(title: str) -> str:
    return re.sub(r"\s+", " ", title).strip().rstrip(".:").strip()


def _roman_to_int(s: str) -> int:
    total = 0
    for i, ch in enumerate(s):
        value = _ROMAN[ch]
        total += -value if i + 1 < len(s) and _ROMAN[s[i + 1]] > value else value
    return total


def _parse_number(num: str) -> tuple[int, ...]:
    num = num.rstrip(".")
    if num and all(ch in _ROMAN for ch in num):
        return (_roman_to_int(num),)
    return tuple(int(part) for part in num.split("."))


def _is_successor(prev: tuple[int, ...] | None, cur: tuple[int, ...]) -> bool:
    """Whether `cur` may follow `prev` in a heading numbering (allowing one missed heading)."""
    if prev is None:
        return cur[0] == 1 and all(c == 1 for c in cur[1:])
    if len(cur) == len(prev) + 1 and cur[:-1] == prev and cur[-1] == 1:
        return True  # first child: 2 -> 2.1
    for k in range(1, len(prev) + 1):
        if cur[: k - 1] != prev[: k - 1]:
            break
        step = cur[k - 1] - prev[k - 1] if len(cur) >= k else 0
        if len(cur) == k and step in (1, 2):
            return True  # sibling or ancestor's sibling: 2.1 -> 2.2, 2.3 -> 3
        if len(cur) == k + 1 and step == 1 and cur[k] == 1:
            return True  # 2.3 -> 3.1 when "3" itself was not detected
    return False


def _title_ok(title: str) -> bool:
    """Title-ish: short, starts with a capital, not a sentence, table row or formula."""
    words = title.split()
    if not words or len(title) > 90 or len(words) > 14:
        return False
    if not title[0].isupper():
        return False
    if title.endswith((".", ",", ";")) or any(ch in title for ch in "•=|…\t"):
        return False
    letters = sum(ch.isalpha() for ch in title)
    digits = sum(ch.isdigit() for ch in title)
    if letters < 3 or digits > 0.25 * (letters + digits):
        return False
    # Long sentence-case lines are body text that happens to start with a number.
    lower_words = sum(1 for w in words[1:] if w[0].islower() and w not in _FUNCTION_WORDS)
    return not (len(words) > 9 and lower_words > len(words) / 2)


@dataclass
class _Line:
    start: int  # offset of first non-space character
    end: int  # offset past last non-space character
    text: str
    page: int  # 0-based index into pages


def _lines(text: str, page_starts: Sequence[int]) -> list[_Line]:
    out: list[_Line] = []
    page = 0
    for m in re.finditer(r"[^\n]+", text):
        raw = m.group()
        stripped = raw.strip()
        if not stripped:
            continue
        while page + 1 < len(page_starts) and m.start() >= page_starts[page + 1]:
            page += 1
        lead = len(raw) - len(raw.lstrip())
        start = m.start() + lead
        out.append(_Line(start, start + len(stripped), stripped, page))
    return out


def _repeated_lines(lines: list[_Line]) -> set[str]:
    """Running headers/footers: the same digit-normalised line on several pages."""
    pages_of: dict[str, set[int]] = {}
    for ln in lines:
        key = re.sub(r"\d+", "#", ln.text)
        pages_of.setdefault(key, set()).add(ln.page)
    return {key for key, pages in pages_of.items() if len(pages) >= 2}


# "Appendix A - Baseline Details", "A Appendix A: Details", "Supplementary Material S1".
_APPENDIX_LINE = re.compile(
    r"(?:[A-H]\.?\s+)?(?:Appendix|APPENDIX|Appendices|APPENDICES|Supplementary|SUPPLEMENTARY)"
    r"\b[^.]{0,70}"
)


def _known_name(text: str) -> str | None:
    if not text.lstrip()[:1].isupper() or len(text) > 200:
        return None  # body text: known names and appendix lines start upper-case, run short
    title = _clean_title(text)
    if title and title[0].isupper() and _KNOWN_NAMES.fullmatch(title):
        return title
    if _APPENDIX_LINE.fullmatch(title) and len(title.split()) <= 10:
        return title
    return None


def _continuation(lines: list[_Line], i: int, title: str) -> _Line | None:
    """A heading wrapped onto a second line ('3 The LONGEVAL guidelines for' / '...')."""
    last = title.split()[-1].lower()
    if last not in _FUNCTION_WORDS and not title.endswith(("-", ":")):
        return None
    if i + 1 >= len(lines):
        return None
    nxt = lines[i + 1]
    if nxt.page != lines[i].page or len(nxt.text) > 50 or len(nxt.text.split()) > 6:
        return None
    if nxt.text.endswith((".", ",", ";")):
        return None
    return nxt


def _appendix_after_references(lines: list[_Line], i: int) -> bool:
    """ACL style: "A Background & Terminology" straight after the last reference.

    Only a letter-A heading on a short title-ish line whose previous line ends a
    reference entry (not "2017." before a reference's own title on the next line).
    """
    m = _LETTERED.fullmatch(lines[i].text)
    if not m or m["num"] != "A" or not _title_ok(m["title"]) or len(m["title"].split()) > 8:
        return False
    j = i - 1
    while j >= 0 and lines[j].text.isdigit():
        j -= 1  # page numbers between the last reference and the heading
    prev = lines[j].text if j >= 0 else ""
    return prev.endswith((".", ")")) and not _YEAR_END.search(prev)


def detect_headings(pages: list[Page]) -> list[Heading]:
    """Headings in the pages' joined text (see `documents.joined_text`)."""
    text = joined_text(pages)
    index = PageIndex(pages)
    lines = _lines(text, index.starts)
    repeated = _repeated_lines(lines)

    # Style: numbered headings are trusted only in a document that numbers at least
    # one known section name ("1 Introduction", "3. Results"). In other documents
    # numbered lines are lists and table rows.
    numbered_style = False
    for ln in lines:
        m = _NUMBERED.fullmatch(ln.text)
        if m and len(_parse_number(m["num"])) == 1 and _known_name(m["title"]) is not None:
            numbered_style = True
            break

    headings: list[Heading] = []
    prev_number: tuple[int, ...] | None = None
    dotted: bool | None = None  # "1." vs "1" for top-level numbers, fixed by the first
    mode = "body"  # "body", "references" (no numbered headings), "appendix" (A, B.1 ...)
    prev_letter: tuple[int, ...] | None = None
    intro_seen = False
    skip_until = -1

    for i, ln in enumerate(lines):
        if ln.start < skip_until:
            continue
        number: str | None = None
        title: str | None = None
        known = _known_name(ln.text)
        if known is not None and (mode != "references" or classify_title(known) == "other"):
            title = known
        elif mode == "references" and _appendix_after_references(lines, i):
            m = _LETTERED.fullmatch(ln.text)
            assert m is not None
            number, title, prev_letter = m["num"], m["title"], (1,)
            mode = "appendix"
        elif mode == "appendix":
            m = _LETTERED.fullmatch(ln.text)
            if m and _title_ok(m["title"]):
                parts = m["num"].split(".")
                letter_no = (ord(parts[0]) - ord("A") + 1, *(int(p) for p in parts[1:]))
                if _is_successor(prev_letter, letter_no):
                    number, title, prev_letter = m["num"], m["title"], letter_no
        elif mode == "body" and numbered_style:
            m = _NUMBERED.fullmatch(ln.text)
            if m and _title_ok(m["title"]) and re.sub(r"\d+", "#", ln.text) not in repeated:
                parsed = _parse_number(m["num"])
                has_dot = m["num"].endswith(".")
                style_ok = len(parsed) > 1 or dotted is None or dotted == has_dot
                if style_ok and _is_successor(prev_number, parsed):
                    number, title, prev_number = m["num"].rstrip("."), m["title"], parsed
                    if len(parsed) == 1 and dotted is None:
                        dotted = has_dot
        if title is None:
            continue

        end = ln.end
        if number is not None:
            nxt = _continuation(lines, i, title)
            if nxt is not None:
                title = f"{title} {nxt.text}"
                end = nxt.end
                skip_until = nxt.end
        title = _clean_title(title)
        level = len(number.split(".")) if number else 1
        own_type = classify_title(title)
        if own_type == "related_work" and title.lower() == "background" and not intro_seen:
            own_type = "introduction"  # BMC style: "Background" opens the paper
        if own_type is None:
            parent = next((h for h in reversed(headings) if h.level < level), None)
            own_type = parent.section_type if parent is not None else "other"
        headings.append(Heading(ln.start, end, number, title, level, own_type))

        intro_seen = intro_seen or own_type == "introduction"
        if own_type == "references":
            mode = "references"
        elif own_type == "other" and re.search(r"appendi|supplement", title, re.IGNORECASE):
            mode = "appendix"
            prev_letter = None
        elif mode == "references" and level == 1:
            mode = "appendix" if own_type == "other" else "body"
    return headings


def markdown_headings(text: str) -> list[Heading]:
    """ATX headings (`#`..`######`) outside fenced code blocks."""
    fenced: list[tuple[int, int]] = []
    fences = [m.start() for m in _FENCE.finditer(text)]
    for a, b in zip(fences[::2], fences[1::2], strict=False):
        fenced.append((a, b))
    headings: list[Heading] = []
    for m in _MARKDOWN.finditer(text):
        if any(a <= m.start() <= b for a, b in fenced):
            continue
        level = len(m["hashes"])
        raw_title = _clean_title(m["title"])
        if not raw_title:
            continue
        number_match = _LEADING_NUMBER.match(raw_title)
        number = number_match.group(1).rstrip(".") if number_match else None
        title = raw_title[number_match.end() :] if number_match else raw_title
        own_type = classify_title(title)
        if own_type is None:
            parent = next((h for h in reversed(headings) if h.level < level), None)
            own_type = parent.section_type if parent is not None else "other"
        headings.append(Heading(m.start(), m.end(), number, raw_title, level, own_type))
    return headings


def build_sections(pages: list[Page], headings: list[Heading]) -> list[Section]:
    """Sections covering the document: front matter (if any), then one per heading."""
    text = joined_text(pages)
    index = PageIndex(pages)
    bounds: list[tuple[int, int, str, str | None]] = []
    first = headings[0].start if headings else len(text)
    if text[:first].strip():
        bounds.append((0, first, "other", None))
    for i, h in enumerate(headings):
        end = headings[i + 1].start if i + 1 < len(headings) else len(text)
        bounds.append((h.start, end, h.section_type, h.title))
    sections: list[Section] = []
    for start, end, section_type, title in bounds:
        while end > start and text[end - 1].isspace():
            end -= 1  # tidy spans: no trailing whitespace
        page_start, char_start = index.locate(start)
        page_end, char_end = index.locate(end)
        sections.append(Section(section_type, title, page_start, char_start, page_end, char_end))
    return sections


# --- reference list -------------------------------------------------------------------

_REF_NUMBERED = re.compile(r"^\s*(\[\d{1,3}\]|\d{1,3}\.(?=\s)|\d{1,3}(?=\s+[A-Z]))")
_REF_AUTHOR_START = re.compile(r"^[A-Z\u00C0-\u024F][^\s,]*(?:[ \-][^\s,]+){0,3},")
_REF_NAME_YEAR = re.compile(r"^[A-Z][^,;:]{0,60}?\.\s*\(?(19|20)\d{2}[a-z]?\)?\.")
# A line ending in "2017." or an initial "J." is mid-entry (a title follows).
_YEAR_END = re.compile(r"((?<![–\-:/.])\b(19|20)\d{2}[a-z]?|\b[A-Z])\.$")


def running_lines(pages: list[Page]) -> set[str]:
    """Digit-normalised lines on at least half the pages (3 or more): headers/footers."""
    seen: dict[str, int] = {}
    for page in pages:
        for key in {re.sub(r"\d+", "#", ln.strip()) for ln in page.text.splitlines()}:
            seen[key] = seen.get(key, 0) + 1
    threshold = max(3, len(pages) // 2)
    return {key for key, n in seen.items() if n >= threshold and key}


def split_references(text: str, drop: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Split a reference list's text into entries (one string per reference).

    `drop`: digit-normalised lines to leave out (running headers/footers).
    """
    # Markdown/HTML lists ("- Doe, J. 2020 ...") arrive with their bullet.
    lines = [re.sub(r"^[-*+•]\s+", "", ln.strip()) for ln in text.splitlines()]
    lines = [
        ln
        for ln in lines
        if ln and not ln.isdigit() and re.sub(r"\d+", "#", ln) not in drop  # page furniture
    ]
    if not lines:
        return []
    numbered_starts = [i for i, ln in enumerate(lines) if _REF_NUMBERED.match(ln)]
    entries: list[list[str]] = []
    if len(numbered_starts) >= max(3, len(lines) // 6):
        expected = 1
        for ln in lines:
            m = _REF_NUMBERED.match(ln)
            number = int(re.sub(r"\D", "", m.group(1))) if m else None
            if (number is not None and number in (expected, expected + 1)) or not entries:
                entries.append([ln])
                if number is not None:
                    expected = number + 1
            else:
                entries[-1].append(ln)
    else:
        for ln in lines:
            prev = entries[-1][-1] if entries else ""
            starts_entry = not entries or (
                prev.endswith((".", ")"))
                and not _YEAR_END.search(prev)
                and (bool(_REF_AUTHOR_START.match(ln[:40])) or bool(_REF_NAME_YEAR.match(ln)))
            )
            if starts_entry:
                entries.append([ln])
            else:
                entries[-1].append(ln)
    return [re.sub(r"\s+", " ", " ".join(parts)).strip() for parts in entries]
