"""Paper -> paper citations in a workspace (issue 13, item 3): a reference to a workspace
paper becomes a ``cites`` edge, one to an absent paper does not, the edge is found in
either arrival order, it is shown as "cited by N here", and it goes with either source."""

from __future__ import annotations

import json
import uuid

import httpx
import pytest
from sqlalchemy import text

from marginalia.discovery.support import abstract_document, candidate_metadata
from marginalia.ingest.pipeline import ingest_document
from marginalia.knowledge.read import graph_view, source_citations
from marginalia.knowledge.update import rebuild_workspace, remove_source, update_for_source
from marginalia.runtime import Runtime
from marginalia.sources.candidate import Candidate, normalize_openalex_id
from marginalia.sources.openalex_client import work_to_candidate
from marginalia.usecases import knowledge as knowledge_usecase
from marginalia.usecases import workspaces as ws_usecase
from tests.support.replay_server import FIXTURES

BODY = (
    "We study how scientific papers are organised into graphs. Our method links papers, "
    "authors and entities, and we evaluate entity linking on a new benchmark of papers. "
)


def _paper(title: str, references: list[str], *, topic: str) -> bytes:
    refs = "\n".join(f"- {r}" for r in references)
    body = (BODY + f"This paper is about {topic}. ") * 6
    return (
        f"# {title}\n\n## Abstract\n\n{body}\n\n## Introduction\n\n{body}\n\n"
        f"## Conclusion\n\n{body}\n\n## References\n\n{refs}\n"
    ).encode()


GRAPH_TITLE = "Construction of the Literature Graph in Semantic Scholar"
CITING = _paper(
    "Citation-Informed Document Embeddings for Scholarly Search",
    [
        # The workspace paper, printed with a line-break hyphen as PDFs do.
        "Waleed Ammar, Dirk Groeneveld, and Oren Etzioni. 2018. Construction of the liter- "
        "ature graph in semantic scholar. In NAACL-HLT.",
        # An absent paper that shares words with the workspace paper's title.
        "Jane Roe and John Doe. 2019. A semantic graph of the scholarly literature for "
        "construction engineering. In Proceedings of Things.",
        "Arman Cohan and Waleed Ammar. 2019. Structural scaffolds for citation intent "
        "classification in scientific publications. In NAACL.",
    ],
    topic="document embeddings",
)
BY_DOI = _paper(
    "Entity Linking for Biomedical Literature at Web Scale",
    ["Doe J. Graphs of papers. Journal of Graphs 2018, 1:1-9. doi:10.5555/lit-graph.2018"],
    topic="entity linking",
)
GRAPH = _paper(
    GRAPH_TITLE,
    ["Rada Mihalcea. 2004. TextRank: Bringing order into texts. In EMNLP."],
    topic="the literature graph",
)


async def _ingest(rt: Runtime, ws: uuid.UUID, name: str, data: bytes) -> uuid.UUID:
    outcome = await ingest_document(rt, ws, data=data, filename=name)
    assert outcome.status == "created"
    await update_for_source(rt, ws, outcome.source_id)
    return outcome.source_id


async def _cites(rt: Runtime, ws: uuid.UUID) -> set[tuple[str, str]]:
    graph = await graph_view(rt, ws)
    return {
        (e.source, e.target)
        for e in graph.edges
        if e.type == "cites" and e.source.startswith("source:")
    }


