"""Citation chasing (issue 36): a source's references and citing works from its printed
reference list, the catalog's unarXive ``bib_entries`` and OpenAlex (the real client
against recorded responses); suggestions by co-citation / coupling on a constructed
workspace; adding chosen works through the import job (dedup included)."""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from marginalia.api.app import create_app
from marginalia.discovery.support import abstract_document, candidate_metadata
from marginalia.ingest.pipeline import ingest_document
from marginalia.jobs.events import follow_events
from marginalia.knowledge.update import update_for_source
from marginalia.runtime import Runtime
from marginalia.sources.candidate import Candidate
from marginalia.sources.catalog import load_catalog
from marginalia.usecases import workspaces as ws_usecase
from tests.support.replay_server import FIXTURES, ReplayServer, replay, replay_clean

__all__ = ["replay", "replay_clean"]

CATALOG = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "catalog"
UNARXIVE = "2212.11772"  # its bib_entries name two ACL 2020 papers of the catalog
CITED = ("2020.acl-main.214", "2020.acl-main.343")
SPECTER = "2020.acl-main.207"


@pytest.fixture(scope="module")
def records() -> dict[str, Candidate]:
    if not CATALOG.is_dir():
        pytest.skip(f"shared catalog not found at {CATALOG}")
    return {c.source_id or c.title: c for c in load_catalog(CATALOG)}


def _with(rt: Runtime, **sources: object) -> Runtime:
    settings = rt.settings.model_copy(
        update={
            "catalog_path": CATALOG,
            "sources": rt.settings.sources.model_copy(update=sources),
        }
    )
    return dataclasses.replace(rt, settings=settings)


@pytest.fixture
async def api(services: Runtime) -> AsyncIterator[tuple[Runtime, httpx.AsyncClient]]:
    rt = _with(services)
    app = create_app(rt.settings, runtime=rt)
    app.state.runtime = rt
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield rt, http


async def _record_source(rt: Runtime, ws: uuid.UUID, c: Candidate) -> uuid.UUID:
    """A catalog record ingested as research ingests it (abstract-only, its references)."""
    data = abstract_document(c)
    assert data is not None
    outcome = await ingest_document(
        rt, ws, data=data, filename=f"{c.source_id}.md",
        metadata=candidate_metadata(c, abstract_only=True),
    )  # fmt: skip
    assert outcome.status == "created"
    await update_for_source(rt, ws, outcome.source_id)
    return outcome.source_id


def _paper(title: str, references: list[str]) -> bytes:
    body = ("We study document representations for scientific literature search. " * 8).strip()
    refs = "\n".join(f"- {r}" for r in references)
    return (
        f"# {title}\n\n## Abstract\n\n{body}\n\n## Introduction\n\n{body}\n\n"
        f"## References\n\n{refs}\n"
    ).encode()


async def _paper_source(rt: Runtime, ws: uuid.UUID, title: str, refs: list[str]) -> uuid.UUID:
    outcome = await ingest_document(
        rt, ws, data=_paper(title, refs), filename=f"{uuid.uuid4().hex[:8]}.md"
    )
    assert outcome.status == "created"
    await update_for_source(rt, ws, outcome.source_id)
    return outcome.source_id


SPECTER_REF = (
    "Arman Cohan, Sergey Feldman, Iz Beltagy, Doug Downey, and Daniel S. Weld. 2020. "
    "SPECTER: Document-level representation learning using citation-informed "
    "transformers. In ACL."
)
CHSIMS_REF = (
    "Wenmeng Yu, Hua Xu, Fanyang Meng, et al. 2020. CH-SIMS: A Chinese multimodal "
    "sentiment analysis dataset with fine-grained annotation of modality. In ACL."
)
SPEECH_REF = (
    "Lieke Gelderloos, Grzegorz Chrupała, and Afra Alishahi. 2020. Learning to understand "
    "child-directed and adult-directed speech. In ACL."
)
ABSENT_REF = (
    "Jane Roe. 2017. A study of nothing in particular about the ranking of widgets. "
    "In Proceedings of Nowhere."
)


