"""`marginalia reembed`: re-embed every stored vector with the configured model and pin it."""

from __future__ import annotations

from typing import Any

from marginalia.answer import sentences
from marginalia.db.repositories import embedding_model as pin_repo
from marginalia.db.repositories import embeddings as repo
from marginalia.db.repositories import sentences as sentences_repo
from marginalia.embed.base import Embedder
from marginalia.jobs.context import JobContext
from marginalia.jobs.registry import job

BATCH = 256


def fit_to_window(embedder: Embedder, text: str) -> str:
    """Texts that are not chunks (wiki pages, descriptions) may exceed the window; embed
    their opening words that fit. Chunks never need this: they are sized to the window."""
    if embedder.count_tokens(text) <= embedder.max_tokens:
        return text
    words = text.split()
    lo, hi = 0, len(words)
    while lo < hi:  # the longest prefix of words that fits
        mid = (lo + hi + 1) // 2
        if embedder.count_tokens(" ".join(words[:mid])) <= embedder.max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return " ".join(words[:lo])


@job("reembed")
async def reembed_job(ctx: JobContext) -> dict[str, Any]:
    runtime = ctx.runtime
    embedder = runtime.embedder
    counts: dict[str, int] = {}
    async with runtime.db.transaction() as session:
        # Answers compute the sentences of a chunk without stored ones, with the
        # configured model, until they are stored again below.
        await sentences_repo.delete_all(session)
        dims = await repo.column_dims(session)
        if any(d != embedder.dim for d in dims.values()):
            await ctx.emit(f"changing vector columns to {embedder.dim} dimensions", stage="schema")
            await repo.change_dimension(session, embedder.dim)
    for position, (table, key, column, expression) in enumerate(repo.VECTOR_COLUMNS):
        after: str | int | None = None
        done = 0
        while True:
            async with runtime.db.session() as session:
                rows = await repo.texts_after(session, table, key, expression, after, BATCH)
            if not rows:
                break
            texts = [fit_to_window(embedder, t) if table != "chunks" else t for _, t in rows]
            wanted = [i for i, t in enumerate(texts) if t.strip()]
            by_index = {}
            if wanted:
                vectors = await embedder.embed_documents([texts[i] for i in wanted])
                by_index = {i: vectors[n] for n, i in enumerate(wanted)}
            async with runtime.db.transaction() as session:
                await repo.write_vectors(
                    session,
                    table,
                    key,
                    column,
                    [(rows[i][0], by_index.get(i)) for i in range(len(rows))],
                )
            done += len(rows)
            after = rows[-1][0]
            await ctx.emit(
                f"{table}: {done} re-embedded",
                stage="embedding",
                progress=(position + 0.5) / len(repo.VECTOR_COLUMNS),
                type="progress",
            )
        counts[table] = done
    counts["chunk_sentences"] = await _rebuild_sentences(ctx)
    async with runtime.db.transaction() as session:
        await repo.refresh_source_means(session)
        await pin_repo.repin(session, embedder.model_id, embedder.dim)
    await ctx.emit(f"pinned {embedder.model_id} ({embedder.dim}-d)", stage="done", progress=1.0)
    return {"model": embedder.model_id, "dim": embedder.dim, "reembedded": counts}


async def _rebuild_sentences(ctx: JobContext) -> int:
    """Every chunk's sentences, split and embedded again (answer/sentences.py); the
    sentences of one batch of chunks are replaced in one transaction."""
    runtime = ctx.runtime
    after: int | None = None
    done = 0
    while True:
        async with runtime.db.session() as session:
            rows = await sentences_repo.chunk_texts_after(session, after, BATCH)
        if not rows:
            return done
        computed = await sentences.compute([t for _, t in rows], runtime.embedder)
        async with runtime.db.transaction() as session:
            await sentences_repo.replace(
                session, [(chunk_id, s) for (chunk_id, _), s in zip(rows, computed, strict=True)]
            )
        done += len(rows)
        after = rows[-1][0]
        await ctx.emit(f"chunk sentences: {done} chunks re-embedded", stage="embedding")
