"""Jobs in-process: events persisted and streamed over SSE, resumable streams, resume/retry."""

from __future__ import annotations

import asyncio
import json
import uuid

import httpx

from marginalia.jobs.backends import InProcessBackend
from marginalia.runtime import Runtime


def parse_sse(text: str) -> list[dict[str, object]]:
    events = []
    for block in text.strip().split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            if line.startswith(":"):
                continue
            key, _, value = line.partition(": ")
            fields[key] = value
        if "data" in fields:
            events.append(
                {"id": int(fields["id"]), "event": fields["event"], **json.loads(fields["data"])}
            )
    return events


async def test_job_progress_over_sse(client: httpx.AsyncClient) -> None:
    submitted = await client.post("/api/jobs/ping", json={"steps": 4, "interval_s": 0.05})
    assert submitted.status_code == 202
    job_id = submitted.json()["id"]

    stream = await client.get(f"/api/jobs/{job_id}/events")
    assert stream.headers["content-type"].startswith("text/event-stream")
    events = parse_sse(stream.text)
    progress = [e for e in events if e["type"] == "progress"]
    assert [e["data"]["step"] for e in progress] == [1, 2, 3, 4]  # type: ignore[index]
    assert events[0]["stage"] == "queued"
    assert events[-1]["type"] == "status" and events[-1]["stage"] == "succeeded"
    ids = [e["id"] for e in events]
    assert ids == sorted(ids)

    # Resumable: with Last-Event-ID only later events come back.
    cut = progress[1]["id"]
    tail = parse_sse(
        (await client.get(f"/api/jobs/{job_id}/events", headers={"Last-Event-ID": str(cut)})).text
    )
    assert [e["id"] for e in tail] == [i for i in ids if i > cut]  # type: ignore[operator]

    job = (await client.get(f"/api/jobs/{job_id}")).json()
    assert job["status"] == "succeeded"
    assert job["result"]["executed"] == [0, 1, 2, 3]
    assert job["worker"].startswith("in-process:")


async def test_live_stream_sees_events_as_they_happen(services: Runtime) -> None:
    from marginalia.jobs.events import follow_events

    job = await services.jobs.submit("diagnostics.ticker", {"steps": 3, "interval_s": 0.3})
    seen: list[tuple[str, float]] = []
    loop = asyncio.get_running_loop()
    async for event in follow_events(services.db, job.id, wait_s=5.0):
        seen.append((event.type, loop.time()))
    progress_times = [t for kind, t in seen if kind == "progress"]
    assert len(progress_times) == 3
    # Delivered live (spread over the run), not all at once at the end.
    assert progress_times[-1] - progress_times[0] > 0.4


async def test_cancel_and_conflicts(client: httpx.AsyncClient, services: Runtime) -> None:
    job_id = (await client.post("/api/jobs/ping", json={"steps": 50, "interval_s": 0.1})).json()[
        "id"
    ]
    await asyncio.sleep(0.3)
    assert (await client.post(f"/api/jobs/{job_id}/cancel")).status_code == 200
    backend = services.backend
    assert isinstance(backend, InProcessBackend)
    await asyncio.wait_for(backend.wait(uuid.UUID(job_id)), 10)
    job = (await client.get(f"/api/jobs/{job_id}")).json()
    assert job["status"] == "cancelled"
    assert job["result"] is None
    again = await client.post(f"/api/jobs/{job_id}/cancel")
    assert again.status_code == 409
    assert again.json()["error"] == "conflict"
    # A succeeded job cannot be resumed.
    done = (await client.post("/api/jobs/ping", json={"steps": 1, "interval_s": 0})).json()["id"]
    await asyncio.wait_for(backend.wait(uuid.UUID(done)), 10)
    assert (await client.post(f"/api/jobs/{done}/resume")).status_code == 409
