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

import httpx
import pytest

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
    assert job_id in await services.jobs.recover_stale()
    interrupted = await services.jobs.get(job_id)
    assert interrupted.status == "failed" and interrupted.interrupted
    done_before = int(interrupted.checkpoint["done"])

    await services.jobs.resume(job_id)
    from marginalia.jobs.events import follow_events

    async for _ in follow_events(services.db, job_id):
        pass
    resumed = await services.jobs.get(job_id)
    assert resumed.status == "succeeded"
    assert resumed.attempts == 2
    assert resumed.result is not None
    assert resumed.result["resumed_from"] == done_before
    assert resumed.result["executed"] == list(range(12))  # every step exactly once
