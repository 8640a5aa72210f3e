"""Levels of a concept from how general it is (pure; no database, no model).

The offline engine gives each concept of a source a provisional level
(:func:`provisional_level`), and the workspace merge combines them with the concept's
spread over the workspace (:func:`marginalia.knowledge.concepts.workspace_level`):

* **0 foundational** — the field at large uses it: in at least
  :data:`FOUNDATIONAL_BACKGROUND_DF` background documents ("systematic review", "heart
  failure", "named entity recognition"), or, in the workspace, discussed by at least half
  of the sources (three or more);
* **2 specialised** — the source's own thing: a name or phrase the background never uses
  that the source introduces (in its title, or in a "we propose / introduce / present …"
  sentence) and never cites ("SPECTER", "33RE", "LongEval");
* **1 intermediate** — the rest: established methods, tools, data sets, drugs the source
  uses, usually with a citation ("SciBERT (Beltagy et al., 2019)", "GROBID", "codeML").

A concept several sources discuss is at most level 1 (it is no longer one paper's own).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence

from marginalia.knowledge.background import Background
from marginalia.knowledge.sentences import SourceSentence

FOUNDATIONAL_BACKGROUND_DF = 10
"""Background documents (of 7,288) that make a phrase field-wide."""
OWN_MAX_BACKGROUND_DF = 3
"""A concept the background uses this often is nobody's own contribution."""

_INTRODUCE_RE = re.compile(
    r"\b(?:we|this (?:paper|work|study|article))\s+(?:\w+ly\s+)?"
    r"(?:propose|introduce|present|release|describe|develop|design|construct|build|create|"
    r"call)(?:s|d|ed)?\b",
    re.IGNORECASE,
)
_OWN_BEFORE = r"\b(?:our|the proposed|a new|a novel)\s+"
_CITATION_AFTER = r"\s*(?:\([^()]{0,60}?(?:et al\.?|\d{4}[a-z]?)[^()]{0,20}\)|\[\d[\d,;\s\-–]*\])"


def _alternation(forms: Iterable[str]) -> str:
    """One regex matching any of the forms (case-insensitively; spaces or hyphens between
    words, an optional plural ``s``)."""
    alts: dict[str, str] = {}
    for form in forms:
        words = [re.escape(w) for w in re.split(r"[\s\-]+", form) if w]
        if words:
            alts.setdefault(form.casefold(), r"[\s\-]+".join(words))
    return "(?:" + "|".join(sorted(alts.values())) + ")" if alts else "(?!)"


@functools.lru_cache(maxsize=16384)
def _compiled(pattern: str) -> re.Pattern[str]:
    """A case-insensitive pattern compiled once (the concepts of a library outnumber the
    re module's own cache, which then compiles them again for every source)."""
    return re.compile(pattern, re.IGNORECASE)


def is_cited(forms: Iterable[str], sentences: Sequence[SourceSentence]) -> bool:
    """Whether a form of the concept is followed by a citation somewhere in the text."""
    pat = _compiled(r"(?<!\w)" + _alternation(forms) + r"s?(?!\w)" + _CITATION_AFTER)
    return any(pat.search(s.text) for s in sentences if s.origin != "title")


def is_introduced(forms: Iterable[str], sentences: Sequence[SourceSentence]) -> bool:
    """Whether the title names the concept, or an abstract/body sentence introduces it."""
    alt = _alternation(forms)
    mention = _compiled(r"(?<!\w)" + alt + r"s?(?!\w)")
    own = _compiled(_OWN_BEFORE + alt + r"s?(?!\w)")
    for s in sentences:
        if not mention.search(s.text):
            continue
        if s.origin == "title" or _INTRODUCE_RE.search(s.text) or own.search(s.text):
            return True
    return False


def provisional_level(
    forms: Sequence[str], key: str, sentences: Sequence[SourceSentence], background: Background
) -> int:
    """A source's level for one of its concepts (see the module doc)."""
    df = background.doc_freq(key)
    if df >= FOUNDATIONAL_BACKGROUND_DF:
        return 0
    if df >= OWN_MAX_BACKGROUND_DF:
        return 1
    forms = list(forms)
    if is_introduced(forms, sentences) and not is_cited(forms, sentences):
        return 2
    return 1
