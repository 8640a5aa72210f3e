"""Ask (NDJSON stream) and conversations. Thin: the answer package does the work."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response, status
from fastapi.responses import StreamingResponse

from marginalia.answer import service
from marginalia.answer.schemas import (
    AskRequest,
    ConversationDetail,
    ConversationOut,
    MessageOut,
)
from marginalia.answer.streaming import MEDIA_TYPE, ask_events, ndjson
from marginalia.api.deps import ServicesDep
from marginalia.api.schemas import ErrorOut

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
        "content": {MEDIA_TYPE: {}},
    }
}


def _stream(services: ServicesDep, plan: service.AskPlan) -> StreamingResponse:
    return StreamingResponse(
        ndjson(ask_events(services, plan)),
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
    workspace_id: uuid.UUID, body: AskRequest, services: ServicesDep
) -> StreamingResponse:
    plan = await service.prepare_ask(
        services,
        question=body.question,
        workspace_id=workspace_id,
        conversation_id=body.conversation_id,
    )
    return _stream(services, plan)


@router.post(
    "/sources/{source_id}/ask",
    response_class=StreamingResponse,
    responses=_STREAM_DOC,
    summary="Ask one paper (streamed NDJSON); only its passages are searched",
)
async def ask_source(
    source_id: uuid.UUID, body: AskRequest, services: ServicesDep
) -> StreamingResponse:
    plan = await service.prepare_ask(
        services,
        question=body.question,
        source_id=source_id,
        conversation_id=body.conversation_id,
    )
    return _stream(services, plan)


@router.get("/workspaces/{workspace_id}/conversations", response_model=list[ConversationOut])
async def list_conversations(
    workspace_id: uuid.UUID,
    services: ServicesDep,
    source_id: Annotated[uuid.UUID | None, Query(description="only this paper's")] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    offset: Annotated[int, Query(ge=0)] = 0,
) -> list[ConversationOut]:
    rows = await service.list_conversations(
        services, workspace_id, source_id=source_id, limit=limit, offset=offset
    )
    return [ConversationOut.model_validate(c) for c in rows]


@router.get("/conversations/{conversation_id}", response_model=ConversationDetail)
async def get_conversation(conversation_id: uuid.UUID, services: ServicesDep) -> ConversationDetail:
    conversation, messages = await service.get_conversation(services, conversation_id)
    return ConversationDetail(
        **ConversationOut.model_validate(conversation).model_dump(),
        messages=[MessageOut.model_validate(m) for m in messages],
    )


@router.delete("/conversations/{conversation_id}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_conversation(conversation_id: uuid.UUID, services: ServicesDep) -> Response:
    await service.delete_conversation(services, conversation_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
