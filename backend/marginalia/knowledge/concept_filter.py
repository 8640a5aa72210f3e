"""Which strings may be concepts, and how a source's concepts are ordered — the same rules
for the offline engine's candidates and for an LLM's concepts (pure; no database, no
model).

* :func:`concept_allowed` — never a generic single word (an everyday English word, or one
  a large share of the background corpus uses: "document", "files", "Department",
  "embeddings", "quark", "uniqueness"), never a phrase of everyday words that the
  background uses widely ("experimental results"), never a mere modifier
  ("document-level"; "structured heart failure" when it only occurs before "programmes"),
  never an adjective as the head ("molecular evolutionary"). Acronyms, CamelCase names
  and letter-digit names ("SciBERT", "S2ORC", "33RE") and uncommon words ("enoxaparin",
  "Ensembl") pass; a unit of measure ("MeV", "GHz") and a subscripted symbol ("n_1")
  never do.
* :func:`specificity` — 1 for a phrase the background never uses, towards 0 for one
  every background document uses; ranking multiplies by it.
* :func:`mmr_order` — maximal-marginal-relevance order: each next concept is the one
  with the best ``λ·relevance − (1−λ)·max similarity to those already chosen``, so
  "quality improvement", "quality improvement process" and "healthcare quality
  improvement" do not take three of the first ten places.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from marginalia.knowledge.background import Background, is_everyday_english, load_background
from marginalia.knowledge.concepts import is_acronym, normalize_concept
from marginalia.knowledge.non_concepts import non_concept_kind
from marginalia.knowledge.schemas import ExtractedConcept
from marginalia.knowledge.text import wordset

SINGLE_WORD_MIN_COUNT = 3
"""A plain single word must occur this often in the source to be one of its concepts."""
SINGLE_WORD_MAX_DF = 3
"""A plain single word in this many background documents or more is too generic alone."""
GENERIC_PHRASE_SPREAD = 0.03
"""A phrase of everyday words in this share of background documents or more is generic."""
MIN_HEAD_SHARE = 0.1
"""Share of a candidate's occurrences that must end a noun-phrase run (not a modifier)."""
SPECIFICITY_FLOOR = 0.25
"""Weight kept by the most widespread phrase; a phrase the background never uses keeps 1."""
MMR_LAMBDA = 0.7
"""Relevance against redundancy in :func:`mmr_order`."""

_PARTS_RE = re.compile(r"[-’'_/]")
_ADJECTIVE_HEAD = ("ical", "ous", "istic", "ary", "ive", "ful", "less", "able", "ible")
_NOUN_EXCEPTIONS = wordset(
    """
    summary library dictionary vocabulary boundary glossary commentary secretary artery
    objective alternative negative positive representative narrative derivative initiative
    incentive detective executive directive relative archive perspective adjective
    table variable cable vegetable label
    """
)

_MODIFIER_PARTS = wordset(
    "level scale form based like wise specific grained free aware related time term end art"
)
_BOILERPLATE = wordset(
    """
    licence license licensed copyright commons attribution doi correspondence email
    university department institute faculty college laboratory permission permits
    unrestricted distribution reproduction medium
    """
)
"""Words of front matter and licence text: a phrase with one of them is not a concept."""

