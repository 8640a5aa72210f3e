"""API bodies for highlights and notes."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt

from marginalia.answer.schemas import QuoteRect

Color = Literal["yellow", "green", "blue", "pink"]


#: Pages one selection may cover (a selection crossing one or two page breaks).
MAX_PAGES_SPANNED = 3


class HighlightCreate(BaseModel):
    """A selection on page ``page`` (through ``page_end`` when it crosses a page break):
    its text and a little of what surrounds it."""

    model_config = ConfigDict(extra="forbid")

    page: StrictInt = Field(ge=1, le=100_000)
    page_end: StrictInt | None = Field(
        default=None,
        ge=1,
        le=100_000,
        description=f"the last page of a selection that crosses page breaks (at most "
        f"{MAX_PAGES_SPANNED - 1} after ``page``); unset: one page",
    )
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
