"""The answer's data: numbered passages, claims, the answer and the API bodies."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Route = Literal["wiki", "hybrid"]
PassageKind = Literal["chunk", "wiki"]
#: answered: claims with verified quotes; closest: the best evidence, not confirmed as an
#: answer (no claims); nothing: no passage shares the question's terms or meaning.
Outcome = Literal["answered", "closest", "nothing"]


class Passage(BaseModel):
    """One numbered passage of the context the answer may cite (``[n]``)."""

    n: int
    kind: PassageKind = "chunk"
    chunk_id: int | None = None
    # None only for a wiki page (it belongs to the workspace, not to one source).
    source_id: uuid.UUID | None = None
    document: str
    section_title: str | None = None
    page: int | None = None
    page_end: int | None = None
    char_start: int | None = None
    char_end: int | None = None
    wiki_slug: str | None = None
    text: str
    # Chunk: its fused retrieval score (RRF, or the reranker's); wiki page: its cosine.
    score: float


class QuoteRect(BaseModel):
    """One line of a quote on its PDF page: normalised 0–1 to the page's crop box, origin
    top-left, in unrotated page coordinates (``marginalia.ingest.geometry``)."""

    page: int
    x0: float
    y0: float
    x1: float
    y1: float


class CitationLocation(BaseModel):
    """Where a claim's quote stands in one passage it cites: from ``char_start`` of page
    ``page``'s stored text to ``char_end`` of page ``page_end``'s, and, for a PDF, the
    rectangles of its characters (on both pages when it crosses a page break)."""

    n: int
    source_id: uuid.UUID
    page: int
    page_end: int
    char_start: int
    char_end: int
    rects: list[QuoteRect] = Field(default_factory=list)


class AnswerClaim(BaseModel):
    """One claim of an answer: what it says, the passages it cites, a verbatim quote,
    and where that quote stands in the passages (filled after validation)."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    text: str
    citations: list[int] = Field(default_factory=list)
    quote: str | None = None
    locations: list[CitationLocation] = Field(default_factory=list)


class EvidenceSentence(BaseModel):
    """One highlighted sentence of the best evidence: ``passage text[start:end]`` of
    passage ``n`` (its chunk, page and paper), with the support the extractive scorer gave
    it (:mod:`marginalia.answer.offline`)."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    text: str
    n: int
    source_id: uuid.UUID | None = None
    chunk_id: int | None = None
    page: int | None = None
    document: str
    start: int = Field(description="the sentence's first character inside its passage")
    end: int = Field(description="one past the sentence's last character inside its passage")
    passage: str = Field(description="the passage's text the offsets index into")
    support: float
    #: Where the sentence stands in its source (page offsets, PDF rectangles), when known.
    location: CitationLocation | None = None


class DroppedClaim(BaseModel):
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    claim: AnswerClaim
    reason: str


class Answer(BaseModel):
    """A validated answer (invariant 3) or a refusal (invariant 4).

    ``evidence_score`` is the signal named by :data:`marginalia.answer.calibration.SIGNAL`
    ("max_sentence_support_v3"): the highest support score of any sentence of the numbered
    context for the (history-expanded) question, where a sentence's support is
    ``0.6 · cosine(sentence, question) + 0.1 · coverage(sentence) + 0.1 ·
    coverage(sentence with its neighbours) + 0.2 · coverage(all passages)``, coverage being
    the share of the question's stemmed content terms, weighted by the workspace's BM25
    idf, that the text contains (see
    :func:`marginalia.answer.offline.score_sentences`). It is computed the same way for
    every engine, before any model call; the answer is refused when it is below
    ``threshold`` (read from ``eval/calibration.json``). ``threshold`` is None only in
    ``score_only`` mode, which computes the score without reading a calibration.
    """

    question: str
    # The text sentence scoring and the gate ran on: the question as asked (a follow-up's
    # history leg is in trace["routing"]["history_leg"]).
    query: str
    # A follow-up's question as searched (marginalia.answer.followup); None: as asked.
    resolved_question: str | None = None
    text: str = ""
    claims: list[AnswerClaim] = Field(default_factory=list)
    # Kept for compatibility: refused == (outcome != "answered").
    refused: bool = False
    refusal: str | None = None
    outcome: Outcome = "answered"
    #: The best-evidence sentences, best first (every outcome; empty for "nothing" only
    #: when no sentence was scored).
    evidence: list[EvidenceSentence] = Field(default_factory=list)
    #: Why a "closest" answer is not confirmed ("not confirmed as an answer: …").
    reason: str | None = None
    passages: list[Passage] = Field(default_factory=list)
    route: Route = "hybrid"
    engine: str = "extractive"
    evidence_score: float = 0.0
    signal: str = "max_sentence_support_v3"
    threshold: float | None = None
    dropped: list[DroppedClaim] = Field(default_factory=list)
    history_turns: int = 0
    notes: list[str] = Field(default_factory=list)
    trace: dict[str, Any] = Field(default_factory=dict)
    usage: dict[str, Any] = Field(default_factory=dict)

    def cited_numbers(self) -> list[int]:
        """Passage numbers cited by kept claims, in first-cited order."""
        seen: list[int] = []
        for claim in self.claims:
            for n in claim.citations:
                if n not in seen:
                    seen.append(n)
        return seen

    def cited_passages(self) -> list[Passage]:
        by_n = {p.n: p for p in self.passages}
        return [by_n[n] for n in self.cited_numbers() if n in by_n]

    def summary(self) -> dict[str, Any]:
        """The part of the answer the stream's ``done`` event carries."""
        return {
            "text": self.text,
            "claims": [c.model_dump(mode="json") for c in self.claims],
            "refused": self.refused,
            "refusal": self.refusal,
            "outcome": self.outcome,
            "evidence": [e.model_dump(mode="json") for e in self.evidence],
            "reason": self.reason,
            "route": self.route,
            "resolved_question": self.resolved_question,
            "engine": self.engine,
            "notes": list(self.notes),
            "evidence_score": self.evidence_score,
            "threshold": self.threshold,
            "cited": self.cited_numbers(),
            "dropped": [d.model_dump(mode="json") for d in self.dropped],
        }


