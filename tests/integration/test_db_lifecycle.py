"""Recovery without a restart (issue 18, items 3 and 4): the embedded PostgreSQL stops with
the last process that uses it, SIGTERM included; a killed process's handle is pruned on
the next start; a server killed mid-ingest leaves a job that is resumable within the
sweeper's interval, with no duplicate and no partial source."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import httpx
import pytest

from marginalia.jobs.events import follow_events
from marginalia.jobs.sweeper import sweeping
from marginalia.runtime import Runtime
from tests.support.processes import (
    env_with,
    free_port,
    marginalia_cmd,
    running,
    wait_healthy,
)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _postmaster(home: Path) -> int:
    return int((home / "pgdata" / "postmaster.pid").read_text().split()[0])


def _wait_gone(pid: int, timeout_s: float = 30) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.2)
    return False


def _own_home_env(subprocess_env: dict[str, str], home: Path) -> dict[str, str]:
    env = env_with(subprocess_env, MARGINALIA_HOME=str(home))
    # This home is not the session's: it gets its own embedded server.
    return env


@pytest.mark.slow
def test_sigterm_of_serve_stops_its_postgres(
    subprocess_env: dict[str, str], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    env = _own_home_env(subprocess_env, home)
    port = free_port()
    log = tmp_path / "serve.log"
    with running(marginalia_cmd("serve", "--port", str(port)), env, log) as proc:
        wait_healthy(f"http://127.0.0.1:{port}", proc, log, timeout_s=120)
        postgres = _postmaster(home)
        assert _alive(postgres)
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
    assert _wait_gone(postgres), f"postgres {postgres} still running:\n{log.read_text()[-2000:]}"
    handles = home / "pgdata" / ".handle_pids.json"
    assert not handles.exists() or json.loads(handles.read_text() or "[]") == []


@pytest.mark.slow
def test_a_killed_process_handle_is_pruned_by_the_next(
    subprocess_env: dict[str, str], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    env = _own_home_env(subprocess_env, home)
    port = free_port()
    log = tmp_path / "serve.log"
    with running(marginalia_cmd("serve", "--port", str(port)), env, log) as proc:
        wait_healthy(f"http://127.0.0.1:{port}", proc, log, timeout_s=120)
        postgres = _postmaster(home)
        proc.send_signal(signal.SIGKILL)  # no exit hook runs: its pid stays in the list
        proc.wait(10)
    assert _alive(postgres)
    handles = home / "pgdata" / ".handle_pids.json"
    assert proc.pid in json.loads(handles.read_text())
    # The next process prunes the dead handle, and as the last one out stops the server.
    status = subprocess.run(
        marginalia_cmd("db", "status"), env=env, capture_output=True, text=True, timeout=120
    )
    assert status.returncode == 0, status.stdout + status.stderr
    assert _wait_gone(postgres), "the leaked postmaster was never stopped"
    assert json.loads(handles.read_text() or "[]") == []


@pytest.mark.slow
async def test_server_killed_mid_ingest_resumes_within_a_sweep(
    services: Runtime, subprocess_env: dict[str, str], tmp_path: Path, shared_data: Path
) -> None:
    pdfs = sorted((shared_data / "pdfs").glob("*.pdf"))[:4]
    assert len(pdfs) == 4
    env = env_with(subprocess_env)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log = tmp_path / "serve.log"
    async with httpx.AsyncClient(base_url=base, timeout=120) as http:
        with running(marginalia_cmd("serve", "--port", str(port)), env, log) as proc:
            await asyncio.to_thread(wait_healthy, base, proc, log, 120)
            ws = (await http.post("/api/workspaces", json={"name": f"kill {uuid.uuid4()}"})).json()
            files = [("files", (p.name, p.read_bytes(), "application/pdf")) for p in pdfs]
            job_id = uuid.UUID(
                (await http.post(f"/api/workspaces/{ws['id']}/sources", files=files)).json()["id"]
            )
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline:
                job = await services.jobs.get(job_id)
                if job.status != "running" and job.status != "queued":
                    pytest.fail(f"the job ended before it could be killed: {job.status}")
                if len(job.checkpoint.get("done", {})) >= 1:
                    break
                await asyncio.sleep(0.05)
            else:
                pytest.fail(f"the ingest never got going:\n{log.read_text()[-3000:]}")
            proc.send_signal(signal.SIGKILL)  # a crash mid-ingest
            proc.wait(10)
    assert (await services.jobs.get(job_id)).status == "running"  # nobody recorded it

    settings = services.settings.jobs
    killed_at = time.monotonic()
    async with sweeping(services.jobs, 0.5):  # another live process's sweeper
        # The sweep marks the dead run interrupted and resumes it by itself (issue 34): the
        # job is claimed again (a second attempt) with no manual resume.
        while (await services.jobs.get(job_id)).attempts < 2:
            assert time.monotonic() - killed_at < settings.stale_after_s + 5, "never resumed"
            await asyncio.sleep(0.1)
        assert time.monotonic() - killed_at < settings.stale_after_s + 2  # within a sweep
        [_ async for _ in follow_events(services.db, job_id)]
    finished = await services.jobs.get(job_id)
    assert finished.status == "succeeded", finished.error
    assert finished.result is not None
    # The result counts what the job as a whole did, whichever attempt stored a file.
    assert finished.result["created"] == len(pdfs), finished.result
    assert finished.result["duplicate"] == 0 and finished.result["failed"] == 0
    from marginalia.usecases import sources as sources_usecase

    stored = await sources_usecase.list_sources(services, uuid.UUID(ws["id"]), limit=100, offset=0)
    assert len(stored) == len(pdfs)  # no duplicate
    for source in stored:  # no partial source: every one has its chunks
        chunks = await sources_usecase.source_chunks(services, source.id, limit=1, offset=0)
        assert chunks, source.file_name
