"""Ask (NDJSON stream) and conversations. Thin: :mod:`marginalia.usecases.ask` runs the flow."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response, status
from fastapi.responses import StreamingResponse

from marginalia.answer.schemas import (
    AskRequest,
    ConversationDetail,
    ConversationOut,
    ConversationUpdate,
    MessageOut,
)
from marginalia.answer.streaming import MEDIA_TYPE, ndjson
from marginalia.api.deps import PrincipalDep, RuntimeDep
from marginalia.api.schemas import ErrorOut, Offset
from marginalia.api.stream_schemas import stream_content
from marginalia.usecases import ask, conversations

router = APIRouter(
    prefix="/api",
    tags=["answers"],
    responses={
        404: {"model": ErrorOut},
        409: {"model": ErrorOut},
        422: {"model": ErrorOut},
        503: {"model": ErrorOut},
    },
)

_STREAM_DOC: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "NDJSON events: meta (conversation, numbered sources), token…, "
        "then done (message id, answer) or error",
        "content": stream_content(MEDIA_TYPE, "AskEvent"),
    }
}


def _stream(rt: RuntimeDep, plan: ask.AskPlan) -> StreamingResponse:
    return StreamingResponse(
        ndjson(ask.ask(rt, plan)),
        media_type=MEDIA_TYPE,
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


@router.post(
    "/workspaces/{workspace_id}/ask",
    response_class=StreamingResponse,
    responses=_STREAM_DOC,
    summary="Ask the workspace (streamed NDJSON)",
)
async def ask_workspace(
    workspace_id: uuid.UUID, body: AskRequest, rt: RuntimeDep, principal: PrincipalDep
) -> StreamingResponse:
    plan = await ask.prepare(
        rt,
        question=body.question,
        workspace_id=workspace_id,
        conversation_id=body.conversation_id,
        user_id=principal.user_id,
    )
    return _stream(rt, plan)


@router.post(
    "/sources/{source_id}/ask",
    response_class=StreamingResponse,
    responses=_STREAM_DOC,
    summary="Ask one paper (streamed NDJSON); only its passages are searched",
)
async def ask_source(
    source_id: uuid.UUID, body: AskRequest, rt: RuntimeDep, principal: PrincipalDep
) -> StreamingResponse:
    plan = await ask.prepare(
        rt,
        question=body.question,
        source_id=source_id,
        conversation_id=body.conversation_id,
        user_id=principal.user_id,
    )
    return _stream(rt, plan)


@router.get("/workspaces/{workspace_id}/conversations", response_model=list[ConversationOut])
async def list_conversations(
    workspace_id: uuid.UUID,
    rt: RuntimeDep,
    source_id: Annotated[uuid.UUID | None, Query(description="only this paper's")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    offset: Offset = 0,
) -> list[ConversationOut]:
    rows = await conversations.list_conversations(
        rt, workspace_id, source_id=source_id, limit=limit, offset=offset
    )
    return [ConversationOut.model_validate(c) for c in rows]


@router.get("/conversations/{conversation_id}", response_model=ConversationDetail)
async def get_conversation(conversation_id: uuid.UUID, rt: RuntimeDep) -> ConversationDetail:
    conversation, messages = await conversations.get_conversation(rt, conversation_id)
    return ConversationDetail(
        **ConversationOut.model_validate(conversation).model_dump(),
        messages=[MessageOut.model_validate(m) for m in messages],
    )


@router.patch(
    "/conversations/{conversation_id}",
    response_model=ConversationOut,
    responses={404: {"model": ErrorOut}, 422: {"model": ErrorOut}},
    summary="Rename a conversation",
)
async def rename_conversation(
    conversation_id: uuid.UUID, body: ConversationUpdate, rt: RuntimeDep
) -> ConversationOut:
    conversation = await conversations.rename_conversation(rt, conversation_id, body.title)
    return ConversationOut.model_validate(conversation)


@router.delete("/conversations/{conversation_id}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_conversation(conversation_id: uuid.UUID, rt: RuntimeDep) -> Response:
    await conversations.delete_conversation(rt, conversation_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post(
    "/messages/{message_id}/pin",
    response_model=MessageOut,
    responses={404: {"model": ErrorOut}, 422: {"model": ErrorOut}},
    summary="Pin an answer to the canvas",
)
async def pin_message(message_id: uuid.UUID, rt: RuntimeDep) -> MessageOut:
    """The answer becomes a synthesis node of its workspace's canvas (answers are never
    added automatically). Pinning a pinned answer keeps its first pin time."""
    return MessageOut.model_validate(await conversations.pin_answer(rt, message_id, pinned=True))


@router.delete(
    "/messages/{message_id}/pin",
    response_model=MessageOut,
    responses={404: {"model": ErrorOut}},
    summary="Take an answer off the canvas",
)
async def unpin_message(message_id: uuid.UUID, rt: RuntimeDep) -> MessageOut:
    return MessageOut.model_validate(await conversations.pin_answer(rt, message_id, pinned=False))
