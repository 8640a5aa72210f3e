"""Accounts-mode tables (migration 0010): browser sessions and workspace members.
``users`` and ``api_tokens`` are in :mod:`marginalia.db.models`."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import CheckConstraint, Column, DateTime, ForeignKey, Text, func, text
from sqlalchemy.dialects.postgresql import UUID
from sqlmodel import Field, SQLModel


def _uuid_pk() -> Any:
    return Field(
        default_factory=uuid.uuid4,
        sa_column=Column(
            UUID(as_uuid=True), primary_key=True, server_default=text("gen_random_uuid()")
        ),
    )


def _created() -> Any:
    return Field(
        default=None,
        sa_column=Column(DateTime(timezone=True), nullable=False, server_default=func.now()),
    )


class UserSession(SQLModel, table=True):
    """A signed-in browser: the session cookie's SHA-256 and when it expires."""

    __tablename__ = "user_sessions"
    id: uuid.UUID = _uuid_pk()
    user_id: uuid.UUID = Field(
        sa_column=Column(
            UUID(as_uuid=True),
            ForeignKey("users.id", ondelete="CASCADE"),
            nullable=False,
            index=True,
        )
    )
    token_hash: str = Field(sa_column=Column(Text, nullable=False, unique=True))
    created_at: datetime = _created()
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
    created_at: datetime = _created()