# ------------------------------------------------------------------------------ the stream's wire types


# On the wire every field is present (defaults included): the generated client's types
# say so (``json_schema_serialization_defaults_required``).
_WIRE = ConfigDict(extra="allow", json_schema_serialization_defaults_required=True)


class AskSource(BaseModel):
    """A numbered passage of the context as the ask stream's ``meta`` event lists it."""

    model_config = _WIRE

    n: int
    kind: PassageKind = "chunk"
    document: str
    excerpt: str = Field(description="the passage, whitespace-collapsed, cut to 300 characters")
    score: float
    page: int | None = None
    source_id: str | None = None
    chunk_id: int | None = None
    section_title: str | None = None
    wiki_slug: str | None = None


class AnswerSummary(BaseModel):
    """The part of an answer the stream's ``done`` event carries (see ``Answer.summary``)."""

    model_config = _WIRE

    text: str
    claims: list[AnswerClaim]
    refused: bool
    refusal: str | None = None
    outcome: Outcome = "answered"
    evidence: list[EvidenceSentence] = Field(default_factory=list)
    reason: str | None = None
    route: Route
    resolved_question: str | None = None
    engine: str
    notes: list[str] = Field(default_factory=list)
    evidence_score: float
    threshold: float | None = None
    cited: list[int] = Field(default_factory=list)
    dropped: list[DroppedClaim] = Field(default_factory=list)


# ------------------------------------------------------------------------------ API


class AskRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str = Field(min_length=1, max_length=4000)
    conversation_id: uuid.UUID | None = None


# Every character str.split() treats as whitespace (all in the BMP), spelled out: a
# regex's \s differs between Python and the ECMA dialect of JSON Schema (U+0085, U+001C..F).
_WHITESPACE = "".join(f"\\u{code:04x}" for code in range(0x10000) if chr(code).isspace())
#: Some character that is not whitespace, and no NUL (which the request guard refuses).
NOT_BLANK = rf"^[^\u0000]*[^{_WHITESPACE}\u0000][^\u0000]*$"


class ConversationUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # the schema says what the use case checks (with a clearer message than a pattern's):
    # a blank title is refused
    title: str = Field(min_length=1, max_length=200, json_schema_extra={"pattern": NOT_BLANK})


class ConversationOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: uuid.UUID
    workspace_id: uuid.UUID
    source_id: uuid.UUID | None
    title: str
    created_at: datetime
    updated_at: datetime


class MessageOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: uuid.UUID
    role: str
    content: str
    cited_sources: list[Any]
    answer: dict[str, Any] | None
    created_at: datetime
    pinned_at: datetime | None = Field(
        default=None, description="when the user pinned this answer to the canvas (null: not)"
    )


class ConversationDetail(ConversationOut):
    messages: list[MessageOut]