async def test_reference_to_a_workspace_paper_becomes_a_cites_edge(
    services: Runtime, client: httpx.AsyncClient
) -> None:
    ws = await ws_usecase.create_workspace(services, name=f"cites-{uuid.uuid4().hex[:6]}")
    try:
        # The citing paper arrives first: its reference matches nothing yet.
        citing = await _ingest(services, ws.id, "citing.md", CITING)
        assert await _cites(services, ws.id) == set()
        # The cited paper arrives: the stored reference is found through the index.
        graph = await _ingest(services, ws.id, "graph.md", GRAPH)
        assert await _cites(services, ws.id) == {(f"source:{citing}", f"source:{graph}")}
        async with services.db.transaction() as session:
            await session.execute(
                text("UPDATE sources SET doi = '10.5555/lit-graph.2018' WHERE id = :s"),
                {"s": graph},
            )
        # A later paper citing it by DOI only (its title is not in the entry).
        by_doi = await _ingest(services, ws.id, "doi.md", BY_DOI)
        edges = await _cites(services, ws.id)
        assert edges == {
            (f"source:{citing}", f"source:{graph}"),
            (f"source:{by_doi}", f"source:{graph}"),
        }
        # The absent paper and the other references matched nothing; nothing cites itself.
        async with services.db.session() as session:
            rows = (
                await session.execute(
                    text(
                        "SELECT source_id, cited_source_id, match FROM source_references "
                        "WHERE workspace_id = :w"
                    ),
                    {"w": ws.id},
                )
            ).all()
        matched = [(r[0], r[1], r[2]) for r in rows if r[1] is not None]
        assert sorted(m[2] for m in matched) == ["doi", "title"]
        assert len(rows) == 5  # every entry stored, matched or not

        detail = await source_citations(services, graph)
        assert {c.source_id for c in detail.cited_by} == {citing, by_doi}
        assert "liter- ature" in next(c.reference for c in detail.cited_by if c.source_id == citing)
        assert detail.cites == []

        # "cited by N here" on the source, in the list and alone.
        listed = (await client.get(f"/api/workspaces/{ws.id}/sources")).json()
        counts = {s["id"]: (s["cited_by_here"], s["cites_here"]) for s in listed}
        assert counts[str(graph)] == (2, 0)
        assert counts[str(citing)] == (0, 1)
        one = (await client.get(f"/api/sources/{graph}")).json()
        assert one["cited_by_here"] == 2
        api = (await client.get(f"/api/sources/{citing}/citations")).json()
        assert [c["source_id"] for c in api["cites"]] == [str(graph)]
        assert api["cites"][0]["match"] == "title"
        missing = await client.get(f"/api/sources/{uuid.uuid4()}/citations")
        assert missing.status_code == 404

        # Rebuilding recomputes the same edges.
        result = await rebuild_workspace(services, ws.id)
        assert result.cites == 2
        assert await _cites(services, ws.id) == edges

        # Deleting the citing source removes its edge; deleting the cited one the rest.
        await remove_source(services, ws.id, by_doi)
        assert await _cites(services, ws.id) == {(f"source:{citing}", f"source:{graph}")}
        await remove_source(services, ws.id, graph)
        assert await _cites(services, ws.id) == set()
        assert (await source_citations(services, citing)).cites == []
    finally:
        await ws_usecase.delete_workspace(services, ws.id)


WORK = FIXTURES / "openalex" / "test_doi_search_paper_attributes3___2.json"


def _record(title: str, openalex_id: str, topic: str) -> Candidate:
    body = (BODY + f"This paper is about {topic}. ") * 3
    return Candidate(title=title, abstract=body, openalex_id=openalex_id, origin="openalex")


async def _ingest_record(rt: Runtime, ws: uuid.UUID, candidate: Candidate) -> uuid.UUID:
    data = abstract_document(candidate)
    assert data is not None
    outcome = await ingest_document(
        rt,
        ws,
        data=data,
        filename=f"{candidate.openalex_id}.md",
        metadata=candidate_metadata(candidate, abstract_only=True),
    )
    assert outcome.status == "created"
    await update_for_source(rt, ws, outcome.source_id)
    return outcome.source_id


async def test_a_records_referenced_works_and_concepts(services: Runtime) -> None:
    """Two records where one's ``referenced_works`` names the other's OpenAlex id get a
    ``cites`` edge, an absent one does not; the record's OpenAlex concepts and topics
    become concepts of the source with their levels (the recorded OpenAlex response)."""
    if not WORK.is_file():
        pytest.skip(f"recorded OpenAlex responses not found at {WORK.parent}")
    work = json.loads(WORK.read_text())
    citing = work_to_candidate(work)
    cited_id, _ = (normalize_openalex_id(w) for w in work["referenced_works"][:2])
    assert cited_id is not None
    cited = _record("Cellular uptake of phosphorothioate oligonucleotides", cited_id, "uptake")
    absent = _record("An unrelated study of graph construction methods", "W1", "graphs")
    ws = await ws_usecase.create_workspace(services, name=f"meta-{uuid.uuid4().hex[:6]}")
    try:
        # the cited record first, the citing one later: the stored references point at it
        cited_source = await _ingest_record(services, ws.id, cited)
        absent_source = await _ingest_record(services, ws.id, absent)
        citing_source = await _ingest_record(services, ws.id, citing)
        edges = {(f"source:{citing_source}", f"source:{cited_source}")}
        assert await _cites(services, ws.id) == edges
        async with services.db.session() as session:
            rows = (
                await session.execute(
                    text(
                        "SELECT count(*), count(cited_source_id), "
                        "count(*) FILTER (WHERE match = 'openalex') "
                        "FROM source_references WHERE source_id = :s"
                    ),
                    {"s": citing_source},
                )
            ).one()
        assert tuple(rows) == (len(work["referenced_works"]), 1, 1)
        assert await _cites(services, ws.id) == edges  # nothing to or from the absent one
        assert (await source_citations(services, absent_source)).cited_by == []

        concepts = await knowledge_usecase.source_concepts(services, ws.id)
        got = {c.name: c.level for c in concepts[citing_source]}
        assert got.get("Biodistribution") == 1  # OpenAlex level 3
        for topic in (t["display_name"] for t in work["topics"]):
            assert any(n.casefold() == topic.casefold() for n in got), topic
        assert not {"Chemistry", "Biology", "Cell"} & set(got)

        # a rebuild reads the record's references and concepts again
        result = await rebuild_workspace(services, ws.id)
        assert result.cites == 1
        assert await _cites(services, ws.id) == edges
    finally:
        await ws_usecase.delete_workspace(services, ws.id)