_GENERIC_HEADS = wordset(
    """
    document documents paper papers file files article articles manuscript manuscripts
    result results finding findings challenge challenges task tasks experience experiences
    session sessions score scores unit units type types difference differences counterpart
    counterparts package packages issue issues aspect aspects factor factors problem problems
    area areas purpose purposes detail details part parts number numbers amount amounts
    writing approach approaches method methods technique techniques process processes
    procedure procedures information research work works setup setups way ways step steps
    example examples case cases version versions kind kinds statistic statistics text texts
    """
)
"""Heads that a phrase of everyday words does not make a concept of: documents and
their parts ("scientific documents", "summary files"), outcomes and tasks ("empirical
results", "research challenges"). and the generic words for
how work is done ("automatic approaches", "automated process", "contemporary research")."""
_GENERIC_MODIFIERS = wordset(
    """
    empirical experimental full automatic automated contemporary quite extensive
    comprehensive detailed thorough preliminary actual common usual general overall
    whole real basic standard traditional conventional classical modern alternative
    """
)
_TEXT_UNITS = wordset("text word words sentence sentences paragraph paragraphs line lines page")
_UNIT_ATTRIBUTES = wordset(
    "boundary boundaries length lengths position positions count counts break breaks end ends"
)
"""An attribute of a unit of text ("sentence boundary", "word count", "page break"): the
text's bookkeeping, not a concept of the paper."""
"""Modifiers that say how thorough, usual or real something is, not what it is: before an
everyday word they make no concept ("empirical results", "experimental setup", "full
text", "quite scarce")."""
_PEOPLE_HEADS = wordset(
    """
    patient patients staff participant participants interviewee interviewees respondent
    respondents researcher researchers provider providers people person persons member members
    author authors annotator annotators worker workers student students expert experts
    subject subjects individual individuals
    """
)
"""The people studied or involved ("multisystem trauma patients", "medical staff"): a
population, not a concept."""

T = TypeVar("T")


def is_named_token(tok: str) -> bool:
    """An acronym, a CamelCase name or a token mixing letters and digits (``BERT``,
    ``SciBERT``, ``S2ORC``, ``33RE``, ``Tyr369``)."""
    has_digit = any(ch.isdigit() for ch in tok)
    inner_capital = any(
        any(ch.isupper() for ch in part[1:]) for part in _PARTS_RE.split(tok) if part
    )
    return is_acronym(tok) or (has_digit and any(ch.isalpha() for ch in tok)) or inner_capital


def specificity(key: str, background: Background) -> float:
    """1 for a phrase the background never uses, towards 0 for one every document uses."""
    if not background.n_docs:
        return 1.0
    return math.log((background.n_docs + 1) / (background.doc_freq(key) + 1)) / math.log(
        background.n_docs + 1
    )


def weight_of(key: str, background: Background) -> float:
    """The ranking multiplier: :data:`SPECIFICITY_FLOOR` … 1."""
    return SPECIFICITY_FLOOR + (1 - SPECIFICITY_FLOOR) * specificity(key, background)


def _adjective_head(word: str) -> bool:
    low = word.casefold()
    return (
        low.endswith(_ADJECTIVE_HEAD) and low not in _NOUN_EXCEPTIONS and not is_named_token(word)
    )


_UNIT = re.compile(
    r"(?:[yzafpnuµμmckMGTPE]|da)?(?:eV|Hz|Wb|Da|bps|dBm?|mol|Pa)"
    r"|(?:[yzafpnuµμmck]|da)?[mgsKWVAJTLCΩ]"
)
"""A unit with an optional SI prefix ("MeV", "GHz", "kDa", "nm", "mW"): a measure's unit,
never a concept by itself."""


def is_unit(token: str) -> bool:
    return _UNIT.fullmatch(token) is not None


