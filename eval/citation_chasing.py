"""Citation chasing on the unarXive papers (issue 36): do the references the product
lists for a paper match the paper's ``bib_entries`` that resolve to catalog records?

The catalog is the shared one (ACL 2020 + the 49 unarXive papers). For each unarXive
paper, as a catalog-imported source holds it (its ``bib_entries`` are its record's
references), the product's resolver
(:func:`marginalia.discovery.citation_graph.resolve_into`, what
``GET /api/sources/{id}/references`` runs) lists the known works it cites.

The gold is computed here independently, from the raw data only: a bib entry resolves
to a catalog record when the entry's DOI or arXiv id equals the record's, or the record's
title (letters and digits only, at least 20 of them) appears in the entry's raw text.

Reported: gold entries, listed works, recall (gold listed), invented (listed, not gold).
Floor: recall >= 0.9 and 0 invented.

Usage: uv run --frozen python eval/citation_chasing.py [--catalog DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "backend"))

from marginalia.discovery.citation_graph import (  # noqa: E402
    CatalogIndex,
    WorkList,
    resolve_into,
)
from marginalia.knowledge.citations import references_from_metadata  # noqa: E402
from marginalia.sources.catalog import load_catalog  # noqa: E402

CATALOG = ROOT.parent / "shared" / "data" / "catalog"


def _compact(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def gold_for(entries: dict[str, Any], records: list[dict[str, str]], own: str) -> set[str]:
    """Catalog record keys (``doi``/``arxiv``/``title``) the raw bib entries name."""
    found: set[str] = set()
    for entry in entries.values():
        ids = entry.get("ids") or {}
        doi = (ids.get("doi") or "").lower()
        arxiv = ids.get("arxiv_id") or ""
        raw = _compact(entry.get("bib_entry_raw") or "")
        for r in records:
            if r["key"] == own:
                continue
            by_id = (doi and doi == r["doi"]) or (arxiv and arxiv == r["arxiv"])
            by_title = len(r["title"]) >= 20 and r["title"] in raw
            if by_id or by_title:
                found.add(r["key"])
    return found


def evaluate(catalog_dir: Path) -> dict[str, Any]:
    candidates = load_catalog(catalog_dir)
    index = CatalogIndex(candidates)
    records = [
        {
            "key": str(c.source_id or c.title),
            "doi": (c.doi or "").lower(),
            "arxiv": c.arxiv_id or "",
            "title": _compact(c.title),
        }
        for c in candidates
    ]
    papers: list[dict[str, Any]] = []
    for path in sorted(catalog_dir.rglob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if "bib_entries" in row and "metadata" in row:
                papers.append(row)
    per_paper = []
    gold_total = listed_total = hit_total = invented_total = entries_total = 0
    for paper in papers:
        own = str(paper["metadata"]["id"])
        me = next(c for c in candidates if c.source_id == own)
        gold = gold_for(paper["bib_entries"], records, own)
        refs = references_from_metadata([r.model_dump() for r in me.references])
        out = WorkList([])
        source_id = uuid.uuid5(uuid.NAMESPACE_URL, own)
        resolve_into(out, refs, lambda r: "catalog", index, source_id)
        listed = {str(w.catalog_id or w.title) for w in out.works.values()}
        hits = listed & gold
        entries_total += len(paper["bib_entries"])
        gold_total += len(gold)
        listed_total += len(listed)
        hit_total += len(hits)
        invented_total += len(listed - gold)
        if gold or listed:
            per_paper.append(
                {
                    "paper": own,
                    "gold": sorted(gold),
                    "listed": sorted(listed),
                    "missed": sorted(gold - listed),
                    "invented": sorted(listed - gold),
                }
            )
    recall = hit_total / gold_total if gold_total else None
    return {
        "catalog_records": len(candidates),
        "papers": len(papers),
        "bib_entries": entries_total,
        "gold": gold_total,
        "listed": listed_total,
        "recall": recall,
        "invented": invented_total,
        "floor_met": recall is not None and recall >= 0.9 and invented_total == 0,
        "per_paper": per_paper,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, default=CATALOG)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.catalog.exists():
        sys.exit(f"no catalog at {args.catalog}")
    result = evaluate(args.catalog)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(
        f"catalog {result['catalog_records']} records; {result['papers']} unarXive papers, "
        f"{result['bib_entries']} bib entries"
    )
    print(
        f"gold (entries resolving to a catalog record) {result['gold']}; listed "
        f"{result['listed']}; recall {result['recall']}; invented {result['invented']}; "
        f"floor {'met' if result['floor_met'] else 'NOT met'}"
    )
    for p in result["per_paper"]:
        print(f"  {p['paper']}: gold {p['gold']} listed {p['listed']}")


if __name__ == "__main__":
    main()
