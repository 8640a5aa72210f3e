"""Sentence vectors computed once at ingest (issue 19, item 3; migration 0012): stored
with the chunks exactly as the offline engine splits them, scored identically to
sentences computed at question time, read in one statement, removed with the source,
rebuilt by ``marginalia reembed``."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sqlalchemy import event, text

from marginalia.answer import offline, sentences
from marginalia.answer import repository as answer_repo
from marginalia.answer.calibration import SIGNAL, Calibration
from marginalia.answer.gate import salient_terms
from marginalia.answer.routing import Context
from marginalia.answer.service import answer_from_context, retrieve
from marginalia.db.repositories import sentences as sentences_repo
from marginalia.embed.base import Embedder
from marginalia.ingest.pipeline import ingest_document
from marginalia.jobs.events import follow_events
from marginalia.runtime import Runtime
from marginalia.usecases import workspaces as ws_service

QUESTIONS = [
    "How does SPECTER use the citation graph to learn document embeddings?",
    "What loss function is used to train SPECTER?",
    "Which tasks are in the SciDocs benchmark?",
]


@dataclass
class Corpus:
    workspace_id: uuid.UUID
    source_id: uuid.UUID


@pytest.fixture(scope="module")
async def corpus(services: Runtime, shared_data: Path) -> AsyncIterator[Corpus]:
    ws = await ws_service.create_workspace(services, name=f"sentences-{uuid.uuid4().hex[:6]}")
    outcome = await ingest_document(
        services,
        ws.id,
        data=(shared_data / "pdfs" / "specter-acl2020.pdf").read_bytes(),
        filename="specter-acl2020.pdf",
        content_type="application/pdf",
    )
    try:
        yield Corpus(ws.id, outcome.source_id)
    finally:
        await ws_service.delete_workspace(services, ws.id)


async def _chunks(services: Runtime, source_id: uuid.UUID) -> list[tuple[int, str]]:
    async with services.db.session() as session:
        rows = await session.execute(
            text("SELECT id, text FROM chunks WHERE source_id = :s ORDER BY chunk_index"),
            {"s": source_id},
        )
        return [(int(r[0]), str(r[1])) for r in rows.all()]


async def _stored(services: Runtime, ids: Sequence[int]) -> dict[int, Any]:
    async with services.db.session() as session:
        return await sentences_repo.load(session, ids)


def _plain(stored: dict[int, Any]) -> dict[int, Any]:
    """Stored sentences as comparable values (vectors as bytes)."""
    return {
        chunk_id: (
            c.chunk_lexemes,
            [
                (
                    r.ordinal,
                    r.char_start,
                    r.char_end,
                    r.prose,
                    r.lexemes,
                    None if r.embedding is None else r.embedding.tobytes(),
                )
                for r in c.rows
            ],
        )
        for chunk_id, c in stored.items()
    }


async def test_ingest_stores_every_chunks_sentences_as_the_engine_splits_them(
    services: Runtime, corpus: Corpus
) -> None:
    chunks = await _chunks(services, corpus.source_id)
    stored = await _stored(services, [c for c, _ in chunks])
    embedder = services.embedder
    assert len(chunks) > 10 and set(stored) == {c for c, _ in chunks}
    scored_texts: list[str] = []
    scored_rows = []
    for chunk_id, chunk_text in chunks:
        expected = sentences.split(chunk_text, embedder)
        assert sentences.spans_of(stored[chunk_id]) == expected
        assert [r.ordinal for r in stored[chunk_id].rows] == list(range(len(expected)))
        for row in stored[chunk_id].rows:
            if row.embedding is not None:
                scored_texts.append(chunk_text[row.char_start : row.char_end])
                scored_rows.append(row)
            else:
                assert row.lexemes is None
    assert len(scored_rows) > 50
    # Not every sentence is scored: headers, references and the like are stored as spans.
    assert any(not r.prose for c in stored.values() for r in c.rows)
    # The vectors are the pinned model's, L2-normalised, exactly as embedded now; the
    # lexemes are PostgreSQL's, as the engine's lexer gives them.
    fresh = await embedder.embed_documents(scored_texts)
    kept = np.stack([r.embedding for r in scored_rows])
    assert np.array_equal(kept, fresh)
    assert np.allclose(np.linalg.norm(kept, axis=1), 1.0, atol=1e-5)
    async with services.db.session() as session:
        lexed = await answer_repo.lexemes(session, scored_texts)
    assert [r.lexemes for r in scored_rows] == lexed


class _Counting:
    """The runtime's embedder, counting the texts embedded through it."""

    def __init__(self, inner: Embedder, max_tokens: int | None = None) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.max_tokens = inner.max_tokens if max_tokens is None else max_tokens
        self.embedded: list[str] = []

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    async def embed_documents(self, texts: Sequence[str]) -> Any:
        self.embedded += list(texts)
        return await self.inner.embed_documents(texts)

    async def embed_query(self, text: str) -> Any:
        return (await self.embed_documents([text]))[0]

    def embed_documents_sync(self, texts: Sequence[str]) -> Any:
        return self.inner.embed_documents_sync(texts)

    def embed_query_sync(self, text: str) -> Any:
        return self.inner.embed_query_sync(text)


