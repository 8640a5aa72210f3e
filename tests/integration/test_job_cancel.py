"""Cancel stops the work (issue 34, part 2): a cancelled job stops at its next cooperative
check, writes no further progress, stops heartbeating, ends ``cancelled``, and a job
after it runs."""

from __future__ import annotations

import asyncio
import time
import uuid
from pathlib import Path

import httpx
from sqlalchemy import text

from marginalia.jobs.backends import InProcessBackend
from marginalia.runtime import Runtime

PDFS = (
    "clinsci2014.pdf",
    "longeval-eacl2023.pdf",
    "s2orc-acl2020.pdf",
    "vespa-peerj2017.pdf",
    "rehab-hindawi2010.pdf",
)


async def _job_row(services: Runtime, job_id: str) -> dict[str, object]:
    async with services.db.session() as session:
        row = (
            await session.execute(
                text(
                    "SELECT status, heartbeat_at, "
                    "(SELECT count(*) FROM job_events e WHERE e.job_id = j.id) AS events "
                    "FROM jobs j WHERE id = :id"
                ),
                {"id": uuid.UUID(job_id)},
            )
        ).one()
    return dict(row._mapping)


async def _source_count(services: Runtime, workspace_id: str) -> int:
    async with services.db.session() as session:
        return int(
            (
                await session.execute(
                    text("SELECT count(*) FROM sources WHERE workspace_id = :ws"),
                    {"ws": uuid.UUID(workspace_id)},
                )
            ).scalar_one()
        )


async def test_cancel_stops_an_ingest_and_the_next_job_runs(
    client: httpx.AsyncClient, services: Runtime, shared_data: Path
) -> None:
    backend = services.backend
    assert isinstance(backend, InProcessBackend)
    ws = (await client.post("/api/workspaces", json={"name": "cancel-ingest"})).json()
    files = [
        ("files", (name, (shared_data / "pdfs" / name).read_bytes(), "application/pdf"))
        for name in PDFS
    ]
    submitted = await client.post(f"/api/workspaces/{ws['id']}/sources", files=files)
    assert submitted.status_code == 202, submitted.text
    job_id = submitted.json()["id"]

    # Wait until the ingest is really working (a parse or store reported), then cancel.
    deadline = time.monotonic() + 60
    while True:
        job = (await client.get(f"/api/jobs/{job_id}")).json()
        if job["status"] == "running" and job["stage"] not in (None, "running"):
            break
        assert job["status"] in ("queued", "running"), job
        assert time.monotonic() < deadline, "the ingest never got going"
        await asyncio.sleep(0.05)
    cancelled_at = time.monotonic()
    response = await client.post(f"/api/jobs/{job_id}/cancel")
    assert response.status_code == 200, response.text

    # The run ends promptly: it does not carry on with the other files.
    await asyncio.wait_for(backend.wait(uuid.UUID(job_id)), 60)
    stopped_after = time.monotonic() - cancelled_at
    final = await _job_row(services, job_id)
    assert final["status"] == "cancelled"
    assert (await client.get(f"/api/jobs/{job_id}")).json()["status"] == "cancelled"

    # Nothing more happens: no event, no heartbeat, no source stored after it ended.
    sources = await _source_count(services, ws["id"])
    await asyncio.sleep(3 * services.settings.jobs.heartbeat_s + 0.5)
    later = await _job_row(services, job_id)
    assert later["events"] == final["events"]
    assert later["heartbeat_at"] == final["heartbeat_at"]
    assert await _source_count(services, ws["id"]) == sources
    assert sources < len(PDFS), "every file was ingested: the cancel did not stop the work"
    events = [
        e
        for e in (await client.get(f"/api/jobs/{job_id}/events")).text.split("\n\n")
        if "data: " in e
    ]
    assert "cancelled" in events[-1]
    print(f"stopped {stopped_after:.2f}s after the cancel with {sources}/{len(PDFS)} sources")

    # The next job in the same workspace runs to the end.
    small = (shared_data / "pdfs" / "trauma-bmc2010.pdf").read_bytes()
    nxt = await client.post(
        f"/api/workspaces/{ws['id']}/sources",
        files=[("files", ("trauma.pdf", small, "application/pdf"))],
    )
    assert nxt.status_code == 202, nxt.text
    next_id = nxt.json()["id"]
    await asyncio.wait_for(backend.wait(uuid.UUID(next_id)), 120)
    assert (await client.get(f"/api/jobs/{next_id}")).json()["status"] == "succeeded"


async def test_cancel_reaches_a_run_in_another_process_through_its_reports(
    services: Runtime,
) -> None:
    """A run this process does not hold learns of the cancel from the database, at its
    next report (or heartbeat): the cancel is only written to the row here."""
    from marginalia.db.repositories import jobs as jobs_repo
    from marginalia.jobs.events import follow_events

    job = await services.jobs.submit("diagnostics.ticker", {"steps": 200, "interval_s": 0.05})
    async for event in follow_events(services.db, job.id):
        if event.type == "progress":
            break
    async with services.db.transaction() as session:
        assert await jobs_repo.cancel(session, job.id) is not None  # the row only
    backend = services.backend
    assert isinstance(backend, InProcessBackend)
    await asyncio.wait_for(backend.wait(job.id), 10)
    done = await services.jobs.get(job.id)
    assert done.status == "cancelled"
    # It stopped at the first report after the cancel, far from its 200 steps.
    assert int(done.checkpoint["done"]) < 20
