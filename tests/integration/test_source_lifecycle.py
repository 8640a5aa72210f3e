"""The source lifecycle, whole (invariant 9): an upload gets the knowledge update in the
same job; a deleted source or workspace leaves no concepts, wiki pages or stored files
that only it supported."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import httpx
from sqlalchemy import text
from typer.testing import CliRunner

from marginalia.db.repositories import jobs as jobs_repo
from marginalia.ingest.pipeline import ingest_document
from marginalia.jobs.events import follow_events
from marginalia.runtime import Runtime
from marginalia.usecases import workspaces as ws_usecase

PDF = "specter-acl2020.pdf"


async def _upload(client: httpx.AsyncClient, rt: Runtime, ws: uuid.UUID, path: Path) -> dict:
    response = await client.post(
        f"/api/workspaces/{ws}/sources",
        files=[("files", (path.name, path.read_bytes(), "application/pdf"))],
    )
    assert response.status_code == 202, response.text
    job_id = uuid.UUID(response.json()["id"])
    stages = [e.stage async for e in follow_events(rt.db, job_id)]
    job = await rt.jobs.get(job_id)
    assert job.status == "succeeded", job.error
    assert "knowledge" in stages  # the progress shows the knowledge step, in the same job
    assert job.result is not None
    return {"job": job.result, "stages": stages}


async def _count(rt: Runtime, sql: str, **params: object) -> int:
    async with rt.db.session() as session:
        return int((await session.execute(text(sql), params)).scalar() or 0)


async def test_upload_builds_knowledge_and_delete_removes_it(
    services: Runtime, client: httpx.AsyncClient, shared_data: Path
) -> None:
    ws = await ws_usecase.create_workspace(services, name=f"lifecycle-{uuid.uuid4().hex[:6]}")
    try:
        done = await _upload(client, services, ws.id, shared_data / "pdfs" / PDF)
        (entry,) = done["job"]["files"]
        assert entry["status"] == "created" and entry["knowledge"]["status"] == "ok"
        sid = uuid.UUID(entry["source_id"])
        source = (await client.get(f"/api/sources/{sid}")).json()
        key = source.get("file_key") or entry.get("key")
        async with services.db.session() as session:
            file_key = (
                await session.execute(
                    text("SELECT file_key FROM sources WHERE id = :s"), {"s": sid}
                )
            ).scalar()
        assert file_key and services.files.exists(file_key), key

        # Concepts, claims and wiki pages exist for the uploaded source.
        concepts = (await client.get(f"/api/workspaces/{ws.id}/concepts")).json()
        claims = (
            await client.get(f"/api/workspaces/{ws.id}/claims", params={"source_id": str(sid)})
        ).json()
        wiki = (await client.get(f"/api/workspaces/{ws.id}/wiki")).json()
        assert concepts and claims and wiki
        assert all(c["source_id"] == str(sid) for c in claims)

        # `marginalia knowledge rebuild -w W` recomputes it all (a job, followed).
        from marginalia.cli.app import app

        rebuilt = await asyncio.to_thread(
            CliRunner().invoke, app, ["knowledge", "rebuild", "-w", str(ws.id)]
        )
        assert rebuilt.exit_code == 0, rebuilt.output
        assert "succeeded" in rebuilt.output and "1 sources:" in rebuilt.output
        assert (await client.get(f"/api/workspaces/{ws.id}/concepts")).json()

        response = await client.delete(f"/api/sources/{sid}")
        assert response.status_code == 204
        # No concept without a source, no claim, no wiki page citing the deleted source.
        orphans = await _count(
            services,
            "SELECT count(*) FROM concepts c WHERE c.workspace_id = :ws AND NOT EXISTS "
            "(SELECT 1 FROM source_concepts sc WHERE sc.concept_id = c.id)",
            ws=ws.id,
        )
        assert orphans == 0
        assert (
            await _count(
                services, "SELECT count(*) FROM concepts WHERE workspace_id = :ws", ws=ws.id
            )
            == 0
        )
        assert (
            await _count(services, "SELECT count(*) FROM claims WHERE workspace_id = :ws", ws=ws.id)
            == 0
        )
        assert (await client.get(f"/api/workspaces/{ws.id}/wiki")).json() == []
        # Its file is gone — unless a source of another workspace holds the same bytes.
        users = await _count(
            services, "SELECT count(*) FROM sources WHERE file_key = :k", k=file_key
        )
        assert services.files.exists(file_key) == (users > 0)
        assert (await client.get(f"/api/sources/{sid}")).status_code == 404
    finally:
        await ws_usecase.delete_workspace(services, ws.id)


async def test_deleting_a_workspace_removes_its_files(
    services: Runtime, client: httpx.AsyncClient, shared_data: Path
) -> None:
    ws = await ws_usecase.create_workspace(services, name=f"lifecycle-{uuid.uuid4().hex[:6]}")
    done = await _upload(client, services, ws.id, shared_data / "pdfs" / "clinsci2014.pdf")
    (entry,) = done["job"]["files"]
    async with services.db.session() as session:
        file_key = (
            await session.execute(
                text("SELECT file_key FROM sources WHERE id = :s"),
                {"s": uuid.UUID(entry["source_id"])},
            )
        ).scalar()
    assert file_key and services.files.exists(file_key)
    response = await client.delete(f"/api/workspaces/{ws.id}")
    assert response.status_code == 204
    users = await _count(services, "SELECT count(*) FROM sources WHERE file_key = :k", k=file_key)
    assert services.files.exists(file_key) == (users > 0)
    assert (
        await _count(services, "SELECT count(*) FROM sources WHERE workspace_id = :ws", ws=ws.id)
        == 0
    )


NOTE = b"""# Sparse attention for long documents

