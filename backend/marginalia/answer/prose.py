"""Is a sentence of a passage prose a claim may quote?

The parsed text of a paper carries more than its prose: running headers and journal
banners ("R E S EAR CH A R TIC L E", "Page 3 of 10", "BMC Health Services Research 2014,
14:123"), author affiliations and e-mail addresses, equations and formula fragments
("L = maxn d", ``$\\mathcal{L} = \\sum_i …$``), reference-list entries, and licence or
copyright notices. None of these answers a question, and each scores well on a question
that shares its words (a journal name, a dataset in a title). :func:`non_prose_reason`
says which of those a sentence is (None for prose); the offline engine scores only prose
sentences (:func:`is_prose`).

Every rule is a plain, conservative pattern over the sentence itself — a real sentence
that mentions a licence or cites a paper in passing stays prose; the rules target text
made mostly of such material.
"""

from __future__ import annotations

import re

#: Words a sentence must have (fewer: a heading, caption label or fragment).
MIN_WORDS = 5
#: More words than this: run-on table text or a paragraph the splitter did not break.
MAX_WORDS = 80

_URL = re.compile(r"https?://|www\.|\bdoi\s*:|\bdoi\.org\b", re.IGNORECASE)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
_PAGE_OF = re.compile(r"\bpage\s+\d+\s+of\s+\d+\b", re.IGNORECASE)
_JOURNAL_BANNER = re.compile(
    r"\b(?:19|20)\d\d\s*,\s*\d+\s*:\s*\d+"  # "2014, 14:123"
    r"|\bvol(?:ume)?\.?\s*\d+\s*,?\s*(?:no\.?|issue)\s*\d+"  # "Vol. 12, No. 3"
    r"|\bdoi\s+10\.\d{4,}/"  # a journal footer: "PeerJ Comput. Sci., DOI 10.7717/peerj-cs.118"
    r"|\bproceedings\s+of\s+the\s+\d+(?:st|nd|rd|th)\b"  # "Proceedings of the 58th Annual …"
    r"|\b(?:research\s+article|original\s+article|open\s+access|review\s+article)\b"
    r"(?=\s*(?:(?-i:[A-Z])|$))",
    re.IGNORECASE,
)
_AFFILIATION = re.compile(
    r"\b(?:universit(?:y|ät|é|à|ies)|department|dept\.|institute|faculty|school\s+of|"
    r"college|laboratory|hospital|centre|center|inc\.|ltd\.?|gmbh|corresponding\s+author|"
    r"e-?mail)\b",
    re.IGNORECASE,
)
_LICENCE = re.compile(
    r"creative\s+commons|\bcc[ -]by\b|\blicen[cs]e[ds]?\b|\bcopyright\b|©|"
    r"all\s+rights\s+reserved|permits\s+unrestricted|distributed\s+under\s+the\s+terms|"
    r"open\s+access\s+article",
    re.IGNORECASE,
)
_LICENCE_STRONG = re.compile(
    r"creative\s+commons|all\s+rights\s+reserved|permits\s+unrestricted|"
    r"distributed\s+under\s+the\s+terms|this\s+is\s+an\s+open\s+access|©",
    re.IGNORECASE,
)
_REFERENCE_START = re.compile(r"^\s*(?:\[\d+\]|\d+\.\s+[A-Z][\w'-]+,\s+[A-Z]\.)")
_REFERENCE_MARKS = re.compile(
    r"\bet\s+al\.|\bpp\.\s*\d|\bvol\.\s*\d|\bin\s+proceedings\b|\bproc\.\s|\barxiv\s*:|"
    r"\bjournal\s+of\b|\bpress\b|\b(?:19|20)\d\d[a-z]?\s*[).;]|\b\d+\s*[–-]\s*\d+\s*\.?$"
    r"|\b[A-Z]\.\s*[A-Z]?\.?\s*,|\bconference\s+on\b|\btransactions\s+on\b",
    re.IGNORECASE,
)
# Words of a clause (a verb or a pronoun subject): an address line has none of them.
_CLAUSE = re.compile(
    r"\b(?:is|are|was|were|be|been|has|have|had|we|our|they|it|this|these|can|could|"
    r"did|does|do|may|might|will|would|should|more|most|than|which|who|that)\b"
)
_LATEX = re.compile(r"\$[^$]*\$")
_LATEX_COMMAND = re.compile(r"\\[A-Za-z]+")
_MATH_CHARS = set("=+−-×*/^_<>≤≥≈∑∏∫√∂∆∇αβγδεθλμσπφψω|{}()[]")


def _words(sentence: str) -> list[str]:
    return sentence.split()


def _letter_spaced(tokens: list[str]) -> bool:
    """ "R E S EAR CH A R TIC L E": most tokens are single letters."""
    singles = sum(1 for t in tokens if len(t) == 1 and t.isalpha() and t not in ("a", "I", "A"))
    return len(tokens) >= 4 and singles >= 0.4 * len(tokens)


def _mostly_upper(sentence: str) -> bool:
    letters = [c for c in sentence if c.isalpha()]
    upper = sum(1 for c in letters if c.isupper())
    return len(letters) >= 12 and upper >= 0.6 * len(letters)


def _formula(sentence: str, tokens: list[str]) -> bool:
    """An equation or formula fragment: LaTeX makes up much of it, or its tokens are
    mostly symbols and one- or two-letter variables around an operator."""
    latex = sum(len(m.group(0)) for m in _LATEX.finditer(sentence))
    if latex >= 0.35 * len(sentence) or len(_LATEX_COMMAND.findall(sentence)) >= 4:
        return True
    if not any(op in sentence for op in ("=", "≤", "≥", "≈", "∑", "∫")):
        return False
    short = sum(1 for t in tokens if len(t.strip(".,;:()")) <= 2 or set(t) <= _MATH_CHARS)
    return short >= 0.5 * len(tokens)


