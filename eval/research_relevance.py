"""Research relevance over the ACL 2020 catalog (issue 36): precision@10 and recall@20 of
the research selection against the blind gold (eval/research/research-topics.jsonl, written
by someone who never saw the ranker), before and after relevance ranking.

The selection is reproduced as a research run makes it offline, without the database:
the topic → the offline decomposition's queries → the catalog's BM25 search per query
(``--per-query`` results each; the run's setting ``sources.max_results_per_query``,
default 10) → candidates in the run's order (round-robin over the queries' result
lists, duplicates by title dropped).

* before: that order, cut at 10 / 20 (what the pipeline selected before issue 36);
* after: as the pipeline does now — the catalog asked for ``CATALOG_POOL_FACTOR`` times
  as many results per query, that pool ranked by
  :func:`marginalia.discovery.relevance.rank_candidates` (description similarity + BM25
  of the description; a new workspace has no sources).

The weights of the ranker were set on the ``dev`` topics only; ``heldout`` is the
figure reported. Floor: precision@10 >= 0.7.

Usage: uv run --frozen python eval/research_relevance.py [--per-query 10] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "backend"))

from marginalia.discovery.decompose import offline_queries  # noqa: E402
from marginalia.discovery.relevance import rank_candidates  # noqa: E402
from marginalia.discovery.search_stage import CATALOG_POOL_FACTOR  # noqa: E402
from marginalia.sources.candidate import Candidate  # noqa: E402
from marginalia.sources.catalog import CatalogSource, load_catalog  # noqa: E402

CATALOG = ROOT.parent / "shared" / "data" / "catalog" / "acl2020" / "papers.jsonl"
GOLD = Path(__file__).with_name("research") / "research-topics.jsonl"


def _compact(title: str) -> str:
    return re.sub(r"[^a-z0-9]", "", title.lower())


async def pool_for(catalog: CatalogSource, topic: str, per_query: int) -> list[Candidate]:
    """The candidates in the order the pipeline selects from (round-robin, deduplicated)."""
    lists = [await catalog.search(q, limit=per_query) for q in offline_queries(topic)]
    ordered: list[Candidate] = []
    seen: set[str] = set()
    for i in range(max((len(x) for x in lists), default=0)):
        for found in lists:
            if i < len(found) and _compact(found[i].title) not in seen:
                seen.add(_compact(found[i].title))
                ordered.append(found[i])
    return ordered


def _scores(selected: list[str], relevant: set[str]) -> dict[str, float]:
    return {
        "p@10": sum(1 for s in selected[:10] if s in relevant) / 10,
        "r@20": sum(1 for s in selected[:20] if s in relevant) / max(1, len(relevant)),
    }


async def evaluate(gold: Path, per_query: int, embedder: Any) -> dict[str, Any]:
    catalog = CatalogSource(load_catalog(CATALOG))
    topics = [json.loads(line) for line in gold.read_text().splitlines() if line.strip()]
    rows = []
    for t in topics:
        relevant = {r["id"] for r in t["relevant"]}
        before = [str(c.source_id) for c in await pool_for(catalog, t["topic"], per_query)]
        pool = await pool_for(catalog, t["topic"], per_query * CATALOG_POOL_FACTOR)
        ranked = await rank_candidates(embedder, t["topic"], pool)
        after = [str(pool[r.index].source_id) for r in ranked]
        rows.append(
            {
                "topic": t["id"],
                "split": t["split"],
                "relevant": len(relevant),
                "pool": len(pool),
                "pool_relevant": sum(1 for c in pool if str(c.source_id) in relevant),
                "before": _scores(before, relevant),
                "after": _scores(after, relevant),
                "why_top": ranked[0].why if ranked else None,
            }
        )
    summary: dict[str, Any] = {}
    for split in ("dev", "heldout"):
        part = [r for r in rows if r["split"] == split]
        if part:
            summary[split] = {
                when: {
                    k: round(statistics.fmean(r[when][k] for r in part), 3)
                    for k in ("p@10", "r@20")
                }
                for when in ("before", "after")
            }
    return {"per_query": per_query, "topics": rows, "mean": summary}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gold", type=Path, default=GOLD)
    parser.add_argument("--per-query", type=int, default=10)
    parser.add_argument("--lexical-only", action="store_true", help="no embedding model")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.gold.is_file():
        sys.exit(f"no gold at {args.gold}")
    embedder = None
    if not args.lexical_only:
        from marginalia.config import get_settings
        from marginalia.embed.fastembed_model import FastEmbedEmbedder

        settings = get_settings()
        embedder = FastEmbedEmbedder.from_settings(settings.embedding, settings.models_dir)
    result = asyncio.run(evaluate(args.gold, args.per_query, embedder))
    if args.json:
        print(json.dumps(result, indent=2))
        return
    for r in result["topics"]:
        print(
            f"{r['split']:<8} {r['topic']:<32} pool {r['pool']:>3} (relevant {r['pool_relevant']:>2}/"
            f"{r['relevant']:>2})  before p@10 {r['before']['p@10']:.1f} r@20 {r['before']['r@20']:.2f}"
            f"  after p@10 {r['after']['p@10']:.1f} r@20 {r['after']['r@20']:.2f}"
        )
    for split, m in result["mean"].items():
        print(f"mean {split}: before {m['before']}  after {m['after']}")


if __name__ == "__main__":
    main()
