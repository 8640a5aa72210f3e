"""The answer path: route → number the passages → score the evidence → refuse or answer
→ validate every claim (invariant 3) — and the conversations answers are saved in.

``answer_question`` is the one entry point for an answer; the stream
(:mod:`marginalia.answer.streaming`) runs its two halves (:func:`retrieve`, then
:func:`answer_from_context`) so the numbered sources go out before any answer text.

Calibration (invariant 4): by default the threshold is read from
``eval/calibration.json`` (:func:`marginalia.answer.calibration.load_calibration`); a
missing file is an error that says to run ``marginalia eval calibrate``. The calibrate
command itself runs ``answer_question(..., score_only=True)``: the same retrieval and
``evidence_score`` with no calibration read, no claims and no model call. An eval that
wants answers at a candidate threshold passes ``calibration=Calibration(threshold=x,
signal=SIGNAL)``.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import asdict, dataclass
from typing import Any

from marginalia.answer import offline
from marginalia.answer.calibration import SIGNAL, Calibration, load_calibration
from marginalia.answer.quotes import render_answer_text, validate_claims
from marginalia.answer.routing import Context, Scope, build_context, expand_query, load_scope
from marginalia.answer.schemas import Answer, AnswerClaim, Passage
from marginalia.answer.synthesis import synthesize_claims
from marginalia.db.models import Conversation, Message, Source
from marginalia.db.repositories import conversations as repo
from marginalia.errors import ConflictError, NotFoundError, ValidationFailed
from marginalia.llm import ChatMessage, LLMError, LLMProvider, make_provider
from marginalia.llm.base import engine_label
from marginalia.llm.deadline import Deadline
from marginalia.services.container import Services

log = logging.getLogger(__name__)

#: Messages of a conversation passed to a follow-up as history.
HISTORY_MESSAGES = 10
#: Characters of the first message that become a conversation's title.
TITLE_CHARS = 64


# ------------------------------------------------------------------------------ answering


async def retrieve(
    services: Services,
    *,
    workspace_id: uuid.UUID,
    question: str,
    source_id: uuid.UUID | None = None,
    history: list[ChatMessage] | None = None,
    scope: Scope | None = None,
) -> Context:
    """The numbered context for ``question`` (wiki-first, else hybrid)."""
    if not question.strip():
        raise ValidationFailed("the question is empty")
    if scope is None:
        scope = await load_scope(services, workspace_id, source_id)
    query = expand_query(question, history)
    return await build_context(
        services, workspace_id=workspace_id, query=query, scope=scope, source_id=source_id
    )


def _searched(ctx: Context) -> str:
    what = f"Searched {ctx.scope.describe()} for “{ctx.query}”"
    if ctx.route == "wiki":
        how = f"a matching wiki page and {len(ctx.passages) - 1} passages"
    else:
        how = f"{len(ctx.passages)} passages by hybrid retrieval"
        if ctx.wiki_similarity is not None:
            how += f" (the best wiki page was only {ctx.wiki_similarity:.2f} similar)"
    return f"{what}: {how}."


def refusal_text(ctx: Context, evidence: float, threshold: float) -> str:
    """A refusal that says what was searched and why nothing qualified."""
    if ctx.scope.chunks == 0:
        return (
            f"I can't answer this: {ctx.scope.describe()} holds no passages yet. "
            "Add or ingest sources first."
        )
    if not ctx.passages:
        return f"I found no passage for this question. {_searched(ctx)}"
    return (
        "I found no evidence in your sources that answers this question. "
        f"{_searched(ctx)} The best-supported sentence scored {evidence:.2f}, below the "
        f"calibrated threshold of {threshold:.2f}."
    )


async def answer_question(
    services: Services,
    *,
    workspace_id: uuid.UUID,
    question: str,
    source_id: uuid.UUID | None = None,
    history: list[ChatMessage] | None = None,
    calibration: Calibration | None = None,
    score_only: bool = False,
    provider: LLMProvider | None = None,
) -> Answer:
    """Answer ``question`` from the workspace (or one paper), or refuse.

    ``calibration``: None reads the calibration file (an error when missing); pass one to
    use its threshold. ``score_only``: compute ``evidence_score`` only (no calibration,
    no claims, no model call; ``threshold`` is None). ``provider``: defaults to
    ``make_provider(settings.llm)``; the offline provider selects the extractive engine.
    """
    if not score_only and calibration is None:
        calibration = load_calibration(settings=services.settings)
    ctx = await retrieve(
        services,
        workspace_id=workspace_id,
        question=question,
        source_id=source_id,
        history=history,
    )
    return await answer_from_context(
        services,
        ctx,
        question=question,
        history=history,
        calibration=calibration,
        score_only=score_only,
        provider=provider,
    )


async def answer_from_context(
    services: Services,
    ctx: Context,
    *,
    question: str,
    history: list[ChatMessage] | None = None,
    calibration: Calibration | None = None,
    score_only: bool = False,
    provider: LLMProvider | None = None,
) -> Answer:
    """The second half of :func:`answer_question`, on an already numbered context."""
    # One deadline for the answer, from here: scoring, the model call with its retries and
    # fallbacks; past it the answer is extractive (settings.llm.answer_deadline_s).
    deadline = Deadline.after(services.settings.llm.answer_deadline_s)
    if not score_only and calibration is None:
        calibration = load_calibration(settings=services.settings)
    scored = await offline.score_sentences(
        query=ctx.query,
        query_vector=ctx.query_vector,
        passages=ctx.passages,
        embedder=services.embedder,
        lexer=offline.pg_lexer(services.db),
        idf=offline.pg_workspace_idf(services.db, ctx.scope.workspace_id),
        question=question,
    )
    evidence = offline.evidence_score(scored)
    answer = Answer(
        question=question,
        query=ctx.query,
        passages=ctx.passages,
        route=ctx.route,
        evidence_score=evidence,
        signal=SIGNAL,
        history_turns=len(history or []),
        trace={
            **ctx.trace,
            "evidence": {
                "signal": SIGNAL,
                "sentences_scored": len(scored),
                "top_sentences": [
                    {
                        "n": s.passage_n,
                        "text": s.text,
                        "support": s.support,
                        "cosine": s.cosine,
                        "coverage": s.coverage,
                        "window_coverage": s.window_coverage,
                        "context_coverage": s.context_coverage,
                        "answer_type": s.answer_type,
                    }
                    for s in scored[:5]
                ],
            },
        },
    )
    if score_only or calibration is None:
        answer.notes.append("score_only: evidence scored, no answer produced")
        answer.engine = "none"
        return answer
    threshold = calibration.threshold
    answer.threshold = threshold
    answer.trace["evidence"]["calibration"] = calibration.model_dump(mode="json")
    if not ctx.passages or evidence < threshold:
        answer.refused = True
        answer.refusal = refusal_text(ctx, evidence, threshold)
        answer.engine = "none"
        return answer

    owned = provider is None
    llm = provider if provider is not None else make_provider(services.settings.llm)
    mark = llm.usage.mark()
    claims: list[AnswerClaim]
    try:
        if llm.is_generative:
            try:
                claims = await synthesize_claims(
                    llm,
                    question=question,
                    passages=ctx.passages,
                    history=history,
                    deadline=deadline,
                )
                answer.engine = engine_label(llm, "synthesis", since=mark)
            except LLMError as exc:
                log.warning("synthesis failed, answering extractively: %s", exc)
                answer.notes.append(
                    f"model synthesis failed ({exc.reason_label}: {exc}); extractive answer instead"
                )
                claims = offline.extractive_claims(offline.select_mmr(scored, threshold=threshold))
                answer.engine = f"extractive ({exc.reason_label})"
        else:
            claims = offline.extractive_claims(offline.select_mmr(scored, threshold=threshold))
            answer.engine = "extractive"
        totals = llm.usage.totals(mark)
        answer.usage = {"provider": llm.name, **asdict(totals)}
    finally:
        if owned:
            await llm.aclose()

    kept, dropped = validate_claims(claims, ctx.passages)
    answer.claims = kept
    answer.dropped = dropped
    answer.text = render_answer_text(kept)
    if not kept:
        answer.refused = True
        answer.refusal = (
            f"No claim of the answer could be verified against the passages it cited "
            f"({len(dropped)} dropped; see `dropped`). {_searched(ctx)}"
        )
    return answer


async def answer_with_threshold(
    services: Services,
    *,
    threshold: float,
    workspace_id: uuid.UUID,
    question: str,
    source_id: uuid.UUID | None = None,
    history: list[ChatMessage] | None = None,
    provider: LLMProvider | None = None,
) -> Answer:
    """:func:`answer_question` at an explicit threshold instead of the calibration file
    (for the eval's threshold sweeps; the product never calls it)."""
    calibration = Calibration(threshold=threshold, signal=SIGNAL, method="explicit threshold")
    return await answer_question(
        services,
        workspace_id=workspace_id,
        question=question,
        source_id=source_id,
        history=history,
        calibration=calibration,
        provider=provider,
    )


# ------------------------------------------------------------------------------ conversations


@dataclass
class AskPlan:
    """A validated ask request: everything checked before a stream starts."""

    workspace_id: uuid.UUID
    source_id: uuid.UUID | None
    question: str
    conversation: Conversation | None
    history: list[ChatMessage]
    calibration: Calibration
    scope: Scope


async def prepare_ask(
    services: Services,
    *,
    question: str,
    workspace_id: uuid.UUID | None = None,
    source_id: uuid.UUID | None = None,
    conversation_id: uuid.UUID | None = None,
) -> AskPlan:
    """Check the request (404 unknown workspace/source/conversation, 409 a conversation
    of another scope, 503 no calibration) and load the last messages as history."""
    question = question.strip()
    if not question:
        raise ValidationFailed("the question is empty")
    if workspace_id is None:
        if source_id is None:
            raise ValidationFailed("ask needs a workspace or a source")
        workspace_id = await _workspace_of_source(services, source_id)
    scope = await load_scope(services, workspace_id, source_id)
    calibration = load_calibration(settings=services.settings)
    conversation: Conversation | None = None
    history: list[ChatMessage] = []
    if conversation_id is not None:
        async with services.db.session() as session:
            conversation = await repo.get(session, conversation_id)
            if conversation is None or conversation.workspace_id != workspace_id:
                raise NotFoundError(
                    f"no conversation with id {conversation_id} in workspace {workspace_id}"
                )
            if conversation.source_id != source_id:
                scope_name = (
                    f"paper {conversation.source_id}"
                    if conversation.source_id
                    else "the whole workspace"
                )
                raise ConflictError(
                    f"conversation {conversation_id} is about {scope_name}; ask there or "
                    "start a new conversation"
                )
            recent = await repo.last_messages(session, conversation_id, HISTORY_MESSAGES)
        history = [
            ChatMessage(role="assistant" if m.role == "assistant" else "user", content=m.content)
            for m in recent
        ]
    return AskPlan(
        workspace_id=workspace_id,
        source_id=source_id,
        question=question,
        conversation=conversation,
        history=history,
        calibration=calibration,
        scope=scope,
    )


async def _workspace_of_source(services: Services, source_id: uuid.UUID) -> uuid.UUID:
    async with services.db.session() as session:
        source = await session.get(Source, source_id)
    if source is None:
        raise NotFoundError(f"no source with id {source_id}")
    return source.workspace_id


async def start_turn(services: Services, plan: AskPlan) -> tuple[Conversation, Message]:
    """The conversation (created on the first question, titled by it) and the user message."""
    async with services.db.transaction() as session:
        conversation = plan.conversation
        if conversation is None:
            conversation = await repo.create(
                session,
                workspace_id=plan.workspace_id,
                source_id=plan.source_id,
                title=plan.question[:TITLE_CHARS],
            )
        message = await repo.add_message(
            session, conversation_id=conversation.id, role="user", content=plan.question
        )
    return conversation, message


def cited_sources(answer: Answer) -> list[dict[str, Any]]:
    """The sources cited by the kept claims, and only those (invariant 7)."""
    out = []
    for passage in answer.cited_passages():
        quotes = [c.quote for c in answer.claims if passage.n in c.citations and c.quote]
        out.append({**_passage_ref(passage), "quotes": quotes})
    return out


def _passage_ref(p: Passage) -> dict[str, Any]:
    return {
        "n": p.n,
        "kind": p.kind,
        "source_id": str(p.source_id) if p.source_id else None,
        "chunk_id": p.chunk_id,
        "wiki_slug": p.wiki_slug,
        "document": p.document,
        "section_title": p.section_title,
        "page": p.page,
        "page_end": p.page_end,
        "char_start": p.char_start,
        "char_end": p.char_end,
        "score": p.score,
    }


async def save_answer(services: Services, conversation_id: uuid.UUID, answer: Answer) -> Message:
    """Store the assistant message: its text, the full answer, only the cited sources."""
    async with services.db.transaction() as session:
        return await repo.add_message(
            session,
            conversation_id=conversation_id,
            role="assistant",
            content=answer.text if not answer.refused else (answer.refusal or ""),
            cited_sources=cited_sources(answer),
            answer=answer.model_dump(mode="json"),
        )


async def list_conversations(
    services: Services,
    workspace_id: uuid.UUID,
    *,
    source_id: uuid.UUID | None = None,
    limit: int = 100,
    offset: int = 0,
) -> list[Conversation]:
    await load_scope(services, workspace_id, None)
    async with services.db.session() as session:
        return await repo.list_for_workspace(
            session, workspace_id, source_id=source_id, limit=limit, offset=offset
        )


async def get_conversation(
    services: Services, conversation_id: uuid.UUID
) -> tuple[Conversation, list[Message]]:
    async with services.db.session() as session:
        conversation = await repo.get(session, conversation_id)
        if conversation is None:
            raise NotFoundError(f"no conversation with id {conversation_id}")
        return conversation, await repo.messages(session, conversation_id)


async def delete_conversation(services: Services, conversation_id: uuid.UUID) -> None:
    async with services.db.transaction() as session:
        conversation = await repo.get(session, conversation_id)
        if conversation is None:
            raise NotFoundError(f"no conversation with id {conversation_id}")
        await repo.delete(session, conversation)


__all__ = [
    "AskPlan",
    "answer_from_context",
    "answer_question",
    "answer_with_threshold",
    "cited_sources",
    "delete_conversation",
    "get_conversation",
    "list_conversations",
    "prepare_ask",
    "retrieve",
    "save_answer",
    "start_turn",
]
