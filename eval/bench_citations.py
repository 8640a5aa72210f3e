"""How the citation step of the knowledge update grows with the workspace (issue 13, item 3).

Builds one workspace of real ACL 2020 catalog titles (``../shared/data/catalog/acl2020``)
in a throwaway home: each source is one page whose reference list has 40 entries — 36
catalog papers outside the workspace and up to 4 earlier workspace sources. At 10, 50 and
200 sources it times :func:`marginalia.knowledge.citation_links.link_source` for 5 new
sources (median) and counts the stored references the indexed look-up returned against all
stored references of the workspace (what a scan of all pairs would read).

    uv run --frozen python eval/bench_citations.py
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CATALOG = ROOT.parent / "shared" / "data" / "catalog" / "acl2020" / "papers.jsonl"
SIZES = (10, 50, 200)
PROBES = 5


def _reference(r: dict[str, Any]) -> str:
    authors = ", ".join(r.get("authors") or ["Anonymous"])
    return f"{authors}. {r.get('year') or 2020}. {r['title']}. In {r.get('venue') or 'ACL'}."


def _page(record: dict[str, Any], refs: list[dict[str, Any]]) -> str:
    body = (record.get("abstract") or "Text.").strip()
    entries = "\n".join(_reference(r) for r in refs)
    return (
        f"{record['title']}\nAbstract\n{body}\n1 Introduction\n{body}\n"
        f"2 Conclusion\n{body}\nReferences\n{entries}\n"
    )


async def run() -> list[dict[str, Any]]:
    from sqlalchemy import func, select

    from marginalia.config import get_settings
    from marginalia.db.models import SourceReference
    from marginalia.db.repositories.sources import insert_source
    from marginalia.knowledge.citation_links import link_source
    from marginalia.knowledge.citations import title_query
    from marginalia.knowledge.repository import citations as cite_repo
    from marginalia.runtime import open_runtime
    from marginalia.usecases.workspaces import create_workspace

    records = [json.loads(line) for line in CATALOG.open(encoding="utf-8")]
    rng = random.Random(13)
    rng.shuffle(records)
    members, outside = records[:400], records[400:]
    rt = await open_runtime(get_settings())
    rows: list[dict[str, Any]] = []
    try:
        ws = await create_workspace(rt, name=f"bench-cites-{uuid.uuid4().hex[:6]}")
        added: list[dict[str, Any]] = []
        id_of: dict[str, uuid.UUID] = {}
        intended: set[tuple[uuid.UUID, str]] = set()

        async def add(record: dict[str, Any]) -> uuid.UUID:
            cited = rng.sample(added, min(4, len(added)))
            refs = rng.sample(outside, 36) + cited
            rng.shuffle(refs)
            async with rt.db.transaction() as session:
                source = await insert_source(
                    session,
                    workspace_id=ws.id,
                    fields={"kind": "pdf", "title": record["title"], "year": record.get("year")},
                    pages=[(1, _page(record, refs))],
                    chunks=[],
                )
            added.append(record)
            id_of[record["title"]] = source.id
            intended.update((source.id, r["title"]) for r in cited)
            return source.id

        queue = iter(members)
        for size in SIZES:
            while len(added) < size - PROBES:
                sid = await add(next(queue))
                async with rt.db.transaction() as session:
                    await link_source(session, ws.id, sid)
            times: list[float] = []
            returned: list[int] = []
            for _ in range(PROBES):
                sid = await add(next(queue))
                async with rt.db.transaction() as session:
                    started = time.perf_counter()
                    await link_source(session, ws.id, sid)
                    times.append((time.perf_counter() - started) * 1000)
                    me = next(
                        s for s in await cite_repo.citable_sources(session, ws.id) if s.id == sid
                    )
                    hits = await cite_repo.references_that_may_cite(
                        session, ws.id, me, title_query(me.title)
                    )
                    returned.append(len(hits))
            async with rt.db.session() as session:
                stored = (
                    await session.execute(
                        select(func.count()).where(SourceReference.workspace_id == ws.id)
                    )
                ).scalar_one()
                found = {
                    (e.citing, e.cited) for e in await cite_repo.citation_edges(session, ws.id)
                }
            truth = {(a, id_of[t]) for a, t in intended}
            rows.append(
                {
                    "sources": len(added),
                    "link_source_ms_median": round(statistics.median(times), 1),
                    "stored_references": int(stored),
                    "references_read_median": statistics.median(returned),
                    "cites_edges": len(found),
                    "cites_recall": round(len(found & truth) / max(len(truth), 1), 3),
                    "cites_invented": len(found - truth),
                }
            )
    finally:
        await rt.close()
    return rows


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="marginalia-bench-cites-") as home:
        os.environ.setdefault("MARGINALIA_HOME", home)
        rows = asyncio.run(run())
    print(
        "sources  link_source ms (median of 5)  references read / stored  "
        "cites edges  recall  invented"
    )
    for r in rows:
        print(
            f"{r['sources']:7d}  {r['link_source_ms_median']:27.1f}  "
            f"{r['references_read_median']:>8} / {r['stored_references']:<7d}  "
            f"{r['cites_edges']:11d}  {r['cites_recall']:6.3f}  {r['cites_invented']:8d}"
        )


if __name__ == "__main__":
    main()
