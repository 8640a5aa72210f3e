"""Asking: the one implementation of a question's flow.

:func:`prepare` checks the request before anything streams (empty question, unknown
workspace, source or conversation → 422/404; a conversation of another scope → 409; no
calibration → 503) and loads the conversation's last messages as history. :func:`ask`
then runs the flow as ONE async generator of typed events:

start the turn (conversation created on the first question, the user message stored) →
retrieve (wiki-first, else hybrid; numbered passages) → :class:`AskMeta` → answer
(evidence score, refusal or claims validated against their passages, invariant 3) →
:class:`AskToken` pieces of the validated text → save the assistant message with only the
cited sources (invariant 7) → :class:`AskDone`; any failure → :class:`AskError`.

The API streams the events as NDJSON; ``marginalia ask`` and the QA eval/calibration call
:func:`answer`, which runs the same generator (``save=False``: no conversation) and
returns the full :class:`~marginalia.answer.schemas.Answer` of the ``done`` event.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from marginalia.answer import followup
from marginalia.answer.calibration import Calibration, load_calibration
from marginalia.answer.locations import locate_claims
from marginalia.answer.routing import Scope, load_scope
from marginalia.answer.schemas import Answer, AnswerSummary, AskSource, Route
from marginalia.answer.service import answer_from_context, cited_sources, retrieve
from marginalia.answer.streaming import source_entry, token_pieces
from marginalia.db.models import Conversation, Message
from marginalia.db.repositories import conversations as repo
from marginalia.db.repositories import sources as sources_repo
from marginalia.errors import ConflictError, MarginaliaError, NotFoundError, ValidationFailed
from marginalia.llm import ChatMessage, LLMProvider
from marginalia.runtime import Runtime
from marginalia.usecases import accounts

log = logging.getLogger(__name__)


# ------------------------------------------------------------------------------ events


class AskMeta(BaseModel):
    """Every numbered passage of the context, before any token (``[n]`` marks are
    clickable as they arrive)."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    type: Literal["meta"] = "meta"
    conversation_id: str | None
    title: str | None
    route: Route
    sources: list[AskSource]
    # A follow-up's question as searched (resolved against the conversation); None when
    # the question was searched as asked.
    resolved_question: str | None = None


class AskToken(BaseModel):
    """A word-sized piece of the validated answer text (or of the refusal)."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    type: Literal["token"] = "token"
    text: str


class AskDone(BaseModel):
    """The stored assistant message and the answer's summary."""

    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    type: Literal["done"] = "done"
    message_id: str | None
    conversation_id: str | None
    answer: AnswerSummary
    _full: Answer | None = PrivateAttr(default=None)

    @property
    def full_answer(self) -> Answer:
        """The whole answer (passages, trace, usage); not part of the wire format."""
        assert self._full is not None
        return self._full


class AskError(BaseModel):
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    type: Literal["error"] = "error"
    error: str
    detail: str
    conversation_id: str | None
    _exc: BaseException | None = PrivateAttr(default=None)


AskEvent = Annotated[AskMeta | AskToken | AskDone | AskError, Field(discriminator="type")]


# ------------------------------------------------------------------------------ the flow


@dataclass
class AskPlan:
    """A validated ask request: everything checked before a stream starts."""

    workspace_id: uuid.UUID
    source_id: uuid.UUID | None
    question: str
    conversation: Conversation | None
    history: list[ChatMessage]
    calibration: Calibration | None
    scope: Scope
    save: bool = True
    score_only: bool = False
    provider: LLMProvider | None = None
    user_id: uuid.UUID | None = None  # who asks (accounts mode): the conversation's author
    # The conversation's last exchange (its resolved question, its answer's papers).
    previous_turn: followup.PreviousTurn | None = None


