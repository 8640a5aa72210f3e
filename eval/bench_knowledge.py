"""Knowledge-layer cost: offline extraction per source, and update time as a workspace grows.

Builds a throwaway workspace (its own MARGINALIA_HOME with an embedded PostgreSQL) from ACL
2020 catalog records (title + abstract, related papers: those mentioning BERT, language
models or pre-training), adds the sources one at a time and times
:func:`marginalia.knowledge.update.update_for_source` after each. Writes
``docs/benchmarks-knowledge.md`` and prints JSON.

    uv run --frozen python eval/bench_knowledge.py [--sizes 10,50,200] [--window 5]

The reported update time at size N is the median over the ``window`` updates ending at the
N-th source (each update = extraction + concept re-merge + claims/evidence + source edges
+ clusters + quality + wiki, everything committed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT.parent / "shared" / "data" / "catalog" / "acl2020" / "papers.jsonl"
REPORT = ROOT / "docs" / "benchmarks-knowledge.md"

sys.path.insert(0, str(ROOT / "backend"))
sys.path.insert(0, str(ROOT))

_HOME = tempfile.mkdtemp(prefix="marginalia-bench-knowledge-")
os.environ["MARGINALIA_HOME"] = _HOME
for _var in ("DATABASE_URL", "MARGINALIA_DATABASE_URL", "REDIS_URL", "MARGINALIA_REDIS_URL"):
    os.environ.pop(_var, None)
os.environ["MARGINALIA_LLM__PROVIDER"] = "offline"

from marginalia.config import get_settings  # noqa: E402
from marginalia.knowledge import update as service  # noqa: E402
from marginalia.knowledge.extraction import extract_offline  # noqa: E402
from marginalia.knowledge.sentences import ChunkText  # noqa: E402
from marginalia.runtime import open_runtime  # noqa: E402
from marginalia.usecases import workspaces as ws_service  # noqa: E402
from tests.integration.knowledge_support import add_paper  # noqa: E402

TOPIC = re.compile(r"\bBERT\b|language models?\b|pre-?train", re.IGNORECASE)


def load_records(n: int) -> list[dict[str, Any]]:
    with CATALOG.open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    picked = [r for r in rows if r.get("abstract") and TOPIC.search(r["abstract"])]
    return sorted(picked, key=lambda r: r["id"])[:n]


def bench_extraction(records: list[dict[str, Any]]) -> list[float]:
    times = []
    for r in records:
        t = time.perf_counter()
        extract_offline(r["title"], r["abstract"], [ChunkText(0, r["abstract"], "abstract")])
        times.append((time.perf_counter() - t) * 1000)
    return times


async def bench_updates(
    records: list[dict[str, Any]], sizes: list[int], window: int
) -> dict[str, Any]:
    services = await open_runtime(get_settings())
    try:
        ws = await ws_service.create_workspace(
            services,
            name=f"bench-{uuid.uuid4().hex[:6]}",
            description="pre-trained language models such as BERT: compression, probing, transfer",
        )
        totals: list[float] = []
        stages: list[dict[str, float]] = []
        insert_s = 0.0
        for i, r in enumerate(records[: max(sizes)], start=1):
            t = time.perf_counter()
            sid = await add_paper(services, ws.id, r)
            insert_s += time.perf_counter() - t
            update = await service.update_for_source(services, ws.id, sid)
            totals.append(update.total_ms)
            stages.append(update.timings_ms)
            if i % 10 == 0:
                print(f"{i} sources: last update {update.total_ms:.0f} ms", file=sys.stderr)
        at: dict[str, Any] = {}
        for n in sizes:
            lo = max(0, n - window)
            part = totals[lo:n]
            keys = sorted({k for s in stages[lo:n] for k in s})
            at[str(n)] = {
                "median_ms": round(statistics.median(part), 1),
                "max_ms": round(max(part), 1),
                "stages_median_ms": {
                    k: round(statistics.median(s.get(k, 0.0) for s in stages[lo:n]), 1)
                    for k in keys
                },
            }
        t = time.perf_counter()
        rebuilt = await service.rebuild_workspace(services, ws.id)
        rebuild_s = time.perf_counter() - t
        return {
            "updates": at,
            "rebuild": {
                "sources": rebuilt.sources,
                "seconds": round(rebuild_s, 1),
                "timings_ms": rebuilt.timings_ms,
                "concepts": rebuilt.concepts,
                "source_edges": rebuilt.source_edges,
                "clusters": rebuilt.clusters,
                "wiki_pages": rebuilt.wiki_pages,
            },
            "insert_and_embed_chunks_s": round(insert_s, 1),
        }
    finally:
        await services.close()


def write_report(result: dict[str, Any]) -> None:
    lines = [
        "# Knowledge layer benchmark",
        "",
        f"Produced by `eval/bench_knowledge.py` on {result['machine']} "
        f"({result['cpus']} CPUs), offline engine, embedded PostgreSQL 18 + pgvector, "
        "all-MiniLM-L6-v2 (fastembed, ONNX int8).",
        "",
        f"Input: the first {result['n_records']} ACL 2020 catalog records (by id) whose abstract "
        "mentions BERT, language models or pre-training; one source per record, title + "
        "abstract, chunked at sentence boundaries under 200 tokens.",
        "",
        "## Offline extraction (pure function, per source)",
        "",
        f"- median {result['extraction_ms']['median']} ms, p90 {result['extraction_ms']['p90']} ms, "
        f"max {result['extraction_ms']['max']} ms over {result['n_records']} abstracts",
        "",
        "## `update_for_source` as the workspace grows",
        "",
        "Median (and max) of the updates that brought the workspace to N sources "
        f"(window {result['window']}), with the median per stage.",
        "",
        "| N | median ms | max ms | stages (median ms) |",
        "|---|---|---|---|",
    ]
    for n, row in result["updates"].items():
        stages = ", ".join(f"{k} {v}" for k, v in row["stages_median_ms"].items())
        lines.append(f"| {n} | {row['median_ms']} | {row['max_ms']} | {stages} |")
    rb = result["rebuild"]
    lines += [
        "",
        f"Full `rebuild_workspace` of the {rb['sources']}-source workspace: {rb['seconds']} s "
        f"({rb['concepts']} concepts, {rb['source_edges']} source edges, {rb['clusters']} "
        f"redundancy clusters, {rb['wiki_pages']} wiki pages); stages (ms): "
        + ", ".join(f"{k} {v}" for k, v in rb["timings_ms"].items()),
        "",
        "## Reading the numbers",
        "",
        "- `embed` (claims + summary) and `wiki` (page leads re-embedded when they change) are "
        "embedding-bound: MiniLM costs ~30 ms for a sentence and ~160 ms for a full 256-token "
        "window on this machine.",
        "- `concepts` dominates from ~50 sources on. The in-memory re-merge itself is small "
        "(`merge_concepts` over 200 sources / ~1,650 concepts takes ~0.15 s); the rest is "
        "database work that grows with the workspace: loading every concept, link and concept "
        "edge, and a bulk update of every concept's centrality (PageRank shifts everywhere when "
        "a source is added). Not yet optimised (e.g. write centrality only when it moves by "
        "more than a tolerance, or only for the touched component).",
        "- Source edges are computed only between the new source and the others (O(n)); "
        "clusters are recomputed over the whole workspace (average linkage, O(n²) similarities, "
        "~1 ms at 10 sources, ~50 ms at 200).",
        "",
    ]
    REPORT.parent.mkdir(parents=True, exist_ok=True)
    REPORT.write_text("\n".join(lines), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="10,50,200")
    parser.add_argument("--window", type=int, default=5)
    parser.add_argument("--no-report", action="store_true")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    records = load_records(max(sizes))
    ext = sorted(bench_extraction(records))
    result: dict[str, Any] = {
        "machine": f"{platform.system()} {platform.machine()}",
        "cpus": os.cpu_count(),
        "n_records": len(records),
        "window": args.window,
        "extraction_ms": {
            "median": round(statistics.median(ext), 2),
            "p90": round(ext[int(0.9 * (len(ext) - 1))], 2),
            "max": round(ext[-1], 2),
        },
    }
    result.update(asyncio.run(bench_updates(records, sizes, args.window)))
    print(json.dumps(result, indent=2))
    if not args.no_report:
        write_report(result)


if __name__ == "__main__":
    main()
