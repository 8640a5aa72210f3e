"""Record what the offline concept extractor reads for a set's documents once, then replay
the extractor on it in seconds — the loop for changing concept extraction.

    uv run --frozen python eval/concepts/replay.py record --set eval/concepts/gold.jsonl \
        --docs ../shared/data/pdfs --out /tmp/gold.inputs.pickle
    uv run --frozen python eval/concepts/replay.py score --set eval/concepts/gold.jsonl \
        --inputs /tmp/gold.inputs.pickle [--show]

``record`` ingests each document into a throwaway workspace exactly as ``marginalia eval
concepts`` does (parse, chunk, embed, knowledge update) and keeps the title, abstract and
chunks the extraction was given. ``score`` runs ``extract_offline`` on them and scores its
ranked concepts with the eval's own ``score_doc``. The order is the extractor's; the
command reads the stored order (link weight, then workspace centrality), so the two can
differ on ties — confirm a change with the command. Recordings go outside the
repository; never score a held-out set here while tuning (docs/EVAL.md, protocol).
"""

from __future__ import annotations

import argparse
import asyncio
import pickle
import sys
import time
from pathlib import Path
from typing import Any

from marginalia.evaluation.concepts import (
    Predicted,
    aggregate,
    doc_files,
    load_gold,
    score_doc,
)
from marginalia.knowledge import llm_extraction
from marginalia.knowledge.concepts import merge_concepts, normalize_concept
from marginalia.knowledge.extraction import combined_acronyms, extract_offline

Inputs = dict[str, tuple[str | None, str | None, list[Any]]]


async def _record(files: list[Path]) -> Inputs:
    from marginalia.evaluation.qa import open_eval_runtime
    from marginalia.usecases import sources as sources_usecase
    from marginalia.usecases import workspaces as ws_usecase

    seen: Inputs = {}
    current = ""

    def recording(title: Any, abstract: Any, chunks: Any, **kw: Any) -> Any:
        seen[current] = (title, abstract, list(chunks))
        return extract_offline(title, abstract, chunks, **kw)

    llm_extraction.extract_offline = recording  # type: ignore[assignment]
    rt = await open_eval_runtime()
    try:
        ws = await ws_usecase.create_workspace(rt, name="concept-replay", description="replay")
        try:
            for path in files:  # one at a time, so each extraction is known by its file
                current = path.name
                await sources_usecase.add_documents(rt, ws.id, [(path.name, path.read_bytes)])
        finally:
            await ws_usecase.delete_workspace(rt, ws.id)
    finally:
        await rt.close()
    return seen


def ranked_concepts(title: str | None, abstract: str | None, chunks: list[Any]) -> list[Predicted]:
    """The extractor's concepts in its order, each with the aliases the merge gives it (an
    acronym and its long form are one concept, as stored)."""
    ex = extract_offline(title, abstract, chunks)
    merged = merge_concepts({"source": list(ex.concepts)}, combined_acronyms([ex])).concepts
    by_key = {normalize_concept(f): c for c in merged for f in (c.name, *c.aliases)}
    out: list[Predicted] = []
    taken: set[str] = set()
    for item in ex.concepts:
        c = by_key.get(normalize_concept(item.name))
        if c is not None and c.slug not in taken:
            taken.add(c.slug)
            out.append(Predicted(c.name, c.level, tuple(c.aliases)))
    return out


def score(gold_path: Path, inputs: Inputs, show: bool) -> dict[str, Any]:
    gold = load_gold(gold_path)
    scores = []
    started = time.perf_counter()
    for g in gold:
        title, abstract, chunks = inputs[g.doc]
        s = score_doc(g, ranked_concepts(title, abstract, chunks))
        scores.append(s)
        if show:
            print(f"{g.doc}: {s.hits_at_k}/{s.k_shown}  {' | '.join(s.top)}")
    metrics = aggregate(scores)
    print(
        "  ".join(f"{k} {v['value']:.3f} ({v['k']}/{v['n']})" for k, v in metrics.items()),
        f"  [{time.perf_counter() - started:.1f} s]",
    )
    return metrics


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("record", "score"))
    parser.add_argument("--set", type=Path, required=True, dest="gold")
    parser.add_argument("--docs", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--inputs", type=Path)
    parser.add_argument("--show", action="store_true", help="print each document's top 10")
    args = parser.parse_args(argv)
    if args.command == "record":
        if args.docs is None or args.out is None:
            print("record needs --docs and --out", file=sys.stderr)
            return 2
        files = doc_files(load_gold(args.gold), args.docs)
        args.out.write_bytes(pickle.dumps(asyncio.run(_record(files))))
        print(f"{len(files)} documents recorded to {args.out}")
        return 0
    if args.inputs is None:
        print("score needs --inputs", file=sys.stderr)
        return 2
    score(args.gold, pickle.loads(args.inputs.read_bytes()), args.show)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
