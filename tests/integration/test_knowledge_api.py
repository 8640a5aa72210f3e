"""Knowledge routes, the CLI JSON shapes, the rebuild job and the LLM paths (a scripted model)."""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
import typer
from typer.testing import CliRunner

import marginalia.usecases.knowledge  # noqa: F401  (registers the job kinds)
from marginalia.cli import knowledge_cmds
from marginalia.knowledge import learning_path, read
from marginalia.knowledge import update as knowledge_update
from marginalia.knowledge.llm_extraction import (
    PathAnnotation,
    StepAnnotation,
    WikiPageEdit,
    WikiPlan,
)
from marginalia.knowledge.schemas import (
    EvidenceJudgement,
    ExtractedClaim,
    ExtractedConcept,
    Extraction,
)
from marginalia.knowledge.text import split_sentences
from marginalia.knowledge.wiki import extract_links
from marginalia.llm.base import CallType, ChatMessage, Deadline, T
from marginalia.llm.usage import Task, UsageLedger
from marginalia.runtime import Runtime
from marginalia.usecases import workspaces as ws_service
from tests.integration.knowledge_support import RELATED, add_paper, catalog

PAPERS = [RELATED[0], RELATED[2], RELATED[5]]  # MobileBERT, DeeBERT, TinyBERT


@pytest.fixture(scope="module")
async def small(services: Runtime, shared_data: Path) -> AsyncIterator[uuid.UUID]:
    records = catalog(shared_data / "catalog" / "acl2020" / "papers.jsonl")
    ws = await ws_service.create_workspace(
        services, name=f"kapi-{uuid.uuid4().hex[:8]}", description="compressing BERT"
    )
    for cid in PAPERS:
        sid = await add_paper(services, ws.id, records[cid])
        await knowledge_update.update_for_source(services, ws.id, sid)
    yield ws.id
    await ws_service.delete_workspace(services, ws.id)


async def test_routes(client: httpx.AsyncClient, small: uuid.UUID) -> None:
    base = f"/api/workspaces/{small}"
    graph = (await client.get(f"{base}/graph")).json()
    assert {n["type"] for n in graph["nodes"]} >= {"source", "concept"}
    assert all(n["level"] in (0, 1, 2) for n in graph["nodes"] if n["type"] == "concept")
    assert {e["type"] for e in graph["edges"]} >= {"discusses", "similar"}

    concepts = (await client.get(f"{base}/concepts")).json()
    assert concepts and {"slug", "level", "aliases", "source_ids"} <= set(concepts[0])
    claims = (await client.get(f"{base}/claims")).json()
    assert claims and all("evidence" in c for c in claims)

    pages = (await client.get(f"{base}/wiki")).json()
    assert pages
    page = (await client.get(f"{base}/wiki/{pages[0]['slug']}")).json()
    assert page["revisions"] >= 1 and "backlinks" in page and page["body"]
    assert (await client.get(f"{base}/wiki/no-such-page")).status_code == 404

    assert (await client.get(f"{base}/path")).status_code in (200, 404)
    made = await client.post(f"{base}/path")
    assert made.status_code == 201, made.text
    assert len(made.json()["steps"]) == len(PAPERS)
    assert (await client.get(f"{base}/path")).json()["id"] == made.json()["id"]

    job = await client.post(f"{base}/knowledge/rebuild")
    assert job.status_code == 202, job.text
    assert job.json()["kind"] == "knowledge.rebuild"

    missing = f"/api/workspaces/{uuid.uuid4()}"
    for url in ("/graph", "/concepts", "/claims", "/wiki", "/path"):
        response = await client.get(missing + url)
        assert response.status_code == 404 and response.json()["error"] == "not_found"
    assert (await client.post(f"{missing}/knowledge/rebuild")).status_code == 404

    spec = (await client.get("/openapi.json")).json()
    assert "/api/workspaces/{workspace_id}/graph" in spec["paths"]