async def test_references_and_cited_by_from_the_catalogs_bib_entries(
    api: tuple[Runtime, httpx.AsyncClient], records: dict[str, Candidate]
) -> None:
    rt, http = api
    ws = await ws_usecase.create_workspace(rt, name=f"chase-{uuid.uuid4().hex[:6]}")
    citing = await _record_source(rt, ws.id, records[UNARXIVE])
    cited_here = await _record_source(rt, ws.id, records[CITED[0]])

    got = await http.get(f"/api/sources/{citing}/references")
    assert got.status_code == 200, got.text
    body = got.json()
    by_catalog = {w["catalog_id"]: w for w in body["works"]}
    # exactly the two bib entries that resolve to catalog records, nothing invented
    assert sorted(by_catalog) == sorted(CITED)
    assert by_catalog[CITED[0]]["in_workspace"] is True
    assert by_catalog[CITED[0]]["source_id"] == str(cited_here)
    assert by_catalog[CITED[1]]["in_workspace"] is False
    assert by_catalog[CITED[1]]["source_id"] is None
    assert by_catalog[CITED[1]]["doi"] == records[CITED[1]].doi
    assert {w["origin"] for w in body["works"]} == {"catalog"}
    assert body["unresolved"] == len(records[UNARXIVE].references) - 2

    # cited-by of the ACL paper: the unarXive paper, in the workspace, found both in the
    # workspace's stored citations and in the catalog's reference data
    back = (await http.get(f"/api/sources/{cited_here}/cited-by")).json()
    assert [w["source_id"] for w in back["works"]] == [str(citing)]
    assert set(back["works"][0]["origins"]) == {"workspace", "catalog"}

    # add the one not in the workspace, through the import job; then it is marked
    added = await http.post(
        f"/api/workspaces/{ws.id}/works",
        json={"works": [{"catalog_id": CITED[1]}, {"catalog_id": CITED[0]}], "fetch": False},
    )
    assert added.status_code == 202, added.text
    job_id = uuid.UUID(added.json()["id"])
    async for _ in follow_events(rt.db, job_id):
        pass
    done = await rt.jobs.get(job_id)
    assert done.status == "succeeded", done.error
    summary = done.result["import"]
    assert summary["already_in_workspace"] == 1  # the one already there is deduplicated
    again = (await http.get(f"/api/sources/{citing}/references")).json()
    assert all(w["in_workspace"] for w in again["works"])
    listed = (await http.get(f"/api/workspaces/{ws.id}/sources")).json()
    assert len(listed) == 3


async def test_printed_references_resolve_to_the_catalog(
    api: tuple[Runtime, httpx.AsyncClient], records: dict[str, Candidate]
) -> None:
    rt, http = api
    ws = await ws_usecase.create_workspace(rt, name=f"printed-{uuid.uuid4().hex[:6]}")
    paper = await _paper_source(
        rt, ws.id, "Multimodal Document Embeddings for Scholarly Search Engines",
        [SPECTER_REF, ABSENT_REF],
    )  # fmt: skip
    body = (await http.get(f"/api/sources/{paper}/references")).json()
    assert [(w["catalog_id"], w["origin"], w["in_workspace"]) for w in body["works"]] == [
        (SPECTER, "pdf-references", False)
    ]
    assert body["works"][0]["title"] == records[SPECTER].title
    assert body["works"][0]["year"] == 2020
    assert body["unresolved"] == 1


async def test_suggestions_rank_co_cited_and_coupled_works(
    api: tuple[Runtime, httpx.AsyncClient], records: dict[str, Candidate]
) -> None:
    """Constructed: papers A and B both cite SPECTER, B also cites a speech paper, A
    cites CH-SIMS, which is in the workspace; the two ACL papers the unarXive record
    cites are in the workspace, so that record (not in it) cites two workspace sources.
    Expected: SPECTER (cited by 2), the unarXive record (cites 2), the speech paper
    (cited by 1); CH-SIMS not suggested (in the workspace)."""
    rt, http = api
    ws = await ws_usecase.create_workspace(rt, name=f"suggest-{uuid.uuid4().hex[:6]}")
    a = await _paper_source(
        rt, ws.id, "Representation Learning for Scholarly Recommendation Systems",
        [SPECTER_REF, CHSIMS_REF],
    )  # fmt: skip
    b = await _paper_source(
        rt, ws.id, "Citation Graphs as Supervision for Paper Similarity Models",
        [SPECTER_REF, SPEECH_REF, ABSENT_REF],
    )  # fmt: skip
    await _record_source(rt, ws.id, records[CITED[0]])
    await _record_source(rt, ws.id, records[CITED[1]])
    got = await http.get(f"/api/workspaces/{ws.id}/suggestions")
    assert got.status_code == 200, got.text
    items = got.json()
    assert all(not s["in_workspace"] for s in items)
    ranked = [(s["catalog_id"], s["score"]) for s in items]
    assert ranked == [(SPECTER, 2.0), (UNARXIVE, 2.0), ("2020.acl-main.1", 1.0)]
    specter = next(s for s in items if s["catalog_id"] == SPECTER)
    assert sorted(specter["cited_by_sources"]) == sorted([str(a), str(b)])
    assert "cited by 2 workspace sources" in specter["why"]
    coupled = next(s for s in items if s["catalog_id"] == UNARXIVE)
    assert len(coupled["cites_sources"]) == 2 and "cites 2 workspace sources" in coupled["why"]
    assert items[2]["cited_by_sources"] == [str(b)] and items[2]["cites_sources"] == []


