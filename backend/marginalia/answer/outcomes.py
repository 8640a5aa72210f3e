"""The three outcomes of an answer (issue 32) and the best evidence every answer shows.

- **nothing** — no retrieved passage shares the question's salient terms or its meaning:
  there is no passage, no scorable sentence, no passage holds any of the question's
  content words (stemmed, stop words excluded: the idf-weighted context coverage of
  :mod:`marginalia.answer.offline` is 0), or the best sentence's embedding similarity to
  the question is under :data:`NOTHING_COSINE` (a low floor). A named thing missing from
  the passages is not enough: paraphrased answerable questions name things the paper
  words differently ("Irish", "Ensembl-scale"); it sends the answer to *closest* instead
  (:func:`check_sentence`). The refusal text is the one it always was.
- **closest** — the evidence is shown but not confirmed as an answer: its score is under
  the calibrated threshold (invariant 4: the threshold separates *answered* from
  *closest*), no claim survived validation, or the answering sentence fails the
  answer-type / named-entity check (:func:`confirm`). No claim is stored, so no canvas
  node; a one-line reason says why.
- **answered** — claims with verified quotes, as before.

:func:`best_evidence` is what every outcome shows first: the :data:`EVIDENCE_K` best
sentences of the context, ordered as the extractive engine orders what it may quote
(:func:`marginalia.answer.offline.claim_rank`: support, the expected answer type, the
passage's retrieval rank), near-duplicates (overlapping chunks) once.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from marginalia.answer import answer_types, gate
from marginalia.answer.offline import NEAR_DUPLICATE, ScoredSentence, claim_rank
from marginalia.answer.quotes import normalize
from marginalia.answer.schemas import AnswerClaim, EvidenceSentence, Outcome, Passage

#: Sentences of the best evidence every answer shows (evidence@3 counts these).
EVIDENCE_K = 3
#: Under this cosine between the question and every sentence of the context, the context
#: shares nothing of the question's meaning. On eval/qa/dev.jsonl every answerable item's
#: best sentence is ≥ 0.41, the off-topic unanswerable ones ≤ 0.29 (docs/EVAL.md,
#: "Issue 32: three outcomes").
NOTHING_COSINE = 0.35

CLOSEST_PREFIX = "Closest evidence — "


def best_evidence(
    scored: Sequence[ScoredSentence], passages: Sequence[Passage], k: int = EVIDENCE_K
) -> list[EvidenceSentence]:
    """The ``k`` best sentences, best first (see the module doc)."""
    by_n = {p.n: p for p in passages}
    ranked = sorted(scored, key=lambda s: (-claim_rank(s), s.passage_n, s.start))
    chosen: list[ScoredSentence] = []
    for s in ranked:
        if len(chosen) >= k:
            break
        if s.passage_n not in by_n:
            continue
        if any(float(s.vector @ c.vector) >= NEAR_DUPLICATE for c in chosen):
            continue
        chosen.append(s)
    out = []
    for s in chosen:
        p = by_n[s.passage_n]
        out.append(
            EvidenceSentence(
                text=s.text,
                n=p.n,
                source_id=p.source_id,
                chunk_id=p.chunk_id,
                page=p.page,
                document=p.document,
                start=s.start,
                end=s.end,
                passage=p.text,
                support=round(s.support, 4),
            )
        )
    return out


def _mentions(text: str, term: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(term)}(?![\w])", text) is not None


def nothing_reason(
    question: str, scored: Sequence[ScoredSentence], passages: Sequence[Passage]
) -> str | None:
    """Why the context holds nothing relevant to ``question``, or None when it does."""
    if not passages:
        return "no passage was retrieved"
    if not scored:
        return "no passage holds a sentence to score"
    if scored[0].context_coverage <= 0.0:
        return "no passage shares a content word of the question"
    best = max(s.cosine for s in scored)
    if best < NOTHING_COSINE:
        return f"no sentence is close in meaning (best similarity {best:.2f})"
    return None


def _variants(term: str) -> tuple[str, ...]:
    """A named term and, for a hyphenated compound ("s2orc-based", "ensembl-scale"), the
    name it is built on (its first part, when that is at least 2 characters)."""
    head = term.split("-", 1)[0]
    return (term, head) if head != term and len(head) >= 2 else (term,)


def _paper_text(passage: Passage, passages: Sequence[Passage]) -> str:
    """The passage, the other passages of its paper in the context, and the paper's name."""
    same = [
        p.text
        for p in passages
        if p.n == passage.n or (passage.source_id is not None and p.source_id == passage.source_id)
    ]
    return " ".join([passage.document, *same]).casefold()


def check_sentence(
    question: str, sentence: str, passage: Passage, passages: Sequence[Passage]
) -> str | None:
    """Why ``sentence`` (of ``passage``) does not answer ``question``, or None when it
    passes the answer-type and named-entity checks: a "how many / how much" question needs
    a figure in the sentence, a "which / what model" question a named thing, and each
    named thing the question mentions must be in the sentence or in its paper (the
    passage, the other passages of the same paper in the context, the paper's name)."""
    kind = answer_types.expected_type(question)
    if kind == "quantity" and not answer_types.states_quantity(sentence, question):
        return "the question asks for a number and the best sentence states none"
    if kind == "named" and not answer_types.names_something(sentence, question):
        return "the question asks which thing and the best sentence names none"
    paper = _paper_text(passage, passages)
    text = sentence.casefold()
    missing = [
        t
        for t in gate.salient_terms(question)
        if not any(_mentions(text, v) or _mentions(paper, v) for v in _variants(t))
    ]
    if missing:
        return f"the best sentence's paper does not mention {', '.join(missing)}"
    return None


def confirm(
    question: str, claims: Sequence[AnswerClaim], passages: Sequence[Passage]
) -> str | None:
    """None when some claim's quote passes :func:`check_sentence` in a passage it cites;
    else the reason the first claim fails."""
    by_n = {p.n: p for p in passages}
    first: str | None = None
    for claim in claims:
        sentence = claim.quote or claim.text
        for n in claim.citations:
            passage = by_n.get(n)
            if passage is None:
                continue
            why = check_sentence(question, normalize(sentence), passage, passages)
            if why is None:
                return None
            first = first or why
    return first or "no claim cites a passage of the context"


def closest_reason(why: str) -> str:
    """The one-line reason a closest answer carries."""
    return f"not confirmed as an answer: {why}"


def closest_text(reason: str) -> str:
    """What a closest answer says (streamed, stored as the message's content)."""
    return f"{CLOSEST_PREFIX}{reason}."


def outcome_signals(
    question: str, scored: Sequence[ScoredSentence], passages: Sequence[Passage]
) -> Mapping[str, float]:
    """What the outcome rules read, for the trace and the eval."""
    return {
        "max_cosine": round(max((s.cosine for s in scored), default=0.0), 4),
        "context_coverage": round(scored[0].context_coverage if scored else 0.0, 4),
        "named_missing": round(gate.named_missing(question, passages), 4),
    }


__all__ = [
    "EVIDENCE_K",
    "NOTHING_COSINE",
    "Outcome",
    "best_evidence",
    "check_sentence",
    "closest_reason",
    "closest_text",
    "confirm",
    "nothing_reason",
    "outcome_signals",
]