def concept_allowed(
    surface: str, key: str, background: Background, *, heads: int = 1, count: int = 1
) -> bool:
    """Whether ``surface`` (merge key ``key``) may be a concept at all (see the module doc).
    ``heads`` of ``count`` occurrences ended a noun phrase."""
    words = surface.split()
    if not words or non_concept_kind(surface) is not None:
        return False  # a residue, label, licence, file format, formula, number-word
    named = any(is_named_token(w) for w in words)
    if count and heads / count < MIN_HEAD_SHARE and not named:
        return False
    if len(words) > 1 and any(len(w) < 2 for w in words):
        return False  # "Helen M", "P Q", "Centre B": names with initials, symbols
    if any("_" in w for w in words) or (len(words) == 1 and is_unit(words[0])):
        return False  # "n_1", "u_3": a symbol of the mathematics; "MeV", "GHz": a unit
    if any(w.casefold() in _BOILERPLATE for w in words):
        return False
    if len(words) == 1:
        tok = words[0]
        if is_named_token(tok):
            return True
        parts = [p for p in _PARTS_RE.split(tok) if p]
        if len(parts) > 1:
            # "document-level", "large-scale", "N-domain": a compound of everyday parts,
            # unless it names a thing of its own ("self-management", used as a noun)
            if all(len(p) < 2 or background.is_general_word(p) for p in parts) and (
                any(len(p) < 2 for p in parts)
                or parts[-1].casefold() in _MODIFIER_PARTS
                or count < SINGLE_WORD_MIN_COUNT
                or heads < count / 2
            ):
                return False
            return background.doc_freq(key) < SINGLE_WORD_MAX_DF
        elif background.is_general_word(tok) or is_everyday_english(tok):
            return False
        if _adjective_head(parts[-1] if parts else tok):
            return False
        return background.doc_freq(key) < SINGLE_WORD_MAX_DF and count >= SINGLE_WORD_MIN_COUNT
    if _adjective_head(words[-1]):
        return False
    if any(is_named_token(w) for w in words):
        return True
    if words[-1].casefold() in _PEOPLE_HEADS:
        return False
    if all(background.is_general_word(w) for w in words):
        if words[-1].casefold() in _GENERIC_HEADS or words[0].casefold() in _GENERIC_MODIFIERS:
            return False
        if words[-2].casefold() in _TEXT_UNITS and words[-1].casefold() in _UNIT_ATTRIBUTES:
            return False
        return background.spread(key) < GENERIC_PHRASE_SPREAD
    return True


def token_similarity(a: str, b: str) -> float:
    """Overlap of two merge keys' words: 1 when one contains the other, else Jaccard."""
    ta, tb = set(a.split()), set(b.split())
    if not ta or not tb:
        return 0.0
    if ta <= tb or tb <= ta:
        return 1.0
    return len(ta & tb) / len(ta | tb)


def mmr_order(
    items: Sequence[T],
    relevance: Sequence[float],
    similarity: Callable[[int, int], float],
    *,
    limit: int,
    lam: float = MMR_LAMBDA,
) -> list[T]:
    """The first ``limit`` items in maximal-marginal-relevance order (deterministic: ties
    keep the input order). ``relevance`` is rescaled to 0…1 first."""
    n = len(items)
    if n == 0 or limit <= 0:
        return []
    top = max(relevance) or 1.0
    rel = [r / top for r in relevance]
    chosen: list[int] = []
    best_sim = [0.0] * n
    remaining = list(range(n))
    while remaining and len(chosen) < limit:
        pick = max(remaining, key=lambda i: (lam * rel[i] - (1 - lam) * best_sim[i], -i))
        chosen.append(pick)
        remaining.remove(pick)
        for i in remaining:
            best_sim[i] = max(best_sim[i], similarity(pick, i))
    return [items[i] for i in chosen]


def name_count(name: str, text: str) -> int:
    """Uses of ``name`` in ``text``: case-insensitive, on word boundaries, spaces and
    hyphens alike."""
    words = [re.escape(w) for w in re.split(r"[\s\-]+", name) if w]
    if not words:
        return 0
    pattern = re.compile(r"(?<!\w)" + r"[\s\-]+".join(words) + r"(?!\w)", re.IGNORECASE)
    return len(pattern.findall(text))


def filter_concepts(
    concepts: Sequence[ExtractedConcept], text: str, background: Background | None = None
) -> list[ExtractedConcept]:
    """An LLM's concepts through the offline engine's rules (:func:`concept_allowed`), each
    counted in the source's ``text`` (case-insensitively, on word boundaries); the first
    of two with one merge key is kept."""
    background = background or load_background()
    out: list[ExtractedConcept] = []
    seen: set[str] = set()
    for concept in concepts:
        name = " ".join(concept.name.split())
        key = normalize_concept(name)
        if not key or key in seen:
            continue
        count = name_count(name, text)
        if concept_allowed(name, key, background, heads=count, count=count):
            seen.add(key)
            out.append(concept)
    return out
