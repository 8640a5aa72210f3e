"""The per-source knowledge update touches a bounded number of rows (issue 19, item 2).

A workspace of ACL 2020 abstracts (title + abstract, one source each) is built with the
bounded update and one refresh; then the same probe source is added at 50 and at 200
sources and the rows the update inserted or updated are counted in PostgreSQL itself: rows
whose ``xmin`` (the transaction that wrote the row version) is newer than a marker taken
just before the update. Before this change the update rewrote every concept's centrality
(~1,650 concepts at 200 sources), so the count grew with the workspace.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from marginalia.knowledge import update as knowledge_update
from marginalia.knowledge.match_keys import concept_match_keys
from marginalia.knowledge.refresh import refresh_workspace
from marginalia.knowledge.text import sentence_spans
from marginalia.runtime import Runtime
from marginalia.usecases import knowledge as knowledge_usecases
from marginalia.usecases import workspaces as ws_service
from tests.integration.knowledge_support import add_paper

pytestmark = pytest.mark.slow

TOPIC = re.compile(r"\bBERT\b|language models?\b|pre-?train", re.IGNORECASE)
SMALL, LARGE = 50, 200
# Rows one update may insert or update, whatever the workspace size: the source row, the
# workspace's version, its concepts and their links, edges among its concepts, its claims
# and their evidence, its source edges.
BOUND = 150


def _records(path: Path, n: int, *, sentences: int = 2) -> list[dict[str, Any]]:
    """Cheap documents: the title and the first sentences of related abstracts."""
    with path.open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    picked = sorted(
        (r for r in rows if r.get("abstract") and TOPIC.search(r["abstract"])),
        key=lambda r: r["id"],
    )[:n]
    out = []
    for r in picked:
        spans = sentence_spans(r["abstract"])[:sentences]
        out.append({**r, "abstract": r["abstract"][spans[0][0] : spans[-1][1]]})
    return out


async def _tables(services: Runtime) -> list[str]:
    async with services.db.session() as session:
        names = (
            await session.execute(
                text("SELECT relname FROM pg_stat_user_tables WHERE schemaname = 'public'")
            )
        ).scalars()
        return sorted(n for n in names if not n.startswith(("jobs", "job_", "alembic")))


async def _marker(services: Runtime) -> int:
    async with services.db.transaction() as session:
        value = await session.scalar(text("SELECT pg_current_xact_id()::text::bigint"))
        return int(value or 0) % 2**32


async def _touched(services: Runtime, tables: list[str], marker: int) -> dict[str, int]:
    """Rows inserted or updated after ``marker`` (their xmin is a later transaction)."""
    out: dict[str, int] = {}
    async with services.db.session() as session:
        for table in tables:
            n = await session.scalar(
                text(f'SELECT count(*) FROM "{table}" WHERE xmin::text::bigint > :m'),
                {"m": marker},
            )
            if n:
                out[table] = int(n)
    return out


async def _measure(
    services: Runtime, ws: uuid.UUID, probe: dict[str, Any], tables: list[str]
) -> tuple[uuid.UUID, dict[str, int], knowledge_update.KnowledgeUpdate]:
    sid = await add_paper(services, ws, probe)
    marker = await _marker(services)
    update = await knowledge_update.update_for_source(services, ws, sid, refresh=False)
    return sid, await _touched(services, tables, marker), update


async def _grow(services: Runtime, ws: uuid.UUID, records: list[dict[str, Any]]) -> None:
    for r in records:
        sid = await add_paper(services, ws, r)
        await knowledge_update.update_for_source(services, ws, sid, refresh=False)
    await refresh_workspace(services, ws)


@pytest.mark.timeout(900)
async def test_update_touches_a_bounded_number_of_rows(
    services: Runtime, shared_data: Path
) -> None:
    path = shared_data / "catalog" / "acl2020" / "papers.jsonl"
    records = _records(path, LARGE)
    # the probe is a whole abstract: concepts, claims, evidence, edges
    probe = _records(path, LARGE + 1, sentences=100)[LARGE]
    # a concept the stored sources have (BERT), so that the look-up has something to read
    probe["abstract"] += " We fine-tune BERT for concept linking, as BERT was fine-tuned before."
    ws = await ws_service.create_workspace(
        services,
        name=f"bounded-{uuid.uuid4().hex[:8]}",
        description="pre-trained language models such as BERT: compression, probing, transfer",
    )
    tables = await _tables(services)
    try:
        started = time.perf_counter()
        await _grow(services, ws.id, records[:SMALL])
        sid, small, first = await _measure(services, ws.id, probe, tables)
        assert not first.refreshed and first.clusters == 0
        removal = await knowledge_update.remove_source(services, ws.id, sid, refresh=False)
        assert removal.deleted and removal.clusters == -1  # bounded: refreshed later
        async with services.db.session() as session:
            orphans = await session.scalar(
                text(
                    "SELECT count(*) FROM concepts c WHERE c.workspace_id = :w AND NOT EXISTS "
                    "(SELECT 1 FROM source_concepts sc WHERE sc.concept_id = c.id)"
                ),
                {"w": ws.id},
            )
        assert orphans == 0 and removal.concepts_removed == first.concepts_added

        await _grow(services, ws.id, records[SMALL:LARGE])
        async with services.db.session() as session:
            concepts = await session.scalar(
                text("SELECT count(*) FROM concepts WHERE workspace_id = :w"), {"w": ws.id}
            )
        assert int(concepts or 0) > 3 * BOUND  # the old update rewrote every one of these
        sid, large, second = await _measure(services, ws.id, probe, tables)
        print(f"rows touched at {SMALL}: {small}\nrows touched at {LARGE}: {large}")
        print(f"built in {time.perf_counter() - started:.0f} s")

        assert sum(small.values()) <= BOUND and sum(large.values()) <= BOUND, (small, large)
        # the same source touches about the same rows at 50 and at 200 sources
        assert sum(large.values()) <= 1.5 * sum(small.values()) + 20, (small, large)
        assert second.concepts_added <= first.concepts_added
        # the update still linked its concepts, claims and edges
        assert large.get("source_concepts", 0) > 0 and large.get("claims", 0) > 0

        # It reads a bounded part of the others too: the stored concepts sharing a merge key
        # with its own (the GIN index on concepts.match_keys), not the >600 concepts; the
        # sources sharing one of its concepts or close enough by title/embedding, not all.
        print(f"rows read at {SMALL}: {first.rows_read}\nrows read at {LARGE}: {second.rows_read}")
        assert 0 < second.rows_read["concepts"] <= BOUND, second.rows_read
        assert second.rows_read["concepts"] <= 2 * first.rows_read["concepts"] + 20
        assert second.rows_read["sources_for_edges"] < LARGE // 2, second.rows_read
        # every concept's stored keys are those of its name and aliases (written with them)
        async with services.db.session() as session:
            stored = (
                await session.execute(
                    text("SELECT name, aliases, match_keys FROM concepts WHERE workspace_id = :w"),
                    {"w": ws.id},
                )
            ).all()
        assert stored and all(
            list(keys) == concept_match_keys(name, aliases) for name, aliases, keys in stored
        )

        # the refresh brings the graph-wide statistics up to date: the probe's concepts
        # get a centrality, the clusters exist again
        async with services.db.session() as session:
            before = await session.scalar(
                text(
                    "SELECT count(*) FROM concepts c JOIN source_concepts sc "
                    "ON sc.concept_id = c.id WHERE sc.source_id = :s AND c.centrality = 0"
                ),
                {"s": sid},
            )
        assert int(before or 0) > 0  # its new concepts wait for the refresh (and embedding)
        done = await refresh_workspace(services, ws.id)
        assert done.sources == LARGE + 1
        async with services.db.session() as session:
            after = await session.scalar(
                text(
                    "SELECT count(*) FROM concepts c JOIN source_concepts sc "
                    "ON sc.concept_id = c.id WHERE sc.source_id = :s "
                    "AND (c.centrality = 0 OR c.embedding IS NULL)"
                ),
                {"s": sid},
            )
        assert int(after or 0) == 0  # centrality computed, new concepts embedded
    finally:
        await ws_service.delete_workspace(services, ws.id)


async def test_refresh_job_is_debounced_one_per_workspace(
    services: Runtime, shared_data: Path
) -> None:
    records = _records(shared_data / "catalog" / "acl2020" / "papers.jsonl", 3)
    ws = await ws_service.create_workspace(services, name=f"debounce-{uuid.uuid4().hex[:8]}")
    knowledge = services.settings.knowledge
    saved = knowledge.refresh_delay_s
    knowledge.refresh_delay_s = 3.0
    try:
        for r in records[:2]:
            sid = await add_paper(services, ws.id, r)
            await knowledge_update.update_for_source(services, ws.id, sid, refresh=False)
        job = await knowledge_usecases.request_refresh(services, ws.id)
        assert job is not None and job.kind == "knowledge.refresh"
        again = await knowledge_usecases.request_refresh(services, ws.id)
        assert again is not None and again.id == job.id  # at most one pending per workspace
        # an update while it waits restarts its quiet period: the refresh sees 3 sources
        sid = await add_paper(services, ws.id, records[2])
        await knowledge_update.update_for_source(services, ws.id, sid, refresh=False)
        again = await knowledge_usecases.request_refresh(services, ws.id)
        assert again is not None and again.id == job.id
        for _ in range(200):
            done = await services.jobs.get(job.id)
            if done.status in ("succeeded", "failed", "cancelled"):
                break
            await asyncio.sleep(0.1)
        assert done.status == "succeeded", done.error
        assert done.result is not None and done.result["sources"] == 3
        async with services.db.session() as session:
            zero = await session.scalar(
                text("SELECT count(*) FROM concepts WHERE workspace_id = :w AND centrality = 0"),
                {"w": ws.id},
            )
            pages = await session.scalar(
                text("SELECT count(*) FROM wiki_pages WHERE workspace_id = :w"), {"w": ws.id}
            )
        assert int(zero or 0) == 0 and int(pages or 0) > 0
        # finished: the next request queues a new job
        nxt = await knowledge_usecases.request_refresh(services, ws.id)
        assert nxt is not None and nxt.id != job.id
        for _ in range(200):
            if (await services.jobs.get(nxt.id)).status == "succeeded":
                break
            await asyncio.sleep(0.1)
    finally:
        knowledge.refresh_delay_s = saved
        await ws_service.delete_workspace(services, ws.id)
