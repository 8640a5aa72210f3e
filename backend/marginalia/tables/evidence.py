"""The one seam between evidence tables and the answer stage: a source's sentences, scored
for a column's question.

:func:`source_evidence` retrieves the source's passages for the question (hybrid
retrieval scoped to the source, as per-paper Q&A does: their rank is kept) and scores the
sentences of every passage of the source — a table asks about the whole paper, and its
stored sentence vectors make that cheap — with the offline engine's support
(:mod:`marginalia.answer.offline`). Everything else in this package reads the
:class:`Evidence` it returns, never the answer stage's types, so that when the answer
stage offers a reusable per-source answerer this function is the only place to change.

A table asks every column of the same source: :class:`SourceText` (its chunks and their
stored sentences) is read once per source and a query's vector once per column
(:class:`EvidenceCache`), not once per cell.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from marginalia.answer import offline
from marginalia.answer import repository as answer_repo
from marginalia.answer.schemas import Passage
from marginalia.db.repositories import sentences as sentences_repo
from marginalia.db.repositories.sentences import ChunkSentences
from marginalia.errors import NotFoundError
from marginalia.retrieval import hybrid_search
from marginalia.tables import repository as repo

if TYPE_CHECKING:
    from marginalia.answer.context import AnswerContext

#: Passages of the hybrid retrieval whose rank a sentence's score reads.
RETRIEVED = 10


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
    """What :func:`source_evidence` found: every passage of the source (the retrieved ones
    first, by rank) and their sentences, best supported first."""

    question: str
    query: str
    passages: list[SearchedPassage] = field(default_factory=list)
    sentences: list[Sentence] = field(default_factory=list)


@dataclass(frozen=True)
class SourceText:
    """What every column of one source reads: its chunks and their stored sentences."""

    name: str
    chunks: list[repo.ChunkRow]
    stored: dict[int, ChunkSentences]


@dataclass
class EvidenceCache:
    """One source's text and the queries' vectors, kept across the cells of one fill."""

    texts: dict[uuid.UUID, SourceText] = field(default_factory=dict)
    vectors: dict[str, np.ndarray] = field(default_factory=dict)

    async def text(
        self, ctx: AnswerContext, workspace_id: uuid.UUID, source_id: uuid.UUID
    ) -> SourceText:
        if source_id not in self.texts:
            self.texts = {source_id: await load_source_text(ctx, workspace_id, source_id)}
        return self.texts[source_id]

    async def vector(self, ctx: AnswerContext, query: str) -> np.ndarray:
        if query not in self.vectors:
            self.vectors[query] = await ctx.embedder.embed_query(query)
        return self.vectors[query]


async def load_source_text(
    ctx: AnswerContext, workspace_id: uuid.UUID, source_id: uuid.UUID
) -> SourceText:
    """The source's chunks and their stored sentences (NotFoundError when the source is
    not the workspace's)."""
    async with ctx.db.session() as session:
        found = await answer_repo.source_counts(session, workspace_id, source_id)
        if found is None:
            raise NotFoundError(f"no source with id {source_id} in workspace {workspace_id}")
        chunks = await repo.source_chunks(session, source_id)
        stored = await sentences_repo.load(session, [c.id for c in chunks])
    name = found.title or found.file_name or found.url or f"source {str(source_id)[:8]}"
    return SourceText(name=name, chunks=chunks, stored=stored)


async def source_evidence(
    ctx: AnswerContext,
    *,
    workspace_id: uuid.UUID,
    source_id: uuid.UUID,
    question: str,
    query: str | None = None,
    cache: EvidenceCache | None = None,
) -> Evidence:
    """Every scored sentence of the source with its support for ``query`` (default: the
    question) and whether it offers the answer type ``question`` asks for; the retrieved
    passages come first (by rank), then the others in document order."""
    query = (query or question).strip()
    cache = cache if cache is not None else EvidenceCache()
    text = await cache.text(ctx, workspace_id, source_id)
    evidence = Evidence(question=question, query=query)
    if not text.chunks:
        return evidence
    vector = await cache.vector(ctx, query)
    result = await hybrid_search(
        ctx,
        workspace_id=workspace_id,
        query=query,
        source_id=source_id,
        k=RETRIEVED,
        query_vector=vector,
    )
    rank = {h.chunk_id: i for i, h in enumerate(result.hits, 1) if h.source_id == source_id}
    ordered = sorted(text.chunks, key=lambda c: (rank.get(c.id, len(rank) + 1), c.chunk_index))
    evidence.passages = [
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
    passages = [
        Passage(
            n=p.n,
            chunk_id=p.chunk_id,
            source_id=source_id,
            document=text.name,
            section_title=p.section_title,
            page=p.page,
            page_end=p.page_end,
            char_start=p.char_start,
            text=p.text,
            score=0.0,
        )
        for p in evidence.passages
    ]
    texts = [query, question]
    async with ctx.db.session() as session:
        stats = await answer_repo.term_stats(session, workspace_id, texts)
    inputs = offline.AnswerInputs(texts, stats, text.stored)
    scored = await offline.score_sentences(
        query=query,
        query_vector=vector,
        passages=passages,
        embedder=ctx.embedder,
        lexer=inputs.lexer(offline.pg_lexer(ctx.db)),
        idf=inputs.idf(),
        question=question,
        stored=text.stored,
    )
    evidence.sentences = [
        Sentence(s.passage_n, s.start, s.end, s.text, s.support, s.answer_type) for s in scored
    ]
    return evidence