def _reference_entry(sentence: str) -> bool:
    if _REFERENCE_START.match(sentence):
        return True
    return len(_REFERENCE_MARKS.findall(sentence)) >= 3


def _symbolic(sentence: str) -> bool:
    visible = [c for c in sentence if not c.isspace()]
    letters = sum(c.isalpha() for c in visible)
    return not visible or letters < 0.6 * len(visible)


def non_prose_reason(sentence: str) -> str | None:
    """Why ``sentence`` is not prose a claim may quote, or None when it is.

    Reasons: ``length``, ``symbols``, ``letter_spaced``, ``header`` (running header,
    journal banner, page number, URL/DOI, all-caps line), ``affiliation``, ``licence``,
    ``reference``, ``formula``."""
    tokens = _words(sentence)
    if not MIN_WORDS <= len(tokens) <= MAX_WORDS:
        return "length"
    if _formula(sentence, tokens):
        return "formula"
    if _letter_spaced(tokens):
        return "letter_spaced"
    if _symbolic(sentence):
        return "symbols"
    if _PAGE_OF.search(sentence) or _URL.search(sentence) or _mostly_upper(sentence):
        return "header"
    if _JOURNAL_BANNER.search(sentence):
        return "header"
    if _EMAIL.search(sentence) or (
        len(_AFFILIATION.findall(sentence)) >= 2 and not _CLAUSE.search(sentence)
    ):
        return "affiliation"
    if _LICENCE_STRONG.search(sentence) or len(_LICENCE.findall(sentence)) >= 2:
        return "licence"
    if _reference_entry(sentence):
        return "reference"
    return None


def is_prose(sentence: str) -> bool:
    """Is ``sentence`` prose (see :func:`non_prose_reason`)?"""
    return non_prose_reason(sentence) is None


#: Reasons that condemn a whole line glued to a sentence (a running header above the
#: first sentence of a page, a page number under the last).
_LINE_REASONS = frozenset({"letter_spaced", "header", "affiliation", "licence", "formula"})


def _line_reason(line: str) -> str | None:
    stripped = line.strip()
    if not stripped:
        return None
    tokens = stripped.split()
    if _letter_spaced(tokens) or _PAGE_OF.search(stripped) or _URL.search(stripped):
        return "header"
    if _formula(stripped, tokens):
        return "formula"
    reason = non_prose_reason(stripped) if len(tokens) >= MIN_WORDS else None
    return reason if reason in _LINE_REASONS else None


def trim_lines(text: str, start: int, end: int) -> tuple[int, int]:
    """``(start, end)`` of the sentence ``text[start:end]`` without the whole lines of
    non-prose (headers, banners, affiliations, licence lines) glued to its beginning or
    end by the page layout; ``(start, start)`` when nothing else is left."""
    lines = text[start:end].split("\n")
    offsets = []
    pos = start
    for line in lines:
        offsets.append((pos, pos + len(line)))
        pos += len(line) + 1
    first, last = 0, len(lines) - 1
    while first <= last and len(lines) > 1 and _line_reason(lines[first]) is not None:
        first += 1
    while last >= first and len(lines) > 1 and _line_reason(lines[last]) is not None:
        last -= 1
    if first > last:
        return (start, start)
    a, b = offsets[first][0], offsets[last][1]
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return (a, b)


#: A heading line has at most this many words.
HEADING_WORDS = 8
_SECTION_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[A-Z](?:\.\d+)*)\s+\S")


_OPENER = re.compile(
    r"^(?:the|a|an|in|see|when|while|if|although|though|for|with|using|by|as|after|before|"
    r"since|because|owing|partly|finally|however|approximately|annotating|from|to|on|at|"
    r"of|and|or|but|unlike|like|following|given|here|there|then|thus)\b",
    re.IGNORECASE,
)
_DANGLING = re.compile(
    r"\b(?:the|a|an|of|to|in|for|by|with|and|or|at|from|on|as|than|its|their|our|between|"
    r"into|via|per|van|der|de|von)$",
    re.IGNORECASE,
)


def _heading_line(line: str, following: str) -> bool:
    """A section heading the layout put on its own line above a sentence ("Methods",
    "Setting", "3 The S2ORC dataset", "MATERIALS AND METHODS"): short, no closing
    punctuation, no clause word, a capital or a section number first, and the next line
    opens with a capital (a sentence broken across lines continues in lower case)."""
    stripped = line.strip()
    nxt = following.lstrip()
    if not stripped or not nxt or not nxt[0].isupper():
        return False
    words = stripped.split()
    if len(words) > HEADING_WORDS or stripped[-1] in ".,;:!?-–—/":
        return False
    if any(c in stripped for c in ",()[]") or _CLAUSE.search(stripped.lower()):
        return False
    # A sentence broken before a name: "In\nTable 4 …", "Inspired by\nCulotta …".
    if _OPENER.match(stripped) or _DANGLING.search(stripped):
        return False
    return stripped[0].isupper() or bool(_SECTION_NUMBER.match(stripped))


def skip_headings(text: str, start: int, end: int) -> int:
    """The start of ``text[start:end]`` past the section-heading lines above its first
    sentence line (see :func:`_heading_line`); ``start`` when there are none. At least
    one line is always left."""
    pos = start
    while True:
        newline = text.find("\n", pos, end)
        if newline < 0:
            return pos
        line = text[pos:newline]
        rest_end = text.find("\n", newline + 1, end)
        following = text[newline + 1 : end if rest_end < 0 else rest_end]
        if not _heading_line(line, following):
            return pos
        pos = newline + 1
        while pos < end and text[pos].isspace():
            pos += 1
