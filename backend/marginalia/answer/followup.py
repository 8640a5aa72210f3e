"""Follow-up questions resolved against the conversation before retrieval (issue 32).

"And how many triplets did they train on?" says nothing about SPECTER; searched as
written it finds margin and loss sentences of any paper. :func:`resolve_followup` decides
whether a question leans on the previous turns and, when it does, resolves it:

- **offline** (:func:`resolve_offline`): the previous user turn's salient terms (named
  things and acronyms first, then its content words: the entity or quantity's noun the
  follow-up refers to) are appended to the question — ``"<question> <terms>"`` — and the
  papers the previous answer cited (or, when it cited none, the paper of its best
  evidence sentence) are carried over;
- **with a generative provider** (:func:`resolve_with_model`): the model rewrites the
  question as a standalone one from the last turns (one short structured call, bounded
  tokens and time); any failure falls back to the offline resolution.

The resolved text is searched as a second retrieval leg fused with the question's own
ranking (:func:`marginalia.answer.routing.build_context`); the carried-over papers add,
at :data:`PAPER_LEG_WEIGHT`, a leg of the follow-up's own words restricted to each of
those papers (:func:`paper_leg_hits`: "restrict, then fall back" to the open legs by
fusion, so a follow-up that moved on to another paper still finds it). The sentence
scorer (and so the gate's evidence) reads the model's rewrite, or the offline resolved
text when the follow-up has fewer than :data:`SCORE_OWN_WORDS` content words of its own
("Why might that be?"); a longer follow-up's sentences are scored on its own words —
the carried terms name the previous answer's topic and pulled its sentences back up
(evidence@3 on followups-dev fell from 10/27 raw to 6/27; docs/EVAL.md, issue 32). The
question's own features (answer type, named terms) are read from the question as
asked: "how many" is what the follow-up asks, not what its parent asked.

A question that does not lean on the conversation is returned untouched
(``is_followup`` False, ``text`` the question).
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np
from pydantic import BaseModel, Field

from marginalia.answer.gate import salient_terms
from marginalia.answer.schemas import Answer
from marginalia.knowledge.text import STOP_WORDS, content_tokens, wordset
from marginalia.llm import ChatMessage, LLMError, LLMProvider
from marginalia.llm.deadline import Deadline
from marginalia.llm.schema import bounds
from marginalia.retrieval import hybrid_search
from marginalia.retrieval.hybrid import RetrievalContext

log = logging.getLogger(__name__)

#: A question with at most this many content words and no named thing is elliptical.
SHORT_WORDS = 4
#: At most this many terms are carried over from the previous turn.
MAX_TERMS = 8
#: At most this many papers of the previous answer feed retrieval.
MAX_PAPERS = 2
#: The paper leg's weight in the reciprocal-rank fusion (the question's own leg is 1.0).
PAPER_LEG_WEIGHT = 0.5
#: What the paper leg searches inside the previous answer's papers: the follow-up as
#: asked ("question") or its resolved text ("resolved").
PAPER_LEG_QUERY: Literal["question", "resolved"] = "question"
#: The sentences of a follow-up with at least this many content words of its own are
#: scored on those words; a shorter one on its resolved text ("Why might that be?").
SCORE_OWN_WORDS = 3
#: Wall time of the model's rewrite (seconds); past it the offline resolution is used.
REWRITE_DEADLINE_S = 8.0
#: Characters of each earlier turn shown to the model.
TURN_CHARS = 600

_PRONOUNS = wordset("it its they them their theirs he she his her")
_NEAR_DEMONSTRATIVES = wordset("this these those")
_ANAPHORA = _PRONOUNS | _NEAR_DEMONSTRATIVES | {"that"}
_PLACE = wordset("there here")
_OPENERS = (
    "and ",
    "but ",
    "also ",
    "so ",
    "then ",
    "what about",
    "how about",
    "what if",
    "same for",
    "what else",
    "why so",
)
_AUXILIARIES = wordset(
    "is was are were be been does did do can could would should will has have had might may must"
)
_BEFORE_DEMONSTRATIVE = _AUXILIARIES | wordset(
    "of in for with on from about behind by to at after before than like how what why when "
    "where which who"
)
#: Verbs and nouns after which "that" introduces a clause, not a referent.
_REPORTING = wordset(
    "show shows showed shown suggest suggests suggested find finds found claim claims state "
    "states say says said report reports reported indicate indicates mean means argue argues "
    "conclude concludes note notes demonstrate demonstrates evidence fact idea hypothesis so "
    "such ensure ensures assume assumes"
)
_COMPARATIVE = wordset(
    "better worse more less fewer higher lower larger smaller bigger faster slower stronger "
    "weaker cheaper longer shorter"
)
#: Words that name nothing a follow-up could refer back to.
_GENERIC = wordset(
    "paper papers study studies authors author work many much number use used using show "
    "shows shown find found report reported result results"
)

Method = Literal["none", "offline", "model"]


@dataclass(frozen=True)
class PreviousTurn:
    """What the previous exchange was about: its question (the resolved one when it was
    itself a follow-up) and the papers its answer cited or was evidenced by."""

    question: str
    paper_ids: tuple[uuid.UUID, ...] = ()


@dataclass(frozen=True)
class ResolvedQuestion:
    """A question resolved against the conversation."""

    question: str  # as asked
    text: str  # what retrieval and the sentence scorer search for
    is_followup: bool = False
    terms: tuple[str, ...] = ()  # carried over from the previous turn
    paper_ids: tuple[uuid.UUID, ...] = ()  # the previous answer's papers
    why: str = "not a follow-up"
    method: Method = "none"
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def resolved_question(self) -> str | None:
        """The resolved text when it differs from the question (None: searched as asked)."""
        return self.text if self.is_followup and self.text != self.question else None

    def trace(self) -> dict[str, Any]:
        return {
            "is_followup": self.is_followup,
            "why": self.why,
            "method": self.method,
            "resolved_question": self.resolved_question,
            "terms": list(self.terms),
            "paper_ids": [str(p) for p in self.paper_ids],
            "notes": list(self.notes),
        }


def score_resolved(question: str) -> bool:
    """Whether a follow-up's sentences are scored on its resolved text (else on the
    question as asked): when it has fewer than :data:`SCORE_OWN_WORDS` content words."""
    return len(content_tokens(question)) < SCORE_OWN_WORDS


def unchanged(question: str, why: str = "not a follow-up") -> ResolvedQuestion:
    return ResolvedQuestion(question=question, text=question, why=why)


# ------------------------------------------------------------------------------ detection


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.casefold())


def followup_reason(question: str) -> str | None:
    """Why ``question`` leans on an earlier turn (None: it stands on its own).

    - an elliptical opener ("And …", "What about …", "What if …");
    - a pronoun in subject position ("Does it …", "How do they …", "What languages is it
      written in?") with no antecedent before it in the question;
    - a question ending on a pronoun or "there" ("Why is that?", "Which worked best
      there?");
    - with no named thing in the question: "this/these/those" (+ noun), a determiner
      "that" ("weakened that selectivity"), a pronoun with no antecedent before it
      ("How abstractive are its summaries?", not "which one found most and what did it
      give up?"), a very short question, a comparative with no "than"."""
    q = " ".join(question.casefold().split())
    words = _words(q)
    if not words:
        return None
    named = salient_terms(question)
    opener = next((o for o in _OPENERS if q.startswith(o)), None)
    if opener is not None:
        return f"starts with “{opener.strip()}”"
    for i, w in enumerate(words):
        if w in _PRONOUNS and _subject_position(words, i) and _no_antecedent(words, i):
            return f"refers back with “{w}”"
    if words[-1] in _ANAPHORA or words[-1] in _PLACE:  # "Why is that?", "… there?"
        return f"refers back with “{words[-1]}”"
    if named:
        return None
    for i, w in enumerate(words):
        if _refers_back(words, i):
            return f"refers back with “{w}” and names nothing"
    if len(content_tokens(question)) <= SHORT_WORDS and len(words) <= 6:
        return "very short and names nothing"
    comparative = [w for w in words if w in _COMPARATIVE]
    if comparative and "than" not in words:
        return f"compares (“{comparative[0]}”) with nothing named"
    return None


def _no_antecedent(words: Sequence[str], i: int) -> bool:
    """Fewer than two content words before ``words[i]``: nothing in the question for a
    pronoun there to refer to."""
    return len(content_tokens(" ".join(words[:i]))) < 2


def _subject_position(words: Sequence[str], i: int) -> bool:
    return i == 0 or words[i - 1] in _AUXILIARIES


def _refers_back(words: Sequence[str], i: int) -> bool:
    """Whether ``words[i]`` points outside the question (which names nothing).

    "this/these/those" always do. "that" also introduces clauses ("shows that …",
    "methods that use …"): it counts after a preposition, auxiliary or question word ("the
    cause of that", "is that …"), at the end, or as a determiner — followed by one content
    word and then a stop word or the end ("weakened that selectivity the most"). Personal
    pronouns count when nothing before them in the question could be their antecedent."""
    w = words[i]
    if w in _NEAR_DEMONSTRATIVES:
        return True
    if w == "that":
        if i in (0, len(words) - 1) or words[i - 1] in _BEFORE_DEMONSTRATIVE:
            return True
        if i > 0 and words[i - 1] in _REPORTING:
            return False
        rest = words[i + 1 : i + 3]
        return (
            len(rest) >= 1
            and rest[0] not in STOP_WORDS
            and (len(rest) == 1 or rest[1] in STOP_WORDS)
        )
    return w in _PRONOUNS and _no_antecedent(words, i)


# ------------------------------------------------------------------------------ resolution


def carried_terms(question: str, previous_question: str) -> list[str]:
    """The previous question's salient terms the follow-up lacks: named things first,
    then content words (the quantity's or entity's noun), at most :data:`MAX_TERMS`."""
    own = set(content_tokens(question)) | set(salient_terms(question))
    terms: list[str] = []
    for term in [*salient_terms(previous_question), *content_tokens(previous_question)]:
        if term in own or term in _GENERIC or term in terms:
            continue
        terms.append(term)
    return terms[:MAX_TERMS]


def resolve_offline(
    question: str, previous: PreviousTurn | None, why: str, *, notes: Sequence[str] = ()
) -> ResolvedQuestion:
    """``"<question> <previous turn's salient terms>"`` and the previous answer's papers."""
    if previous is None:
        return unchanged(question, f"{why}, but there is no earlier question")
    terms = carried_terms(question, previous.question)
    text = f"{question} {' '.join(terms)}" if terms else question
    return ResolvedQuestion(
        question=question,
        text=text,
        is_followup=True,
        terms=tuple(terms),
        paper_ids=previous.paper_ids[:MAX_PAPERS],
        why=why,
        method="offline",
        notes=tuple(notes),
    )


def resolve_followup(
    question: str,
    history: Sequence[ChatMessage] | None,
    previous_turn_info: PreviousTurn | None = None,
) -> ResolvedQuestion:
    """The offline resolution of ``question`` after ``history`` (see the module doc).

    ``previous_turn_info``: the previous exchange as stored (its resolved question and
    papers); without it, the last user message of ``history`` is the previous question."""
    question = " ".join(question.split())
    previous = previous_turn_info
    if previous is None:
        last = next((m.content for m in reversed(history or []) if m.role == "user"), None)
        previous = PreviousTurn(" ".join(last.split())) if last else None
    if previous is None or not previous.question or previous.question == question:
        return unchanged(question, "no earlier question")
    why = followup_reason(question)
    if why is None:
        return unchanged(question)
    return resolve_offline(question, previous, why)


# ------------------------------------------------------------------------------ the previous turn


class _StoredMessage(Protocol):
    role: str
    content: str
    cited_sources: list[Any]
    answer: dict[str, Any] | None


def previous_turn(messages: Sequence[_StoredMessage]) -> PreviousTurn | None:
    """The last exchange of a stored conversation (oldest-first messages): its question —
    the resolved one when it was itself a follow-up — and its answer's papers."""
    last_user = next(
        (i for i in range(len(messages) - 1, -1, -1) if messages[i].role == "user"), None
    )
    if last_user is None:
        return None
    reply = next((m for m in messages[last_user + 1 :] if m.role == "assistant"), None)
    answer = reply.answer if reply is not None else None
    question = " ".join(messages[last_user].content.split())
    resolved = (answer or {}).get("resolved_question")
    if isinstance(resolved, str) and resolved.strip():
        question = " ".join(resolved.split())
    papers = answer_papers(answer, reply.cited_sources if reply is not None else [])
    return PreviousTurn(question, papers)


def answer_papers(
    answer: Mapping[str, Any] | None, cited_sources: Sequence[Any] = ()
) -> tuple[uuid.UUID, ...]:
    """The papers an answer cited, in citation order; when it cited none, the paper of its
    best evidence sentence (what a "closest evidence" or refused answer showed first)."""
    out: list[uuid.UUID] = []

    def add(value: Any) -> None:
        try:
            sid = uuid.UUID(str(value))
        except (TypeError, ValueError):
            return
        if sid not in out:
            out.append(sid)

    for source in cited_sources or []:
        if isinstance(source, Mapping) and source.get("source_id"):
            add(source["source_id"])
    if out or not answer:
        return tuple(out[:MAX_PAPERS])
    passages = {p.get("n"): p for p in answer.get("passages") or [] if isinstance(p, Mapping)}
    top = ((answer.get("trace") or {}).get("evidence") or {}).get("top_sentences") or []
    for sentence in top[:1]:
        passage = passages.get(sentence.get("n")) if isinstance(sentence, Mapping) else None
        if passage and passage.get("source_id"):
            add(passage["source_id"])
    return tuple(out[:MAX_PAPERS])


def turn_of(answer: Answer) -> PreviousTurn:
    """The exchange an answer closes, as :func:`previous_turn` reads it once stored (for
    callers that keep the answer, not a conversation: the evals)."""
    question = answer.resolved_question or answer.question
    cited = [{"source_id": str(p.source_id)} for p in answer.cited_passages() if p.source_id]
    return PreviousTurn(
        " ".join(question.split()), answer_papers(answer.model_dump(mode="json"), cited)
    )


# ------------------------------------------------------------------------------ with a model


REWRITE_SYSTEM = """You rewrite a research question so it can be searched on its own.

Given the last turns of a conversation and a new question, return the new question as a
standalone question: replace pronouns and ellipsis ("it", "they", "that number",
"And how many ...?", "What about ...?") with the thing they refer to, named as in the
conversation. Keep the question's own wording and what it asks for. Add nothing else.
If the question already stands on its own, return it unchanged and set followup false.
"""


class StandaloneQuestion(BaseModel):
    """Record the standalone form of the question."""

    question: str = Field(
        description="The question, rewritten to stand on its own.",
        json_schema_extra=bounds(max_length=400),
    )
    followup: bool = Field(description="True when the question referred to earlier turns.")


def rewrite_prompt(question: str, history: Sequence[ChatMessage]) -> str:
    lines = ["Conversation so far:"]
    for msg in list(history)[-4:]:
        lines.append(f"{msg.role}: {' '.join(msg.content.split())[:TURN_CHARS]}")
    lines += ["", f"New question: {question}"]
    return "\n".join(lines)


async def resolve_with_model(
    provider: LLMProvider,
    question: str,
    history: Sequence[ChatMessage] | None,
    previous_turn_info: PreviousTurn | None = None,
    *,
    deadline_s: float = REWRITE_DEADLINE_S,
) -> ResolvedQuestion:
    """The model's standalone rewrite of ``question``; the offline resolution when the
    call fails or returns nothing usable (the note says why)."""
    offline = resolve_followup(question, history, previous_turn_info)
    if not any(m.role == "user" for m in history or []):
        return offline
    try:
        out = await provider.structured(
            task="extraction",
            system=REWRITE_SYSTEM,
            prompt=rewrite_prompt(offline.question, history or []),
            schema=StandaloneQuestion,
            call="decomposition",
            deadline=Deadline.after(deadline_s),
        )
    except LLMError as exc:
        log.warning("follow-up rewrite failed, resolving offline: %s", exc)
        return _with_note(offline, f"model rewrite failed ({exc.reason_label}); resolved offline")
    text = " ".join(out.question.split())
    if not text:
        return _with_note(offline, "model rewrite was empty; resolved offline")
    if not out.followup or text.casefold() == offline.question.casefold():
        return unchanged(offline.question, "the model judged it standalone")
    own = set(content_tokens(offline.question))
    terms = tuple(t for t in dict.fromkeys(content_tokens(text)) if t not in own)[:MAX_TERMS]
    papers = previous_turn_info.paper_ids[:MAX_PAPERS] if previous_turn_info else ()
    return ResolvedQuestion(
        question=offline.question,
        text=text,
        is_followup=True,
        terms=terms,
        paper_ids=papers,
        why="rewritten by the model",
        method="model",
    )


def _with_note(resolved: ResolvedQuestion, note: str) -> ResolvedQuestion:
    return ResolvedQuestion(
        question=resolved.question,
        text=resolved.text,
        is_followup=resolved.is_followup,
        terms=resolved.terms,
        paper_ids=resolved.paper_ids,
        why=resolved.why,
        method=resolved.method,
        notes=(*resolved.notes, note),
    )


async def resolve(
    provider: LLMProvider | None,
    question: str,
    history: Sequence[ChatMessage] | None,
    previous_turn_info: PreviousTurn | None = None,
) -> ResolvedQuestion:
    """The model's rewrite with a generative provider, else the offline resolution."""
    if provider is not None and provider.is_generative:
        return await resolve_with_model(provider, question, history, previous_turn_info)
    return resolve_followup(question, history, previous_turn_info)


# ------------------------------------------------------------------------------ retrieval


class _Hit(Protocol):
    @property
    def chunk_id(self) -> int: ...


async def paper_leg_hits(
    ctx: RetrievalContext,
    *,
    workspace_id: uuid.UUID,
    query: str,
    query_vector: np.ndarray,
    paper_ids: Sequence[uuid.UUID],
    k: int,
) -> list[list[Any]]:
    """The resolved query searched inside each of the previous answer's papers (one
    ranking per paper): the "restrict" half; fusing with the open legs is the fallback
    when the follow-up has moved on to another paper."""
    legs: list[list[Any]] = []
    for paper in list(paper_ids)[:MAX_PAPERS]:
        result = await hybrid_search(
            ctx,
            workspace_id=workspace_id,
            query=query,
            source_id=paper,
            k=k,
            query_vector=query_vector,
        )
        legs.append(list(result.hits))
    return legs


def fuse_legs(
    main: Sequence[_Hit], legs: Sequence[tuple[float, Sequence[_Hit]]], k: int, rrf_k: int
) -> list[Any]:
    """The question's own ranking (weight 1.0) and weighted ``legs`` by reciprocal rank;
    ties go to the question's own ranking, then to the chunk id."""
    score: dict[int, float] = {}
    hit_of: dict[int, Any] = {}
    for weight, hits in ((1.0, main), *legs):
        for rank, hit in enumerate(hits, 1):
            score[hit.chunk_id] = score.get(hit.chunk_id, 0.0) + weight / (rrf_k + rank)
            hit_of.setdefault(hit.chunk_id, hit)
    own = {hit.chunk_id: rank for rank, hit in enumerate(main, 1)}
    order = sorted(score, key=lambda c: (-score[c], own.get(c, len(own) + 1), c))
    return [hit_of[c] for c in order[:k]]
