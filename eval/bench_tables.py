"""How long an evidence table of 20 sources x 5 columns takes to fill offline (issue 37).

    nice -n 10 uv run --frozen python eval/bench_tables.py [--runs 3] [--keep-home DIR]
        [--data ../shared/data] [--out eval/reports/bench-tables.json]

Ingests 20 documents into one workspace of a throwaway home (the 9 shared PDFs and the
first 11 CC BY 4.0 unarXive papers of ``eval/qa/render_unarxive.py``'s third concept-set
rule, rendered to Markdown by that script), then ``--runs`` times: forget every cached
cell, create a table of the five suggested columns over the 20 sources and time it from
the create call until its ``tables.fill`` job has succeeded (the product's path: the job
on the in-process backend, one event per cell). Reported: each run's seconds, the median,
and milliseconds per cell. The ingest is not timed. ``--keep-home`` reuses (or keeps) a
home so later runs skip the ingest.
"""

from __future__ import annotations

import argparse
import asyncio
import atexit
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "eval" / "qa"))
import render_unarxive  # noqa: E402  (renders unarXive papers to the Markdown ingest reads)

SOURCES = 20
WORKSPACE = "bench-tables"


def documents(data: Path, out: Path) -> list[Path]:
    pdfs = sorted((data / "pdfs").glob("*.pdf"))
    papers = render_unarxive.load_papers(data / "catalog" / "unarxive" / "arXiv_src_2212_086.jsonl")
    ids = render_unarxive.third_concept_set_papers(papers, n=SOURCES - len(pdfs))
    for pid in ids:
        (out / f"{pid}.md").write_text(render_unarxive.render(papers[pid]), encoding="utf-8")
    return pdfs + [out / f"{pid}.md" for pid in ids]


async def bench(files: list[Path], runs: int) -> dict[str, Any]:
    from marginalia.config import Settings
    from marginalia.ingest.pipeline import ingest_document
    from marginalia.runtime import open_runtime
    from marginalia.tables.columns import SUGGESTED_COLUMNS
    from marginalia.usecases import tables as tables_usecase
    from marginalia.usecases import workspaces as ws_usecase

    rt = await open_runtime(Settings())
    try:
        try:
            ws = await ws_usecase.find_workspace(rt, WORKSPACE)
        except Exception:
            ws = await ws_usecase.create_workspace(rt, name=WORKSPACE)
            for path in files:
                print(f"ingesting {path.name}", file=sys.stderr)
                await ingest_document(rt, ws.id, data=path.read_bytes(), filename=path.name)
        sources = list((await ws_usecase.source_files(rt, ws.id)).values())
        assert len(sources) == SOURCES, f"{len(sources)} sources in {WORKSPACE}"
        columns = [c.question for c in SUGGESTED_COLUMNS]
        seconds: list[float] = []
        for run in range(runs):
            await tables_usecase.forget_cells(rt, ws.id)
            started = time.perf_counter()
            made = await tables_usecase.create_table(
                rt, ws.id, columns=columns, name=f"bench {run}", source_ids=sources
            )
            assert made.job_id is not None
            job = await tables_usecase.wait_for(rt, made.job_id)
            elapsed = time.perf_counter() - started
            assert job.status == "succeeded", job.error
            assert job.result and job.result["filled"] == SOURCES * len(columns), job.result
            seconds.append(elapsed)
            print(f"run {run + 1}: {elapsed:.1f} s", file=sys.stderr)
            await tables_usecase.delete_table(rt, ws.id, made.table.id)
        median = statistics.median(seconds)
        return {
            "sources": SOURCES,
            "columns": len(columns),
            "cells": SOURCES * len(columns),
            "runs_s": [round(s, 2) for s in seconds],
            "median_s": round(median, 2),
            "ms_per_cell": round(1000 * median / (SOURCES * len(columns)), 1),
            "floor_s": 60,
        }
    finally:
        await rt.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--keep-home", type=Path, default=None)
    parser.add_argument("--out", type=Path, default=ROOT / "eval" / "reports" / "bench-tables.json")
    args = parser.parse_args()
    home = args.keep_home or Path(tempfile.mkdtemp(prefix="marginalia-bench-tables-"))
    if args.keep_home is None:
        # Registered before the embedded server starts, so it runs after the server's own
        # exit hook has stopped it (atexit runs last-registered first).
        atexit.register(shutil.rmtree, home, True)
    os.environ["MARGINALIA_HOME"] = str(home)
    os.environ["MARGINALIA_LLM__PROVIDER"] = "offline"
    docs = Path(tempfile.mkdtemp(prefix="bench-tables-docs-"))
    try:
        files = documents(args.data, docs)
        result = asyncio.run(bench(files, args.runs))
    finally:
        shutil.rmtree(docs, ignore_errors=True)
    result["machine"] = {"cpus": os.cpu_count(), "python": platform.python_version()}
    result["load_avg_after"] = [round(v, 2) for v in os.getloadavg()]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
