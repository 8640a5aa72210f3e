"""Request and response bodies of the API (the OpenAPI schema the front end is generated from)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import Query
from pydantic import BaseModel, ConfigDict, Field

# Integers from a client are bounded, so none reaches the database beyond its column types
# (a 20-digit ``offset`` is a clear 422, not an overflow). NUL characters are refused for
# every request by ``api.hardening.RequestGuard``.
MAX_INT32 = 2**31 - 1
MAX_INT64 = 2**63 - 1
Offset = Annotated[int, Query(ge=0, le=MAX_INT32, description="rows to skip")]


class ErrorOut(BaseModel):
    error: str
    detail: Any


class WorkspaceCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=200)
    description: str = Field(default="", max_length=10_000)


class WorkspaceUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = Field(default=None, min_length=1, max_length=200)
    description: str | None = Field(default=None, max_length=10_000)


class WorkspaceOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: uuid.UUID
    name: str
    description: str
    created_at: datetime
    updated_at: datetime


class WorkspaceListItem(WorkspaceOut):
    """A workspace on the start page: with its source count and latest activity."""

    source_count: int
    last_activity_at: datetime


class WorkspaceDetail(WorkspaceOut):
    counts: dict[str, int]


class JobOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: uuid.UUID
    kind: str
    workspace_id: uuid.UUID | None
    status: str
    stage: str | None
    progress: float
    params: dict[str, Any]
    result: dict[str, Any] | None
    error: str | None
    interrupted: bool
    attempts: int
    backend: str | None
    worker: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


class UploadFileOut(BaseModel):
    """One file of an upload: ``accepted`` (ingested by the job) or ``refused`` (why)."""

    filename: str
    status: Literal["accepted", "refused"]
    detail: str | None = None


class UploadOut(JobOut):
    """The ingest job of an upload, and each file's outcome (one bad file never sinks
    the batch; when every file is refused the request fails with the refusal)."""

    files: list[UploadFileOut]


class JobEventOut(BaseModel):
    """One event of a job's SSE stream (the ``data:`` line; ``id:`` is ``id``, ``event:``
    is ``type``). Ingest stage events carry ``data.filename`` and ``data.file_progress``."""

    id: int
    job_id: uuid.UUID
    type: str = Field(description="stage, log, status or result")
    stage: str | None
    message: str
    progress: float | None
    data: dict[str, Any] | None
    created_at: datetime | None


class SourceOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: uuid.UUID
    workspace_id: uuid.UUID
    kind: str
    origin: str
    status: str
    title: str | None
    authors: list[str]
    year: int | None
    venue: str | None
    abstract: str | None
    url: str | None
    doi: str | None
    arxiv_id: str | None
    openalex_id: str | None
    citation_count: int | None
    content_hash: str | None
    abstract_only: bool
    file_name: str | None
    content_type: str | None
    byte_size: int | None
    page_count: int | None
    quality_score: float | None
    summary: str | None
    tldr: str | None
    created_at: datetime
    cited_by_here: int = Field(
        default=0, description="how many sources of this workspace cite this one"
    )
    cites_here: int = Field(default=0, description="how many sources of this workspace it cites")


class ChunkOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: int
    chunk_index: int
    text: str
    section_type: str
    section_title: str | None
    page_start: int | None
    page_end: int | None
    char_start: int | None
    char_end: int | None
    token_count: int


class PageOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    page_number: int
    text: str


class UserOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)
    id: uuid.UUID
    email: str
    name: str | None


class SignIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    email: str = Field(min_length=3, max_length=320)
    password: str = Field(min_length=1, max_length=1024)


class MeOut(BaseModel):
    """Who the browser is: local mode has no user; accounts mode a signed-in user or none."""

    mode: Literal["local", "accounts"]
    user: UserOut | None


class MemberSet(BaseModel):
    model_config = ConfigDict(extra="forbid")
    email: str = Field(min_length=3, max_length=320)
    role: Literal["owner", "reader"] = "reader"


class MemberOut(BaseModel):
    """A member (``status`` member, with the user) or a pending invitation to an email
    (``status`` pending, with the invitation's id: withdraw it with DELETE)."""

    user: UserOut | None
    email: str
    role: Literal["owner", "reader"]
    status: Literal["member", "pending"] = "member"
    invitation_id: uuid.UUID | None = None


class SharedOut(BaseModel):
    """What sharing did: ``member`` — the email is a member's, whose role changed;
    ``pending`` — an invitation, which becomes a membership when the person with that
    email signs in or uses the API. The answer is the same whether or not the email has an
    account; the invitation shows as a member in the list once it is accepted."""

    email: str
    role: Literal["owner", "reader"]
    status: Literal["member", "pending"]
    invitation_id: uuid.UUID | None = None
