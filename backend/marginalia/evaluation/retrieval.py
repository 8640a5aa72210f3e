"""``marginalia eval retrieval``: nDCG@10, recall@10/100 and MRR@10 of every retrieval leg
and of both fusions on a BEIR data set imported into a throwaway workspace
(:func:`marginalia.retrieval.beir.import_beir`), with mean confidence intervals, a Wilson
interval on success@10 (invariant 8) and latency percentiles."""

from __future__ import annotations

import asyncio
import math
import os
import platform
import sys
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from marginalia.errors import ValidationFailed
from marginalia.evaluation.reports import REPORTS_DIR, git_commit, write_report
from marginalia.evaluation.stats import wilson
from marginalia.retrieval import repository as retrieval_repo
from marginalia.retrieval.beir import (
    Progress,
    chunk_to_doc,
    import_beir,
    load_qrels,
    load_queries,
    quiet,
)
from marginalia.retrieval.fusion import DEFAULT_FUSION, FUSION_METHODS, RRF, rrf_fuse, score_fuse
from marginalia.retrieval.hybrid import DEFAULT_DEPTH, RetrievalContext, hybrid_search
from marginalia.retrieval.legs import ALL_LEGS

if TYPE_CHECKING:
    from marginalia.runtime import Runtime


#: The z of a two-sided 95% interval as this report has always used it (the QA eval's
#: rates use 1.96); kept so that the report's figures stay comparable run to run.
Z95 = 1.959964

METRICS = ("ndcg@10", "recall@10", "recall@100", "mrr@10")


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


async def evaluate_retrieval(
    ctx: RetrievalContext,
    workspace_id: uuid.UUID,
    queries: Mapping[str, str],
    qrels: Mapping[str, Mapping[str, int]],
    *,
    legs: Sequence[str] = ALL_LEGS,
    depth: int = DEFAULT_DEPTH,
    warmup: int = 5,
    progress: Progress = quiet,
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
    reranker = ctx.reranker
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
        low, high = wilson(success, len(rows), z=Z95)
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
    ctx: Runtime,
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
    query_ids: Sequence[str] | None = None,
) -> dict[str, Any]:
    from marginalia.usecases import workspaces as ws_usecase

    qrels = load_qrels(beir_dir, split)  # fail fast, before any import
    queries = load_queries(beir_dir)
    if query_ids is not None:
        qrels = select_queries(qrels, query_ids)
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
            counts = await retrieval_repo.workspace_size(session, workspace_id)
        report = await evaluate_retrieval(
            ctx, workspace_id, queries, qrels, legs=legs, progress=progress, fusion=fusion
        )
    finally:
        if imported and not keep:
            progress("deleting the throwaway workspace")
            await ws_usecase.delete_workspace(ctx, workspace_id)
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
        "git_commit": git_commit(),
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


def select_queries(
    qrels: Mapping[str, dict[str, int]], query_ids: Sequence[str]
) -> dict[str, dict[str, int]]:
    """The judgements of ``query_ids`` only (e.g. queries held out of a model's training);
    an id the split does not judge is an error, not silently dropped."""
    wanted = list(dict.fromkeys(q.strip() for q in query_ids if q.strip()))
    unknown = [q for q in wanted if q not in qrels]
    if not wanted or unknown:
        raise ValidationFailed(
            "the query id list is empty"
            if not wanted
            else f"{len(unknown)} query ids have no judgement in this split, e.g. {unknown[:3]}"
        )
    return {q: qrels[q] for q in wanted}


def read_query_ids(path: Path) -> list[str]:
    """One query id per line (blank lines and ``#`` comments skipped)."""
    if not path.is_file():
        raise ValidationFailed(f"query id file not found: {path}")
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def write_reports(report: dict[str, Any], out_dir: Path = REPORTS_DIR) -> tuple[Path, Path]:
    stem = f"retrieval-{report['dataset']['name']}-{report['dataset']['split']}"
    return write_report(report, stem=stem, markdown=render_markdown(report), out_dir=out_dir)


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
    query_ids_file: Path | None = None,
) -> dict[str, Any]:
    """Import (or reuse ``workspace``), evaluate, write ``eval/reports/``; returns the report.
    ``query_ids_file``: score only the queries listed there (one id a line).

    Progress goes to stderr unless ``json_out`` (stdout is then left to the JSON).
    """
    from marginalia.config import get_settings
    from marginalia.runtime import open_runtime
    from marginalia.usecases.workspaces import find_workspace

    beir = Path(beir_dir).expanduser()
    if not beir.is_dir():
        raise ValidationFailed(f"BEIR folder not found: {beir}")
    judged = load_qrels(beir, split)  # the split must exist before anything starts
    query_ids = read_query_ids(query_ids_file) if query_ids_file is not None else None
    if query_ids is not None:
        select_queries(judged, query_ids)  # every id must be judged, before any import
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
        rt = await open_runtime(get_settings())
        try:
            ws_id = (await find_workspace(rt, workspace)).id if workspace else None
            return await _run(
                rt,
                beir,
                split,
                keep=keep,
                workspace_id=ws_id,
                legs=legs,
                limit_docs=limit_docs,
                limit_queries=limit_queries,
                progress=progress,
                fusion=fusion,
                query_ids=query_ids,
            )
        finally:
            await rt.close()

    report = asyncio.run(main())
    report["notes"] = list(notes)
    if query_ids_file is not None:
        report["dataset"]["query_ids"] = str(query_ids_file)
    if write:
        paths = write_reports(report, report_dir or REPORTS_DIR)
        report["report_files"] = [str(p) for p in paths]
    return report
