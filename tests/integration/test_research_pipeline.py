"""The research pipeline end to end, on the recorded arXiv/OpenAlex/Brave responses and
the ACL 2020 catalog: through the API as a job, with its SSE progress; re-running reuses
what the workspace knows; a failing source is reported and the run continues; a private
PDF address is never fetched."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select
from sqlmodel import col

from marginalia.api.app import create_app
from marginalia.api.routes import research as research_routes
from marginalia.db.models import Chunk, Claim, Concept, Source, WikiPage
from marginalia.discovery.bibtex_io import StaticSource
from marginalia.discovery.pipeline import run_research
from marginalia.discovery.support import ResearchOptions, default_clients
from marginalia.jobs.events import follow_events
from marginalia.runtime import Runtime
from marginalia.sources.candidate import Candidate
from tests.integration.research_support import (
    QUERY,
    new_workspace,
    replay_settings,
    serve_fixture_content,
    services_with,
    write_catalog,
)
from tests.support.replay_server import ReplayServer, require_fixtures


@pytest.fixture(scope="module")
def replay() -> Iterator[ReplayServer]:
    require_fixtures()
    server = ReplayServer().start()
    serve_fixture_content(server)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def catalog(replay: ReplayServer, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    import asyncio

    path = tmp_path_factory.mktemp("catalog") / "papers.jsonl"
    title = asyncio.run(write_catalog(replay, path))
    return path, title


async def _count(services: Runtime, model: Any, workspace_id: Any) -> int:
    async with services.db.session() as session:
        value = await session.scalar(
            select(func.count()).select_from(model).where(col(model.workspace_id) == workspace_id)
        )
    return int(value or 0)


async def test_full_research_run_via_api(
    services: Runtime, replay: ReplayServer, catalog: tuple[Path, str]
) -> None:
    catalog_path, pdf_title = catalog
    research = services_with(services, replay_settings(services.settings, replay, catalog_path))
    app = create_app(research.settings, runtime=research)
    if not any(getattr(r, "path", "").endswith("/research") for r in app.routes):
        app.include_router(research_routes.router)  # until the lead wires it in api/app.py
    app.state.runtime = research
    workspace_id = await new_workspace(research)

    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.post(
            f"/api/workspaces/{workspace_id}/research",
            json={"description": "testing", "queries": [QUERY], "max_sources": 8},
        )
        assert response.status_code == 202, response.text
        job_id = response.json()["id"]
        events = [e async for e in follow_events(research.db, research_job_id(job_id))]
        job = (await client.get(f"/api/jobs/{job_id}")).json()
        assert job["status"] == "succeeded", job["error"]

        # The same events over SSE (the job is finished, so the stream ends).
        sse = (await client.get(f"/api/jobs/{job_id}/events")).text
        payloads = [json.loads(line[6:]) for line in sse.splitlines() if line.startswith("data: ")]
        assert [p["stage"] for p in payloads] == [e.stage for e in events]

        # BibTeX export of what was found
        bib = (await client.get(f"/api/workspaces/{workspace_id}/bibtex")).text
        assert len(re.findall(r"^@", bib, re.MULTILINE)) == job["result"]["counts"]["ingested"]

    stages = [e.stage for e in events]
    for stage in ("decompose", "search", "dedup", "fetch", "ingest", "link", "done"):
        assert stage in stages, stages
    result = job["result"]
    counts = result["counts"]
    reports = result["sources"]
    assert set(reports) == {"arxiv", "openalex", "brave", "catalog"}
    assert all(r["status"] == "ok" and r["found"] > 0 for r in reports.values()), reports
    dedup_event = next(e for e in events if e.stage == "dedup")
    assert dedup_event.data["found"] == sum(r["found"] for r in reports.values())
    assert counts["selected"] == 8 and counts["linked"] == 8 and counts["failed"] == 0
    # One fetched PDF (the catalog record pointing at the replay server); the rest are
    # abstract-only: the ACL/arXiv/web hosts do not resolve offline.
    assert counts["fetched"] == 1
    assert counts["abstract_only"] == 7
    assert set(counts["fetch_failed"]) <= {"dns_error", "unreachable", "timeout"}
    fetched = [c for c in result["candidates"] if c["fetch"].get("status") == "ok"]
    assert [c["title"] for c in fetched] == [pdf_title]
    failed_fetch = next(e for e in events if e.stage == "fetch" and e.data["status"] == "failed")
    assert failed_fetch.data["reason"]

    async with research.db.session() as session:
        sources = (
            (await session.execute(select(Source).where(col(Source.workspace_id) == workspace_id)))
            .scalars()
            .all()
        )
    assert len(sources) == 8
    by_title = {s.title: s for s in sources}
    assert by_title[pdf_title].abstract_only is False and by_title[pdf_title].page_count > 1
    assert sum(s.abstract_only for s in sources) == 7
    assert all(s.extraction_engine for s in sources)  # unified extraction ran
    assert all(s.quality_score is not None for s in sources)
    for model in (Chunk, Concept, Claim, WikiPage):
        assert await _count(research, model, workspace_id) > 0, model.__name__

    # Re-running reuses what the workspace knows: nothing is ingested twice.
    rerun = await run_research(
        research,
        workspace_id,
        "testing",
        options=ResearchOptions(queries=[QUERY], max_sources=3, fetch=False, link=False),
    )
    assert rerun["dedup"]["known_total"] >= 8
    assert {c["title"] for c in rerun["candidates"]}.isdisjoint(by_title)
    assert await _count(research, Source, workspace_id) == 8 + rerun["counts"]["ingested"]


def research_job_id(value: str) -> Any:
    import uuid

    return uuid.UUID(value)


async def test_failing_sources_are_reported_and_the_run_continues(
    services: Runtime, replay: ReplayServer, catalog: tuple[Path, str]
) -> None:
    catalog_path, _ = catalog
    settings = replay_settings(
        services.settings, replay, catalog_path, brave_base_url="http://127.0.0.1:9/brave"
    )
    research = services_with(services, settings)
    workspace_id = await new_workspace(research)
    replay.fail_next("/arxiv", count=5, status=500)
    events: list[tuple[str, dict[str, Any]]] = []

    async def emit(message: str, stage: str, progress: float | None, data: dict[str, Any]) -> None:
        events.append((stage, data))

    result = await run_research(
        research,
        workspace_id,
        "testing",
        options=ResearchOptions(queries=[QUERY], max_sources=4, link=False, fetch=False),
        emit=emit,
    )
    reports = result["sources"]
    assert reports["arxiv"]["status"] == "failed" and reports["arxiv"]["reason"] == "http_status"
    assert reports["brave"]["status"] == "failed" and reports["brave"]["reason"] == "unreachable"
    assert reports["openalex"]["status"] == "ok" and reports["catalog"]["status"] == "ok"
    reported = {d.get("source") for stage, d in events if stage == "search" and d.get("source")}
    assert reported == {"arxiv", "brave"}
    assert result["counts"]["ingested"] == 4
    assert all(c["origin"] in ("openalex", "catalog") for c in result["candidates"])


async def test_private_pdf_address_is_not_fetched(
    services: Runtime, replay: ReplayServer, catalog: tuple[Path, str]
) -> None:
    catalog_path, _ = catalog
    # the default: private addresses refused
    settings = replay_settings(
        services.settings, replay, catalog_path, allow_private_addresses=False
    )
    research = services_with(services, settings)
    workspace_id = await new_workspace(research)
    candidates = [
        Candidate(
            title="A paper whose PDF link points at the loopback interface",
            abstract="We study loopback links. The PDF must not be fetched.",
            pdf_url=replay.root_url + "/files/specter-acl2020.pdf",
            origin="openalex",
        ),
        Candidate(
            title="A paper whose PDF link points at cloud instance metadata",
            abstract="We study metadata endpoints. The PDF must not be fetched either.",
            pdf_url="http://169.254.169.254/latest/meta-data/paper.pdf",
            origin="openalex",
        ),
    ]
    before = replay.count("/files")
    result = await run_research(
        research,
        workspace_id,
        "ssrf",
        options=ResearchOptions(queries=["ssrf"], link=False),
        clients=[StaticSource("static", candidates)],
    )
    assert replay.count("/files") == before  # nothing was requested
    items = result["candidates"]
    assert len(items) == 2
    for item in items:
        assert item["fetch"] == {
            "status": "failed",
            "reason": "private_address",
            "url": item["fetch"]["url"],
        }
        assert item["abstract_only"] is True and item["stage"] == "linked"
    async with research.db.session() as session:
        sources = (
            (await session.execute(select(Source).where(col(Source.workspace_id) == workspace_id)))
            .scalars()
            .all()
        )
    assert len(sources) == 2 and all(s.abstract_only for s in sources)


def test_default_clients_cover_every_source(services: Runtime, catalog: tuple[Path, str]) -> None:
    settings = services.settings.model_copy(update={"catalog_path": catalog[0]})
    assert [c.name for c in default_clients(settings)] == ["arxiv", "openalex", "brave", "catalog"]


async def test_bibtex_import_and_export(services: Runtime) -> None:
    from marginalia.errors import ValidationFailed
    from marginalia.usecases.research import export_bibtex, submit_bibtex_import

    workspace_id = await new_workspace(services)
    bib = """
    @inproceedings{cohan2020specter,
      title = {{SPECTER}: Document-level Representation Learning using Citation-informed Transformers},
      author = {Cohan, Arman and Feldman, Sergey},
      year = {2020},
      doi = {10.18653/v1/2020.acl-main.207},
      abstract = {Representation learning is a critical ingredient for natural language processing systems.},
    }
    @article{lo2020s2orc,
      title = {S2ORC: The Semantic Scholar Open Research Corpus},
      author = {Lo, Kyle and Wang, Lucy Lu},
      year = {2020},
      abstract = {We introduce S2ORC, a large corpus of 81.1M English-language academic papers.},
    }
    """
    with pytest.raises(ValidationFailed):
        await submit_bibtex_import(services, workspace_id, "not bibtex at all")
    job = await submit_bibtex_import(services, workspace_id, bib, fetch=False)
    async for _ in follow_events(services.db, job.id):
        pass
    done = await services.jobs.get(job.id)
    assert done.status == "succeeded", done.error
    assert done.result is not None and done.result["counts"]["ingested"] == 2
    exported = await export_bibtex(services, workspace_id)
    assert len(re.findall(r"^@", exported, re.MULTILINE)) == 2
    assert "10.18653/v1/2020.acl-main.207" in exported
