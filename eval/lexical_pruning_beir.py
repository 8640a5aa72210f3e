"""SciFact (or any BEIR folder) nDCG@10 of the lexical leg: exact BM25 against the pruned
leg at the default and at tighter pruning settings (issue 19, item 1).

    uv run python eval/lexical_pruning_beir.py --beir ../shared/data/scifact --json

The corpus goes in as one chunk per document (title + text, no model-window chunking)
through the product's bulk insert, so the triggers build the real index; vectors are a
constant unit vector (the lexical leg never reads them, nothing here embeds). Rankings
are of documents (one chunk each), scored with the qrels of ``--split``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

SETTINGS: dict[str, dict[str, Any]] = {
    "exact": {"exact": True},
    "pruned (default)": {},
    "pruned per_term 200, whole_budget 2000, candidates 100": {
        "per_term": 200,
        "whole_budget": 2000,
        "candidates": 100,
    },
    "pruned per_term 50, whole_budget 200, candidates 100": {
        "per_term": 50,
        "whole_budget": 200,
        "candidates": 100,
    },
}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from sqlalchemy import text

    from marginalia.config import Settings
    from marginalia.db.repositories import workspaces as workspaces_repo
    from marginalia.db.repositories.sources import NewChunk, NewSource, insert_sources
    from marginalia.evaluation.retrieval import ndcg_at
    from marginalia.retrieval.beir import load_corpus, load_qrels, load_queries
    from marginalia.retrieval.bm25 import BM25Params
    from marginalia.retrieval.legs import lexical_leg
    from marginalia.runtime import open_runtime

    home = Path(tempfile.mkdtemp(prefix="bench-lexical-beir-", dir=args.home_root))
    os.environ["MARGINALIA_HOME"] = str(home)
    rt = await open_runtime(Settings())
    try:
        dim = rt.settings.embedding.dim
        vector = np.zeros(dim, dtype=np.float32)
        vector[0] = 1.0
        docs = load_corpus(args.beir)
        async with rt.db.transaction() as session:
            ws = await workspaces_repo.create(session, name="lexical-beir", description="")
        for start in range(0, len(docs), 500):
            batch = [
                NewSource(
                    fields={
                        "kind": "text",
                        "origin": "beir",
                        "title": d.title[:200] or d.id,
                        "url": f"beir:{d.id}",
                        "content_hash": uuid.uuid4().hex,
                    },
                    pages=[],
                    chunks=[
                        NewChunk(0, d.full_text, "body", None, None, None, None, None, 300, vector)
                    ],
                )
                for d in docs[start : start + 500]
            ]
            async with rt.db.transaction() as session:
                await insert_sources(session, workspace_id=ws.id, sources=batch)
        async with rt.db.transaction() as session:
            await session.execute(text("ANALYZE"))
            rows = await session.execute(
                text(
                    "SELECT c.id, s.url FROM chunks c JOIN sources s ON s.id = c.source_id "
                    "WHERE c.workspace_id = :w"
                ),
                {"w": ws.id},
            )
            doc_of = {int(r[0]): str(r[1])[5:] for r in rows.all()}
        qrels = load_qrels(args.beir, args.split)
        queries = {q: t for q, t in load_queries(args.beir).items() if q in qrels}
        out: dict[str, Any] = {"documents": len(docs), "queries": len(queries), "split": args.split}
        for name, kw in SETTINGS.items():
            params = BM25Params(**kw)
            scores, ms = [], []
            for qid, query in queries.items():
                t = time.perf_counter()
                hit = await lexical_leg(
                    rt.db, workspace_id=ws.id, query=query, depth=100, params=params
                )
                ms.append((time.perf_counter() - t) * 1000)
                scores.append(ndcg_at([doc_of[h.chunk_id] for h in hit.hits], qrels[qid], 10))
            out[name] = {
                "ndcg@10": round(statistics.fmean(scores), 4),
                "p50_ms": round(statistics.median(ms), 1),
            }
        return out
    finally:
        await rt.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--beir", type=Path, default=ROOT.parent / "shared" / "data" / "scifact")
    parser.add_argument("--split", default="train")
    parser.add_argument("--home-root", default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = asyncio.run(run(args))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
