"""recall@8 of the answer's numbered context alone (no answering, no claims).

Builds each answerable item's context as the ask flow does
(``marginalia.answer.service.retrieve``; a follow-up resolved offline with its parent's
question as history, without the parent answer's papers) on a workspace kept by
``marginalia eval qa --keep``, and prints one JSON line: recall over all answerable items,
first questions and follow-ups ``[hits, n]``, how many were routed to a wiki page,
seconds, and the missed ids. Retrieval settings come from
the environment, so variants are compared like this:

    MARGINALIA_RETRIEVAL__PRF_DOCS=3 uv run --frozen python eval/qa/context_recall.py \\
        --set eval/qa/dev.jsonl --workspace <kept id> [--split fit|eval]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

from marginalia.answer import followup, service
from marginalia.evaluation.qa import open_eval_runtime, reuse_workspace
from marginalia.evaluation.qa_scoring import contains_quote, load_qa_set, split_items
from marginalia.llm import ChatMessage


async def context_recall(set_path: str, workspace: str, split: str = "all") -> dict[str, object]:
    items = load_qa_set(set_path)
    by_id = {it.id: it for it in items}
    answerable = [it for it in split_items(items, split) if it.answerable]  # type: ignore[arg-type]
    rt = await open_eval_runtime()
    try:
        ws = await reuse_workspace(rt, workspace)
        hits = {"first": [0, 0], "follow_ups": [0, 0]}
        wiki, missed = 0, []
        started = time.perf_counter()
        for it in answerable:
            history = None
            if it.follow_up_of:
                history = [
                    ChatMessage(role="user", content=by_id[it.follow_up_of].question),
                    ChatMessage(role="assistant", content=""),
                ]
            ctx = await service.retrieve(
                rt,
                workspace_id=ws.workspace_id,
                question=it.question,
                history=history,
                resolved=followup.resolve_followup(it.question, history),
            )
            wiki += ctx.route == "wiki"
            ok = any(contains_quote(p.text, g) for p in ctx.passages[:8] for g in it.gold_quotes)
            kind = "follow_ups" if it.follow_up_of else "first"
            hits[kind][0] += ok
            hits[kind][1] += 1
            if not ok:
                missed.append(it.id)
        k = hits["first"][0] + hits["follow_ups"][0]
        return {
            "recall@8": f"{k}/{len(answerable)}",
            **hits,
            "wiki_routed": wiki,
            "seconds": round(time.perf_counter() - started, 1),
            "missed": missed,
        }
    finally:
        await rt.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", required=True)
    ap.add_argument("--workspace", required=True)
    ap.add_argument("--split", default="all", choices=["all", "fit", "eval"])
    args = ap.parse_args()
    print(json.dumps(asyncio.run(context_recall(args.set, args.workspace, args.split))))


if __name__ == "__main__":
    main()
