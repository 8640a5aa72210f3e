"""Paper -> paper citations in a workspace (issue 13, item 3): a reference to a workspace
paper becomes a ``cites`` edge, one to an absent paper does not, the edge is found in
either arrival order, it is shown as "cited by N here", and it goes with either source."""

from __future__ import annotations

import uuid

import httpx
from sqlalchemy import text

from marginalia.ingest.pipeline import ingest_document
from marginalia.knowledge.read import graph_view, source_citations
from marginalia.knowledge.update import rebuild_workspace, remove_source, update_for_source
from marginalia.runtime import Runtime
from marginalia.usecases import workspaces as ws_usecase

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
