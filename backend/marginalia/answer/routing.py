"""Wiki-first routing: the numbered context an answer may cite.

When the best wiki page of the workspace is at least ``retrieval.wiki_first_threshold``
(0.75) similar to the query, the context is that page (passage [1]) and the top 5 hybrid
chunks; otherwise the top 10 hybrid chunks. Per-paper questions (``source_id`` set) never
use the wiki — a page spans the workspace — so their context holds only that paper's
chunks (hybrid retrieval is scoped to the source and filters by it again).

A short or pronoun-led follow-up is expanded with the previous user question (see
:func:`expand_query`) before anything is searched.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from pgvector.sqlalchemy import Vector
from sqlalchemy import bindparam, text
from sqlalchemy.ext.asyncio import AsyncSession

from marginalia.answer.schemas import Passage, Route
from marginalia.config import get_settings
from marginalia.errors import NotFoundError
from marginalia.knowledge.text import content_tokens, wordset
from marginalia.llm import ChatMessage
from marginalia.retrieval import hybrid_search
from marginalia.services.container import Services

#: Chunks in the context: with a matching wiki page, and without.
WIKI_CHUNKS = 5
HYBRID_CHUNKS = 10
#: A follow-up with at most this many content words is expanded with the previous question.
SHORT_FOLLOW_UP_WORDS = 4
_ANAPHORA = wordset(
    "it its this that these those they them their theirs he she his her former latter above same"
)

_DIM = get_settings().embedding.dim
_WIKI_SQL = text(
    """SELECT slug, title, body, 1 - (embedding <=> :q) AS similarity
         FROM wiki_pages
        WHERE workspace_id = :ws AND embedding IS NOT NULL
        ORDER BY embedding <=> :q, slug
        LIMIT 1"""
).bindparams(bindparam("q", type_=Vector(_DIM)))


@dataclass(frozen=True)
class Scope:
    """What a question searched (the refusal names it)."""

    workspace_id: uuid.UUID
    workspace_name: str
    sources: int
    chunks: int
    wiki_pages: int
    source_id: uuid.UUID | None = None
    source_name: str | None = None

    def describe(self) -> str:
        if self.source_id is not None:
            return f"the paper “{self.source_name}” ({self.chunks} passages)"
        return (
            f"workspace “{self.workspace_name}” ({self.sources} sources, {self.chunks} "
            f"passages, {self.wiki_pages} wiki pages)"
        )


@dataclass
class Context:
    query: str
    route: Route
    passages: list[Passage]
    query_vector: np.ndarray
    scope: Scope
    wiki_similarity: float | None
    trace: dict[str, Any] = field(default_factory=dict)


def expand_query(question: str, history: Sequence[ChatMessage] | None) -> str:
    """The text to search for ``question`` given the conversation so far.

    A follow-up that is short (≤ :data:`SHORT_FOLLOW_UP_WORDS` content words) or uses an
    anaphoric word ("it", "this", "they", …) is searched together with the previous user
    question: ``"<question> (<previous question>)"``. Anything else is searched as asked.
    """
    question = question.strip()
    previous = next((m.content for m in reversed(history or []) if m.role == "user"), None)
    if not previous or previous.strip() == question:
        return question
    words = re.findall(r"[^\W_]+", question.casefold())
    short = len(content_tokens(question)) <= SHORT_FOLLOW_UP_WORDS
    if short or any(w in _ANAPHORA for w in words):
        return f"{question} ({' '.join(previous.split())})"
    return question


def document_name(title: str | None, file_name: str | None, url: str | None, sid: Any) -> str:
    return (title or file_name or url or f"source {str(sid)[:8]}").strip()


_CLEAN_CITATION = re.compile(r"\s*\[source:[^\]\s]+\]")
_CLEAN_LINK = re.compile(r"\[\[([^\[\]|]+?)(?:\|([^\[\]]*))?\]\]")


def wiki_passage_text(title: str, body: str) -> str:
    """A wiki page as context prose: citation markers and link brackets removed, headings
    and bullets kept as plain lines (quotes are checked against exactly this text)."""
    body = _CLEAN_CITATION.sub("", body)
    body = _CLEAN_LINK.sub(lambda m: (m.group(2) or m.group(1).replace("-", " ")).strip(), body)
    lines = []
    for line in body.splitlines():
        line = re.sub(r"^\s*#+\s*", "", line)
        line = re.sub(r"^\s*[-*]\s+", "", line).rstrip()
        lines.append(line)
    cleaned = "\n".join(lines).strip()
    return cleaned or title


async def load_scope(
    services: Services, workspace_id: uuid.UUID, source_id: uuid.UUID | None
) -> Scope:
    """The workspace (and paper) a question is asked in; NotFoundError when unknown."""
    async with services.db.session() as session:
        ws = (
            await session.execute(
                text(
                    """SELECT w.name,
                              (SELECT count(*) FROM sources s WHERE s.workspace_id = w.id
                                  AND s.status = 'ready'),
                              (SELECT count(*) FROM chunks c WHERE c.workspace_id = w.id),
                              (SELECT count(*) FROM wiki_pages p WHERE p.workspace_id = w.id)
                         FROM workspaces w WHERE w.id = :ws"""
                ),
                {"ws": workspace_id},
            )
        ).first()
        if ws is None:
            raise NotFoundError(f"no workspace with id {workspace_id}")
        if source_id is None:
            return Scope(workspace_id, ws[0], int(ws[1]), int(ws[2]), int(ws[3]))
        src = (
            await session.execute(
                text(
                    """SELECT s.title, s.file_name, s.url,
                              (SELECT count(*) FROM chunks c WHERE c.source_id = s.id)
                         FROM sources s WHERE s.id = :sid AND s.workspace_id = :ws"""
                ),
                {"sid": source_id, "ws": workspace_id},
            )
        ).first()
    if src is None:
        raise NotFoundError(f"no source with id {source_id} in workspace {workspace_id}")
    return Scope(
        workspace_id,
        ws[0],
        1,
        int(src[3]),
        0,
        source_id=source_id,
        source_name=document_name(src[0], src[1], src[2], source_id),
    )


async def _best_wiki_page(
    session: AsyncSession, workspace_id: uuid.UUID, query_vector: np.ndarray
) -> tuple[str, str, str, float] | None:
    row = (await session.execute(_WIKI_SQL, {"ws": workspace_id, "q": query_vector})).first()
    if row is None:
        return None
    return str(row[0]), str(row[1]), str(row[2]), float(row[3])


async def _document_names(
    session: AsyncSession, source_ids: Sequence[uuid.UUID]
) -> dict[uuid.UUID, str]:
    if not source_ids:
        return {}
    rows = await session.execute(
        text("SELECT id, title, file_name, url FROM sources WHERE id = ANY(:ids)"),
        {"ids": list(source_ids)},
    )
    return {r[0]: document_name(r[1], r[2], r[3], r[0]) for r in rows.all()}


async def build_context(
    services: Services,
    *,
    workspace_id: uuid.UUID,
    query: str,
    scope: Scope,
    source_id: uuid.UUID | None = None,
) -> Context:
    """Route ``query`` (wiki-first, else hybrid) and number the passages from 1."""
    threshold = services.settings.retrieval.wiki_first_threshold
    query_vector = await services.embedder.embed_query(query)
    wiki: tuple[str, str, str, float] | None = None
    if source_id is None:
        async with services.db.session() as session:
            wiki = await _best_wiki_page(session, workspace_id, query_vector)
    use_wiki = wiki is not None and wiki[3] >= threshold
    result = await hybrid_search(
        services,
        workspace_id=workspace_id,
        query=query,
        source_id=source_id,
        k=WIKI_CHUNKS if use_wiki else HYBRID_CHUNKS,
        query_vector=query_vector,
    )
    passages: list[Passage] = []
    if use_wiki and wiki is not None:
        slug, title, body, similarity = wiki
        passages.append(
            Passage(
                n=1,
                kind="wiki",
                document=f"Wiki: {title}",
                section_title=title,
                wiki_slug=slug,
                text=wiki_passage_text(title, body),
                score=similarity,
            )
        )
    async with services.db.session() as session:
        names = await _document_names(session, sorted({h.source_id for h in result.hits}))
    for hit in result.hits:
        if source_id is not None and hit.source_id != source_id:  # never (hybrid filters)
            continue
        passages.append(
            Passage(
                n=len(passages) + 1,
                chunk_id=hit.chunk_id,
                source_id=hit.source_id,
                document=names.get(hit.source_id, f"source {str(hit.source_id)[:8]}"),
                section_title=hit.section_title,
                page=hit.page_start,
                page_end=hit.page_end,
                char_start=hit.char_start,
                char_end=hit.char_end,
                text=hit.text,
                score=hit.score,
            )
        )
    trace = result.trace.to_dict()
    trace["routing"] = {
        "route": "wiki" if use_wiki else "hybrid",
        "wiki_first_threshold": threshold,
        "best_wiki_page": None if wiki is None else {"slug": wiki[0], "similarity": wiki[3]},
        "wiki_considered": source_id is None,
        "chunks": len(passages) - (1 if use_wiki else 0),
    }
    return Context(
        query=query,
        route="wiki" if use_wiki else "hybrid",
        passages=passages,
        query_vector=query_vector,
        scope=scope,
        wiki_similarity=None if wiki is None else wiki[3],
        trace=trace,
    )
