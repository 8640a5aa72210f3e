"""HNSW ``ef_search`` of the vector leg on a workspace ``eval/bench_scale.py`` built.

    uv run python eval/bench_vector_settings.py --home /tmp/bench-scale-1000000-xxxx \\
        --vectors anchored --anchors-dir /tmp --query-offset 50 --queries 100 --ef-search 200,400

bench_scale leaves its throwaway home behind; this reopens it, regenerates the build's
chunk vectors from the same seed (checked against the stored embeddings of the first and
last chunk), and for each ``ef_search`` times the vector leg over SciFact queries
``--query-offset`` to ``--query-offset + --queries`` (embedded with the product's model for
``anchored`` vectors; perturbed chunk vectors for ``clusters``) and measures recall@100 and
recall@10 against exact search in NumPy; then times the hybrid search over the same
queries with the settings' ``ef_search`` (``MARGINALIA_RETRIEVAL__HNSW_EF_SEARCH``). A
``--query-offset`` past the build's ``--queries`` gives queries that a setting was not
chosen on. Milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SCIFACT = ROOT.parent / "shared" / "data" / "scifact"


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from sqlalchemy import text

    from marginalia.config import Settings
    from marginalia.retrieval.beir import load_queries
    from marginalia.retrieval.hybrid import hybrid_search
    from marginalia.runtime import open_runtime

    sys.path.insert(0, str(ROOT / "eval"))
    from bench_scale import (
        NOISE,
        anchor_vectors,
        kept_workspace,
        percentiles,
        replay_vectors,
        timed,
        vector_recall,
    )

    os.environ["MARGINALIA_HOME"] = str(args.home)
    rt = await open_runtime(Settings())
    try:
        ws = await kept_workspace(rt)
        async with rt.db.session() as session:
            chunks = int(
                await session.scalar(
                    text("SELECT count(*) FROM chunks WHERE workspace_id = :w"), {"w": ws}
                )
                or 0
            )
            ends = (
                await session.execute(
                    text(
                        "(SELECT embedding::text FROM chunks WHERE workspace_id = :w "
                        "ORDER BY id LIMIT 1) UNION ALL (SELECT embedding::text FROM chunks "
                        "WHERE workspace_id = :w ORDER BY id DESC LIMIT 1)"
                    ),
                    {"w": ws},
                )
            ).scalars()
            stored = [np.array(json.loads(v), dtype=np.float32) for v in ends]
        dim = rt.settings.embedding.dim
        anchors = await anchor_vectors(rt, args.anchors_dir) if args.vectors == "anchored" else None
        vectors = replay_vectors(chunks, dim, args.seed, anchors)
        for got, want in zip(stored, (vectors[0], vectors[-1]), strict=True):
            if float(got @ want) < 0.9999:
                raise SystemExit(
                    "the regenerated vectors differ from the stored ones: wrong --seed or --vectors"
                )
        queries = list(load_queries(SCIFACT).values())[
            args.query_offset : args.query_offset + args.queries
        ]
        probes: np.ndarray
        if anchors is not None:
            probes = np.stack([await rt.embedder.embed_query(q) for q in queries])
        else:
            nprng = np.random.default_rng(args.seed + 1 + args.query_offset)
            picks = nprng.choice(len(vectors), size=len(queries), replace=False)
            probes = vectors[picks] + nprng.normal(scale=NOISE, size=(len(queries), dim))
        probes = (probes / np.linalg.norm(probes, axis=1, keepdims=True)).astype(np.float32)
        by_ef = await vector_recall(rt, ws, vectors, probes, args.ef_search)
        hybrid = await timed(
            [
                (lambda q=q: hybrid_search(rt, workspace_id=ws, query=q, rerank=False))
                for q in queries
            ]
        )
        return {
            "home": str(args.home),
            "chunks": chunks,
            "vectors": args.vectors,
            "queries": len(queries),
            "query_offset": args.query_offset,
            "by_ef_search": by_ef,
            "hybrid": percentiles(hybrid),
            "hybrid_ef_search": rt.settings.retrieval.hnsw_ef_search,
        }
    finally:
        await rt.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--vectors", choices=["clusters", "anchored"], default="clusters")
    parser.add_argument("--seed", type=int, default=7, help="the build's --seed")
    parser.add_argument(
        "--anchors-dir", type=Path, default=None, help="the build's --home-root (cached anchors)"
    )
    parser.add_argument("--query-offset", type=int, default=50)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument(
        "--ef-search", type=lambda v: [int(x) for x in v.split(",")], default=[200, 400]
    )
    args = parser.parse_args()
    args.anchors_dir = args.anchors_dir or args.home.parent
    print(json.dumps(asyncio.run(run(args)), indent=2))


if __name__ == "__main__":
    main()