async def test_openalex_references_through_the_real_client(
    services: Runtime, replay_clean: ReplayServer
) -> None:
    """With ``sources.openalex_citations`` on, the source's OpenAlex id is asked for its
    referenced and citing works (recorded result list served at the exact request)."""
    from marginalia.usecases import citations

    listing = json.loads(
        (FIXTURES / "openalex" / "test_title_search_paper_attributes2___3.json").read_text()
    )
    wid = "W4389761608"
    replay_clean.add_response("/openalex/works", {"filter": f"cited_by:{wid}"}, body=listing)
    replay_clean.add_response("/openalex/works", {"filter": f"cites:{wid}"}, body=listing)
    rt = _with(
        services,
        openalex_citations=True,
        openalex_base_url=replay_clean.base_url_for("openalex"),
        min_interval_s=0.0,
    )
    ws = await ws_usecase.create_workspace(rt, name=f"oa-{uuid.uuid4().hex[:6]}")
    record = Candidate(
        title="Augmenting large language models with chemistry tools for discovery",
        abstract="We study tools for language models. " * 10,
        openalex_id=wid,
        origin="openalex",
    )
    source = await _record_source(rt, ws.id, record)
    refs = await citations.references(rt, source)
    expected = [r["id"].rsplit("/", 1)[-1] for r in listing["results"]]
    assert [w.openalex_id for w in refs.works] == expected
    assert {w.origin for w in refs.works} == {"openalex"}
    assert all(w.title for w in refs.works)
    back = await citations.cited_by(rt, source)
    assert [w.openalex_id for w in back.works] == expected
    asked = {dict(r.query).get("filter") for r in replay_clean.requests}
    assert {f"cited_by:{wid}", f"cites:{wid}"} <= asked


async def test_bad_requests_are_clear_4xx(api: tuple[Runtime, httpx.AsyncClient]) -> None:
    rt, http = api
    ws = await ws_usecase.create_workspace(rt, name=f"bad-{uuid.uuid4().hex[:6]}")
    missing = await http.get(f"/api/sources/{uuid.uuid4()}/references")
    assert missing.status_code == 404
    assert (await http.get(f"/api/workspaces/{uuid.uuid4()}/suggestions")).status_code == 404
    for body in (
        {"works": []},
        {"works": [{"catalog_id": "no-such-record"}]},
        {"works": [{"year": 2020}]},
        {"works": [{"title": "x"}], "fetch": "yes"},
    ):
        got = await http.post(f"/api/workspaces/{ws.id}/works", json=body)
        assert got.status_code == 422, (body, got.text)
        assert "detail" in got.json() or "error" in got.json()
    assert (await http.get(f"/api/workspaces/{ws.id}/sources")).json() == []


async def test_cli_citations_suggest_and_export(services: Runtime, tmp_path: Path) -> None:
    """The CLI over the session's settings (no catalog): a printed reference to a
    workspace paper is listed in the workspace; ``export FORMAT -o FOLDER`` names the
    file after the workspace."""
    import asyncio

    from typer.testing import CliRunner

    from marginalia.cli.app import app as cli

    name = f"Cli Chase {uuid.uuid4().hex[:6]}"
    ws = await ws_usecase.create_workspace(services, name=name)
    cited = await _paper_source(
        services, ws.id, "SPECTER: Document-level Representation Learning using "
        "Citation-informed Transformers", [ABSENT_REF],
    )  # fmt: skip
    citing = await _paper_source(
        services, ws.id, "Multimodal Document Embeddings for Scholarly Search Engines",
        [SPECTER_REF],
    )  # fmt: skip

    def invoke(*args: str) -> tuple[int, str]:
        result = CliRunner().invoke(cli, list(args))
        return result.exit_code, result.output

    code, out = await asyncio.to_thread(invoke, "citations", str(citing), "--json")
    assert code == 0, out
    listing = json.loads(out)
    assert [(w["source_id"], w["in_workspace"]) for w in listing["works"]] == [(str(cited), True)]
    code, out = await asyncio.to_thread(invoke, "citations", str(cited), "--cited-by", "--json")
    assert code == 0, out
    assert [w["source_id"] for w in json.loads(out)["works"]] == [str(citing)]
    code, out = await asyncio.to_thread(invoke, "suggest", "-w", name, "--json")
    assert code == 0, out
    assert json.loads(out) == []  # nothing resolvable outside the workspace without a catalog
    code, out = await asyncio.to_thread(invoke, "export", "bibtex", "-w", name, "-o", str(tmp_path))
    assert code == 0, out
    written = tmp_path / (name.lower().replace(" ", "-") + ".bib")
    assert written.read_text().count("@") == 2
    code, out = await asyncio.to_thread(invoke, "export", "docx", "-w", name)
    assert code == 2
