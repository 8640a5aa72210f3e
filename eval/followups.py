"""Follow-up pairs: the follow-up asked raw, resolved, and the first questions (issue 32).

Each pair of a follow-up set (``eval/qa/followups-dev.jsonl``: a first question and a
follow-up with ``follow_up_of``) is asked through the ask use case
(:func:`marginalia.usecases.ask.answer`, ``save=False``), as the web app's conversation
asks it:

- **first**: the first question, no history;
- **raw**: the follow-up as written, no history (what happened before issue 32);
- **terms**: the follow-up after the first turn, resolved offline with the previous
  question's terms only (no paper leg): the history a stored conversation gives,
  without the previous answer's papers;
- **resolved**: the follow-up after the first turn with the previous answer's papers too,
  exactly as a stored conversation resolves it
  (:func:`marginalia.answer.followup.previous_turn` of the stored answer).

For each it reports recall@8 (a gold quote inside one of the first 8 numbered passages),
evidence@3 (one of the 3 best-supported sentences overlaps a gold quote,
:func:`marginalia.evaluation.qa_scoring.quotes_overlap`), answered (not refused) and
answered with a gold-overlapping claim, with Wilson intervals, plus how many follow-ups
the offline detector resolved. The workspace is one kept by ``marginalia eval qa --keep``
(or any workspace holding the set's documents), by id or name:

    uv run --frozen python eval/followups.py --set eval/qa/followups-dev.jsonl \\
        --workspace <kept id> [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections.abc import Awaitable, Mapping, Sequence
from typing import Any

from marginalia.answer import followup
from marginalia.answer.schemas import Answer
from marginalia.evaluation.qa import open_eval_runtime, reuse_workspace
from marginalia.evaluation.qa_scoring import QAItem, contains_quote, load_qa_set, quotes_overlap
from marginalia.evaluation.stats import rate
from marginalia.llm import ChatMessage
from marginalia.runtime import Runtime
from marginalia.usecases import ask

CONDITIONS = ("first", "raw", "terms", "resolved")


def recall_at_8(answer: Answer, gold: Sequence[str]) -> bool:
    return any(contains_quote(p.text, g) for p in answer.passages[:8] for g in gold)


def evidence_at_3(answer: Answer, gold: Sequence[str]) -> bool:
    top = answer.trace.get("evidence", {}).get("top_sentences", [])[:3]
    return any(quotes_overlap(s["text"], g) for s in top for g in gold)


def faithful(answer: Answer, gold: Sequence[str]) -> bool:
    return not answer.refused and any(
        c.quote and quotes_overlap(c.quote, g) for c in answer.claims for g in gold
    )


def outcome(answer: Answer, gold: Sequence[str]) -> dict[str, Any]:
    return {
        "recall@8": recall_at_8(answer, gold),
        "evidence@3": evidence_at_3(answer, gold),
        "answered": not answer.refused,
        "faithful": faithful(answer, gold),
        "resolved_question": answer.resolved_question,
    }


async def timed(coro: Awaitable[Answer], into: dict[str, float], key: str) -> Answer:
    started = time.perf_counter()
    answer = await coro
    into[key] = time.perf_counter() - started
    return answer


async def run_pair(rt: Runtime, ws: Any, first: QAItem, follow: QAItem) -> dict[str, Any]:
    seconds: dict[str, float] = {}
    a1 = await timed(ask.answer(rt, question=first.question, workspace_id=ws), seconds, "first")
    history = [
        ChatMessage(role="user", content=first.question),
        ChatMessage(role="assistant", content=a1.text if not a1.refused else a1.refusal or ""),
    ]
    papers = followup.turn_of(a1).paper_ids
    raw = await timed(ask.answer(rt, question=follow.question, workspace_id=ws), seconds, "raw")
    terms = await timed(
        ask.answer(
            rt,
            question=follow.question,
            workspace_id=ws,
            history=history,
            previous_turn=followup.PreviousTurn(first.question, ()),
        ),
        seconds,
        "terms",
    )
    resolved = await timed(
        ask.answer(
            rt,
            question=follow.question,
            workspace_id=ws,
            history=history,
            previous_turn=followup.PreviousTurn(first.question, papers),
        ),
        seconds,
        "resolved",
    )
    return {
        "first_id": first.id,
        "id": follow.id,
        "question": follow.question,
        "papers_carried": len(papers),
        "first": outcome(a1, first.gold_quotes),
        "raw": outcome(raw, follow.gold_quotes),
        "terms": outcome(terms, follow.gold_quotes),
        "resolved": outcome(resolved, follow.gold_quotes),
        "seconds": seconds,
    }


def summarise(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    out: dict[str, Any] = {"pairs": n}
    for cond in CONDITIONS:
        out[cond] = {
            metric: rate(sum(bool(r[cond][metric]) for r in rows), n)
            for metric in ("recall@8", "evidence@3", "answered", "faithful")
        }
    out["detected"] = sum(r["resolved"]["resolved_question"] is not None for r in rows)
    out["p50_seconds"] = {
        cond: round(statistics.median(r["seconds"][cond] for r in rows), 3) if rows else None
        for cond in CONDITIONS
    }
    return out


async def evaluate(set_path: str, workspace: str) -> dict[str, Any]:
    items = load_qa_set(set_path)
    by_id = {it.id: it for it in items}
    pairs = [(by_id[it.follow_up_of], it) for it in items if it.follow_up_of]
    rt = await open_eval_runtime()
    try:
        ws = await reuse_workspace(rt, workspace)
        started = time.perf_counter()
        rows = [await run_pair(rt, ws.workspace_id, a, b) for a, b in pairs]
        return {
            "set": set_path,
            "summary": summarise(rows),
            "seconds": round(time.perf_counter() - started, 1),
            "items": rows,
        }
    finally:
        await rt.close()


def _fmt(r: Mapping[str, Any]) -> str:
    lo, hi = r["ci95"] or (0.0, 1.0)
    return f"{r['k']}/{r['n']} = {r['value']:.2f} [{lo:.2f}, {hi:.2f}]"


def render(report: Mapping[str, Any]) -> str:
    s = report["summary"]
    lines = [
        f"{report['set']}: {s['pairs']} pairs, {s['detected']} follow-ups resolved, "
        f"{report['seconds']} s",
        "| asked | recall@8 | evidence@3 | answered | answered with a gold claim | p50 s |",
        "|---|---|---|---|---|---|",
    ]
    for cond in CONDITIONS:
        m = s[cond]
        lines.append(
            f"| {cond} | {_fmt(m['recall@8'])} | {_fmt(m['evidence@3'])} | "
            f"{_fmt(m['answered'])} | {_fmt(m['faithful'])} | {s['p50_seconds'][cond]} |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--set", default="eval/qa/followups-dev.jsonl")
    ap.add_argument("--workspace", required=True, help="a kept workspace's id or name")
    ap.add_argument("--json", action="store_true", help="print the whole report as JSON")
    args = ap.parse_args()
    report = asyncio.run(evaluate(args.set, args.workspace))
    print(json.dumps(report, indent=1) if args.json else render(report))


if __name__ == "__main__":
    main()
