"""SQL for accounts: users, API tokens, browser sessions, workspace members and pending
invitations, sign-in attempts, and which workspace a routed resource belongs to (for the
access check)."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from marginalia.db.models import (
    ApiToken,
    Conversation,
    Highlight,
    Job,
    Message,
    SignInAttempt,
    Source,
    User,
    UserSession,
    Workspace,
    WorkspaceInvitation,
    WorkspaceMember,
)

# The resources a route can address by id, and the column naming their workspace.
_OWNING_WORKSPACE: dict[str, tuple[Any, Any]] = {
    "source_id": (Source, Source.workspace_id),
    "conversation_id": (Conversation, Conversation.workspace_id),
    "highlight_id": (Highlight, Highlight.workspace_id),
    "job_id": (Job, Job.workspace_id),
}

# A message is its conversation's: its workspace is the conversation's.
ADDRESSABLE = frozenset(_OWNING_WORKSPACE) | {"workspace_id", "message_id"}
_TOKEN_USE_RESOLUTION = timedelta(minutes=1)


async def add_user(
    session: AsyncSession, *, email: str, name: str | None, password_hash: str | None
) -> User:
    user = User(email=email, name=name, password_hash=password_hash)
    session.add(user)
    await session.flush()
    await session.refresh(user)
    return user


async def user_by_email(session: AsyncSession, email: str) -> User | None:
    result = await session.execute(select(User).where(func.lower(col(User.email)) == email.lower()))
    return result.scalars().first()


async def get_user(session: AsyncSession, user_id: uuid.UUID) -> User | None:
    return await session.get(User, user_id)


async def set_password_hash(session: AsyncSession, user_id: uuid.UUID, password_hash: str) -> None:
    await session.execute(
        update(User).where(col(User.id) == user_id).values(password_hash=password_hash)
    )


async def add_token(
    session: AsyncSession, *, user_id: uuid.UUID, name: str, token_hash: str
) -> ApiToken:
    token = ApiToken(user_id=user_id, name=name, token_hash=token_hash)
    session.add(token)
    await session.flush()
    await session.refresh(token)
    return token


async def tokens_of(session: AsyncSession, user_id: uuid.UUID) -> list[ApiToken]:
    result = await session.execute(
        select(ApiToken).where(col(ApiToken.user_id) == user_id).order_by(col(ApiToken.created_at))
    )
    return list(result.scalars().all())


async def delete_token(session: AsyncSession, token_id: uuid.UUID) -> bool:
    result = await session.execute(delete(ApiToken).where(col(ApiToken.id) == token_id))
    return bool(result.rowcount)  # type: ignore[attr-defined]


async def user_for_token(session: AsyncSession, token_hash: str, now: datetime) -> uuid.UUID | None:
    """The token's user; ``last_used_at`` is written at most once a minute, so concurrent
    requests with one token do not queue on its row."""
    row = (
        await session.execute(
            select(col(ApiToken.id), col(ApiToken.user_id), col(ApiToken.last_used_at)).where(
                col(ApiToken.token_hash) == token_hash
            )
        )
    ).first()
    if row is None:
        return None
    token_id, user_id, last_used = row
    if last_used is None or now - last_used > _TOKEN_USE_RESOLUTION:
        await session.execute(
            update(ApiToken).where(col(ApiToken.id) == token_id).values(last_used_at=now)
        )
    return user_id


async def add_session(
    session: AsyncSession, *, user_id: uuid.UUID, token_hash: str, expires_at: datetime
) -> None:
    session.add(UserSession(user_id=user_id, token_hash=token_hash, expires_at=expires_at))
    await session.flush()


async def user_for_session(
    session: AsyncSession, token_hash: str, now: datetime
) -> uuid.UUID | None:
    result = await session.execute(
        select(col(UserSession.user_id)).where(
            col(UserSession.token_hash) == token_hash, col(UserSession.expires_at) > now
        )
    )
    return result.scalar_one_or_none()


async def delete_session(session: AsyncSession, token_hash: str) -> None:
    await session.execute(delete(UserSession).where(col(UserSession.token_hash) == token_hash))


async def delete_expired_sessions(session: AsyncSession, now: datetime) -> None:
    await session.execute(delete(UserSession).where(col(UserSession.expires_at) <= now))


async def set_member(
    session: AsyncSession, *, workspace_id: uuid.UUID, user_id: uuid.UUID, role: str
) -> None:
    existing = await session.get(WorkspaceMember, (workspace_id, user_id))
    if existing is None:
        session.add(WorkspaceMember(workspace_id=workspace_id, user_id=user_id, role=role))
    else:
        existing.role = role
    await session.flush()


async def remove_member(
    session: AsyncSession, *, workspace_id: uuid.UUID, user_id: uuid.UUID
) -> bool:
    result = await session.execute(
        delete(WorkspaceMember).where(
            col(WorkspaceMember.workspace_id) == workspace_id,
            col(WorkspaceMember.user_id) == user_id,
        )
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


async def members(
    session: AsyncSession, workspace_id: uuid.UUID, *, lock: bool = False
) -> list[tuple[User, str]]:
    """The members and their roles; ``lock``: their rows stay locked until the transaction
    ends (so two owners leaving at once cannot both see the other stay)."""
    query = (
        select(User, col(WorkspaceMember.role))
        .join(WorkspaceMember, col(WorkspaceMember.user_id) == col(User.id))
        .where(col(WorkspaceMember.workspace_id) == workspace_id)
        .order_by(col(WorkspaceMember.created_at))
    )
    if lock:
        query = query.with_for_update(of=WorkspaceMember)
    result = await session.execute(query)
    return [(row[0], row[1]) for row in result.all()]


async def role_in(session: AsyncSession, user_id: uuid.UUID, workspace_id: uuid.UUID) -> str | None:
    return await session.scalar(
        select(col(WorkspaceMember.role)).where(
            col(WorkspaceMember.workspace_id) == workspace_id,
            col(WorkspaceMember.user_id) == user_id,
        )
    )


async def workspace_ids_of(session: AsyncSession, user_id: uuid.UUID) -> set[uuid.UUID]:
    result = await session.execute(
        select(col(WorkspaceMember.workspace_id)).where(col(WorkspaceMember.user_id) == user_id)
    )
    return set(result.scalars().all())


async def owning_workspace(
    session: AsyncSession, param: str, resource_id: uuid.UUID
) -> tuple[bool, uuid.UUID | None]:
    """``(exists, workspace id)`` of the resource a path parameter names; a workspace
    names itself."""
    if param == "workspace_id":
        found = await session.scalar(
            select(col(Workspace.id)).where(col(Workspace.id) == resource_id)
        )
        return found is not None, found
    if param == "message_id":
        row = (
            await session.execute(
                select(col(Conversation.workspace_id))
                .join(Message, col(Message.conversation_id) == col(Conversation.id))
                .where(col(Message.id) == resource_id)
            )
        ).first()
        return (row is not None, row[0] if row is not None else None)
    model, column = _OWNING_WORKSPACE[param]
    row = (await session.execute(select(col(column)).where(col(model.id) == resource_id))).first()
    return (row is not None, row[0] if row is not None else None)


async def job_starter(session: AsyncSession, job_id: uuid.UUID) -> uuid.UUID | None:
    return await session.scalar(select(col(Job.user_id)).where(col(Job.id) == job_id))


async def conversation_author(
    session: AsyncSession, conversation_id: uuid.UUID
) -> tuple[bool, uuid.UUID | None]:
    """``(exists, who asked)`` of a conversation."""
    row = (
        await session.execute(
            select(col(Conversation.user_id)).where(col(Conversation.id) == conversation_id)
        )
    ).first()
    return (row is not None, row[0] if row is not None else None)


# ------------------------------------------------------------------ sign-in attempts


async def attempt_for_update(session: AsyncSession, key: str, now: datetime) -> SignInAttempt:
    """The attempts row of ``key`` (made if missing), locked until the transaction ends, so
    concurrent sign-ins count one after the other."""
    await session.execute(
        insert(SignInAttempt)
        .values(key=key, attempts=0, last_attempt_at=now)
        .on_conflict_do_nothing(index_elements=["key"])
    )
    result = await session.execute(
        select(SignInAttempt).where(col(SignInAttempt.key) == key).with_for_update()
    )
    return result.scalars().one()


async def clear_attempts(session: AsyncSession, key: str) -> None:
    await session.execute(delete(SignInAttempt).where(col(SignInAttempt.key) == key))


async def forget_attempts_before(session: AsyncSession, before: datetime) -> None:
    await session.execute(
        delete(SignInAttempt).where(
            col(SignInAttempt.last_attempt_at) < before,
            (col(SignInAttempt.blocked_until).is_(None))
            | (col(SignInAttempt.blocked_until) < before),
        )
    )


# ------------------------------------------------------------------ invitations


async def member_by_email(
    session: AsyncSession, workspace_id: uuid.UUID, email: str
) -> tuple[uuid.UUID, str] | None:
    """``(user id, role)`` of the workspace's member with that email, if one is."""
    row = (
        await session.execute(
            select(col(User.id), col(WorkspaceMember.role))
            .join(WorkspaceMember, col(WorkspaceMember.user_id) == col(User.id))
            .where(
                col(WorkspaceMember.workspace_id) == workspace_id,
                func.lower(col(User.email)) == email.lower(),
            )
        )
    ).first()
    return (row[0], row[1]) if row is not None else None