async def prepare(
    rt: Runtime,
    *,
    question: str,
    workspace_id: uuid.UUID | None = None,
    source_id: uuid.UUID | None = None,
    conversation_id: uuid.UUID | None = None,
    save: bool = True,
    calibration: Calibration | None = None,
    score_only: bool = False,
    provider: LLMProvider | None = None,
    user_id: uuid.UUID | None = None,
) -> AskPlan:
    """Check the request and load the history.

    ``user_id``: who asks (accounts mode); a conversation is continued only by whoever
    started it (``accounts.check_conversation_write``), a new one is theirs.
    ``save``: store the turn in a conversation (the API; the CLI and evals don't).
    ``calibration``: None reads ``eval/calibration.json`` (invariant 4); an eval passes one.
    ``score_only``: evidence scored, no calibration read, no claims, no model call.
    ``provider``: another LLM provider than the process's (tests, evals)."""
    question = question.strip()
    if not question:
        raise ValidationFailed("the question is empty")
    if workspace_id is None:
        if source_id is None:
            raise ValidationFailed("ask needs a workspace or a source")
        async with rt.db.session() as session:
            source = await sources_repo.get(session, source_id)
        if source is None:
            raise NotFoundError(f"no source with id {source_id}")
        workspace_id = source.workspace_id
    scope = await load_scope(rt, workspace_id, source_id)
    if not score_only and calibration is None:
        calibration = load_calibration(settings=rt.settings)
    conversation: Conversation | None = None
    history: list[ChatMessage] = []
    previous: followup.PreviousTurn | None = None
    if conversation_id is not None:
        async with rt.db.session() as session:
            conversation = await repo.get(session, conversation_id)
            if conversation is None or conversation.workspace_id != workspace_id:
                # 422, not 404: the path's workspace exists; the body names a
                # conversation that is not in it.
                raise ValidationFailed(
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
            recent = await repo.last_messages(
                session, conversation_id, rt.settings.answer.history_messages
            )
        if user_id is not None:
            await accounts.check_conversation_write(rt, user_id, conversation)
        history = [
            ChatMessage(role="assistant" if m.role == "assistant" else "user", content=m.content)
            for m in recent
        ]
        previous = followup.previous_turn(recent)
    return AskPlan(
        workspace_id=workspace_id,
        source_id=source_id,
        question=question,
        conversation=conversation,
        history=history,
        calibration=calibration,
        scope=scope,
        save=save,
        score_only=score_only,
        provider=provider,
        user_id=user_id,
        previous_turn=previous,
    )


async def ask(rt: Runtime, plan: AskPlan) -> AsyncIterator[AskMeta | AskToken | AskDone | AskError]:
    """The events of one ask (see the module doc); the turn is stored as it goes."""
    conversation: Conversation | None = None
    try:
        if plan.save:
            conversation, _ = await _start_turn(rt, plan)
        # A follow-up is resolved against the conversation before retrieval and gating
        # (the model rewrites it with a generative provider; never in score_only mode).
        llm = None if plan.score_only else (plan.provider or rt.llm)
        resolved = await followup.resolve(llm, plan.question, plan.history, plan.previous_turn)
        context = await retrieve(
            rt,
            workspace_id=plan.workspace_id,
            question=plan.question,
            source_id=plan.source_id,
            history=plan.history,
            scope=plan.scope,
            resolved=resolved,
        )
        yield AskMeta(
            conversation_id=str(conversation.id) if conversation else None,
            title=conversation.title if conversation else None,
            route=context.route,
            sources=[AskSource(**source_entry(p)) for p in context.passages],
            resolved_question=resolved.resolved_question,
        )
        answer = await answer_from_context(
            rt,
            context,
            question=plan.question,
            history=plan.history,
            calibration=plan.calibration,
            score_only=plan.score_only,
            provider=plan.provider,
        )
        answer.resolved_question = resolved.resolved_question
        if answer.outcome != "nothing":  # the claims' quotes and the evidence sentences
            await locate_claims(rt, answer)
        text = (answer.refusal or "") if answer.refused else answer.text
        for piece in token_pieces(text):
            yield AskToken(text=piece)
        message = await _save_answer(rt, conversation.id, answer) if conversation else None
        done = AskDone(
            message_id=str(message.id) if message else None,
            conversation_id=str(conversation.id) if conversation else None,
            answer=AnswerSummary(**answer.summary()),
        )
        done._full = answer
        yield done
    except MarginaliaError as exc:
        yield _error(exc.code, exc.detail, conversation, exc)
    except Exception as exc:
        incident = uuid.uuid4().hex[:12]
        log.exception("ask failed (incident %s)", incident)
        yield _error(
            "internal_error",
            f"the answer failed unexpectedly (incident {incident}); the server log has details",
            conversation,
            exc,
        )


async def answer(
    rt: Runtime,
    *,
    question: str,
    workspace_id: uuid.UUID | None = None,
    source_id: uuid.UUID | None = None,
    history: list[ChatMessage] | None = None,
    calibration: Calibration | None = None,
    score_only: bool = False,
    provider: LLMProvider | None = None,
    previous_turn: followup.PreviousTurn | None = None,
) -> Answer:
    """The flow of :func:`ask` without a conversation (``marginalia ask``, the evals): the
    ``done`` event's full answer; an ``error`` event's exception is raised. ``history``
    and ``previous_turn`` (an eval's conversation) resolve a follow-up as a stored
    conversation would."""
    plan = await prepare(
        rt,
        question=question,
        workspace_id=workspace_id,
        source_id=source_id,
        save=False,
        calibration=calibration,
        score_only=score_only,
        provider=provider,
    )
    if history:
        plan.history = list(history)
        plan.previous_turn = previous_turn
    async for event in ask(rt, plan):
        if isinstance(event, AskDone):
            return event.full_answer
        if isinstance(event, AskError):
            raise event._exc if event._exc is not None else MarginaliaError(event.detail)
    raise RuntimeError("the ask flow ended without a done or error event")


def _error(
    code: str, detail: str, conversation: Conversation | None, exc: BaseException
) -> AskError:
    event = AskError(
        error=code,
        detail=detail,
        conversation_id=str(conversation.id) if conversation else None,
    )
    event._exc = exc
    return event


async def _start_turn(rt: Runtime, plan: AskPlan) -> tuple[Conversation, Message]:
    """The conversation (created on the first question, titled by it) and the user message."""
    async with rt.db.transaction() as session:
        conversation = plan.conversation
        new = conversation is None
        if conversation is None:
            conversation = await repo.create(
                session,
                workspace_id=plan.workspace_id,
                source_id=plan.source_id,
                title=plan.question[: rt.settings.answer.title_chars],
                user_id=plan.user_id,
            )
        message = await repo.add_message(
            session,
            conversation_id=conversation.id,
            role="user",
            content=plan.question,
            touch=not new,
        )
    return conversation, message


async def _save_answer(rt: Runtime, conversation_id: uuid.UUID, answer: Answer) -> Message:
    """Store the assistant message: its text, the full answer, only the cited sources."""
    async with rt.db.transaction() as session:
        return await repo.add_message(
            session,
            conversation_id=conversation_id,
            role="assistant",
            content=answer.text if not answer.refused else (answer.refusal or ""),
            cited_sources=cited_sources(answer),
            answer=answer.model_dump(mode="json"),
        )
