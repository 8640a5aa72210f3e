"""Which sentence of the answer's context comes first: today's support score against a
cross-encoder (``--model-dir``), scored as the share of answerable items whose top 3
sentences include one that overlaps a gold quote (the QA eval's overlap rule,
``marginalia.evaluation.qa_scoring.quotes_overlap``), with Wilson 95% intervals.

Contexts are built exactly as the ask flow builds them (``answer.service.retrieve``; a
follow-up with its parent's question as history) on a workspace kept by
``marginalia eval qa --keep``; the candidate sentences and their support are those of
``answer.offline.score_sentences`` (the same inputs ``answer_from_context`` reads). Three
orders of the same candidates are compared (and a fourth, their parameter-free
reciprocal rank fusion ``rrf_claim_rank_cross_encoder``, k 60): ``support`` (the evidence signal),
``claim_rank`` (support + the expected-type bonus + the passage prior: how claims are
ordered today) and ``cross_encoder`` (the model's logit for (question, sentence); for a
follow-up the question with its history terms, as retrieval reads it). Also reported:
how many items have a gold sentence among the candidates at all (the ceiling), and the
cross-encoder's scoring time per item with the sentence count.

Retrieval's own rerank follows the settings (``MARGINALIA_RETRIEVAL__RERANK_MODEL_DIR``), so the
sentence orders are compared on today's contexts (rerank off) or on the reranked ones.
Prints one JSON object (aggregates only).

    MARGINALIA_HOME=... uv run --frozen python eval/reranker/sentence_ranking.py \\
        --set eval/qa/dev.jsonl --split eval --workspace <kept id> \\
        --model-dir backend/marginalia/retrieval/models/marginalia-answer-ce
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

from marginalia.answer import gate, offline, service
from marginalia.evaluation.qa import open_eval_runtime, reuse_workspace
from marginalia.evaluation.qa_scoring import load_qa_set, quotes_overlap, split_items
from marginalia.evaluation.stats import rate
from marginalia.llm import ChatMessage
from marginalia.retrieval.rerank import OnnxCrossEncoder

TOP = 3
ORDERS = ("support", "claim_rank", "cross_encoder", "rrf_claim_rank_cross_encoder")
#: Reciprocal rank fusion's usual k (not fitted): the parameter-free way to combine two orders.
RRF_K = 60


def rrf(*orders: list[str]) -> list[str]:
    score: dict[str, float] = {}
    for order in orders:
        for rank, text in enumerate(order, start=1):
            score[text] = score.get(text, 0.0) + 1.0 / (RRF_K + rank)
    return sorted(score, key=lambda t: -score[t])


def _hit(sentences: list[str], gold: list[str]) -> bool:
    return any(quotes_overlap(s, g) for s in sentences[:TOP] for g in gold)


async def sentence_ranking(
    set_path: str, workspace: str, model_dir: Path, split: str = "all"
) -> dict[str, Any]:
    items = load_qa_set(set_path)
    by_id = {it.id: it for it in items}
    answerable = [it for it in split_items(items, split) if it.answerable]  # type: ignore[arg-type]
    scorer = OnnxCrossEncoder(model_dir)
    rt = await open_eval_runtime()
    hits: dict[str, dict[str, list[int]]] = {
        o: {"first": [0, 0], "follow_ups": [0, 0]} for o in (*ORDERS, "ceiling")
    }
    timings: list[float] = []
    counts: list[int] = []
    try:
        ws = await reuse_workspace(rt, workspace)
        for it in answerable:
            history = None
            if it.follow_up_of:
                history = [
                    ChatMessage(role="user", content=by_id[it.follow_up_of].question),
                    ChatMessage(role="assistant", content=""),
                ]
            ctx = await service.retrieve(
                rt, workspace_id=ws.workspace_id, question=it.question, history=history
            )
            resolved = ctx.resolved_query is not None and ctx.resolved_vector is not None
            query = ctx.resolved_query if resolved and ctx.resolved_query else ctx.query
            inputs = await offline.pg_answer_inputs(
                rt.db,
                ctx.scope.workspace_id,
                query=query,
                question=it.question,
                salient=gate.salient_terms(it.question),
                chunk_ids=[p.chunk_id for p in ctx.passages if p.chunk_id is not None],
            )
            scored = await offline.score_sentences(
                query=query,
                query_vector=ctx.resolved_vector
                if resolved and ctx.resolved_vector is not None
                else ctx.query_vector,
                passages=ctx.passages,
                embedder=rt.embedder,
                lexer=inputs.lexer(offline.pg_lexer(rt.db)),
                idf=inputs.idf(),
                question=it.question,
                stored=inputs.stored,
            )
            texts = [s.text for s in scored]
            started = time.perf_counter()
            logits = await asyncio.to_thread(scorer.score, query, texts) if texts else []
            timings.append((time.perf_counter() - started) * 1000)
            counts.append(len(texts))
            ranked = {
                "support": texts,
                "claim_rank": [
                    s.text
                    for s in sorted(
                        scored, key=lambda s: (-offline.claim_rank(s), s.passage_n, s.start)
                    )
                ],
                "cross_encoder": [
                    t for _, t in sorted(zip(logits, texts, strict=True), key=lambda p: -p[0])
                ],
                "ceiling": texts,
            }
            ranked["rrf_claim_rank_cross_encoder"] = rrf(
                ranked["claim_rank"], ranked["cross_encoder"]
            )
            kind = "follow_ups" if it.follow_up_of else "first"
            for order, sentences in ranked.items():
                ok = (
                    any(quotes_overlap(s, g) for s in sentences for g in it.gold_quotes)
                    if order == "ceiling"
                    else _hit(sentences, it.gold_quotes)
                )
                hits[order][kind][0] += ok
                hits[order][kind][1] += 1
    finally:
        await rt.close()
    out: dict[str, Any] = {
        "set": set_path,
        "split": split,
        "model": str(model_dir),
        "rerank_model_dir": str(rt.settings.retrieval.rerank_model_dir),
    }
    for order, kinds in hits.items():
        k = kinds["first"][0] + kinds["follow_ups"][0]
        n = kinds["first"][1] + kinds["follow_ups"][1]
        name = "gold_among_candidates" if order == "ceiling" else f"evidence@{TOP}:{order}"
        out[name] = {**rate(k, n), "first": kinds["first"], "follow_ups": kinds["follow_ups"]}
    out["cross_encoder_ms"] = {
        "p50": round(statistics.median(timings), 1) if timings else None,
        "max": round(max(timings), 1) if timings else None,
        "sentences_p50": statistics.median(counts) if counts else None,
        "sentences_max": max(counts) if counts else None,
    }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", required=True)
    ap.add_argument("--workspace", required=True)
    ap.add_argument("--model-dir", type=Path, required=True)
    ap.add_argument("--split", default="all", choices=["all", "fit", "eval"])
    args = ap.parse_args()
    report = asyncio.run(sentence_ranking(args.set, args.workspace, args.model_dir, args.split))
    print(json.dumps(report))


if __name__ == "__main__":
    main()
