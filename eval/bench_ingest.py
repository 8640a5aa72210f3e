"""Ingest throughput: the embedder alone vs the whole ingest, side by side in one run.

Two corpora (DESIGN §7 data): the 9 shared PDFs (parse → chunk → embed → store, one
source per file) and the 5,183 SciFact abstracts through the BEIR importer. For each,
the same passages are first embedded by the embedder alone, then ingested for real;
each measurement runs in its own subprocess so peak memory (max RSS) is its own.

Usage: uv run python eval/bench_ingest.py [--data ../shared/data] [--repeat 1] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def _pdf_passages(services: Any, pdfs: list[Path]) -> list[str]:
    from marginalia.ingest import chunk_document
    from marginalia.ingest.pipeline import validate_document

    texts: list[str] = []
    for pdf in pdfs:
        doc = validate_document(pdf.read_bytes(), pdf.name, None, services.settings)
        chunks = chunk_document(
            doc, services.embedder.count_tokens, max_tokens=services.embedder.max_tokens
        )
        texts.extend(c.text for c in chunks)
    return texts


async def _scifact_passages(services: Any, beir: Path, limit: int | None) -> list[str]:
    from marginalia.retrieval.beir import chunk_beir_doc, load_corpus

    e = services.embedder
    out: list[str] = []
    for doc in load_corpus(beir, limit=limit):
        out.extend(
            c.text
            for c in chunk_beir_doc(
                doc,
                e.count_tokens,
                max_tokens=e.max_tokens,
                overlap=services.settings.ingest.chunk_overlap,
            )
        )
    return out


async def measure(mode: str, corpus: str, data: Path, limit: int | None) -> dict[str, Any]:
    from marginalia.config import get_settings
    from marginalia.services.container import open_services
    from marginalia.services.workspaces import create_workspace

    services = await open_services(get_settings())
    try:
        services.embedder.embed_documents_sync(["warm up the model"])  # load outside the clock
        pdfs = sorted((data / "pdfs").glob("*.pdf"))
        if mode == "embedder":
            texts = await (
                _pdf_passages(services, pdfs)
                if corpus == "pdfs"
                else _scifact_passages(services, data / "scifact", limit)
            )
            start = time.perf_counter()
            await services.embedder.embed_documents(texts)
            wall = time.perf_counter() - start
            passages = len(texts)
        elif corpus == "pdfs":
            from marginalia.ingest.pipeline import IngestItem, ingest_many

            ws = await create_workspace(services.db, name=f"bench-{time.time_ns()}")
            # The ingest job's own path: the next file parses while this one embeds.
            items = [IngestItem(load=pdf.read_bytes, filename=pdf.name) for pdf in pdfs]
            start = time.perf_counter()
            passages = 0
            async for _n, outcome in ingest_many(services, ws.id, items):
                passages += getattr(outcome, "chunks", 0)
            wall = time.perf_counter() - start
        else:
            from sqlalchemy import text

            from marginalia.retrieval.beir import import_beir

            start = time.perf_counter()
            ws_id = await import_beir(
                services, data / "scifact", workspace_name=f"bench-{time.time_ns()}", limit=limit
            )
            wall = time.perf_counter() - start
            async with services.db.session() as session:
                passages = int(
                    await session.scalar(
                        text("SELECT count(*) FROM chunks WHERE workspace_id = :w"), {"w": ws_id}
                    )
                    or 0
                )
        return {
            "mode": mode,
            "corpus": corpus,
            "passages": passages,
            "wall_s": wall,
            "passages_per_s": passages / wall,
            "peak_rss_mb": _peak_mb(),
        }
    finally:
        await services.close()


def _child(mode: str, corpus: str, data: Path, home: Path, limit: int | None) -> dict[str, Any]:
    env = dict(os.environ, MARGINALIA_HOME=str(home), MARGINALIA_LOG_LEVEL="WARNING")
    for var in ("DATABASE_URL", "REDIS_URL"):
        env.pop(var, None)
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode, corpus, "--data", str(data)]
        + (["--scifact-limit", str(limit)] if limit else []),
        env=env,
        cwd=ROOT,
        check=False,
        capture_output=True,
        text=True,
    )
    lines = out.stdout.strip().splitlines()
    if not lines or not lines[-1].startswith("{"):
        raise SystemExit(f"{mode}/{corpus} failed (exit {out.returncode}):\n{out.stderr[-3000:]}")
    result = dict(json.loads(lines[-1]))
    # A child that measured and printed but then died at interpreter exit is recorded
    # with its exit code rather than discarded.
    result["exit_code"] = out.returncode
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--corpus", choices=["pdfs", "scifact", "both"], default="both")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "CORPUS"))
    parser.add_argument(
        "--scifact-limit", type=int, default=None, help="only the first N SciFact documents"
    )
    args = parser.parse_args()
    if args.child:
        print(
            json.dumps(
                asyncio.run(measure(args.child[0], args.child[1], args.data, args.scifact_limit))
            )
        )
        return
    corpora = ["pdfs", "scifact"] if args.corpus == "both" else [args.corpus]
    report: dict[str, Any] = {
        "data": str(args.data),
        "repeat": args.repeat,
        "scifact_limit": args.scifact_limit,
        "corpora": {},
    }
    with tempfile.TemporaryDirectory(prefix="marginalia-bench-ingest-") as tmp:
        home = Path(tmp)
        for corpus in corpora:
            runs: dict[str, list[dict[str, Any]]] = {"embedder": [], "ingest": []}
            for _ in range(args.repeat):  # interleaved so both see the same machine load
                runs["embedder"].append(
                    _child("embedder", corpus, args.data, home, args.scifact_limit)
                )
                runs["ingest"].append(_child("ingest", corpus, args.data, home, args.scifact_limit))
            summary = {
                mode: {
                    "passages": rs[0]["passages"],
                    "passages_per_s_median": statistics.median(r["passages_per_s"] for r in rs),
                    "wall_s_median": statistics.median(r["wall_s"] for r in rs),
                    "peak_rss_mb_max": max(r["peak_rss_mb"] for r in rs),
                    "runs": rs,
                }
                for mode, rs in runs.items()
            }
            summary["ratio_ingest_over_embedder"] = (
                summary["ingest"]["passages_per_s_median"]
                / summary["embedder"]["passages_per_s_median"]
            )
            report["corpora"][corpus] = summary
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
