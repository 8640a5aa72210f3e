"""Accounts-mode tables: browser sessions and workspace members (migration 0010), sign-in
attempts and pending invitations (0018). ``users`` and ``api_tokens`` are in
:mod:`marginalia.db.models`."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import (
    CheckConstraint,
    Column,
    DateTime,
    ForeignKey,
    Integer,
    Text,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import UUID
from sqlmodel import Field, SQLModel

from marginalia.db.models_columns import created, uuid_pk


class UserSession(SQLModel, table=True):
    """A signed-in browser: the session cookie's SHA-256 and when it expires."""

    __tablename__ = "user_sessions"
    id: uuid.UUID = uuid_pk()
    user_id: uuid.UUID = Field(
        sa_column=Column(
            UUID(as_uuid=True),
            ForeignKey("users.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        )
    )
    token_hash: str = Field(sa_column=Column(Text, nullable=False, unique=True))
    created_at: datetime = created()
    expires_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))


class WorkspaceMember(SQLModel, table=True):
    """Who may use a workspace: ``owner`` (everything) or ``reader`` (read and ask)."""

    __tablename__ = "workspace_members"
    __table_args__ = (
        CheckConstraint("role IN ('owner', 'reader')", name="ck_workspace_members_role"),
    )
    workspace_id: uuid.UUID = Field(
        sa_column=Column(
            UUID(as_uuid=True),
            ForeignKey("workspaces.id", ondelete="CASCADE"),
            primary_key=True,
        )
    )
    user_id: uuid.UUID = Field(
        sa_column=Column(
            UUID(as_uuid=True),
            ForeignKey("users.id", ondelete="CASCADE"),
            primary_key=True,
            index=True,
        )
    )
    role: str = Field(sa_column=Column(Text, nullable=False))
    created_at: datetime = created()


class SignInAttempt(SQLModel, table=True):
    """Sign-in attempts counted per account (``email:<address>``) and per client address
    (``address:<ip>``), whether or not the account exists, and until when more are refused
    (``usecases/accounts.py``)."""

    __tablename__ = "sign_in_attempts"
    key: str = Field(sa_column=Column(Text, primary_key=True))
    attempts: int = Field(sa_column=Column(Integer, nullable=False))
    last_attempt_at: datetime = Field(sa_column=Column(DateTime(timezone=True), nullable=False))
    blocked_until: datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )


class WorkspaceInvitation(SQLModel, table=True):
    """A workspace shared with an email nobody with an account has used since: it becomes
    a membership when the person with that email signs in or uses the API. Sharing answers
    the same whether or not the email has an account (no enumeration)."""

    __tablename__ = "workspace_invitations"
    __table_args__ = (
        CheckConstraint("role IN ('owner', 'reader')", name="ck_workspace_invitations_role"),
        UniqueConstraint("workspace_id", "email", name="uq_workspace_invitations_email"),
    )
    id: uuid.UUID = uuid_pk()
    workspace_id: uuid.UUID = Field(
        sa_column=Column(
            UUID(as_uuid=True), ForeignKey("workspaces.id", ondelete="CASCADE"), nullable=False
        )
    )
    email: str = Field(sa_column=Column(Text, nullable=False, index=True))  # lower case
    role: str = Field(sa_column=Column(Text, nullable=False))
    invited_by: uuid.UUID | None = Field(
        default=None,
        sa_column=Column(
            UUID(as_uuid=True), ForeignKey("users.id", ondelete="SET NULL"), nullable=True
        ),
    )
    created_at: datetime = created()
