"""Does the QA eval's quote matcher work on the stored chunk text? (aggregate only)

For every gold quote of a set: is it a normalised substring of one chunk of a workspace
kept by ``marginalia eval qa --keep``, and does a sentence of that chunk overlap it by
the eval's rule (``quotes_overlap``)? Checks the instrument, reads no answer:

    uv run --frozen python eval/qa/gold_in_chunks.py --set eval/qa/test.jsonl --workspace <id>
"""

from __future__ import annotations

import argparse
import asyncio
import re

from sqlalchemy import text

from marginalia.evaluation.qa import open_eval_runtime, reuse_workspace
from marginalia.evaluation.qa_scoring import contains_quote, load_qa_set, quotes_overlap

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


async def check(set_path: str, workspace: str) -> str:
    items = [it for it in load_qa_set(set_path) if it.answerable]
    rt = await open_eval_runtime()
    try:
        ws = await reuse_workspace(rt, workspace)
        async with rt.db.session() as session:
            rows = await session.execute(
                text("SELECT text FROM chunks WHERE workspace_id = :w"), {"w": ws.workspace_id}
            )
            chunks = [str(r[0]) for r in rows.all()]
    finally:
        await rt.close()
    n = inside = overlapped = 0
    for it in items:
        for gold in it.gold_quotes:
            n += 1
            holding = [c for c in chunks if contains_quote(c, gold)]
            inside += bool(holding)
            overlapped += any(
                quotes_overlap(s, gold) for c in holding for s in _SENTENCE_END.split(c)
            )
    return (
        f"gold quotes {n}; inside one chunk {inside}; "
        f"a sentence of that chunk overlaps it {overlapped}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", required=True)
    ap.add_argument("--workspace", required=True)
    args = ap.parse_args()
    print(asyncio.run(check(args.set, args.workspace)))


if __name__ == "__main__":
    main()
