"""The one seam between evidence tables and the answer stage: a source's sentences, scored
for a column's question.

:func:`source_evidence` retrieves the source's passages for the question (hybrid
retrieval scoped to the source, as per-paper Q&A does: their rank is kept) and scores the
sentences of every passage of the source — a table asks about the whole paper, and its
stored sentence vectors make that cheap — with the offline engine's support
(:mod:`marginalia.answer.offline`). Everything else in this
package reads the :class:`Evidence` it returns, never the answer stage's types, so that
when the answer stage offers a reusable per-source answerer this function is the only
place to change.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from marginalia.answer import offline
from marginalia.answer.routing import build_context, load_scope
from marginalia.answer.schemas import Passage
from marginalia.tables import repository as repo

if TYPE_CHECKING:
    from marginalia.answer.context import AnswerContext


@dataclass(frozen=True)
class Sentence:
    """One scored sentence: ``passage.text[start:end]``."""

    passage_n: int
    start: int
    end: int
    text: str
    #: The offline engine's support for the question (cosine and idf-weighted coverage).
    support: float
    #: The sentence offers the answer type the question asks for (a number for "how many").
    typed: bool


@dataclass(frozen=True)
class SearchedPassage:
    """A passage (chunk) of the source whose sentences were scored."""

    n: int
    chunk_id: int
    chunk_index: int
    text: str
    section_type: str
    section_title: str | None
    page: int | None
    page_end: int | None
    char_start: int | None
    #: Its rank in the hybrid retrieval for the question (1 = best), None when the
    #: retrieval's top passages did not include it.
    retrieval_rank: int | None


@dataclass
class Evidence:
    """What :func:`source_evidence` found: the passages searched (numbered from 1, best
    retrieval rank first) and their sentences, best supported first."""

    question: str
    query: str
    passages: list[SearchedPassage] = field(default_factory=list)
    sentences: list[Sentence] = field(default_factory=list)

    def passage(self, n: int) -> SearchedPassage:
        return next(p for p in self.passages if p.n == n)


async def source_evidence(
    ctx: AnswerContext,
    *,
    workspace_id: uuid.UUID,
    source_id: uuid.UUID,
    question: str,
    query: str | None = None,
) -> Evidence:
    """Every scored sentence of the source with its support for ``query`` (default: the
    question) and whether it offers the answer type ``question`` asks for; the retrieved
    passages come first (by rank), then the others in document order."""
    query = query or question
    scope = await load_scope(ctx, workspace_id, source_id)
    context = await build_context(
        ctx, workspace_id=workspace_id, query=query, scope=scope, source_id=source_id
    )
    async with ctx.db.session() as session:
        chunks = await repo.source_chunks(session, source_id)
    rank = {p.chunk_id: i for i, p in enumerate(context.passages, 1) if p.chunk_id is not None}
    ordered = sorted(chunks, key=lambda c: (rank.get(c.id, len(rank) + 1), c.chunk_index))
    searched = [
        SearchedPassage(
            n=n,
            chunk_id=c.id,
            chunk_index=c.chunk_index,
            text=c.text,
            section_type=c.section_type,
            section_title=c.section_title,
            page=c.page_start,
            page_end=c.page_end,
            char_start=c.char_start,
            retrieval_rank=rank.get(c.id),
        )
        for n, c in enumerate(ordered, 1)
    ]
    evidence = Evidence(question=question, query=query, passages=searched)
    if not searched:
        return evidence
    passages = [
        Passage(
            n=p.n,
            chunk_id=p.chunk_id,
            source_id=source_id,
            document=scope.source_name or "",
            section_title=p.section_title,
            page=p.page,
            page_end=p.page_end,
            char_start=p.char_start,
            text=p.text,
            score=0.0,
        )
        for p in searched
    ]
    inputs = await offline.pg_answer_inputs(
        ctx.db,
        workspace_id,
        query=query,
        question=question,
        salient=[],
        chunk_ids=[p.chunk_id for p in searched],
    )
    scored = await offline.score_sentences(
        query=query,
        query_vector=context.query_vector,
        passages=passages,
        embedder=ctx.embedder,
        lexer=inputs.lexer(offline.pg_lexer(ctx.db)),
        idf=inputs.idf(),
        question=question,
        stored=inputs.stored,
    )
    evidence.sentences = [
        Sentence(s.passage_n, s.start, s.end, s.text, s.support, s.answer_type) for s in scored
    ]
    return evidence
