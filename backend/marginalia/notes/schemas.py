"""API bodies for highlights and notes."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from marginalia.answer.schemas import QuoteRect

Color = Literal["yellow", "green", "blue", "pink"]


class HighlightCreate(BaseModel):
    """A selection on page ``page``: its text and a little of what surrounds it."""

    model_config = ConfigDict(extra="forbid")

    page: int = Field(ge=1)
    quote: str = Field(min_length=1, max_length=4000)
    prefix: str = Field(default="", max_length=400)
    suffix: str = Field(default="", max_length=400)
    color: Color = "yellow"
    note: str | None = Field(default=None, max_length=20000)


class HighlightUpdate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    color: Color | None = None
    note: str | None = Field(default=None, max_length=20000)


class HighlightOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: uuid.UUID
    source_id: uuid.UUID
    workspace_id: uuid.UUID
    page: int
    page_end: int
    char_start: int
    char_end: int
    text: str
    prefix: str
    suffix: str
    rects: list[QuoteRect]
    color: str
    note: str | None
    created_at: datetime
    updated_at: datetime


class WorkspaceHighlightOut(HighlightOut):
    source_title: str | None = None
