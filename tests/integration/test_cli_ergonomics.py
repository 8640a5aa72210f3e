"""CLI ergonomics (issue 20 item 4): unique id prefixes everywhere (an ambiguous one is
refused with its candidates), --json on list/show, `db status` says where the data
lives, a dead job never shows as running, an unreachable source is one line."""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from typer.testing import CliRunner

from marginalia.cli.app import app
from marginalia.db.models import Job, Workspace
from marginalia.errors import NotFoundError, ValidationFailed
from marginalia.runtime import Runtime
from marginalia.sources.arxiv_client import ArxivClient
from marginalia.sources.base import SourceError, describe_failure
from marginalia.usecases import jobs as jobs_usecase
from marginalia.usecases.lookup import resolve_id


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


async def _workspaces_sharing_a_prefix(rt: Runtime) -> tuple[str, uuid.UUID, uuid.UUID]:
    prefix = uuid.uuid4().hex[:6]
    ids = [
        uuid.UUID(prefix + "00" + uuid.uuid4().hex[8:]),
        uuid.UUID(prefix + "ff" + uuid.uuid4().hex[8:]),
    ]
    async with rt.db.transaction() as session:
        for i, wid in enumerate(ids):
            session.add(Workspace(id=wid, name=f"prefix-{prefix}-{i}", description=""))
    return prefix, ids[0], ids[1]


async def test_id_prefixes_resolve_and_ambiguous_ones_are_refused(services: Runtime) -> None:
    prefix, first, second = await _workspaces_sharing_a_prefix(services)
    assert await resolve_id(services, "workspace", str(first)[:8]) == first
    assert await resolve_id(services, "workspace", str(second).upper()[:9]) == second
    with pytest.raises(ValidationFailed) as refused:
        await resolve_id(services, "workspace", prefix)
    assert str(first) in refused.value.detail and str(second) in refused.value.detail
    with pytest.raises(NotFoundError):
        await resolve_id(services, "workspace", "0000000f")
    with pytest.raises(ValidationFailed):
        await resolve_id(services, "workspace", "ab")  # too short to mean anything

    code, out = await asyncio.to_thread(_invoke, "workspace", "show", prefix)
    assert code == 1 and "ambiguous" in out and str(first) in " ".join(out.split())
    code, out = await asyncio.to_thread(_invoke, "workspace", "show", str(second)[:8])
    assert code == 0 and json.loads(out)["id"] == str(second)


async def test_jobs_by_prefix_json_lists_and_dead_jobs(services: Runtime) -> None:
    job = await services.jobs.submit("diagnostics.ticker", {"steps": 1, "interval_s": 0.01})
    for _ in range(200):
        if (await services.jobs.get(job.id)).status == "succeeded":
            break
        await asyncio.sleep(0.05)
    code, out = await asyncio.to_thread(_invoke, "jobs", "show", str(job.id)[:8])
    assert code == 0, out
    assert json.loads(out)["id"] == str(job.id)
    code, out = await asyncio.to_thread(_invoke, "jobs", "list", "--json", "--limit", "50")
    assert code == 0 and str(job.id) in {j["id"] for j in json.loads(out)}
    code, out = await asyncio.to_thread(_invoke, "jobs", "list")
    assert code == 0 and str(job.id)[:8] in out

    # A job left "running" by a process that died: never listed as running.
    dead = Job(
        kind="diagnostics.ticker",
        status="running",
        heartbeat_at=datetime.now(UTC) - timedelta(hours=1),
        started_at=datetime.now(UTC) - timedelta(hours=1),
    )
    async with services.db.transaction() as session:
        session.add(dead)
    listed = {j.id: j for j in await jobs_usecase.list_jobs(services, 100)}
    assert listed[dead.id].status == "failed" and listed[dead.id].interrupted
    code, out = await asyncio.to_thread(_invoke, "jobs", "list", "--limit", "100")
    row = next(line for line in out.splitlines() if str(dead.id)[:8] in line)
    assert "interrupted" in row and "running" not in row


async def test_json_on_workspace_and_source_lists(services: Runtime) -> None:
    from marginalia.usecases.workspaces import create_workspace

    ws = await create_workspace(services, name=f"json-{uuid.uuid4().hex[:8]}")
    code, out = await asyncio.to_thread(_invoke, "workspace", "list", "--json")
    assert code == 0 and ws.name in {w["name"] for w in json.loads(out)}
    code, out = await asyncio.to_thread(_invoke, "sources", "list", "-w", ws.name, "--json")
    assert code == 0 and json.loads(out) == []


async def test_db_status_says_where_the_data_lives(services: Runtime) -> None:
    code, out = await asyncio.to_thread(_invoke, "db", "status")
    assert code == 0, out
    assert str(services.settings.pgdata_dir) in out and str(services.settings.files_dir) in out
    code, out = await asyncio.to_thread(_invoke, "db", "status", "--json")
    report = json.loads(out)
    assert report["locations"]["home"] == str(services.settings.home)
    assert report["database"]["reachable"] is True


async def test_an_unreachable_source_is_one_line() -> None:
    # A real refused connection on loopback (nothing listens on port 9).
    client = ArxivClient(base_url="http://127.0.0.1:9/api/query", min_interval_s=0.0, max_retries=0)
    with pytest.raises(SourceError) as caught:
        await client.search("attention", limit=1)
    line = describe_failure("arxiv", caught.value.reason, caught.value.message)
    assert line == "arXiv: unreachable (connection refused)", caught.value.message
    # The text the issue saw for a DNS failure, as urllib3/requests word it.
    raw = (
        "HTTPSConnectionPool(host='export.arxiv.org', port=443): Max retries exceeded with url: "
        '/api/query (Caused by NameResolutionError("<urllib3.connection.HTTPSConnection>: '
        "Failed to resolve 'export.arxiv.org' ([Errno -3] Temporary failure in name resolution)\"))"
    )
    assert describe_failure("arxiv", "unreachable", raw) == "arXiv: unreachable (DNS)"
    assert (
        describe_failure(
            "openalex",
            "unreachable",
            str(httpx.ConnectError("[Errno -2] Name or service not known")),
        )
        == "OpenAlex: unreachable (DNS)"
    )
    assert (
        describe_failure(
            "brave",
            "not_configured",
            "Brave web search skipped: set MARGINALIA_SOURCES__BRAVE_API_KEY",
        )
        == "Brave: not configured (set MARGINALIA_SOURCES__BRAVE_API_KEY)"
    )
    assert (
        describe_failure("openalex", "timeout", "read timed out after 30 s") == "OpenAlex: timeout"
    )