async def set_invitation(
    session: AsyncSession,
    *,
    workspace_id: uuid.UUID,
    email: str,
    role: str,
    invited_by: uuid.UUID | None,
) -> WorkspaceInvitation:
    await session.execute(
        insert(WorkspaceInvitation)
        .values(workspace_id=workspace_id, email=email.lower(), role=role, invited_by=invited_by)
        .on_conflict_do_update(
            constraint="uq_workspace_invitations_email",
            set_={"role": role, "invited_by": invited_by},
        )
    )
    result = await session.execute(
        select(WorkspaceInvitation).where(
            col(WorkspaceInvitation.workspace_id) == workspace_id,
            col(WorkspaceInvitation.email) == email.lower(),
        )
    )
    return result.scalars().one()


async def invitations(session: AsyncSession, workspace_id: uuid.UUID) -> list[WorkspaceInvitation]:
    result = await session.execute(
        select(WorkspaceInvitation)
        .where(col(WorkspaceInvitation.workspace_id) == workspace_id)
        .order_by(col(WorkspaceInvitation.created_at))
    )
    return list(result.scalars().all())


async def delete_invitation(
    session: AsyncSession, workspace_id: uuid.UUID, invitation_id: uuid.UUID
) -> bool:
    result = await session.execute(
        delete(WorkspaceInvitation).where(
            col(WorkspaceInvitation.workspace_id) == workspace_id,
            col(WorkspaceInvitation.id) == invitation_id,
        )
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


async def accept_invitations(
    session: AsyncSession, user_id: uuid.UUID, *, workspace_id: uuid.UUID | None = None
) -> int:
    """Turn the invitations to the user's email (into ``workspace_id`` only, when given)
    into memberships; a membership the user has already keeps its role. Returns how many."""
    email = await session.scalar(select(func.lower(col(User.email))).where(col(User.id) == user_id))
    if email is None:
        return 0
    where = [col(WorkspaceInvitation.email) == email]
    if workspace_id is not None:
        where.append(col(WorkspaceInvitation.workspace_id) == workspace_id)
    pending = (
        await session.execute(
            delete(WorkspaceInvitation)
            .where(*where)
            .returning(col(WorkspaceInvitation.workspace_id), col(WorkspaceInvitation.role))
        )
    ).all()
    for invited_to, role in pending:
        await session.execute(
            insert(WorkspaceMember)
            .values(workspace_id=invited_to, user_id=user_id, role=role)
            .on_conflict_do_nothing(index_elements=["workspace_id", "user_id"])
        )
    return len(pending)