We propose block sparse attention, a method that lets transformers read long documents.
Our results show that block sparse attention outperforms dense attention on long inputs.
Sparse attention reduces the memory of self-attention from quadratic to linear.
"""


async def test_a_resumed_ingest_runs_the_knowledge_step_it_had_not_finished(
    services: Runtime,
) -> None:
    """A job cut off after its file was ingested but before the knowledge update: the
    resumed job skips the ingest (checkpoint ``done``) and still runs the update."""
    ws = await ws_usecase.create_workspace(services, name=f"resume-{uuid.uuid4().hex[:6]}")
    try:
        stored = services.files.put(NOTE)
        outcome = await ingest_document(services, ws.id, data=NOTE, filename="sparse.md")
        assert outcome.status == "created"
        assert (
            await _count(
                services, "SELECT count(*) FROM concepts WHERE workspace_id = :ws", ws=ws.id
            )
            == 0
        )
        files = [{"key": stored.key, "filename": "sparse.md", "content_type": "text/markdown"}]
        async with services.db.transaction() as session:
            job = await jobs_repo.create(
                session,
                kind="ingest",
                params={"workspace_id": str(ws.id), "files": files},
                workspace_id=ws.id,
                backend=services.backend.name,
            )
            # What the cut-off run had checkpointed: the file, not its knowledge step.
            await jobs_repo.save_checkpoint(
                session, job.id, {"done": {f"0:{stored.key}": outcome.as_dict()}}
            )
        await services.backend.submit(job.id)
        events = [e async for e in follow_events(services.db, job.id)]
        finished = await services.jobs.get(job.id)
        assert finished.status == "succeeded", finished.error
        assert not any(e.stage == "parsing" for e in events)  # the ingest was not redone
        assert any(e.stage == "knowledge" for e in events)
        (entry,) = (finished.result or {})["files"]
        assert entry["source_id"] == str(outcome.source_id)
        assert entry["knowledge"]["status"] == "ok" and entry["knowledge"]["concepts"] > 0
        assert (
            await _count(
                services, "SELECT count(*) FROM concepts WHERE workspace_id = :ws", ws=ws.id
            )
            > 0
        )
    finally:
        await ws_usecase.delete_workspace(services, ws.id)
