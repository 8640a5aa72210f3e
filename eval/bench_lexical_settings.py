"""Pruning settings of the lexical leg on a workspace ``eval/bench_scale.py`` built.

    uv run python eval/bench_lexical_settings.py --home /tmp/bench-scale-100000-xxxx

bench_scale leaves its throwaway home behind (``--home-root``); this reopens it and, for
each setting, times the leg over the first ``--queries`` SciFact queries (warm: one
untimed pass) and compares its top 10 with exact BM25 on the first ``--exact-queries``
(nDCG@10 with the exact scores as gains, and the summed score of its top 10 over the
exact top 10's, as bench_scale does). ``--grid`` takes a JSON list of ``BM25Params``
overrides. Milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SCIFACT = ROOT.parent / "shared" / "data" / "scifact"
GRID: list[dict[str, int]] = [
    {},
    {"per_term": 500, "whole_budget": 5000, "candidates": 200},
    {"per_term": 200, "whole_budget": 2000, "candidates": 100},
]


async def run(args: argparse.Namespace) -> dict[str, Any]:

    from marginalia.config import Settings
    from marginalia.retrieval.beir import load_queries
    from marginalia.retrieval.bm25 import EXACT_PARAMS, BM25Params
    from marginalia.retrieval.legs import lexical_leg
    from marginalia.runtime import open_runtime

    sys.path.insert(0, str(ROOT / "eval"))
    from bench_scale import _ndcg10, _score_ratio, kept_workspace, percentiles

    os.environ["MARGINALIA_HOME"] = str(args.home)
    rt = await open_runtime(Settings())
    try:
        ws = await kept_workspace(rt)
        queries = list(load_queries(SCIFACT).values())[: args.queries]
        exact = {}
        for q in queries[: args.exact_queries]:
            exact[q] = (
                await lexical_leg(rt.db, workspace_id=ws, query=q, depth=10, params=EXACT_PARAMS)
            ).hits
        out: dict[str, Any] = {"home": str(args.home), "queries": len(queries)}
        for kw in json.loads(args.grid) if args.grid else GRID:
            params = BM25Params(**kw)
            for q in queries:  # warm
                await lexical_leg(rt.db, workspace_id=ws, query=q, params=params)
            ms = []
            for q in queries:
                t = time.perf_counter()
                await lexical_leg(rt.db, workspace_id=ws, query=q, params=params)
                ms.append((time.perf_counter() - t) * 1000)
            ndcg, ratio = [], []
            for q, hits in exact.items():
                got = await lexical_leg(rt.db, workspace_id=ws, query=q, depth=10, params=params)
                ndcg.append(_ndcg10([h.chunk_id for h in got.hits], hits))
                ratio.append(_score_ratio(got.hits, hits))
            name = ", ".join(f"{k} {v}" for k, v in kw.items()) or "default"
            out[name] = {
                **percentiles(ms),
                "ndcg_vs_exact": round(float(np.mean(ndcg)), 4),
                "ndcg_vs_exact_worst": round(float(np.min(ndcg)), 4),
                "score_ratio_vs_exact": round(float(np.mean(ratio)), 4),
                "score_ratio_vs_exact_worst": round(float(np.min(ratio)), 4),
            }
        return out
    finally:
        await rt.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--exact-queries", type=int, default=20)
    parser.add_argument("--grid", default=None, help="JSON list of BM25Params overrides")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args)), indent=2))


if __name__ == "__main__":
    main()
