"""The ask stream: NDJSON events, one JSON object per line.

1. ``{"type": "meta", "conversation_id", "title", "sources": [{"n", "document",
   "excerpt", "score", "page", "source_id", "chunk_id", ...}]}`` — every numbered passage
   of the context, before any token, so ``[n]`` marks are clickable as they arrive;
2. ``{"type": "token", "text"}`` — the *validated* answer text (or the refusal), in
   word-sized pieces: claims are checked (invariant 3) before anything is streamed, so
   no text a user sees is ever taken back;
3. ``{"type": "done", "message_id", "conversation_id", "answer": {...}}`` or
   ``{"type": "error", "error", "detail", "conversation_id"}``.

Request problems (unknown workspace, source or conversation; no calibration) are
raised by :func:`marginalia.answer.service.prepare_ask` before the stream starts, so
they leave as ordinary JSON errors with a status code.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import AsyncIterator
from typing import Any

from marginalia.answer.schemas import Passage
from marginalia.answer.service import (
    AskPlan,
    answer_from_context,
    retrieve,
    save_answer,
    start_turn,
)
from marginalia.errors import MarginaliaError
from marginalia.services.container import Services

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


async def ask_events(services: Services, plan: AskPlan) -> AsyncIterator[dict[str, Any]]:
    """The events of one ask (see the module doc); the turn is stored as it goes."""
    conversation_id: uuid.UUID | None = None
    try:
        conversation, _ = await start_turn(services, plan)
        conversation_id = conversation.id
        ctx = await retrieve(
            services,
            workspace_id=plan.workspace_id,
            question=plan.question,
            source_id=plan.source_id,
            history=plan.history,
            scope=plan.scope,
        )
        yield {
            "type": "meta",
            "conversation_id": str(conversation.id),
            "title": conversation.title,
            "route": ctx.route,
            "sources": [source_entry(p) for p in ctx.passages],
        }
        answer = await answer_from_context(
            services,
            ctx,
            question=plan.question,
            history=plan.history,
            calibration=plan.calibration,
        )
        text = (answer.refusal or "") if answer.refused else answer.text
        for piece in token_pieces(text):
            yield {"type": "token", "text": piece}
        message = await save_answer(services, conversation.id, answer)
        yield {
            "type": "done",
            "message_id": str(message.id),
            "conversation_id": str(conversation.id),
            "answer": answer.summary(),
        }
    except MarginaliaError as exc:
        yield _error(exc.code, exc.detail, conversation_id)
    except Exception:
        incident = uuid.uuid4().hex[:12]
        log.exception("ask failed (incident %s)", incident)
        yield _error(
            "internal_error",
            f"the answer failed unexpectedly (incident {incident}); the server log has details",
            conversation_id,
        )


def _error(code: str, detail: str, conversation_id: uuid.UUID | None) -> dict[str, Any]:
    return {
        "type": "error",
        "error": code,
        "detail": detail,
        "conversation_id": str(conversation_id) if conversation_id else None,
    }


async def ndjson(events: AsyncIterator[dict[str, Any]]) -> AsyncIterator[bytes]:
    """Events as NDJSON lines."""
    async for event in events:
        yield (json.dumps(event, ensure_ascii=False, default=str) + "\n").encode("utf-8")
