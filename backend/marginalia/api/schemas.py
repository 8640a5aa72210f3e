"""Request and response bodies of the API (the OpenAPI schema the front end is generated from)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


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


class JobCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: str = Field(min_length=1)
    params: dict[str, Any] = Field(default_factory=dict)
    workspace_id: uuid.UUID | None = None


class JobEventOut(BaseModel):
    id: int
    job_id: uuid.UUID
    type: str
    stage: str | None
    message: str | None
    progress: float | None
    data: dict[str, Any]
    created_at: datetime | None
