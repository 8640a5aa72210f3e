"""The batched knowledge update (``update_for_sources``) writes what per-source updates
(``update_for_source(..., refresh=False)`` for each source, in order) write: the same
concepts and their links, concept edges, claims and evidence, source edges, cites and
quality — two workspaces built from the same documents, one each way (real PostgreSQL,
offline engine, ACL 2020 abstracts plus three papers whose references cite each other)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from sqlalchemy import text

from marginalia.ingest.pipeline import ingest_document
from marginalia.knowledge import update as knowledge_update
from marginalia.knowledge.refresh import refresh_workspace
from marginalia.runtime import Runtime
from marginalia.usecases import workspaces as ws_service
from tests.integration.knowledge_support import RELATED, UNRELATED, add_paper, catalog
from tests.integration.test_citations import BY_DOI, CITING, GRAPH

DESCRIPTION = "compressing and distilling pre-trained language models such as BERT"


async def _build(services: Runtime, shared_data: Path) -> tuple[uuid.UUID, list[uuid.UUID]]:
    records = catalog(shared_data / "catalog" / "acl2020" / "papers.jsonl")
    ws = await ws_service.create_workspace(
        services, name=f"batch-{uuid.uuid4().hex[:8]}", description=DESCRIPTION
    )
    ids: list[uuid.UUID] = []
    for name, data in (("graph.md", GRAPH), ("citing.md", CITING), ("doi.md", BY_DOI)):
        outcome = await ingest_document(services, ws.id, data=data, filename=name)
        ids.append(outcome.source_id)
    for i, cid in enumerate([*RELATED, UNRELATED]):
        ids.append(await add_paper(services, ws.id, records[cid], citations=10 * i))
    return ws.id, ids


async def _rows(services: Runtime, sql: str, ws: uuid.UUID) -> list[tuple[Any, ...]]:
    async with services.db.session() as session:
        return sorted(
            tuple(round(v, 4) if isinstance(v, float) else v for v in r)
            for r in (await session.execute(text(sql), {"ws": ws})).all()
        )


# Everything the knowledge update writes, with sources named by title and concepts by slug
# (ids differ between the two workspaces).
SNAPSHOT = {
    "sources": """SELECT title, summary, extraction_engine, quality_score, quality_relevance
                  FROM sources WHERE workspace_id = :ws""",
    "concepts": """SELECT slug, name, level, aliases::text FROM concepts
                   WHERE workspace_id = :ws""",
    "source_concepts": """SELECT s.title, c.slug, sc.weight FROM source_concepts sc
                          JOIN sources s ON s.id = sc.source_id
                          JOIN concepts c ON c.id = sc.concept_id WHERE s.workspace_id = :ws""",
    "concept_edges": """SELECT a.slug, b.slug, e.edge_type, e.weight FROM concept_edges e
                        JOIN concepts a ON a.id = e.source_concept_id
                        JOIN concepts b ON b.id = e.target_concept_id
                        WHERE e.workspace_id = :ws""",
    "claims": """SELECT s.title, c.text, c.quote FROM claims c
                 JOIN sources s ON s.id = c.source_id WHERE c.workspace_id = :ws""",
    "evidence": """SELECT cs.title, c.text, es.title, ch.chunk_index, e.relation, e.score
                   FROM claim_evidence e JOIN claims c ON c.id = e.claim_id
                   JOIN sources cs ON cs.id = c.source_id
                   JOIN sources es ON es.id = e.source_id
                   LEFT JOIN chunks ch ON ch.id = e.chunk_id WHERE c.workspace_id = :ws""",
    # a pair is stored in id order, and ids differ: named in title order
    "source_edges": """SELECT LEAST(a.title, b.title), GREATEST(a.title, b.title), e.strength, e.signals::text, e.label
                       FROM source_edges e JOIN sources a ON a.id = e.source_a_id
                       JOIN sources b ON b.id = e.source_b_id WHERE e.workspace_id = :ws""",
    "cites": """SELECT s.title, r.text, c.title, r.match FROM source_references r
                JOIN sources s ON s.id = r.source_id
                LEFT JOIN sources c ON c.id = r.cited_source_id WHERE r.workspace_id = :ws""",
    "clusters": """SELECT string_agg(s.title, ' | ' ORDER BY s.title) FROM
                   redundancy_cluster_members m JOIN sources s ON s.id = m.source_id
                   WHERE s.workspace_id = :ws GROUP BY m.cluster_id""",
    "wiki": """SELECT slug, title FROM wiki_pages WHERE workspace_id = :ws""",
}


async def _snapshot(services: Runtime, ws: uuid.UUID) -> dict[str, list[tuple[Any, ...]]]:
    return {name: await _rows(services, sql, ws) for name, sql in SNAPSHOT.items()}


async def test_batched_update_writes_what_per_source_updates_write(
    services: Runtime, shared_data: Path
) -> None:
    one_by_one, ids_a = await _build(services, shared_data)
    batched, ids_b = await _build(services, shared_data)
    try:
        for sid in ids_a:
            await knowledge_update.update_for_source(services, one_by_one, sid, refresh=False)
        # two batches: the second reads what the first wrote, as a research run's do
        first = await knowledge_update.update_for_sources(services, batched, ids_b[:5])
        second = await knowledge_update.update_for_sources(services, batched, ids_b[5:])
        assert [u.source_id for u in [*first, *second]] == ids_b
        assert all(u.engine == "offline" and not u.refreshed for u in [*first, *second])

        a, b = await _snapshot(services, one_by_one), await _snapshot(services, batched)
        # the workspace is not trivial: concepts shared, edges, claims with evidence, cites
        assert len(a["concepts"]) > 20 and len(a["concept_edges"]) >= 3
        assert len(a["evidence"]) > 5 and len(a["source_edges"]) > 3
        assert any(row[2] is not None for row in a["cites"])
        for name in SNAPSHOT:
            assert a[name] == b[name], name

        # and after the graph-wide refresh (merges, levels, clusters, central wiki pages)
        await refresh_workspace(services, one_by_one)
        await refresh_workspace(services, batched)
        a, b = await _snapshot(services, one_by_one), await _snapshot(services, batched)
        assert a["wiki"]
        for name in SNAPSHOT:
            assert a[name] == b[name], name

        # a batch run again (a research job resumed after a crash between the commit and
        # its checkpoint) writes what the per-source updates run again write
        for sid in ids_a:
            await knowledge_update.update_for_source(services, one_by_one, sid, refresh=False)
        await knowledge_update.update_for_sources(services, batched, ids_b)
        a, b = await _snapshot(services, one_by_one), await _snapshot(services, batched)
        for name in SNAPSHOT:
            assert a[name] == b[name], name
    finally:
        await ws_service.delete_workspace(services, one_by_one)
        await ws_service.delete_workspace(services, batched)
