"""A research run killed mid-way (SIGKILL of the CLI process running it) is detected as
interrupted and resumed from each candidate's last completed stage, with no duplicate
sources (invariant 5) and no candidate ingested twice."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlmodel import col

import marginalia.usecases.research  # noqa: F401  (registers the research job in this process)
from marginalia.db.models import Source
from marginalia.jobs.events import follow_events
from marginalia.runtime import Runtime
from tests.integration.research_support import (
    QUERY,
    new_workspace,
    replay_settings,
    serve_fixture_content,
    services_with,
    write_catalog,
)
from tests.support.processes import env_with
from tests.support.replay_server import ReplayServer, require_fixtures

CLI = (
    "import typer\n"
    "from marginalia.cli.research_cmds import register\n"
    "app = typer.Typer()\n"
    "register(app)\n"
    "app()\n"
)
MAX_SOURCES = 6


@pytest.fixture(scope="module")
def replay() -> Iterator[ReplayServer]:
    require_fixtures()
    server = ReplayServer().start()
    serve_fixture_content(server)
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.slow
async def test_killed_research_run_resumes_without_duplicates(
    services: Runtime, replay: ReplayServer, subprocess_env: dict[str, str], tmp_path: Path
) -> None:
    catalog = tmp_path / "papers.jsonl"
    await write_catalog(replay, catalog)
    settings = replay_settings(services.settings, replay, catalog)
    research = services_with(services, settings)
    workspace_id = await new_workspace(research)

    env = env_with(
        subprocess_env,
        MARGINALIA_CATALOG_PATH=str(catalog),
        MARGINALIA_SOURCES__ARXIV_BASE_URL=replay.base_url_for("arxiv"),
        MARGINALIA_SOURCES__OPENALEX_BASE_URL=replay.base_url_for("openalex"),
        MARGINALIA_SOURCES__BRAVE_BASE_URL=replay.base_url_for("brave"),
        MARGINALIA_SOURCES__BRAVE_API_KEY="test-key",
        MARGINALIA_SOURCES__MIN_INTERVAL_S="0.01",
        MARGINALIA_SOURCES__MAX_RETRIES="0",
        # linked two at a time, so the run is killed with some candidates not linked yet
        MARGINALIA_KNOWLEDGE__LINK_BATCH="2",
        MARGINALIA_SOURCES__ALLOW_PRIVATE_ADDRESSES="true",
    )
    log = tmp_path / "research.log"
    cmd = [
        sys.executable, "-c", CLI, "research", "testing", "--workspace", str(workspace_id),
        "--query", QUERY, "--max-sources", str(MAX_SOURCES), "--quiet", "--no-fetch",
    ]  # fmt: skip
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
    job_id: uuid.UUID | None = None
    linked_before: dict[str, str] = {}
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            text = log.read_text()
            if job_id is None and "submitted research job" in text:
                job_id = uuid.UUID(text.split("submitted research job ", 1)[1].split()[0])
            if job_id is not None:
                job = await services.jobs.get(job_id)
                items = (job.checkpoint.get("research") or {}).get("candidates") or []
                linked = {i["key"]: i["source_id"] for i in items if i["stage"] == "linked"}
                if len(linked) >= 2:
                    linked_before = linked
                    break
            if proc.poll() is not None:
                pytest.fail(f"the research process ended early:\n{log.read_text()}")
            await asyncio.sleep(0.1)
        else:
            pytest.fail(f"the research run never got going:\n{log.read_text()}")
    finally:
        proc.send_signal(signal.SIGKILL)  # a crash: nothing records it
        proc.wait(10)
    assert job_id is not None
    crashed = await services.jobs.get(job_id)
    assert crashed.status == "running"
    stages_at_crash = [i["stage"] for i in crashed.checkpoint["research"]["candidates"]]
    assert "linked" in stages_at_crash and set(stages_at_crash) != {"linked"}

    await asyncio.sleep(services.settings.jobs.stale_after_s + 0.5)
    assert job_id in await services.jobs.recover_stale()
    await research.jobs.resume(job_id)  # runs in this process, with the replay settings
    events = [e async for e in follow_events(research.db, job_id)]
    resumed = await research.jobs.get(job_id)
    assert resumed.status == "succeeded", resumed.error
    assert resumed.attempts == 2
    assert any(e.stage == "resume" for e in events)
    resumed_at = next(e.id for e in events if e.stage == "resume")
    assert not any(e.stage in ("decompose", "search", "dedup") for e in events if e.id > resumed_at)

    result = resumed.result or {}
    candidates = result["candidates"]
    assert len(candidates) == MAX_SOURCES
    assert all(c["stage"] == "linked" for c in candidates)
    # what was linked before the crash kept its source, and was not ingested again
    for key, source_id in linked_before.items():
        assert next(c for c in candidates if c["key"] == key)["source_id"] == source_id
    ingest_events = {e.data.get("key") for e in events if e.stage == "ingest" and e.id > resumed_at}
    assert ingest_events.isdisjoint(linked_before)

    async with research.db.session() as session:
        sources = (
            (await session.execute(select(Source).where(col(Source.workspace_id) == workspace_id)))
            .scalars()
            .all()
        )
    assert len(sources) == MAX_SOURCES  # no duplicates
    assert {str(s.id) for s in sources} == {c["source_id"] for c in candidates}
    assert len({s.title for s in sources}) == MAX_SOURCES
    assert all(s.extraction_engine for s in sources)
