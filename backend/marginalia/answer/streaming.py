"""The ask stream's wire format: NDJSON, one event a line. The events are the typed models
of :mod:`marginalia.usecases.ask` (``AskMeta``, ``AskToken``, ``AskDone``, ``AskError``):

1. ``{"type": "meta", "conversation_id", "title", "sources": [{"n", "document",
   "excerpt", "score", "page", "source_id", "chunk_id", ...}]}`` — every numbered passage
   of the context, before any token, so ``[n]`` marks are clickable as they arrive;
2. ``{"type": "token", "text"}`` — the *validated* answer text (or the refusal), in
   word-sized pieces: claims are checked (invariant 3) before anything is streamed, so
   no text a user sees is ever taken back;
3. ``{"type": "done", "message_id", "conversation_id", "answer": {...}}`` or
   ``{"type": "error", "error", "detail", "conversation_id"}``.

Request problems (unknown workspace, source or conversation; no calibration) are raised
by :func:`marginalia.usecases.ask.prepare` before the stream starts, so they leave as
ordinary JSON errors with a status code.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from typing import Any

from pydantic import BaseModel

from marginalia.answer.schemas import Passage

log = logging.getLogger(__name__)

MEDIA_TYPE = "application/x-ndjson"
EXCERPT_CHARS = 300
_PIECE = re.compile(r"\S+\s*")


def source_entry(p: Passage) -> dict[str, Any]:
    excerpt = " ".join(p.text.split())
    if len(excerpt) > EXCERPT_CHARS:
        excerpt = excerpt[: EXCERPT_CHARS - 1].rstrip() + "…"
    return {
        "n": p.n,
        "kind": p.kind,
        "document": p.document,
        "excerpt": excerpt,
        "score": p.score,
        "page": p.page,
        "source_id": str(p.source_id) if p.source_id else None,
        "chunk_id": p.chunk_id,
        "section_title": p.section_title,
        "wiki_slug": p.wiki_slug,
    }


def token_pieces(text: str) -> list[str]:
    """``text`` cut into word-sized pieces that concatenate back to it."""
    return _PIECE.findall(text)


async def ndjson(events: AsyncIterator[BaseModel]) -> AsyncIterator[bytes]:
    """Events as NDJSON lines (one JSON object a line)."""
    async for event in events:
        yield (event.model_dump_json() + "\n").encode("utf-8")
