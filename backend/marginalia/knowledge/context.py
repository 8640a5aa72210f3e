"""What the update and read sides of the knowledge layer run on: the narrow
:class:`KnowledgeContext` (a :class:`marginalia.runtime.Runtime` is one) and small
helpers they share."""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from marginalia.config import Settings
from marginalia.db import Database
from marginalia.db.models import Chunk
from marginalia.embed.base import Embedder
from marginalia.errors import NotFoundError
from marginalia.knowledge import repository as repo
from marginalia.knowledge.sentences import ChunkText
from marginalia.llm.base import LLMProvider

Progress = Callable[[str, str, float], Awaitable[None]]
"""``(message, stage, progress 0..1)``."""


class KnowledgeContext(Protocol):
    """What the knowledge layer uses: the database, the settings, the embedder and the
    process's LLM provider (the offline one selects the extractive engines)."""

    @property
    def db(self) -> Database: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def embedder(self) -> Embedder: ...

    @property
    def llm(self) -> LLMProvider: ...


def resolve_llm(ctx: KnowledgeContext, llm: LLMProvider | None) -> LLMProvider:
    """``llm`` when a caller passes one (tests, evals), else the process's provider."""
    return llm if llm is not None else ctx.llm


async def require_workspace(session: AsyncSession, workspace_id: uuid.UUID) -> Any:
    workspace = await repo.get_workspace(session, workspace_id)
    if workspace is None:
        raise NotFoundError(f"no workspace with id {workspace_id}")
    return workspace


def chunk_texts(chunks: Iterable[Chunk]) -> list[ChunkText]:
    return [ChunkText(c.chunk_index, c.text, c.section_type, c.section_title) for c in chunks]


def source_text(title: str | None, abstract: str | None, chunks: Iterable[Chunk]) -> str:
    """A source's whole text (title, abstract, chunks), as filters count names in it."""
    return "\n".join([title or "", abstract or "", *(c.text for c in chunks)])


def elapsed_ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)
