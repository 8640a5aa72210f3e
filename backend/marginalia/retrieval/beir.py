"""Retrieval evaluation on a BEIR-format corpus (``marginalia eval retrieval``).

A BEIR folder holds ``corpus.jsonl`` (``_id``, ``title``, ``text``), ``queries.jsonl``
(``_id``, ``text``) and ``qrels/<split>.tsv`` (``query-id corpus-id score``, header
line). :func:`import_beir` loads the corpus into a throwaway workspace — one source per
document (kind ``text``, origin ``beir``, ``url = "beir:<_id>"``), chunked to the
model window like any upload — and :func:`evaluate_retrieval` runs every query through
:func:`~marginalia.retrieval.hybrid.hybrid_search` once, reading each leg's ranking
from the trace, so legs and fusion are measured on the very same run.

Metrics are document-level: a ranking of chunks becomes a ranking of documents by each
document's first (best) chunk. nDCG@10 uses linear gains (as trec_eval / BEIR do),
Recall@k is per query |relevant ∩ top k| / |relevant|, MRR@10 is 1/rank of the first
relevant document in the top 10 (0 if none); all are averaged over the queries of the
split. Latency is wall time per query: retrieval (legs in parallel, fusion, fetching
the hits; model time excluded) apart from query embedding.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from marginalia.db.repositories import workspaces as workspaces_repo
from marginalia.db.repositories.sources import NewChunk, NewSource, insert_sources
from marginalia.errors import ValidationFailed
from marginalia.ingest import Chunk, Page, ParsedDocument, Section, chunk_document
from marginalia.retrieval import repository as repo
from marginalia.retrieval.hybrid import RetrievalContext

URL_PREFIX = "beir:"

Progress = Callable[[str], None]


def quiet(_: str) -> None:
    return None


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class BeirDoc:
    id: str
    title: str
    text: str

    @property
    def full_text(self) -> str:
        title, body = self.title.strip(), self.text.strip()
        return f"{title}\n\n{body}" if title and body else (title or body)


def _require(path: Path, what: str) -> Path:
    if not path.is_file():
        raise ValidationFailed(f"{what} not found: {path} (expected a BEIR-format folder)")
    return path


def _jsonl(path: Path) -> Iterable[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, start=1):
            if line.strip():
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValidationFailed(f"{path}:{n}: not JSON ({exc.msg})") from None


def load_corpus(beir_dir: Path, *, limit: int | None = None) -> list[BeirDoc]:
    docs: list[BeirDoc] = []
    for row in _jsonl(_require(Path(beir_dir) / "corpus.jsonl", "corpus.jsonl")):
        docs.append(
            BeirDoc(str(row["_id"]), str(row.get("title") or ""), str(row.get("text") or ""))
        )
        if limit is not None and len(docs) >= limit:
            break
    return docs


def load_queries(beir_dir: Path) -> dict[str, str]:
    path = _require(Path(beir_dir) / "queries.jsonl", "queries.jsonl")
    return {str(row["_id"]): str(row["text"]) for row in _jsonl(path)}


def available_splits(beir_dir: Path) -> list[str]:
    qrels = Path(beir_dir) / "qrels"
    return sorted(p.stem for p in qrels.glob("*.tsv")) if qrels.is_dir() else []


def load_qrels(beir_dir: Path, split: str) -> dict[str, dict[str, int]]:
    path = Path(beir_dir) / "qrels" / f"{split}.tsv"
    if not path.is_file():
        splits = available_splits(beir_dir)
        have = ", ".join(splits) if splits else "none"
        raise ValidationFailed(
            f"no qrels for split {split!r}: {path} does not exist (available splits: {have})"
        )
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8") as f:
        for n, line in enumerate(f, start=1):
            parts = line.rstrip("\n").split("\t")
            if n == 1 and parts[0] == "query-id":
                continue
            if len(parts) < 3:
                if line.strip():
                    raise ValidationFailed(f"{path}:{n}: expected query-id, corpus-id, score")
                continue
            qrels.setdefault(parts[0], {})[parts[1]] = int(float(parts[2]))
    return qrels


# --------------------------------------------------------------------------- import


def _content_hash(doc: BeirDoc) -> str:
    return hashlib.sha256(f"beir\x00{doc.id}\x00{doc.full_text}".encode()).hexdigest()


def chunk_beir_doc(
    doc: BeirDoc,
    count_tokens: Callable[[str], int],
    *,
    max_tokens: int,
    overlap: float,
    count_tokens_batch: Callable[[Sequence[str]], list[int]] | None = None,
    counts_add_up: bool = False,
) -> list[Chunk]:
    """Chunks of title + text, sized by the same chunker as any upload."""
    full = doc.full_text
    if not full:
        return []
    parsed = ParsedDocument(
        kind="text",
        title=doc.title or None,
        authors=[],
        abstract=None,
        pages=[Page(1, full)],
        sections=[Section("abstract", None, 1, 0, 1, len(full))],
        references=[],
        page_count=1,
    )
    return chunk_document(
        parsed,
        count_tokens,
        max_tokens=max_tokens,
        overlap=overlap,
        count_tokens_batch=count_tokens_batch,
        counts_add_up=counts_add_up,
    )


async def import_beir(
    ctx: RetrievalContext,
    corpus_dir: Path,
    *,
    workspace_name: str,
    limit: int | None = None,
    batch_docs: int = 200,
    progress: Progress = quiet,
) -> uuid.UUID:
    """Import a BEIR corpus into a new workspace (one source per document)."""
    docs = load_corpus(Path(corpus_dir), limit=limit)
    if not docs:
        raise ValidationFailed(f"{corpus_dir}/corpus.jsonl holds no documents")
    # Shortest first: each embedding call then holds passages of similar length, which
    # pads far less than corpus order (the model runs ~25% faster on sorted batches).
    docs = sorted(docs, key=lambda d: len(d.full_text))
    async with ctx.db.transaction() as session:
        workspace = await workspaces_repo.create(
            session, name=workspace_name, description=f"BEIR import of {Path(corpus_dir).name}"
        )
    embedder = ctx.embedder
    overlap = ctx.settings.ingest.chunk_overlap

    batch_counter = getattr(embedder, "count_tokens_batch", None)
    counts_add_up = bool(getattr(embedder, "counts_add_up", False))

    def plan(batch: list[BeirDoc]) -> list[list[Chunk]]:
        return [
            chunk_beir_doc(
                d,
                embedder.count_tokens,
                max_tokens=embedder.max_tokens,
                overlap=overlap,
                count_tokens_batch=batch_counter,
                counts_add_up=counts_add_up,
            )
            for d in batch
        ]

    async def store(batch: list[BeirDoc], planned: list[list[Chunk]], vectors: np.ndarray) -> None:
        new_sources: list[NewSource] = []
        pos = 0
        for doc, chunks in zip(batch, planned, strict=True):
            doc_vectors = vectors[pos : pos + len(chunks)]
            pos += len(chunks)
            new_sources.append(
                NewSource(
                    fields={
                        "kind": "text",
                        "origin": "beir",
                        "title": doc.title or None,
                        "abstract": doc.text or None,
                        "url": f"{URL_PREFIX}{doc.id}",
                        "content_hash": _content_hash(doc),
                        "abstract_only": True,
                        "page_count": 1,
                        # As for uploads: the normalised mean of the chunk vectors.
                        "mean_embedding": source_mean(doc_vectors),
                    },
                    pages=[(1, doc.full_text)] if doc.full_text else [],
                    chunks=[
                        NewChunk.from_chunk(c, v) for c, v in zip(chunks, doc_vectors, strict=True)
                    ],
                )
            )
        # One transaction and three statements for the whole batch.
        async with ctx.db.transaction() as session:
            await insert_sources(session, workspace_id=workspace.id, sources=new_sources)

    # A pipeline: while batch i is embedded (the bottleneck), batch i+1 is chunked and
    # queued for the embedder (so no embedding slot idles between calls) and batch i-1
    # is written.
    batches = _batches(docs, batch_docs)
    t0 = time.perf_counter()
    done = 0
    in_flight: deque[tuple[list[BeirDoc], list[list[Chunk]], asyncio.Task[np.ndarray]]] = deque()
    next_plan = asyncio.create_task(asyncio.to_thread(plan, batches[0]))
    writing: asyncio.Task[None] | None = None

    async def finish_oldest() -> None:
        nonlocal writing, done
        batch, planned, embedding = in_flight.popleft()
        vectors = await embedding
        if writing is not None:
            await writing
        writing = asyncio.create_task(store(batch, planned, vectors))
        done += len(batch)
        rate = done / max(time.perf_counter() - t0, 1e-9)
        progress(f"embedded {done}/{len(docs)} documents ({rate:.0f} docs/s)")

    try:
        for index, batch in enumerate(batches):
            planned = await next_plan
            if index + 1 < len(batches):
                next_plan = asyncio.create_task(asyncio.to_thread(plan, batches[index + 1]))
            texts = [c.text for chunks in planned for c in chunks]
            in_flight.append((batch, planned, asyncio.create_task(embedder.embed_documents(texts))))
            if len(in_flight) == 2:
                await finish_oldest()
        while in_flight:
            await finish_oldest()
        if writing is not None:
            await writing
    except BaseException:
        for task in (next_plan, writing, *(e for _, _, e in in_flight)):
            if task is not None and not task.done():
                task.cancel()
        raise
    return workspace.id


def _batches(docs: list[BeirDoc], size: int) -> list[list[BeirDoc]]:
    """Batches of ``size`` documents, but the first and the last ``size`` documents go in
    eighths: the embedder starts sooner, and the store that no embedding hides (the last
    one) is short."""
    edge = max(1, size // 8)
    head_end = min(edge, len(docs))
    tail_start = max(head_end, len(docs) - size)

    def split(part: list[BeirDoc], n: int) -> list[list[BeirDoc]]:
        return [part[i : i + n] for i in range(0, len(part), n)]

    return (
        split(docs[:head_end], edge)
        + split(docs[head_end:tail_start], size)
        + split(docs[tail_start:], edge)
    )


def source_mean(vectors: Sequence[np.ndarray] | np.ndarray) -> np.ndarray | None:
    """A source's mean embedding: the L2-normalised mean of its chunk vectors."""
    if len(vectors) == 0:
        return None
    mean = np.asarray(vectors, dtype=np.float32).mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else mean


async def chunk_to_doc(ctx: RetrievalContext, workspace_id: uuid.UUID) -> dict[int, str]:
    """chunk id → BEIR document id for a workspace made by :func:`import_beir`."""
    async with ctx.db.session() as session:
        urls = await repo.beir_chunk_documents(session, workspace_id, URL_PREFIX)
    return {cid: url[len(URL_PREFIX) :] for cid, url in urls.items()}


# --------------------------------------------------------------------------- metrics


# --------------------------------------------------------------------------- evaluation


# --------------------------------------------------------------------------- runner
