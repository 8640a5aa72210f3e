"""Check the bibliography floors of issue 13 on the 9 shared PDFs, end to end.

Ingests every PDF of ``--docs`` into a new workspace of a throwaway home (the real ingest
pipeline, then the knowledge update of each source, offline), then compares with
``--gold`` (eval/concepts/bibliography_gold.json):

- **cites**: the workspace's paper -> paper ``cites`` edges (the canvas graph) against
  the gold pairs — every gold pair found, none invented;
- **BibTeX**: the workspace export, parsed back — a year for every paper (the gold year),
  the DOI for every paper that prints its own, the gold entry type.

    uv run --frozen python eval/bibliography.py [--json]

Exit status 1 when a floor is missed (each miss is printed).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


async def run(gold_path: Path, docs: Path) -> dict[str, Any]:
    import bibtexparser

    from marginalia.config import get_settings
    from marginalia.ingest.pipeline import ingest_document
    from marginalia.knowledge.read import graph_view
    from marginalia.knowledge.update import update_for_source
    from marginalia.runtime import open_runtime
    from marginalia.usecases.research import export_bibtex
    from marginalia.usecases.workspaces import create_workspace

    gold = json.loads(gold_path.read_text())
    documents: dict[str, Any] = gold["documents"]
    rt = await open_runtime(get_settings())
    try:
        ws = await create_workspace(rt, name=f"bibliography-{uuid.uuid4().hex[:6]}")
        file_of: dict[uuid.UUID, str] = {}
        started = time.perf_counter()
        for name in sorted(documents):
            data = (docs / name).read_bytes()
            outcome = await ingest_document(rt, ws.id, data=data, filename=name)
            await update_for_source(rt, ws.id, outcome.source_id)
            file_of[outcome.source_id] = name
        seconds = time.perf_counter() - started

        graph = await graph_view(rt, ws.id)
        found = {
            (file_of[uuid.UUID(e.source[7:])], file_of[uuid.UUID(e.target[7:])])
            for e in graph.edges
            if e.type == "cites" and e.source.startswith("source:")
        }
        expected = {(c["from"], c["to"]) for c in gold["cites"]}

        entries = bibtexparser.loads(await export_bibtex(rt, ws.id)).entries
        by_title = {" ".join(e.get("title", "").split()).lower(): e for e in entries}
        bib: dict[str, dict[str, Any]] = {}
        for name, g in documents.items():
            entry = by_title.get(" ".join(g["title"].split()).lower(), {})
            printed = (g.get("doi_printed") or {}).get("doi")
            bib[name] = {
                "type": entry.get("ENTRYTYPE"),
                "year": entry.get("year"),
                "doi": entry.get("doi"),
                "type_ok": entry.get("ENTRYTYPE") == g["entry_type"],
                "year_ok": entry.get("year") == str(g["year"]),
                "doi_ok": (entry.get("doi") or "").lower() == (printed or "").lower(),
            }
    finally:
        await rt.close()

    misses: list[str] = []
    misses += [f"cites edge not found: {a} -> {b}" for a, b in sorted(expected - found)]
    misses += [f"cites edge invented: {a} -> {b}" for a, b in sorted(found - expected)]
    for name, row in sorted(bib.items()):
        for key in ("year", "doi", "type"):
            if not row[f"{key}_ok"]:
                misses.append(f"BibTeX {key} of {name}: {row[key]!r}")
    return {
        "documents": len(documents),
        "ingest_and_knowledge_s": round(seconds, 1),
        "cites_expected": sorted(f"{a} -> {b}" for a, b in expected),
        "cites_found": sorted(f"{a} -> {b}" for a, b in found),
        "cites_recall": len(expected & found) / len(expected) if expected else 1.0,
        "cites_invented": len(found - expected),
        "bibtex_year": sum(r["year_ok"] for r in bib.values()),
        "bibtex_doi": sum(r["doi_ok"] for r in bib.values()),
        "bibtex_type": sum(r["type_ok"] for r in bib.values()),
        "bibtex": bib,
        "misses": misses,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--gold", type=Path, default=ROOT / "eval" / "concepts" / "bibliography_gold.json"
    )
    parser.add_argument("--docs", type=Path, default=ROOT.parent / "shared" / "data" / "pdfs")
    parser.add_argument("--json", action="store_true", help="print the whole report as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="marginalia-bib-") as home:
        os.environ.setdefault("MARGINALIA_HOME", home)
        os.environ.setdefault("MARGINALIA_LLM__PROVIDER", "offline")
        report = asyncio.run(run(args.gold, args.docs))
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        n = report["documents"]
        print(
            f"{n} documents ingested with the knowledge update in {report['ingest_and_knowledge_s']} s"
        )
        print(
            f"cites: {len(report['cites_found'])} found, recall {report['cites_recall']:.2f} "
            f"of {len(report['cites_expected'])}, {report['cites_invented']} invented"
        )
        for edge in report["cites_found"]:
            print(f"  {edge}")
        print(
            f"BibTeX: year {report['bibtex_year']}/{n}, DOI as printed {report['bibtex_doi']}/{n}, "
            f"entry type {report['bibtex_type']}/{n}"
        )
        for miss in report["misses"]:
            print(f"MISS {miss}")
    sys.exit(1 if report["misses"] else 0)


if __name__ == "__main__":
    main()
