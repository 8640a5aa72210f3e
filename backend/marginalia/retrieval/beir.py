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
import math
import os
import platform
import subprocess
import sys
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import text

from marginalia.db.repositories.sources import NewChunk, NewSource, insert_sources
from marginalia.errors import ValidationFailed
from marginalia.ingest import Chunk, Page, ParsedDocument, Section, chunk_document
from marginalia.retrieval.fusion import DEFAULT_FUSION, FUSION_METHODS, RRF, rrf_fuse, score_fuse
from marginalia.retrieval.hybrid import DEFAULT_DEPTH, RetrievalContext, hybrid_search
from marginalia.retrieval.legs import ALL_LEGS
from marginalia.retrieval.rerank import reranker_from_settings

ROOT = Path(__file__).resolve().parents[3]
REPORTS_DIR = ROOT / "eval" / "reports"
METRICS = ("ndcg@10", "recall@10", "recall@100", "mrr@10")
URL_PREFIX = "beir:"

Progress = Callable[[str], None]


def _quiet(_: str) -> None:
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
    progress: Progress = _quiet,
) -> uuid.UUID:
    """Import a BEIR corpus into a new workspace (one source per document)."""
    from marginalia.services import workspaces as ws_service

    docs = load_corpus(Path(corpus_dir), limit=limit)
    if not docs:
        raise ValidationFailed(f"{corpus_dir}/corpus.jsonl holds no documents")
    # Shortest first: each embedding call then holds passages of similar length, which
    # pads far less than corpus order (the model runs ~25% faster on sorted batches).
    docs = sorted(docs, key=lambda d: len(d.full_text))
    workspace = await ws_service.create_workspace(
        ctx.db, name=workspace_name, description=f"BEIR import of {Path(corpus_dir).name}"
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
        result = await session.execute(
            text(
                "SELECT c.id, s.url FROM chunks c JOIN sources s ON s.id = c.source_id "
                "WHERE c.workspace_id = :ws AND s.url LIKE 'beir:%'"
            ),
            {"ws": workspace_id},
        )
        return {int(r[0]): str(r[1])[len(URL_PREFIX) :] for r in result.all()}


# --------------------------------------------------------------------------- metrics


def dedupe_docs(chunk_ids: Iterable[int], doc_of: Mapping[int, str]) -> list[str]:
    """Documents in order of their first chunk in the ranking."""
    seen: set[str] = set()
    out: list[str] = []
    for cid in chunk_ids:
        doc = doc_of.get(cid)
        if doc is not None and doc not in seen:
            seen.add(doc)
            out.append(doc)
    return out


def ndcg_at(ranked: Sequence[str], rels: Mapping[str, int], k: int = 10) -> float:
    dcg = sum(rels.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted((r for r in rels.values() if r > 0), reverse=True)[:k]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def recall_at(ranked: Sequence[str], rels: Mapping[str, int], k: int) -> float:
    relevant = {d for d, r in rels.items() if r > 0}
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def mrr_at(ranked: Sequence[str], rels: Mapping[str, int], k: int = 10) -> float:
    for i, d in enumerate(ranked[:k]):
        if rels.get(d, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def query_metrics(ranked: Sequence[str], rels: Mapping[str, int]) -> dict[str, float]:
    return {
        "ndcg@10": ndcg_at(ranked, rels, 10),
        "recall@10": recall_at(ranked, rels, 10),
        "recall@100": recall_at(ranked, rels, 100),
        "mrr@10": mrr_at(ranked, rels, 10),
    }


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson 95% score interval of a rate (invariant 8)."""
    if n == 0:
        return (0.0, 0.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _mean_ci(values: Sequence[float]) -> dict[str, float]:
    n = len(values)
    arr = np.asarray(values, dtype=np.float64)
    mean = float(arr.mean()) if n else 0.0
    half = float(1.959964 * arr.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0
    return {"mean": mean, "n": n, "ci95_low": mean - half, "ci95_high": mean + half}


def _percentiles(values: Sequence[float]) -> dict[str, float]:
    if not values:
        return {"p50": 0.0, "p95": 0.0, "mean": 0.0, "n": 0}
    arr = np.asarray(values, dtype=np.float64)
    return {
        "p50": round(float(np.percentile(arr, 50)), 2),
        "p95": round(float(np.percentile(arr, 95)), 2),
        "mean": round(float(arr.mean()), 2),
        "n": len(values),
    }


# --------------------------------------------------------------------------- evaluation


async def evaluate_retrieval(
    ctx: RetrievalContext,
    workspace_id: uuid.UUID,
    queries: Mapping[str, str],
    qrels: Mapping[str, Mapping[str, int]],
    *,
    legs: Sequence[str] = ALL_LEGS,
    depth: int = DEFAULT_DEPTH,
    warmup: int = 5,
    progress: Progress = _quiet,
    fusion: str = DEFAULT_FUSION,
) -> dict[str, Any]:
    """Metrics per leg, for the fusion and for rerank (when configured), plus latency.

    ``fusion`` is the method ``hybrid_search`` runs with (reported as ``fusion``); every
    other method is applied to the same leg lists and reported as ``fusion_<method>``.
    """
    doc_of = await chunk_to_doc(ctx, workspace_id)
    rrf_k = ctx.settings.retrieval.rrf_k
    qids = [q for q in sorted(qrels, key=_natural) if q in queries and any(qrels[q].values())]
    if not qids:
        raise ValidationFailed("no query of the split has both a text and a relevant document")
    reranker = reranker_from_settings(ctx.settings.retrieval)
    others = [m for m in FUSION_METHODS if m != fusion]
    names = [*legs, "fusion", *(f"fusion_{m}" for m in others)]
    names += ["rerank"] if reranker is not None else []
    per_query: dict[str, list[dict[str, float]]] = {n: [] for n in names}
    lat: dict[str, list[float]] = {
        k: [] for k in ("retrieval", "query_embedding", "concept_embedding", "fusion", "rerank")
    }
    leg_lat: dict[str, list[float]] = {leg: [] for leg in legs}
    leg_hit_queries: dict[str, int] = {leg: 0 for leg in legs}
    notes: dict[str, int] = {}

    for qid in qids[:warmup]:  # warm caches and connections; not measured
        await hybrid_search(
            ctx, workspace_id=workspace_id, query=queries[qid], legs=legs, k=10, fusion=fusion
        )

    t_all = time.perf_counter()
    for n, qid in enumerate(qids, start=1):
        t0 = time.perf_counter()
        vector = (
            await ctx.embedder.embed_query(queries[qid])
            if set(legs) & {"vector", "concept"}
            else None
        )
        embed_ms = (time.perf_counter() - t0) * 1000
        result = await hybrid_search(
            ctx,
            workspace_id=workspace_id,
            query=queries[qid],
            legs=legs,
            k=depth,
            depth=depth,
            trace_depth=depth,
            query_vector=vector,
            fusion=fusion,
        )
        tr = result.trace
        rels = qrels[qid]
        for leg in legs:
            lt = tr.legs[leg]
            ranked = dedupe_docs((e.chunk_id for e in lt.hits), doc_of)
            per_query[leg].append(query_metrics(ranked, rels))
            leg_lat[leg].append(lt.ms)
            leg_hit_queries[leg] += bool(lt.hits)
            if lt.note:
                notes[f"{leg}: {lt.note}"] = notes.get(f"{leg}: {lt.note}", 0) + 1
        fused = dedupe_docs((e.chunk_id for e in tr.fused), doc_of)
        per_query["fusion"].append(query_metrics(fused, rels))
        for method in others:  # the same leg lists, fused the other way
            lists = {leg: tr.legs[leg].hits for leg in legs if tr.legs[leg].status == "ok"}
            alt = (
                rrf_fuse({n: [e.chunk_id for e in h] for n, h in lists.items()}, k=rrf_k)
                if method == RRF
                else score_fuse({n: [(e.chunk_id, e.score) for e in h] for n, h in lists.items()})
            )
            ranked_alt = dedupe_docs((f.key for f in alt), doc_of)
            per_query[f"fusion_{method}"].append(query_metrics(ranked_alt, rels))
        if reranker is not None:
            per_query["rerank"].append(
                query_metrics(dedupe_docs((h.chunk_id for h in result.hits), doc_of), rels)
            )
            lat["rerank"].append(tr.timings_ms["rerank_ms"])
        lat["retrieval"].append(tr.timings_ms["retrieval_ms"])
        lat["query_embedding"].append(embed_ms)
        lat["concept_embedding"].append(tr.timings_ms["concept_embedding_ms"])
        lat["fusion"].append(tr.timings_ms["fusion_ms"])
        if n % 100 == 0 or n == len(qids):
            progress(f"evaluated {n}/{len(qids)} queries")
    wall_s = time.perf_counter() - t_all

    metrics = {
        name: {m: round(float(np.mean([q[m] for q in rows])), 4) for m in METRICS}
        for name, rows in per_query.items()
    }
    intervals: dict[str, Any] = {}
    for name, rows in per_query.items():
        success = sum(1 for q in rows if q["recall@10"] > 0)
        low, high = wilson(success, len(rows))
        intervals[name] = {
            **{m: _mean_ci([q[m] for q in rows]) for m in METRICS},
            # A rate: queries with at least one relevant document in the top 10.
            "success@10": {
                "rate": success / len(rows),
                "successes": success,
                "n": len(rows),
                "wilson95": [round(low, 4), round(high, 4)],
            },
        }
    latency: dict[str, Any] = {
        "retrieval": _percentiles(lat["retrieval"]),
        "query_embedding": _percentiles(lat["query_embedding"]),
        "legs": {leg: _percentiles(v) for leg, v in leg_lat.items()},
        "fusion": _percentiles(lat["fusion"]),
    }
    if "concept" in legs:
        latency["concept_embedding"] = _percentiles(lat["concept_embedding"])
    if reranker is not None:
        latency["rerank"] = _percentiles(lat["rerank"])
    return {
        "legs": metrics,
        "latency_ms": latency,
        "intervals": intervals,
        "queries": len(qids),
        "queries_with_hits": leg_hit_queries,
        "leg_notes": notes,
        "rerank": reranker.name if reranker is not None else None,
        "eval_wall_s": round(wall_s, 1),
        "warmup_queries_unmeasured": min(warmup, len(qids)),
    }


def _natural(qid: str) -> tuple[int, str]:
    return (int(qid), "") if qid.isdigit() else (sys.maxsize, qid)


# --------------------------------------------------------------------------- runner


def _git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=5,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def render_markdown(report: dict[str, Any]) -> str:
    run, data = report["run"], report["dataset"]
    lines = [
        f"# Retrieval eval — {data['name']} ({data['split']})",
        "",
        f"Run {run['finished_at']} on {run['host']} (commit {run['git_commit'] or 'n/a'}), "
        f"embedding model `{run['embedding_model']}`, rerank: {report['rerank'] or 'off'}.",
        f"Corpus {data['documents']} documents → {data['chunks']} chunks; "
        f"{report['queries']} queries with relevance judgements "
        f"({report['warmup_queries_unmeasured']} warm-up queries run first, not timed).",
        "",
        "| leg | nDCG@10 | Recall@10 | Recall@100 | MRR@10 | success@10 (Wilson 95%) |",
        "|---|---|---|---|---|---|",
    ]
    for name, m in report["legs"].items():
        s = report["intervals"][name]["success@10"]
        lines.append(
            f"| {name} | {m['ndcg@10']:.4f} | {m['recall@10']:.4f} | {m['recall@100']:.4f} | "
            f"{m['mrr@10']:.4f} | {s['successes']}/{s['n']} [{s['wilson95'][0]:.3f}, {s['wilson95'][1]:.3f}] |"
        )
    lat = report["latency_ms"]
    lines += [
        "",
        "| latency (ms) | p50 | p95 | mean |",
        "|---|---|---|---|",
        f"| retrieval (legs in parallel + fusion + hits; no model time) | {lat['retrieval']['p50']} | {lat['retrieval']['p95']} | {lat['retrieval']['mean']} |",
        f"| query embedding (apart) | {lat['query_embedding']['p50']} | {lat['query_embedding']['p95']} | {lat['query_embedding']['mean']} |",
    ]
    for leg, v in lat["legs"].items():
        lines.append(f"| leg: {leg} | {v['p50']} | {v['p95']} | {v['mean']} |")
    if "rerank" in lat:
        lines.append(
            f"| rerank | {lat['rerank']['p50']} | {lat['rerank']['p95']} | {lat['rerank']['mean']} |"
        )
    if report["leg_notes"]:
        lines += ["", "Leg notes (queries):", ""]
        lines += [f"- {note}: {n}" for note, n in report["leg_notes"].items()]
    if report.get("notes"):
        lines += ["", "Notes:", ""] + [f"- {n}" for n in report["notes"]]
    import_s = (
        f"{data['import_s']} s" if data.get("import_s") is not None else "n/a (reused workspace)"
    )
    lines += [
        "",
        f"Import took {import_s}; evaluation {report['eval_wall_s']} s. "
        "nDCG@10 / Recall / MRR are means over queries (95% CIs in the JSON).",
        "",
    ]
    return "\n".join(lines)


async def _run(
    ctx: RetrievalContext,
    beir_dir: Path,
    split: str,
    *,
    keep: bool,
    workspace_id: uuid.UUID | None,
    legs: Sequence[str],
    limit_docs: int | None,
    limit_queries: int | None,
    progress: Progress,
    fusion: str = DEFAULT_FUSION,
) -> dict[str, Any]:
    from marginalia.services import workspaces as ws_service

    qrels = load_qrels(beir_dir, split)  # fail fast, before any import
    queries = load_queries(beir_dir)
    if limit_queries is not None:
        qrels = {q: qrels[q] for q in sorted(qrels, key=_natural)[:limit_queries]}
    t0 = time.perf_counter()
    imported = workspace_id is None
    if workspace_id is None:
        name = f"beir-{beir_dir.name}-{split}-{uuid.uuid4().hex[:8]}"
        progress(f"importing {beir_dir}/corpus.jsonl into workspace {name}")
        workspace_id = await import_beir(
            ctx, beir_dir, workspace_name=name, limit=limit_docs, progress=progress
        )
    import_s = time.perf_counter() - t0
    try:
        async with ctx.db.session() as session:
            counts = (
                await session.execute(
                    text(
                        "SELECT (SELECT count(*) FROM sources WHERE workspace_id = :ws), "
                        "(SELECT count(*) FROM chunks WHERE workspace_id = :ws)"
                    ),
                    {"ws": workspace_id},
                )
            ).one()
        report = await evaluate_retrieval(
            ctx, workspace_id, queries, qrels, legs=legs, progress=progress, fusion=fusion
        )
    finally:
        if imported and not keep:
            progress("deleting the throwaway workspace")
            await ws_service.delete_workspace(ctx.db, workspace_id)
    report["dataset"] = {
        "name": beir_dir.name,
        "path": str(beir_dir),
        "split": split,
        "documents": int(counts[0]),
        "chunks": int(counts[1]),
        "import_s": round(import_s, 1) if imported else None,
    }
    report["run"] = {
        "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "git_commit": _git_commit(),
        "host": f"{platform.machine()} {os.cpu_count()} cpu, Python {platform.python_version()}",
        "embedding_model": ctx.embedder.model_id,
        "settings": {
            "rrf_k": ctx.settings.retrieval.rrf_k,
            "hnsw_ef_search": ctx.settings.retrieval.hnsw_ef_search,
            "depth": DEFAULT_DEPTH,
            "fusion": fusion,
            "legs": list(legs),
        },
        "workspace_id": str(workspace_id) if (keep or not imported) else None,
    }
    return report


def write_reports(report: dict[str, Any], out_dir: Path = REPORTS_DIR) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = f"retrieval-{report['dataset']['name']}-{report['dataset']['split']}"
    json_path, md_path = out_dir / f"{stem}.json", out_dir / f"{stem}.md"
    json_path.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    md_path.write_text(render_markdown(report), encoding="utf-8")
    return json_path, md_path


def run_retrieval_eval(
    beir_dir: Path | str,
    split: str = "test",
    *,
    json_out: bool = False,
    keep: bool = False,
    workspace: str | None = None,
    legs: Sequence[str] = ALL_LEGS,
    limit_docs: int | None = None,
    limit_queries: int | None = None,
    write: bool = True,
    notes: Sequence[str] = (),
    report_dir: Path | None = None,
    fusion: str = DEFAULT_FUSION,
) -> dict[str, Any]:
    """Import (or reuse ``workspace``), evaluate, write ``eval/reports/``; returns the report.

    Progress goes to stderr unless ``json_out`` (stdout is then left to the JSON).
    """
    from marginalia.config import get_settings
    from marginalia.services.container import open_services
    from marginalia.services.workspaces import find_workspace

    beir = Path(beir_dir).expanduser()
    if not beir.is_dir():
        raise ValidationFailed(f"BEIR folder not found: {beir}")
    load_qrels(beir, split)  # the split must exist before anything starts
    unknown = [leg for leg in legs if leg not in ALL_LEGS]
    if unknown or not legs:
        raise ValidationFailed(f"unknown legs {unknown}; choose from {', '.join(ALL_LEGS)}")
    if fusion not in FUSION_METHODS:
        raise ValidationFailed(
            f"unknown fusion {fusion!r}; choose from {', '.join(FUSION_METHODS)}"
        )

    def progress(msg: str) -> None:
        if not json_out:
            print(msg, file=sys.stderr, flush=True)

    async def main() -> dict[str, Any]:
        services = await open_services(get_settings())
        try:
            ws_id = (await find_workspace(services.db, workspace)).id if workspace else None
            return await _run(
                services,
                beir,
                split,
                keep=keep,
                workspace_id=ws_id,
                legs=legs,
                limit_docs=limit_docs,
                limit_queries=limit_queries,
                progress=progress,
                fusion=fusion,
            )
        finally:
            await services.close()

    report = asyncio.run(main())
    report["notes"] = list(notes)
    if write:
        paths = write_reports(report, report_dir or REPORTS_DIR)
        report["report_files"] = [str(p) for p in paths]
    return report
