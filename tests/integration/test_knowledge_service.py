"""The knowledge layer end to end on real ACL 2020 abstracts (offline engine, real database)."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import networkx as nx
import pytest
from sqlalchemy import text

from marginalia.errors import NotFoundError
from marginalia.knowledge import learning_path, read
from marginalia.knowledge import update as knowledge_update
from marginalia.knowledge.paths import reading_minutes
from marginalia.knowledge.wiki import extract_links
from marginalia.runtime import Runtime
from marginalia.usecases import workspaces as ws_service
from tests.integration.knowledge_support import RELATED, UNRELATED, add_paper, catalog


@dataclass
class Built:
    workspace_id: uuid.UUID
    sources: dict[str, uuid.UUID]  # catalog id -> source id
    catalog_path: Path
    seconds: float


@pytest.fixture(scope="module")
async def built(services: Runtime, shared_data: Path) -> AsyncIterator[Built]:
    path = shared_data / "catalog" / "acl2020" / "papers.jsonl"
    records = catalog(path)
    ws = await ws_service.create_workspace(
        services,
        name=f"knowledge-{uuid.uuid4().hex[:8]}",
        description="compressing and distilling pre-trained language models such as BERT",
    )
    started = time.perf_counter()
    sources: dict[str, uuid.UUID] = {}
    for i, cid in enumerate([*RELATED, UNRELATED]):
        sid = await add_paper(services, ws.id, records[cid], citations=10 * i)
        sources[cid] = sid
        update = await knowledge_update.update_for_source(services, ws.id, sid)
        assert update.engine == "offline"
    yield Built(ws.id, sources, path, time.perf_counter() - started)
    await ws_service.delete_workspace(services, ws.id)


async def _scalar(services: Runtime, sql: str, **params: object) -> object:
    async with services.db.session() as session:
        return (await session.execute(text(sql), params)).scalar()


async def _rows(services: Runtime, sql: str, **params: object) -> list[tuple[object, ...]]:
    async with services.db.session() as session:
        return [tuple(r) for r in (await session.execute(text(sql), params)).all()]


async def test_unified_extraction_fills_every_field(services: Runtime, built: Built) -> None:
    rows = await _rows(
        services,
        "SELECT summary, tldr, extraction_engine, quality_score, quality_relevance "
        "FROM sources WHERE workspace_id = :ws",
        ws=built.workspace_id,
    )
    assert len(rows) == len(RELATED) + 1
    for summary, tldr, engine, quality, relevance in rows:
        assert summary and tldr and engine == "offline"
        assert quality is not None and 0 <= float(quality) <= 100  # type: ignore[arg-type]
        assert relevance is not None
    # claims quote their chunk verbatim
    claims = await _rows(
        services,
        "SELECT cl.quote, ch.text FROM claims cl JOIN chunks ch ON ch.id = cl.chunk_id "
        "WHERE cl.workspace_id = :ws",
        ws=built.workspace_id,
    )
    assert claims
    for quote, chunk_text in claims:
        assert quote and str(quote) in str(chunk_text)
    # (Its time is measured by eval/bench_knowledge.py, not asserted here.)


async def test_concept_graph_connected_with_three_levels(services: Runtime, built: Built) -> None:
    concepts = await read.list_concepts(services, built.workspace_id)
    assert {c.level for c in concepts} == {0, 1, 2}
    assert all(c.centrality is not None for c in concepts)
    edges = await read.concept_edges(services, built.workspace_id)
    assert edges and {e.edge_type for e in edges} <= {"prerequisite", "specialization", "related"}
    assert all(e.evidence for e in edges)

    # sources + concepts + links + concept edges: the related papers form one component
    g = nx.Graph()
    for c in concepts:
        for sid in c.source_ids:
            g.add_edge(f"s:{sid}", f"c:{c.id}")
    for e in edges:
        g.add_edge(f"c:{e.source_concept_id}", f"c:{e.target_concept_id}")
    related = {f"s:{built.sources[c]}" for c in RELATED}
    component = nx.node_connected_component(g, next(iter(related)))
    assert related <= component


async def test_acronym_and_expansion_merge(services: Runtime, built: Built) -> None:
    concepts = await read.list_concepts(services, built.workspace_id)

    def holder(form: str) -> set[uuid.UUID]:
        return {
            c.id
            for c in concepts
            if form.casefold() in {a.casefold() for a in (c.name, *c.aliases)}
        }

    kd, expansion = holder("KD"), holder("knowledge distillation")
    assert kd and kd == expansion
    bert = holder("BERT")
    assert bert and bert == holder("Bidirectional Encoder Representations from Transformers")
    # and the merged concept is shared by several sources
    (kd_concept,) = [c for c in concepts if c.id in kd]
    assert len(kd_concept.source_ids) >= 3


async def test_offline_evidence_is_related_with_similarity(services: Runtime, built: Built) -> None:
    claims = await read.list_claims(services, built.workspace_id)
    evidence = [e for c in claims for e in c.evidence]
    assert evidence, "related abstracts should give some claim evidence"
    for c in claims:
        for e in c.evidence:
            assert e.relation == "related"
            assert e.score >= services.settings.knowledge.evidence_min_similarity
            assert e.engine == "offline"
            assert e.source_id != c.source_id


async def test_source_edges_labelled_by_a_shared_concept(services: Runtime, built: Built) -> None:
    view = await read.graph_view(services, built.workspace_id)
    similar = [e for e in view.edges if e.type == "similar"]
    assert similar
    for e in similar:
        shared = e.data["shared_concepts"]
        assert (e.label in shared) if shared else e.label is None
        assert e.data["strength"] in ("strong", "weak")
    types = {n.type for n in view.nodes}
    assert {"source", "concept"} <= types
    assert all(n.level is not None for n in view.nodes if n.type == "concept")
    node_ids = {n.id for n in view.nodes}
    assert all(e.source in node_ids and e.target in node_ids for e in view.edges)


async def test_wiki_links_resolve_and_pages_are_embedded(services: Runtime, built: Built) -> None:
    pages = await read.list_wiki_pages(services, built.workspace_id)
    assert len(pages) >= 3
    slugs = {p.slug for p in pages}
    linked = 0
    for p in pages:
        full = await read.get_wiki_page(services, built.workspace_id, p.slug)
        assert set(extract_links(full.body)) <= slugs
        assert set(full.links) <= slugs
        linked += len(full.links)
        assert full.revisions == full.revision
        assert "[source:" in full.body_raw and "[source:" not in full.body
    assert linked > 0
    missing = await _scalar(
        services,
        "SELECT count(*) FROM wiki_pages WHERE workspace_id = :ws AND embedding IS NULL",
        ws=built.workspace_id,
    )
    assert missing == 0


async def test_learning_path_puts_prerequisites_first(services: Runtime, built: Built) -> None:
    path = await learning_path.generate_learning_path(services, built.workspace_id)
    assert len(path.steps) == len(RELATED) + 1
    position = {str(s.source_id): s.position for s in path.steps}
    assert sum(len(s.prerequisites) for s in path.steps) > 0
    for step in path.steps:
        for pre in step.prerequisites:
            assert position[str(pre.source_id)] == pre.position < step.position
            assert pre.title and pre.title != str(pre.source_id)
        assert step.difficulty in ("beginner", "intermediate", "advanced")
        assert step.reading_minutes >= 1
    records = catalog(built.catalog_path)
    by_source = {v: k for k, v in built.sources.items()}
    for step in path.steps:
        chars = len(records[by_source[step.source_id]]["abstract"])
        assert step.reading_minutes == reading_minutes(chars)
    if path.broken_cycles:
        assert path.notes and "cycle" in path.notes
    latest = await learning_path.latest_learning_path(services, built.workspace_id)
    assert latest is not None and latest.id == path.id


async def test_update_is_idempotent(services: Runtime, built: Built) -> None:
    sid = built.sources[RELATED[0]]

    async def counts() -> tuple[object, ...]:
        return (
            await _scalar(
                services,
                "SELECT count(*) FROM concepts WHERE workspace_id=:ws",
                ws=built.workspace_id,
            ),
            await _scalar(services, "SELECT count(*) FROM claims WHERE source_id=:s", s=sid),
            await _scalar(
                services, "SELECT count(*) FROM source_concepts WHERE source_id=:s", s=sid
            ),
            await _scalar(
                services,
                "SELECT count(*) FROM source_edges WHERE source_a_id=:s OR source_b_id=:s",
                s=sid,
            ),
        )

    before = await counts()
    slugs_before = {c.slug for c in await read.list_concepts(services, built.workspace_id)}
    await knowledge_update.update_for_source(services, built.workspace_id, sid)
    assert await counts() == before
    assert {c.slug for c in await read.list_concepts(services, built.workspace_id)} == slugs_before


async def test_add_and_remove_update_edges_clusters_and_scores(
    services: Runtime, built: Built
) -> None:
    records = catalog(built.catalog_path)
    original = built.sources[RELATED[0]]
    concepts_before = {c.slug for c in await read.list_concepts(services, built.workspace_id)}
    clusters_before = await _scalar(
        services,
        "SELECT count(*) FROM redundancy_clusters WHERE workspace_id=:ws",
        ws=built.workspace_id,
    )
    dup = await add_paper(services, built.workspace_id, records[RELATED[0]], suffix=" ")
    update = await knowledge_update.update_for_source(services, built.workspace_id, dup)
    assert update.source_edges > 0 and update.quality is not None

    members = await _rows(
        services,
        "SELECT m.cluster_id, m.source_id FROM redundancy_cluster_members m "
        "JOIN redundancy_clusters c ON c.id = m.cluster_id WHERE c.workspace_id = :ws",
        ws=built.workspace_id,
    )
    cluster_of = {s: c for c, s in members}
    assert dup in cluster_of and cluster_of[dup] == cluster_of.get(original)
    edge = await _rows(
        services,
        "SELECT strength FROM source_edges WHERE (source_a_id=:a AND source_b_id=:b) "
        "OR (source_a_id=:b AND source_b_id=:a)",
        a=original,
        b=dup,
    )
    assert edge == [("strong",)]
    score = await _scalar(services, "SELECT quality_score FROM sources WHERE id=:s", s=dup)
    assert score is not None

    removal = await knowledge_update.remove_source(services, built.workspace_id, dup)
    assert removal.deleted
    assert (
        await _scalar(
            services,
            "SELECT count(*) FROM source_edges WHERE source_a_id=:s OR source_b_id=:s",
            s=dup,
        )
        == 0
    )
    members = await _rows(
        services,
        "SELECT m.source_id FROM redundancy_cluster_members m "
        "JOIN redundancy_clusters c ON c.id = m.cluster_id WHERE c.workspace_id = :ws",
        ws=built.workspace_id,
    )
    assert dup not in {m[0] for m in members} and original not in {m[0] for m in members}
    assert (
        await _scalar(
            services,
            "SELECT count(*) FROM redundancy_clusters WHERE workspace_id=:ws",
            ws=built.workspace_id,
        )
        == clusters_before
    )
    assert {c.slug for c in await read.list_concepts(services, built.workspace_id)} == (
        concepts_before
    )
    # removing a source whose concepts nobody else has deletes them and keeps links valid
    unrelated = built.sources[UNRELATED]
    own = {
        c.slug
        for c in await read.list_concepts(services, built.workspace_id)
        if c.source_ids == [unrelated]
    }
    assert own
    await knowledge_update.remove_source(services, built.workspace_id, unrelated)
    after = {c.slug for c in await read.list_concepts(services, built.workspace_id)}
    assert not (own & after)
    pages = await read.list_wiki_pages(services, built.workspace_id)
    slugs = {p.slug for p in pages}
    for p in pages:
        full = await read.get_wiki_page(services, built.workspace_id, p.slug)
        assert set(extract_links(full.body)) <= slugs
    # put it back for the other tests
    built.sources[UNRELATED] = await add_paper(services, built.workspace_id, records[UNRELATED])
    await knowledge_update.update_for_source(services, built.workspace_id, built.sources[UNRELATED])


async def test_rebuild_recomputes_everything(services: Runtime, built: Built) -> None:
    slugs_before = {p.slug for p in await read.list_wiki_pages(services, built.workspace_id)}
    result = await knowledge_update.rebuild_workspace(services, built.workspace_id)
    assert result.sources == len(RELATED) + 1
    assert result.concepts > 0 and result.source_edges > 0 and result.claims > 0
    pages = await read.list_wiki_pages(services, built.workspace_id)
    slugs = {p.slug for p in pages}
    # Every page survives a rebuild (rewritten with its revisions kept), and there are pages.
    assert slugs_before and slugs_before <= slugs
    for p in pages:
        full = await read.get_wiki_page(services, built.workspace_id, p.slug)
        assert set(extract_links(full.body)) <= slugs


async def test_unknown_workspace_is_not_found(services: Runtime) -> None:
    with pytest.raises(NotFoundError):
        await read.graph_view(services, uuid.uuid4())
    with pytest.raises(NotFoundError):
        await knowledge_update.update_for_source(services, uuid.uuid4(), uuid.uuid4())
