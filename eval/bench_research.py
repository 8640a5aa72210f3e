"""Wall time by stage of a research run over the local ACL 2020 catalog (30 sources).

Offline: arXiv, OpenAlex and Brave are unreachable here (reported per source, the run
continues), so the local catalog (MARGINALIA_CATALOG_PATH = the ACL 2020 records) is the
only source with results. The catalog's `pdf_url`s point at aclanthology.org, which does
not resolve offline: each fetch is attempted through SafeFetcher and fails fast
(dns_error), and the paper is ingested from its abstract (abstract-only).

A fresh MARGINALIA_HOME is used (embedded PostgreSQL started before timing begins).
Usage: uv run python eval/bench_research.py [--sources 30] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT.parent / "shared" / "data" / "catalog" / "acl2020" / "papers.jsonl"
DESCRIPTION = "behavioral testing and robustness evaluation of NLP models"


def _stats(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0, "total_s": 0.0, "mean_ms": 0.0, "median_ms": 0.0, "max_ms": 0.0}
    return {
        "n": len(values),
        "total_s": round(sum(values) / 1000, 2),
        "mean_ms": round(statistics.fmean(values), 1),
        "median_ms": round(statistics.median(values), 1),
        "max_ms": round(max(values), 1),
    }


async def main(n_sources: int) -> dict[str, Any]:
    home = Path(tempfile.mkdtemp(prefix="marginalia-bench-research-"))
    os.environ["MARGINALIA_HOME"] = str(home)
    os.environ["MARGINALIA_CATALOG_PATH"] = str(CATALOG)
    for var in ("DATABASE_URL", "MARGINALIA_DATABASE_URL", "REDIS_URL", "MARGINALIA_REDIS_URL"):
        os.environ.pop(var, None)
    from marginalia.config import get_settings
    from marginalia.discovery.pipeline import run_research
    from marginalia.discovery.support import ResearchOptions
    from marginalia.runtime import open_runtime
    from marginalia.usecases.workspaces import create_workspace

    settings = get_settings()
    t = time.perf_counter()
    services = await open_runtime(settings)
    startup_s = time.perf_counter() - t
    try:
        t = time.perf_counter()
        services.embedder.count_tokens("warm up")
        await services.embedder.embed_documents(["warm up"])
        model_load_s = time.perf_counter() - t
        ws = await create_workspace(services, name="bench-research", description=DESCRIPTION)
        events: list[tuple[float, str, str]] = []
        began = time.perf_counter()

        async def emit(
            message: str, stage: str, progress: float | None, data: dict[str, Any]
        ) -> None:
            events.append((time.perf_counter() - began, stage, message))

        final_state: dict[str, Any] = {}

        async def save(state: dict[str, Any]) -> None:
            final_state.clear()
            final_state.update(state)

        result = await run_research(
            services,
            ws.id,
            DESCRIPTION,
            options=ResearchOptions(max_sources=n_sources, per_source_limit=n_sources),
            emit=emit,
            save=save,
        )
        wall_s = time.perf_counter() - began
        from marginalia.usecases.workspaces import workspace_counts

        counts = await workspace_counts(services, ws.id)
    finally:
        await services.close()

    run = result["timings_ms"]
    # per-candidate stage times, from the run's state (what the job checkpoints)
    per: dict[str, list[float]] = {"fetch": [], "ingest": [], "link": []}
    for item in final_state.get("candidates", []):
        for stage, key in (("fetch", "fetch"), ("ingest", "ingest"), ("link", "knowledge")):
            ms = (item.get(key) or {}).get("ms")
            if ms is not None:
                per[stage].append(float(ms))
    return {
        "description": DESCRIPTION,
        "catalog": str(CATALOG),
        "requested_sources": n_sources,
        "startup_s": round(startup_s, 2),
        "model_load_s": round(model_load_s, 2),
        "wall_s": round(wall_s, 2),
        "stages_ms": run,
        "sources": {
            k: {x: v[x] for x in ("status", "found", "reason")}
            for k, v in result["sources"].items()
        },
        "dedup": result["dedup"],
        "counts": result["counts"],
        "workspace": counts,
        "per_candidate": {stage: _stats(values) for stage, values in per.items()},
        "events": len(events),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sources", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not CATALOG.exists():
        sys.exit(f"catalog not found at {CATALOG}")
    report = asyncio.run(main(args.sources))
    print(json.dumps(report, indent=2))
