"""Replay the rerank stage on a kept BEIR workspace for several blends of the fused score
and a cross-encoder's score, without re-running retrieval per blend: nDCG@10 per blend
on a list of query ids (``--query-ids``), so a blend can be chosen on one list (the
validation queries) and reported on another (the held-out ones).

For each query: ``hybrid_search`` with rerank off (the fused order, k = the rerank
depth), the model's logit for each of those chunks, then for each weight w the head is
ordered by ``w · z(logit) + (1 − w) · z(fused score)`` (z: standardised over the head),
w = 1 being the cross-encoder alone and w = 0 the fusion. Prints one JSON object.

    MARGINALIA_HOME=... uv run --frozen python eval/reranker/rerank_replay.py \\
        --beir ../shared/data/scifact --workspace <kept id> \\
        --query-ids eval/reranker/scifact_valid.txt --model-dir <folder>
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from marginalia.evaluation.qa import open_eval_runtime
from marginalia.evaluation.retrieval import (
    _mean_ci,
    dedupe_docs,
    ndcg_at,
    read_query_ids,
    select_queries,
)
from marginalia.retrieval import hybrid_search
from marginalia.retrieval.beir import chunk_to_doc, load_qrels, load_queries
from marginalia.retrieval.hybrid import DEFAULT_RERANK_DEPTH
from marginalia.retrieval.rerank import OnnxCrossEncoder
from marginalia.usecases.workspaces import find_workspace

WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0)


def _z(values: list[float]) -> np.ndarray:
    arr = np.asarray(values, dtype=np.float64)
    sd = float(arr.std())
    return (arr - arr.mean()) / sd if sd > 0 else arr * 0.0


async def replay(beir: Path, workspace: str, ids_file: Path, model_dir: Path) -> dict[str, Any]:
    qrels = select_queries(load_qrels(beir, "train"), read_query_ids(ids_file))
    queries = load_queries(beir)
    scorer = OnnxCrossEncoder(model_dir)
    rt = await open_eval_runtime()
    per_weight: dict[float, list[float]] = {w: [] for w in WEIGHTS}
    ms: list[float] = []
    try:
        ws = await find_workspace(rt, workspace)
        doc_of = await chunk_to_doc(rt, ws.id)
        for qid, rels in qrels.items():
            result = await hybrid_search(
                rt,
                workspace_id=ws.id,
                query=queries[qid],
                k=DEFAULT_RERANK_DEPTH,
                rerank=False,
            )
            hits = result.hits
            started = time.perf_counter()
            logits = await asyncio.to_thread(scorer.score, queries[qid], [h.text for h in hits])
            ms.append((time.perf_counter() - started) * 1000)
            zl, zf = _z(logits), _z([h.score for h in hits])
            for w in WEIGHTS:
                blend = w * zl + (1 - w) * zf
                order = [hits[i].chunk_id for i in np.argsort(-blend, kind="stable")]
                per_weight[w].append(ndcg_at(dedupe_docs(order, doc_of), rels, 10))
    finally:
        await rt.close()
    return {
        "query_ids": str(ids_file),
        "queries": len(qrels),
        "model": str(model_dir),
        "ndcg@10": {
            ("fusion" if w == 0 else "cross_encoder" if w == 1 else f"blend_{w}"): {
                k: round(v, 4) for k, v in _mean_ci(vals).items() if k != "n"
            }
            for w, vals in per_weight.items()
        },
        "rerank_ms_p50": round(float(np.median(ms)), 1) if ms else None,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--beir", type=Path, required=True)
    ap.add_argument("--workspace", required=True)
    ap.add_argument("--query-ids", type=Path, required=True)
    ap.add_argument("--model-dir", type=Path, required=True)
    args = ap.parse_args()
    print(
        json.dumps(asyncio.run(replay(args.beir, args.workspace, args.query_ids, args.model_dir)))
    )


if __name__ == "__main__":
    main()