class _Lexing:
    """A lexer recording what it is asked to lex."""

    def __init__(self, inner: offline.Lexer) -> None:
        self.inner = inner
        self.lexed: list[str] = []

    async def __call__(self, texts: Sequence[str]) -> list[frozenset[str]]:
        self.lexed += list(texts)
        return await self.inner(texts)


def _view(scored: Sequence[offline.ScoredSentence]) -> list[tuple[Any, ...]]:
    return [
        (
            s.passage_n,
            s.start,
            s.end,
            s.text,
            s.support,
            s.cosine,
            s.coverage,
            s.window_coverage,
            s.context_coverage,
            s.answer_type,
        )
        for s in scored
    ]


async def _context(services: Runtime, corpus: Corpus, question: str) -> Context:
    return await retrieve(services, workspace_id=corpus.workspace_id, question=question)


async def test_stored_sentences_score_exactly_as_computed_ones_without_embedding(
    services: Runtime, corpus: Corpus
) -> None:
    for question in QUESTIONS:
        context = await _context(services, corpus, question)
        ids = [p.chunk_id for p in context.passages if p.chunk_id is not None]
        assert len(ids) >= 5
        # Today's path: every sentence split, embedded and lexed for this answer.
        computing = _Counting(services.embedder)
        computed = await offline.score_sentences(
            query=question,
            query_vector=context.query_vector,
            passages=context.passages,
            embedder=computing,
            lexer=offline.pg_lexer(services.db),
            idf=offline.pg_workspace_idf(services.db, corpus.workspace_id),
            question=question,
        )
        assert len(computing.embedded) == len(computed) > 10
        # The stored path: the same figures, nothing embedded, nothing lexed but the query.
        inputs = await offline.pg_answer_inputs(
            services.db,
            corpus.workspace_id,
            query=question,
            question=question,
            salient=salient_terms(question),
            chunk_ids=ids,
        )
        assert set(inputs.stored) == set(ids)
        reading = _Counting(services.embedder)
        lexing = _Lexing(offline.pg_lexer(services.db))
        from_store = await offline.score_sentences(
            query=question,
            query_vector=context.query_vector,
            passages=context.passages,
            embedder=reading,
            lexer=inputs.lexer(lexing),
            idf=inputs.idf(),
            question=question,
            stored=inputs.stored,
        )
        assert reading.embedded == [] and lexing.lexed == []
        assert _view(from_store) == _view(computed)
        assert all(
            np.array_equal(a.vector, b.vector) for a, b in zip(from_store, computed, strict=True)
        )


def _answer_view(answer: Any) -> tuple[Any, ...]:
    evidence = answer.trace["evidence"]
    return (
        answer.evidence_score,
        answer.refused,
        [(c.text, c.citations, c.quote) for c in answer.claims],
        evidence["sentences_scored"],
        evidence["top_sentences"],
        evidence["gate_features"],
    )


