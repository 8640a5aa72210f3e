"""Accounts-mode tables (migration 0010): browser sessions and workspace members.
``users`` and ``api_tokens`` are in :mod:`marginalia.db.models`."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import CheckConstraint, Column, DateTime, ForeignKey, Text
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
