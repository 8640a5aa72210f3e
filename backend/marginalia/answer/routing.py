"""Wiki-first routing: the numbered context an answer may cite.

When the best wiki page of the workspace is at least ``retrieval.wiki_first_threshold``
(0.75) similar to the query, the context is that page (passage [1]) and the top
``answer.wiki_chunks`` (5) hybrid chunks; otherwise the top ``answer.hybrid_chunks`` (10).
Per-paper questions (``source_id`` set) never use the wiki — a page spans the workspace —
so their context holds only that paper's chunks (hybrid retrieval is scoped to the source and filters by it again).

A follow-up is resolved against the conversation without touching the question the
answer is judged on (:mod:`marginalia.answer.followup`, which the ask flow uses; without
it, :func:`history_terms`): the resolved query, ``"<question> <previous terms>"`` or the
model's rewrite, is retrieved as its own leg and fused with the question's own ranking
by weighted reciprocal rank (:data:`HISTORY_LEG_WEIGHT` against 1.0, k =
:data:`HISTORY_RRF_K`, ties to the question's ranking), with a leg per paper the
previous answer cited (``paper_ids``).
The question itself is what the answer records and what the gate's question features
(named terms, answer type, focus terms) read; the sentences' support for a short
follow-up is scored against the resolved query, so that "Why might that be?" can find
its sentence.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from marginalia.answer import followup
from marginalia.answer import repository as repo
from marginalia.answer.gate import salient_terms
from marginalia.answer.schemas import Passage, Route
from marginalia.errors import NotFoundError
from marginalia.knowledge.text import content_tokens, wordset
from marginalia.llm import ChatMessage
from marginalia.retrieval import hybrid_search
from marginalia.retrieval.hybrid import RetrievalContext

#: A follow-up with at most this many content words is expanded with the previous question.
SHORT_FOLLOW_UP_WORDS = 4
#: The history leg's weight in the fusion with the question's own ranking (1.0); ties go
#: to the question's own ranking. Fitted on dev.jsonl's 11 follow-ups (recall@8 of the
#: follow-ups: 6/11 at 0.5, 10/11 at 1.0 and at 2.0; docs/EVAL.md).
HISTORY_LEG_WEIGHT = 1.0
HISTORY_RRF_K = 60
#: Previous user turns whose terms a follow-up's history leg searches with.
HISTORY_TURNS = 2
#: At most this many terms from the history (salient names first, then content words).
HISTORY_TERMS = 12
_ANAPHORA = wordset(
    "it its this that these those they them their theirs he she his her former latter above same"
)


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
    #: A follow-up's resolved query and its vector (the history leg), else None.
    resolved_query: str | None = None
    resolved_vector: np.ndarray | None = None


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


def is_follow_up(question: str, history: Sequence[ChatMessage] | None) -> bool:
    """A question that leans on the conversation: short (≤ :data:`SHORT_FOLLOW_UP_WORDS`
    content words) or with an anaphoric word ("it", "this", "those", …), after a turn."""
    if not any(m.role == "user" for m in history or []):
        return False
    words = re.findall(r"[^\W_]+", question.casefold())
    short = len(content_tokens(question)) <= SHORT_FOLLOW_UP_WORDS
    return short or any(w in _ANAPHORA for w in words)


def history_terms(question: str, history: Sequence[ChatMessage] | None) -> str | None:
    """The previous user turns' salient terms for a follow-up's history leg (None when
    ``question`` is not a follow-up): the named things and content words of the last
    :data:`HISTORY_TURNS` user questions, most recent first, without those the question
    already has."""
    if not is_follow_up(question, history):
        return None
    own = set(content_tokens(question)) | set(salient_terms(question))
    previous = [m.content for m in reversed(history or []) if m.role == "user"]
    previous = [q for q in previous if q.strip() != question.strip()][:HISTORY_TURNS]
    terms: list[str] = []
    for text in previous:
        for term in [*salient_terms(text), *content_tokens(text)]:
            if term not in own and term not in terms:
                terms.append(term)
    return " ".join(terms[:HISTORY_TERMS]) or None


def fuse_history(main: Sequence[Any], history: Sequence[Any], k: int) -> list[Any]:
    """The question's hits and the history leg's hits by weighted reciprocal rank."""
    return followup.fuse_legs(main, [(HISTORY_LEG_WEIGHT, history)], k, HISTORY_RRF_K)


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
    ctx: RetrievalContext, workspace_id: uuid.UUID, source_id: uuid.UUID | None
) -> Scope:
    """The workspace (and paper) a question is asked in; NotFoundError when unknown."""
    async with ctx.db.session() as session:
        ws = await repo.workspace_counts(session, workspace_id)
        if ws is None:
            raise NotFoundError(f"no workspace with id {workspace_id}")
        if source_id is None:
            return Scope(workspace_id, ws.name, ws.ready_sources, ws.chunks, ws.wiki_pages)
        src = await repo.source_counts(session, workspace_id, source_id)
    if src is None:
        raise NotFoundError(f"no source with id {source_id} in workspace {workspace_id}")
    return Scope(
        workspace_id,
        ws.name,
        1,
        src.chunks,
        0,
        source_id=source_id,
        source_name=document_name(src.title, src.file_name, src.url, source_id),
    )


async def build_context(
    ctx: RetrievalContext,
    *,
    workspace_id: uuid.UUID,
    query: str,
    scope: Scope,
    source_id: uuid.UUID | None = None,
    history_query: str | None = None,
    paper_ids: Sequence[uuid.UUID] = (),
) -> Context:
    """Route ``query`` (wiki-first, else hybrid) and number the passages from 1;
    ``history_query`` (a follow-up's resolved query) adds the history leg, and
    ``paper_ids`` (the previous answer's papers, :mod:`marginalia.answer.followup`) a leg
    of that query restricted to each paper."""
    threshold = ctx.settings.retrieval.wiki_first_threshold
    sizes = ctx.settings.answer
    query_vector = await ctx.embedder.embed_query(query)
    wiki: tuple[str, str, str, float] | None = None
    if source_id is None:
        async with ctx.db.session() as session:
            wiki = await repo.best_wiki_page(session, workspace_id, query_vector)
    use_wiki = wiki is not None and wiki[3] >= threshold
    result = await hybrid_search(
        ctx,
        workspace_id=workspace_id,
        query=query,
        source_id=source_id,
        k=sizes.wiki_chunks if use_wiki else sizes.hybrid_chunks,
        query_vector=query_vector,
    )
    k = sizes.wiki_chunks if use_wiki else sizes.hybrid_chunks
    hits = list(result.hits)
    history_trace: dict[str, Any] | None = None
    resolved_vector: np.ndarray | None = None
    if history_query:
        resolved_vector = await ctx.embedder.embed_query(history_query)
        resolved = await hybrid_search(
            ctx,
            workspace_id=workspace_id,
            query=history_query,
            source_id=source_id,
            k=k,
            query_vector=resolved_vector,
        )
        papers = [] if source_id is not None else list(paper_ids)
        # inside the previous answer's papers the follow-up's own words pick the passage
        own = followup.PAPER_LEG_QUERY == "question"
        paper_hits = await followup.paper_leg_hits(
            ctx,
            workspace_id=workspace_id,
            query=query if own else history_query,
            query_vector=query_vector if own else resolved_vector,
            paper_ids=papers,
            k=k,
        )
        legs = [(HISTORY_LEG_WEIGHT, resolved.hits)]
        legs += [(followup.PAPER_LEG_WEIGHT, leg) for leg in paper_hits]
        hits = followup.fuse_legs(result.hits, legs, k, HISTORY_RRF_K)
        history_trace = {
            "query": history_query,
            "weight": HISTORY_LEG_WEIGHT,
            "hits": [h.chunk_id for h in resolved.hits],
            "papers": [str(p) for p in papers[: len(paper_hits)]],
            "paper_hits": [[h.chunk_id for h in leg] for leg in paper_hits],
        }
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
    async with ctx.db.session() as session:
        rows = await repo.source_names(session, sorted({h.source_id for h in hits}))
    names = {sid: document_name(title, file_name, url, sid) for sid, title, file_name, url in rows}
    for hit in hits:
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
        "history_leg": history_trace,
    }
    return Context(
        query=query,
        route="wiki" if use_wiki else "hybrid",
        passages=passages,
        query_vector=query_vector,
        scope=scope,
        wiki_similarity=None if wiki is None else wiki[3],
        trace=trace,
        resolved_query=history_query,
        resolved_vector=resolved_vector,
    )