async def test_an_answer_reads_its_evidence_in_two_statements_and_falls_back_identically(
    services: Runtime, corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scoring an answer's evidence: one session, two statements, nothing embedded; with
    the stored sentences gone (a database from before 0012) the answer is the same."""
    calibration = Calibration(threshold=0.3, signal=SIGNAL)
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement)

    for question in QUESTIONS:
        context = await _context(services, corpus, question)
        counting = _Counting(services.embedder)
        monkeypatch.setattr(services.embedder, "embed_documents", counting.embed_documents)
        statements.clear()
        event.listen(services.db.engine.sync_engine, "before_cursor_execute", count)
        try:
            stored_answer = await answer_from_context(
                services, context, question=question, calibration=calibration
            )
        finally:
            event.remove(services.db.engine.sync_engine, "before_cursor_execute", count)
            monkeypatch.undo()
        assert len(statements) == 2, statements
        assert counting.embedded == []
        # Without stored sentences for these chunks: computed now, same answer.
        ids = [p.chunk_id for p in context.passages if p.chunk_id is not None]
        kept = _plain(await _stored(services, ids))
        async with services.db.transaction() as session:
            await sentences_repo.replace(session, [(i, []) for i in ids])
        try:
            assert await _stored(services, ids) == {}
            fallback = await answer_from_context(
                services, context, question=question, calibration=calibration
            )
        finally:
            texts = dict(await _chunks(services, corpus.source_id))
            rebuilt = await sentences.compute([texts[i] for i in ids], services.embedder)
            async with services.db.transaction() as session:
                await sentences_repo.replace(session, list(zip(ids, rebuilt, strict=True)))
        assert _answer_view(fallback) == _answer_view(stored_answer)
        assert _plain(await _stored(services, ids)) == kept


def test_a_sentence_over_the_window_is_stored_unscored(services: Runtime) -> None:
    """Invariant 1: a prose sentence longer than the window is neither embedded nor
    scored (never truncated); it is kept as a span."""
    narrow = _Counting(services.embedder, max_tokens=24)
    long = (
        "The model was trained on a large corpus of scientific papers drawn from many "
        "fields, and it was evaluated on seven document level tasks that cover citation "
        "prediction, classification and recommendation."
    )
    short = "The results improve on every task we consider."
    body = f"{long} {short}"
    spans = sentences.split(body, narrow)
    assert [(body[s.start : s.end], s.prose, s.scored) for s in spans] == [
        (long, True, False),
        (short, True, True),
    ]


async def test_the_sentence_rows_are_computed_with_the_window(services: Runtime) -> None:
    narrow = _Counting(services.embedder, max_tokens=24)
    long = (
        "The model was trained on a large corpus of scientific papers drawn from many "
        "fields, and it was evaluated on seven document level tasks that cover citation "
        "prediction, classification and recommendation."
    )
    short = "The results improve on every task we consider."
    (rows,) = await sentences.compute([f"{long} {short}"], narrow)
    assert narrow.embedded == [short]
    assert [(r.ordinal, r.prose, r.text is not None, r.embedding is not None) for r in rows] == [
        (0, True, False, False),
        (1, True, True, True),
    ]


async def test_sentences_go_with_their_source_and_reembed_rebuilds_them(
    services: Runtime,
) -> None:
    ws = await ws_service.create_workspace(services, name=f"sent-del-{uuid.uuid4().hex[:6]}")
    body = (
        "# Sparse retrieval at scale\n\n"
        "Impact-ordered postings let a query stop early. The index stores each term's "
        "postings by impact. Queries read the highest impacts first.\n\n"
        "We measured latency on one million passages."
    )
    outcome = await ingest_document(services, ws.id, data=body.encode(), filename="sparse.md")
    try:
        chunks = await _chunks(services, outcome.source_id)
        ids = [c for c, _ in chunks]
        before = _plain(await _stored(services, ids))
        assert set(before) == set(ids)
        # reembed clears them first (answers then compute them) and stores them again.
        job = await services.jobs.submit("reembed", {})
        async for _ in follow_events(services.db, job.id):
            pass
        done = await services.jobs.get(job.id)
        assert done.status == "succeeded", done.error
        assert done.result is not None and done.result["reembedded"]["chunk_sentences"] >= len(ids)
        assert _plain(await _stored(services, ids)) == before
    finally:
        await ws_service.delete_workspace(services, ws.id)
    async with services.db.session() as session:
        left = await session.execute(
            text("SELECT count(*) FROM chunk_sentences WHERE chunk_id = ANY(:ids)"), {"ids": ids}
        )
        assert left.scalar() == 0


async def test_the_round_trips_of_one_ask_are_counted(services: Runtime, corpus: Corpus) -> None:
    """The statements one saved ask runs outside retrieval: the turn (conversation and user
    message, their server-filled columns returned by the INSERTs), the evidence (two), the
    quotes' pages (one for every cited source) and the saved answer (message, touch)."""
    from marginalia.usecases import ask as ask_usecase

    statements: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(" ".join(statement.split()))

    calibration = Calibration(threshold=0.3, signal=SIGNAL)
    plan = await ask_usecase.prepare(
        services,
        question=QUESTIONS[0],
        workspace_id=corpus.workspace_id,
        calibration=calibration,
    )
    event.listen(services.db.engine.sync_engine, "before_cursor_execute", record)
    try:
        events = [e async for e in ask_usecase.ask(services, plan)]
    finally:
        event.remove(services.db.engine.sync_engine, "before_cursor_execute", record)
    done = events[-1]
    assert isinstance(done, ask_usecase.AskDone) and not done.answer.refused

    def starting(prefix: str) -> int:
        return sum(1 for s in statements if s.startswith(prefix))

    assert starting("INSERT INTO conversations") == 1
    assert starting("INSERT INTO messages") == 2  # the question, the answer
    assert starting("UPDATE conversations") == 1  # the answer moves updated_at
    assert starting("SELECT conversations") == starting("SELECT messages") == 0  # no refresh
    assert sum(1 for s in statements if "FROM source_pages" in s) == 1
    assert (
        sum(1 for s in statements if "FROM chunk_sentences" in s or "JOIN chunk_sentences" in s)
        == 1
    )
    assert sum(1 for s in statements if "to_tsvector" in s and "WITH lex AS" in s) == 1
