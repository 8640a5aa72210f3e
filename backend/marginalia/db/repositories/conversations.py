"""SQL for conversations and their messages."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from marginalia.db.models import Conversation, Message


async def create(
    session: AsyncSession,
    *,
    workspace_id: uuid.UUID,
    source_id: uuid.UUID | None,
    title: str,
    user_id: uuid.UUID | None = None,
) -> Conversation:
    """A new conversation; one statement (the INSERT returns the server-filled columns)."""
    result = await session.scalars(
        insert(Conversation).returning(Conversation),
        [
            {
                "workspace_id": workspace_id,
                "source_id": source_id,
                "title": title,
                "user_id": user_id,
            }
        ],
    )
    return result.one()


async def get(session: AsyncSession, conversation_id: uuid.UUID) -> Conversation | None:
    return await session.get(Conversation, conversation_id)


async def list_for_workspace(
    session: AsyncSession,
    workspace_id: uuid.UUID,
    *,
    source_id: uuid.UUID | None = None,
    limit: int = 100,
    offset: int = 0,
) -> list[Conversation]:
    """Most recently updated first; with ``source_id`` only that paper's conversations."""
    query = select(Conversation).where(col(Conversation.workspace_id) == workspace_id)
    if source_id is not None:
        query = query.where(col(Conversation.source_id) == source_id)
    query = (
        query.order_by(col(Conversation.updated_at).desc(), col(Conversation.id))
        .limit(limit)
        .offset(offset)
    )
    result = await session.execute(query)
    return list(result.scalars().all())


async def rename(session: AsyncSession, conversation: Conversation, title: str) -> Conversation:
    conversation.title = title
    session.add(conversation)
    await session.flush()
    await session.refresh(conversation)
    return conversation


async def delete(session: AsyncSession, conversation: Conversation) -> None:
    await session.delete(conversation)
    await session.flush()


async def add_message(
    session: AsyncSession,
    *,
    conversation_id: uuid.UUID,
    role: str,
    content: str,
    cited_sources: list[Any] | None = None,
    answer: dict[str, Any] | None = None,
    touch: bool = True,
) -> Message:
    """A new message (its INSERT returns the server-filled columns) and, with ``touch``,
    the conversation's ``updated_at`` moved to now (a conversation created in the same
    transaction already has it)."""
    result = await session.scalars(
        insert(Message).returning(Message),
        [
            {
                "conversation_id": conversation_id,
                "role": role,
                "content": content,
                "cited_sources": cited_sources or [],
                "answer": answer,
            }
        ],
    )
    message = result.one()
    if touch:
        await session.execute(
            update(Conversation)
            .where(col(Conversation.id) == conversation_id)
            .values(updated_at=func.now())
        )
    return message


async def messages(session: AsyncSession, conversation_id: uuid.UUID) -> list[Message]:
    """All messages, oldest first."""
    result = await session.execute(
        select(Message)
        .where(col(Message.conversation_id) == conversation_id)
        .order_by(col(Message.created_at), col(Message.id))
    )
    return list(result.scalars().all())


async def last_messages(
    session: AsyncSession, conversation_id: uuid.UUID, limit: int = 10
) -> list[Message]:
    """The last ``limit`` messages, oldest first."""
    result = await session.execute(
        select(Message)
        .where(col(Message.conversation_id) == conversation_id)
        .order_by(col(Message.created_at).desc(), col(Message.id).desc())
        .limit(limit)
    )
    return list(reversed(result.scalars().all()))


async def get_message(session: AsyncSession, message_id: uuid.UUID) -> Message | None:
    return await session.get(Message, message_id)


async def set_pinned(session: AsyncSession, message: Message, *, pinned: bool) -> Message:
    """Pin (keeping the first pin's time) or unpin an answer on the canvas."""
    value = (message.pinned_at or func.now()) if pinned else None
    await session.execute(
        update(Message).where(col(Message.id) == message.id).values(pinned_at=value)
    )
    await session.flush()
    await session.refresh(message)
    return message