async def test_graph_pages(client: httpx.AsyncClient, small: uuid.UUID) -> None:
    """Paging the graph: no node or edge twice, every edge closes on a page whose nodes (and
    earlier pages') hold both ends, the pages together are the whole graph, and each type's
    nodes come most important first."""
    base = f"/api/workspaces/{small}/graph"
    full = (await client.get(base, params={"max_concepts": 1000})).json()
    assert full["next_cursor"] is None and full["remaining"] == 0
    # Fewer concepts than the topics name (make fuzz found a 500 here): the topics keep
    # only the concepts this view holds.
    few = await client.get(base, params={"max_concepts": 1})
    assert few.status_code == 200, few.text
    shown = {n["id"] for n in few.json()["nodes"]}
    assert all(cid in shown for t in few.json()["topics"] for cid in t["concept_ids"])
    assert full["total_nodes"] == len(full["nodes"]) > 10
    pages: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"max_concepts": 1000, "limit": 7}
        if cursor is not None:
            params["cursor"] = cursor
        page = (await client.get(base, params=params)).json()
        pages.append(page)
        assert page["total_nodes"] == full["total_nodes"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
        assert len(page["nodes"]) == 7
    seen: set[str] = set()
    node_ids: list[str] = []
    edge_ids: list[str] = []
    for page in pages:
        seen |= {n["id"] for n in page["nodes"]}
        node_ids += [n["id"] for n in page["nodes"]]
        for e in page["edges"]:
            assert e["source"] in seen and e["target"] in seen, e["id"]
        edge_ids += [e["id"] for e in page["edges"]]
    assert len(pages) == -(-full["total_nodes"] // 7)
    assert [p["remaining"] for p in pages][-1] == 0
    assert len(node_ids) == len(set(node_ids)) and len(edge_ids) == len(set(edge_ids))
    assert set(node_ids) == {n["id"] for n in full["nodes"]}
    assert sorted(edge_ids) == sorted(e["id"] for e in full["edges"])
    # Importance: concepts by the sources that discuss them, sources by citations here.
    ordered = [n for p in pages for n in p["nodes"]]
    concept_sources = [n["data"]["sources"] for n in ordered if n["type"] == "concept"]
    assert concept_sources == sorted(concept_sources, reverse=True)
    cited = [n["data"]["cited_by_here"] for n in ordered if n["type"] == "source"]
    assert cited == sorted(cited, reverse=True)
    # The first page is a mix, not one type only.
    assert {n["type"] for n in pages[0]["nodes"]} >= {"source", "concept"}
    for bad in ({"cursor": "abc"}, {"cursor": "-1"}, {"limit": 0}, {"limit": 5001}):
        r = await client.get(base, params=bad)
        assert r.status_code == 422, (bad, r.text)
        assert r.json()["error"] == "invalid_request", r.json()
    # The cursor is opaque: an offset (the old form) or a tampered one is refused.
    first = (await client.get(base, params={"limit": 7})).json()
    for bad_cursor in ("99999", first["next_cursor"][:-4] + "AAAA", "eyJ2IjoyfQ"):
        r = await client.get(base, params={"cursor": bad_cursor})
        assert r.status_code == 422, (bad_cursor, r.text)


async def test_graph_paging_is_stable_while_a_source_arrives(
    services: Runtime, client: httpx.AsyncClient, shared_data: Path
) -> None:
    """The keyset cursor: a source (with its concepts, links and citations) added between
    two pages shifts nothing. Every node the first page's graph had comes exactly once, no
    edge twice, every edge's ends have come by its page, and the new source is left to the
    next paging from the start."""
    records = catalog(shared_data / "catalog" / "acl2020" / "papers.jsonl")
    ws = await ws_service.create_workspace(
        services, name=f"kpage-{uuid.uuid4().hex[:8]}", description="compressing BERT"
    )
    try:
        for cid in PAPERS:
            sid = await add_paper(services, ws.id, records[cid])
            await knowledge_update.update_for_source(services, ws.id, sid)
        base = f"/api/workspaces/{ws.id}/graph"
        before = (await client.get(base, params={"max_concepts": 1000})).json()
        params: dict[str, Any] = {"max_concepts": 1000, "limit": 5}
        pages = [(await client.get(base, params=params)).json()]
        assert pages[0]["next_cursor"] and len(pages[0]["nodes"]) == 5
        # A fourth paper arrives (BERT-family: it discusses concepts already on the map).
        new = await add_paper(services, ws.id, records[RELATED[1]])
        await knowledge_update.update_for_source(services, ws.id, new)
        after = (await client.get(base, params={"max_concepts": 1000})).json()
        assert after["total_nodes"] > before["total_nodes"]
        # With the offset cursor of before, the importance order now differs from the first
        # page's: the concepts the new paper discusses move up.
        old_order = [n["id"] for n in before["nodes"]]
        new_order = [n["id"] for n in after["nodes"] if n["id"] in set(old_order)]
        assert old_order != new_order, "the new source changes the importance order"
        while pages[-1]["next_cursor"]:
            page = (
                await client.get(base, params={**params, "cursor": pages[-1]["next_cursor"]})
            ).json()
            assert page["total_nodes"] == before["total_nodes"]
            pages.append(page)
        node_ids = [n["id"] for p in pages for n in p["nodes"]]
        assert len(node_ids) == len(set(node_ids)), "no node twice"
        assert set(node_ids) == {n["id"] for n in before["nodes"]}, "every node exactly once"
        assert f"source:{new}" not in node_ids
        edge_ids = [e["id"] for p in pages for e in p["edges"]]
        assert len(edge_ids) == len(set(edge_ids))
        seen: set[str] = set()
        for p in pages:
            seen |= {n["id"] for n in p["nodes"]}
            for e in p["edges"]:
                assert e["source"] in seen and e["target"] in seen, e["id"]
        assert [p["remaining"] for p in pages][-1] == 0
        # Paging again from the start includes the new source.
        fresh = (await client.get(base, params={"max_concepts": 1000, "limit": 5000})).json()
        assert f"source:{new}" in {n["id"] for n in fresh["nodes"]}
    finally:
        await ws_service.delete_workspace(services, ws.id)


async def test_rebuild_job_runs(services: Runtime, small: uuid.UUID) -> None:
    from marginalia.jobs.events import follow_events

    job = await services.jobs.submit(
        "knowledge.rebuild", {"workspace_id": str(small)}, workspace_id=small
    )
    stages = [e.stage async for e in follow_events(services.db, job.id)]
    done = await services.jobs.get(job.id)
    assert done.status == "succeeded", done.error
    assert {"extract", "concepts", "wiki"} <= set(stages)
    assert done.result and done.result["sources"] == len(PAPERS)


def test_cli_json_shapes(services: Runtime, small: uuid.UUID) -> None:
    app = typer.Typer()
    knowledge_cmds.register(app)
    names = {c.name or c.callback.__name__ for c in app.registered_commands if c.callback}
    assert names == {"graph", "wiki", "path"}
    runner = CliRunner()
    result = runner.invoke(app, ["graph", "--help"])
    assert result.exit_code == 0 and "--json" in result.output


async def test_cli_payloads(services: Runtime, small: uuid.UUID) -> None:
    graph = knowledge_cmds.graph_payload(await read.graph_view(services, small))
    assert set(graph) == {"nodes", "edges"}
    assert all("type" in n for n in graph["nodes"])
    assert all(isinstance(n["level"], int) for n in graph["nodes"] if n["type"] == "concept")
    pages = [
        await read.get_wiki_page(services, small, p.slug)
        for p in await read.list_wiki_pages(services, small)
    ]
    assert set(knowledge_cmds.wiki_payload(pages)) == {"pages"}
    path = await learning_path.generate_learning_path(services, small)
    assert "steps" in knowledge_cmds.path_payload(path)


# ---------------------------------------------------------------------------- LLM paths


class ScriptedModel:
    """A generative provider that answers from the prompt, deterministically."""

    name = "scripted"
    is_generative = True

    def __init__(self) -> None:
        self.usage = UsageLedger()
        self.calls: list[str] = []

    def model_for(self, task: Task) -> str | None:
        return "scripted-1"

    async def structured(
        self,
        *,
        task: Task,
        system: str,
        prompt: str,
        schema: type[T],
        call: CallType | None = None,
        deadline: Deadline | None = None,
    ) -> T:
        self.calls.append(schema.__name__)
        data: Any
        if schema is Extraction:
            chunk = re.search(r"\[chunk 0 \| \w+\]\n(.+)", prompt, re.S)
            assert chunk is not None
            first = split_sentences(chunk.group(1))[0]
            data = Extraction(
                summary="A compact BERT.",
                tldr="Compact BERT.",
                claims=[
                    ExtractedClaim(text=first, chunk_index=0, quote=first),
                    ExtractedClaim(text="Invented.", chunk_index=0, quote="not in the text"),
                ],
                concepts=[
                    ExtractedConcept(name="BERT", level=0),
                    ExtractedConcept(name="model compression", level=1, parent="BERT"),
                    ExtractedConcept(name="knowledge distillation", level=1, related=["BERT"]),
                ],
            )
        elif schema is EvidenceJudgement:
            data = EvidenceJudgement(relation="supports", rationale="same finding")
        elif schema is WikiPlan:
            sid = re.search(r"New source (\S+):", prompt)
            assert sid is not None
            data = WikiPlan(
                pages=[
                    WikiPageEdit(
                        slug="Model Compression",
                        title="Model compression",
                        body_markdown=(
                            "Model compression makes [[bert]] smaller "
                            f"[source:{sid.group(1)}#0]. See [[no-such-page]]."
                        ),
                        reason="new source",
                    ),
                    WikiPageEdit(
                        slug="bert",
                        title="BERT",
                        body_markdown="BERT is compressed by [[model-compression]].",
                    ),
                    WikiPageEdit(  # a refusal is never stored as a page
                        slug="refused",
                        title="Refused",
                        body_markdown="I'm sorry, but I cannot write this page from the passages.",
                    ),
                ]
            )
        elif schema is PathAnnotation:
            ids = re.findall(r"\[([0-9a-f-]{36})\]", prompt)
            data = PathAnnotation(
                overview="Start small.",
                steps=[StepAnnotation(source_id=i, takeaways=["read it"]) for i in ids],
            )
        else:  # pragma: no cover
            raise AssertionError(schema)
        return schema.model_validate(data.model_dump())

    async def stream_text(
        self,
        *,
        task: Task,
        system: str,
        messages: list[ChatMessage],
        call: CallType | None = None,
        deadline: Deadline | None = None,
    ) -> AsyncIterator[str]:  # pragma: no cover
        yield ""

    async def aclose(self) -> None:
        return None


async def test_llm_paths(services: Runtime, shared_data: Path) -> None:
    records = catalog(shared_data / "catalog" / "acl2020" / "papers.jsonl")
    ws = await ws_service.create_workspace(services, name=f"kllm-{uuid.uuid4().hex[:8]}")
    model = ScriptedModel()
    try:
        ids: Sequence[uuid.UUID] = []
        for cid in PAPERS:
            sid = await add_paper(services, ws.id, records[cid])
            update = await knowledge_update.update_for_source(services, ws.id, sid, llm=model)
            assert update.engine == "scripted:scripted-1"
            ids = [*ids, sid]
        claims = await read.list_claims(services, ws.id)
        # the invented quote is dropped, the claim kept without it
        assert any(c.text == "Invented." and c.quote is None for c in claims)
        assert all(c.quote is None or c.chunk_id is not None for c in claims)
        relations = {e.relation for c in claims for e in c.evidence}
        assert "supports" in relations
        assert all(
            e.engine == "scripted:scripted-1"
            for c in claims
            for e in c.evidence
            if e.relation != "related"
        )
        edges = await read.concept_edges(services, ws.id)
        assert any(e.evidence and e.evidence.startswith("parent stated") for e in edges)

        pages = {p.slug for p in await read.list_wiki_pages(services, ws.id)}
        assert {"model-compression", "bert"} <= pages and "refused" not in pages
        page = await read.get_wiki_page(services, ws.id, "model-compression")
        assert "[[no-such-page]]" not in page.body and set(extract_links(page.body)) <= pages
        assert page.revisions == page.revision >= 2
        assert "model-compression" in (await read.get_wiki_page(services, ws.id, "bert")).backlinks

        path = await learning_path.generate_learning_path(services, ws.id, llm=model)
        assert path.engine == "scripted:scripted-1"
        assert all(s.key_takeaways == ["read it"] for s in path.steps)
        assert path.notes and path.notes.startswith("Start small.")
    finally:
        await ws_service.delete_workspace(services, ws.id)
