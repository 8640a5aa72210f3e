"""The offline cell: the source's best sentence for the column, a short answer cut from
it, or "not reported" (pure: it reads an :class:`~marginalia.tables.evidence.Evidence`).

Each scored sentence of the source is ranked by::

    rank = SUPPORT_WEIGHT · support     (the offline answerer's: cosine + idf coverage)
         + CUE_WEIGHT      · the column's cue: 1 said outright ("a limitation", "we propose"),
                             ½ the column's vocabulary, −1 its words for another reason
         + SECTION_WEIGHT  · it sits in a section the column's answers sit in
         + TYPE_WEIGHT     · it offers the answer type (a count, a name, a date)
         + RETRIEVAL_WEIGHT / r  for a sentence of the retrieval's r-th passage
         − BACK_MATTER_PENALTY   in acknowledgements, funding, references, related work …

A column that wants a count, a name or a date takes the best sentence that offers one
(:mod:`marginalia.tables.short_answer` cuts it out) — for a count, one whose wording
introduces it as the study's own (the column's cue). A dataset column takes the best
sentence that introduces data: its names when it gives some, else the phrase saying what
the data is ("focus groups with …"). Other columns take the best sentence, shown whole. The cell is "not reported" — with the passages searched — when no sentence
offers the type, or the best rank is under the column's floor. The weights and floors
were set on the development half of the table gold only (docs/EVAL.md).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from marginalia.answer.prose import skip_headings
from marginalia.ingest.documents import Page
from marginalia.tables.cells import (
    CellQuote,
    CellResult,
    not_reported,
    searched_refs,
    verified_quote,
)
from marginalia.tables.columns import Profile
from marginalia.tables.evidence import Evidence, SearchedPassage, Sentence
from marginalia.tables.short_answer import data_phrase, sentence_answer, short_answer

ENGINE = "extractive"

SUPPORT_WEIGHT = 1.0
CUE_WEIGHT = 0.3
SECTION_WEIGHT = 0.1
#: Added for a sentence of the abstract when the column asks for the method or the main
#: result (what an abstract states first).
ABSTRACT_WEIGHT = 0.1
TYPE_WEIGHT = 0.15
RETRIEVAL_WEIGHT = 0.1
BACK_MATTER_PENALTY = 0.3
#: Below this rank nothing in the source answers the column.
TYPED_FLOOR = 0.3
TEXT_FLOOR = 0.3

_LEAD = frozenset({"method", "result"})
_BACK_MATTER = re.compile(
    r"acknowledg|funding|grant|competing|conflicts?\s+of\s+interest|author(?:s'|s’)?\s+"
    r"contribution|data\s+availability|availability\s+of|references|bibliography|ethic"
    r"|abbreviations|supplementa|consent",
    re.IGNORECASE,
)
_BACK_REFERENCE = re.compile(
    r"^\s*(?:this|these|those|it|its|they|their|such|however|thus|therefore)\b", re.IGNORECASE
)


#: The rank shown as a confidence in 0-1: a logistic curve through 0.5 at rank 0.6 (0.88
#: at 0.9, 0.27 at 0.45). It orders cells by how well their sentence matched the column;
#: it is not a calibrated probability (docs/EVAL.md reports it for right and wrong cells).
CONFIDENCE_MIDPOINT = 0.6
CONFIDENCE_SCALE = 0.15


def confidence_of(rank: float) -> float:
    return round(1.0 / (1.0 + math.exp(-(rank - CONFIDENCE_MIDPOINT) / CONFIDENCE_SCALE)), 3)


@dataclass(frozen=True)
class Ranked:
    sentence: Sentence
    passage: SearchedPassage
    rank: float
    cue: float
    typed: str | None  # the short answer it offers, for a typed column


def rank_sentences(evidence: Evidence, profile: Profile) -> list[Ranked]:
    """Every sentence with its rank (the module doc), best first."""
    by_n = {p.n: p for p in evidence.passages}
    typed_column = profile.wants_count or profile.wants_name or profile.answer_type == "time"
    out: list[Ranked] = []
    for s in evidence.sentences:
        p = by_n[s.passage_n]
        body = p.text[_body_start(p.text, s) : s.end]
        cue = profile.cue(body)
        # Only a sentence that could be chosen is cut (counts and data need the cue).
        wanted = typed_column and (cue > 0 or profile.kind not in ("count", "dataset"))
        typed = short_answer(profile, body, evidence.question) if wanted else None
        back = p.section_type == "related_work" or bool(
            p.section_title and _BACK_MATTER.search(p.section_title)
        )
        rank = (
            SUPPORT_WEIGHT * s.support
            + CUE_WEIGHT * cue
            + (SECTION_WEIGHT if p.section_type in profile.sections else 0.0)
            + (ABSTRACT_WEIGHT if p.section_type == "abstract" and profile.kind in _LEAD else 0.0)
            + (TYPE_WEIGHT if typed else 0.0)
            + (RETRIEVAL_WEIGHT / p.retrieval_rank if p.retrieval_rank else 0.0)
            - (BACK_MATTER_PENALTY if back else 0.0)
        )
        out.append(Ranked(s, p, rank, cue, typed))
    out.sort(key=lambda r: (-r.rank, r.passage.chunk_index, r.sentence.start))
    return out


def _body_start(text: str, s: Sentence) -> int:
    """Where sentence ``s`` starts once the section headings glued above it are left out."""
    start = skip_headings(text, s.start, s.end)
    return start if len(text[start : s.end].split()) >= 3 else s.start


def _quote(r: Ranked, pages: Sequence[Page]) -> CellQuote | None:
    """The sentence as its passage has it — without a heading glued above it, with the
    sentence before when it opens by referring back ("This …", "However …")."""
    text = r.passage.text
    start = _body_start(text, r.sentence)
    if _BACK_REFERENCE.match(text[start : r.sentence.end]):
        before = text[: r.sentence.start].rstrip()
        cut = max(before.rfind(". "), before.rfind(".\n"))
        if cut >= 0 and r.sentence.start - cut < 400:
            start = cut + 2
    return verified_quote(r.passage, text[start : r.sentence.end], pages) or verified_quote(
        r.passage, r.sentence.text, pages
    )


def fill_cell(evidence: Evidence, profile: Profile, pages: Sequence[Page]) -> CellResult:
    """The cell for ``evidence.question`` (see the module doc)."""
    if not evidence.passages:
        return not_reported("the source has no text passages to search", [], ENGINE)
    if not evidence.sentences:
        return not_reported("no sentence of the source could be scored", evidence.passages, ENGINE)
    ranked = rank_sentences(evidence, profile)
    typed_column = profile.wants_count or profile.wants_name or profile.answer_type == "time"
    chosen: Ranked | None
    if profile.kind == "dataset":
        # Data need not have a name ("focus groups with patients", "ray-traced links"):
        # the best sentence that introduces data, its names when it gives some (the
        # type bonus prefers those), else what it says the data is.
        candidates = [r for r in ranked if r.cue > 0]
        chosen = candidates[0] if candidates and candidates[0].rank >= TYPED_FLOOR else None
        if chosen is None:
            return not_reported(
                "no sentence of the source says what data it uses", evidence.passages, ENGINE
            )
        answer = chosen.typed or ""
    elif typed_column:
        # A count is the study's own only where the sentence introduces it so ("we
        # interviewed 100 outpatients", "consists of 32000 links"), not any figure.
        candidates = [r for r in ranked if r.typed and (r.cue > 0 or profile.kind != "count")]
        chosen = candidates[0] if candidates and candidates[0].rank >= TYPED_FLOOR else None
        if chosen is None:
            what = "count" if profile.wants_count else "name" if profile.wants_name else "date"
            return not_reported(
                f"no sentence of the source states a {what} that answers the column",
                evidence.passages,
                ENGINE,
            )
        answer = chosen.typed or ""
    else:
        chosen = ranked[0]
        if chosen.rank < TEXT_FLOOR:
            return not_reported(
                f"no sentence answers the column well enough (best {chosen.rank:.2f}, "
                f"under {TEXT_FLOOR:.2f})",
                evidence.passages,
                ENGINE,
            )
        answer = ""
    quote = _quote(chosen, pages)
    if quote is None:  # cannot happen for a sentence of the passage; never shown unverified
        return not_reported(
            "the answering sentence could not be verified", evidence.passages, ENGINE
        )
    if not answer:
        phrase = data_phrase(quote.text) if profile.kind == "dataset" else None
        answer = phrase or sentence_answer(quote.text)
    return CellResult(
        answer=answer,
        not_reported=False,
        quotes=[quote],
        confidence=confidence_of(chosen.rank),
        searched=searched_refs(evidence.passages),
        produced_by=ENGINE,
    )
