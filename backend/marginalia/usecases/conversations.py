"""Conversations: list a workspace's (or one paper's), read one with its messages, rename, delete.
(Asking — which creates and extends them — is :mod:`marginalia.usecases.ask`.)"""

from __future__ import annotations

import uuid

from marginalia.answer.routing import load_scope
from marginalia.db.models import Conversation, Message
from marginalia.db.repositories import conversations as repo
from marginalia.errors import NotFoundError, ValidationFailed
from marginalia.runtime import Runtime


async def list_conversations(
    rt: Runtime,
    workspace_id: uuid.UUID,
    *,
    source_id: uuid.UUID | None = None,
    limit: int = 100,
    offset: int = 0,
) -> list[Conversation]:
    await load_scope(rt, workspace_id, None)  # 404 for an unknown workspace
    async with rt.db.session() as session:
        return await repo.list_for_workspace(
            session, workspace_id, source_id=source_id, limit=limit, offset=offset
        )


async def get_conversation(
    rt: Runtime, conversation_id: uuid.UUID
) -> tuple[Conversation, list[Message]]:
    async with rt.db.session() as session:
        conversation = await repo.get(session, conversation_id)
        if conversation is None:
            raise NotFoundError(f"no conversation with id {conversation_id}")
        return conversation, await repo.messages(session, conversation_id)


async def delete_conversation(rt: Runtime, conversation_id: uuid.UUID) -> None:
    async with rt.db.transaction() as session:
        conversation = await repo.get(session, conversation_id)
        if conversation is None:
            raise NotFoundError(f"no conversation with id {conversation_id}")
        await repo.delete(session, conversation)


async def rename_conversation(rt: Runtime, conversation_id: uuid.UUID, title: str) -> Conversation:
    title = " ".join(title.split())
    if not title:
        raise ValidationFailed("a conversation's title cannot be blank")
    async with rt.db.transaction() as session:
        conversation = await repo.get(session, conversation_id)
        if conversation is None:
            raise NotFoundError(f"no conversation with id {conversation_id}")
        return await repo.rename(session, conversation, title)


async def pin_answer(rt: Runtime, message_id: uuid.UUID, *, pinned: bool) -> Message:
    """Put an answer on the canvas (``pinned``) or take it off. Only an assistant message
    that answered can be pinned (a question or a refusal is no synthesis); unpinning
    anything is allowed."""
    async with rt.db.transaction() as session:
        message = await repo.get_message(session, message_id)
        if message is None:
            raise NotFoundError(f"no message with id {message_id}")
        if pinned and not is_answered(message):
            raise ValidationFailed(
                "only an answer that answered can be pinned to the canvas "
                "(this message is a question or a refusal)"
            )
        return await repo.set_pinned(session, message, pinned=pinned)


def is_answered(message: Message) -> bool:
    """An assistant message that answered: not refused, and it cites a source."""
    if message.role != "assistant" or not message.cited_sources:
        return False
    return not (isinstance(message.answer, dict) and message.answer.get("refused") is True)
