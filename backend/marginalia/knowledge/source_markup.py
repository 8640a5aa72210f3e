"""What in a source's text is not its prose, for the concept extractor: mathematics and TeX
markup, cross-reference labels, citations by author name, URLs and DOIs, and the lines a
page layout repeats (running heads and feet). Pure functions and patterns."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence

from marginalia.knowledge.sentences import SourceSentence

NOT_PROSE = re.compile(
    r"\b[A-Z][\w'’-]+(?:\s+(?:and|&)\s+[A-Z][\w'’-]+)?\s+et\s+al\b\.?"  # Beltagy et al.
    r"|\([^()]{0,80}?\b(?:19|20)\d{2}[a-z]?\)"  # (Cohan et al., 2020)
    r"|\b(?:https?://|www\.|doi:\s*|10\.\d{4,}/)\S+",  # URLs and DOIs
    re.IGNORECASE,
)
"""Author names before "et al.", parenthesised citations, URLs and DOIs: no concepts."""
_XREF = (
    r"\b(?i:fig|figs|figure|figures|tab|table|tables|sec|section|sections|eq|eqs|equation"
    r"|equations|alg|algorithm|appendix|appendices|listing|lemma|theorem|definition)\b"
)
_LABELS = r"[A-Z0-9][A-Z0-9.]*\b(?:\s*(?:,|and|&|-|–)\s*[A-Z0-9][A-Z0-9.]*\b)*"
ENDS_IN_XREF = re.compile(_XREF + r"\.\s*$")
OPENING_LABELS = re.compile(r"^\s*" + _LABELS)
"""A sentence split after "Section." opens with the label the cross-reference names."""
_MARKUP = re.compile(
    r"\$\$.{0,2000}?\$\$|\$[^$]{1,400}?\$"  # TeX math: $$…$$, $…$
    r"|\\\(.{0,400}?\\\)|\\\[.{0,2000}?\\\]"  # \(…\), \[…\]
    r"|\\[A-Za-z]+"  # a TeX command left in the text (\mathbf, \vert, \hdots)
    r"|" + _XREF + r"\.?\s*\(?\s*" + _LABELS,  # Fig. 3, Table REF, equation (REF)
    re.DOTALL,
)
"""Mathematics and TeX markup (a paper rendered from its LaTeX source), and the labels of
cross-references ("Fig. 3", "Section REF", "Tables 2 and 3"): symbols and labels, never
concepts."""
CITED_NAME = re.compile(
    r"\b([A-Z][a-z]+(?:-[A-Z][a-z]+)?)"
    r"(?:\s+(?:and|&)\s+([A-Z][a-z]+(?:-[A-Z][a-z]+)?)|\s+et\s+al\.?)?"
    r"(?:\s*\[\d|\s*\\cite|['’]s\b)"
)
"""A surname, or two, before a numbered citation or a TeX ``\\cite``, or in the possessive:
"Byun [4]", "Kabluchko and Seidel [7]", "Kabluchko's proof" — a person, when the word
stands alone."""
LINE_BREAK_HYPHEN = re.compile(r"([a-z])[-\u00ad]\s+([a-z])")
"""A word broken across lines ("construc- tions"): joined before phrases are cut."""


_NAMED_RESULT_LABEL = re.compile(
    r"(?<=[A-Za-z]\s)((?i:equation|equations|theorem|theorems|lemma|inequality|formula))"
    r"\s*\(?\s*" + _LABELS + r"\s*\)?"
)
"""A label after a named result ("the heat equation (REF)", "Berry-Esseen theorem 2"): the
label goes, the name stays."""


def without_markup(text: str) -> str:
    """``text`` with its mathematics, TeX commands and cross-reference labels cut out."""
    return _MARKUP.sub(" ; ", _NAMED_RESULT_LABEL.sub(r"\1 ; ", text))


_DIGITS = re.compile(r"\d+")
RUNNING_LINE_CHUNKS = 3
RUNNING_LINE_MAX_CHARS = 120
"""A line printed in this many chunks or more is a running head or foot ("Webb et al.
(2017), PeerJ Comput. Sci., DOI … 4/16"), not the paper's text."""


def _line_key(line: str) -> str:
    return _DIGITS.sub("0", " ".join(line.split())).casefold()


def running_lines(sentences: Sequence[SourceSentence]) -> frozenset[str]:
    """Keys (:func:`_line_key`) of lines of two words to :data:`RUNNING_LINE_MAX_CHARS`
    characters that recur in :data:`RUNNING_LINE_CHUNKS` chunks or more: page heads and
    feet."""
    chunks_of: dict[str, set[int]] = defaultdict(set)
    for sent in sentences:
        if sent.origin != "chunk" or sent.chunk_index is None:
            continue
        lines = sent.text.splitlines()
        if len(lines) < 2:
            continue  # a sentence of one line is text, not a page's layout
        for line in lines:
            key = _line_key(line)
            if len(key.split()) >= 2 and len(key) <= RUNNING_LINE_MAX_CHARS:
                chunks_of[key].add(sent.chunk_index)
    return frozenset(k for k, c in chunks_of.items() if len(c) >= RUNNING_LINE_CHUNKS)


def without_lines(text: str, lines: frozenset[str]) -> str:
    if not lines or ("\n" not in text and _line_key(text) not in lines):
        return text
    return "\n".join(ln if _line_key(ln) not in lines else " ; " for ln in text.splitlines())
