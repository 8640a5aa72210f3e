"""Jobs across real processes sharing one embedded server:

- an arq worker on the local Redis runs a job submitted through a running API server,
  and its progress arrives over SSE on a real HTTP connection;
- a job whose process is killed mid-run is detected as interrupted and resumed from its
  checkpoint, with no step done twice.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from marginalia.jobs.events import follow_events
from marginalia.runtime import Runtime
from tests.support.processes import env_with, free_port, marginalia_cmd, running, wait_healthy

REDIS_URL = os.environ.get("MARGINALIA_TEST_REDIS_URL", "redis://127.0.0.1:6379/14")


def _redis_available() -> bool:
    import redis

    try:
        client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
        client.ping()
        client.flushdb()  # a test-only database index: start from an empty queue
        return True
    except Exception:
        return False


@pytest.mark.slow
def test_arq_worker_runs_job_with_sse_progress(
    subprocess_env: dict[str, str], tmp_path: Path
) -> None:
    if not _redis_available():
        pytest.fail(f"Redis is not reachable at {REDIS_URL}; `.ci/run` starts it (see README)")
    env = env_with(subprocess_env, REDIS_URL=REDIS_URL)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with (
        running(marginalia_cmd("serve", "--port", str(port)), env, tmp_path / "api.log") as api,
        running(marginalia_cmd("worker"), env, tmp_path / "worker.log"),
    ):
        wait_healthy(base, api, tmp_path / "api.log")
        health = httpx.get(f"{base}/api/health").json()
        assert health["jobs"] == {"backend": "arq", "redis": True}

        job = httpx.post(f"{base}/api/jobs/ping", json={"steps": 5, "interval_s": 0.2}).json()
        assert job["backend"] == "arq"
        received: list[dict[str, object]] = []
        first_progress_at = last_progress_at = 0.0
        with httpx.stream("GET", f"{base}/api/jobs/{job['id']}/events", timeout=60) as stream:
            for line in stream.iter_lines():
                if line.startswith("data: "):
                    event = json.loads(line[6:])
                    received.append(event)
                    if event["type"] == "progress":
                        last_progress_at = time.monotonic()
                        first_progress_at = first_progress_at or last_progress_at
        stages = [e["stage"] for e in received if e["type"] == "status"]
        assert stages[0] == "queued" and "running" in stages and stages[-1] == "succeeded"
        assert [e["data"]["step"] for e in received if e["type"] == "progress"] == [1, 2, 3, 4, 5]  # type: ignore[index]
        assert last_progress_at - first_progress_at > 0.4  # streamed live, not in one burst
        final = httpx.get(f"{base}/api/jobs/{job['id']}").json()
        assert final["status"] == "succeeded"
        assert final["worker"].startswith("arq:")


@pytest.mark.slow
async def test_killed_job_is_detected_and_resumed(
    services: Runtime, subprocess_env: dict[str, str], tmp_path: Path
) -> None:
    env = env_with(subprocess_env)
    log = tmp_path / "cli.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            marginalia_cmd("jobs", "ping", "--steps", "12", "--interval", "0.3"),
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    job_id: uuid.UUID | None = None
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            text = log.read_text()
            if job_id is None and "submitted" in text:
                job_id = uuid.UUID(text.split("job ", 1)[1].split()[0])
            if job_id is not None:
                job = await services.jobs.get(job_id)
                if int(job.checkpoint.get("done", 0)) >= 3:
                    break
            await asyncio.sleep(0.1)
        else:
            pytest.fail(f"job never got going:\n{log.read_text()}")
    finally:
        proc.send_signal(signal.SIGKILL)  # a crash: no cleanup runs
        proc.wait(10)
    assert job_id is not None
    crashed = await services.jobs.get(job_id)
    assert crashed.status == "running"  # nobody recorded the crash

    await asyncio.sleep(services.settings.jobs.stale_after_s + 0.5)
    # The sweep (as the API process and every worker run it) marks it and resumes it:
    # nobody presses resume.
    assert job_id in await services.jobs.sweep()
    async for _ in follow_events(services.db, job_id):
        pass
    resumed = await services.jobs.get(job_id)
    assert resumed.status == "succeeded"
    assert resumed.attempts == 2
    assert resumed.result is not None
    done_before = resumed.result["resumed_from"]
    assert 3 <= done_before < 12
    assert resumed.result["executed"] == list(range(12))  # every step exactly once


@pytest.mark.slow
async def test_a_job_of_a_killed_server_finishes_under_the_next_one(
    services: Runtime, subprocess_env: dict[str, str], tmp_path: Path
) -> None:
    """kill -9 of `serve` mid-job; the next `serve` resumes the job by itself (its sweep),
    and the job finishes with every step done once."""
    env = env_with(subprocess_env, MARGINALIA_JOBS__SWEEP_INTERVAL_S="0.5")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with running(marginalia_cmd("serve", "--port", str(port)), env, tmp_path / "a.log") as first:
        wait_healthy(base, first, tmp_path / "a.log")
        job = httpx.post(f"{base}/api/jobs/ping", json={"steps": 16, "interval_s": 0.25}).json()
        job_id = uuid.UUID(job["id"])
        deadline = time.monotonic() + 30
        while int((await services.jobs.get(job_id)).checkpoint.get("done", 0)) < 3:
            assert time.monotonic() < deadline, "the job never got going"
            await asyncio.sleep(0.05)
        first.send_signal(signal.SIGKILL)  # a crash: no shutdown handler runs
        first.wait(10)
    crashed = await services.jobs.get(job_id)
    assert crashed.status == "running"  # nobody recorded the crash
    done_at_crash = int(crashed.checkpoint["done"])
    assert done_at_crash < 16

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with running(marginalia_cmd("serve", "--port", str(port)), env, tmp_path / "b.log") as second:
        wait_healthy(base, second, tmp_path / "b.log")
        deadline = time.monotonic() + services.settings.jobs.stale_after_s + 30
        while (final := await services.jobs.get(job_id)).status != "succeeded":
            assert final.status in ("running", "queued", "failed"), final.error
            assert time.monotonic() < deadline, f"not resumed: {final.status} {final.error}"
            await asyncio.sleep(0.2)
    assert final.attempts == 2
    assert final.result is not None
    assert final.result["resumed_from"] >= done_at_crash
    assert final.result["executed"] == list(range(16))
    events = [e.message for e in await _events(services, job_id)]
    assert any(m and m.startswith("resumed automatically") for m in events), events


async def _events(services: Runtime, job_id: uuid.UUID) -> list[Any]:
    from marginalia.db.repositories import jobs as jobs_repo

    async with services.db.session() as session:
        return await jobs_repo.events_after(session, job_id, 0)


async def test_a_job_interrupted_too_often_stays_failed_with_the_reason(services: Runtime) -> None:
    from sqlalchemy import text

    job = await services.jobs.submit("diagnostics.ticker", {"steps": 1, "interval_s": 0})
    async for _ in follow_events(services.db, job.id):
        pass
    max_attempts = services.settings.jobs.max_attempts
    async with services.db.transaction() as session:
        await session.execute(
            text(
                "UPDATE jobs SET status = 'running', finished_at = NULL, attempts = :n, "
                "heartbeat_at = now() - interval '1 hour' WHERE id = :id"
            ),
            {"id": job.id, "n": max_attempts},
        )
    assert job.id not in await services.jobs.sweep()
    failed = await services.jobs.get(job.id)
    assert failed.status == "failed" and failed.interrupted
    assert failed.error is not None and failed.error.startswith(
        f"gave up after {max_attempts} interrupted attempts"
    )
    await services.jobs.sweep()  # said once, not again
    assert (await services.jobs.get(job.id)).error == failed.error
