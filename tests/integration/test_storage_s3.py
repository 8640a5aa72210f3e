"""The product on S3-compatible storage: settings choose the backend (composition root),
an upload is stored in the bucket, downloaded from it, and deleted with its source."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from marginalia.api.app import create_app
from marginalia.config import Settings, StorageSettings
from marginalia.jobs.events import follow_events
from marginalia.runtime import Runtime, open_runtime
from marginalia.storage import content_hash
from marginalia.storage.s3 import S3FileStore
from tests.support.s3_server import S3Server, running_s3_server


@pytest.fixture(scope="module")
def s3_server() -> Iterator[S3Server]:
    with running_s3_server() as server:
        yield server


@pytest.fixture
async def s3_runtime(
    services: Runtime, settings: Settings, s3_server: S3Server
) -> AsyncIterator[Runtime]:
    # ``services`` first: the session's database, migrated; this runtime shares it.
    storage = StorageSettings(
        backend="s3",
        s3_bucket=f"marginalia-{uuid.uuid4().hex[:8]}",
        s3_endpoint_url=s3_server.endpoint_url,
        s3_access_key_id=s3_server.access_key_id,
        s3_secret_access_key=s3_server.secret_access_key,  # type: ignore[arg-type]
        s3_create_bucket=True,
    )
    rt = await open_runtime(settings.model_copy(update={"storage": storage}), migrate_db=False)
    try:
        yield rt
    finally:
        await rt.close()


async def test_upload_download_and_delete_through_the_bucket(
    s3_runtime: Runtime, shared_data: Path
) -> None:
    assert isinstance(s3_runtime.files, S3FileStore)
    app = create_app(s3_runtime.settings, runtime=s3_runtime)
    app.state.runtime = s3_runtime
    # Bytes no other test stores: a file another source uses is kept when this one goes.
    pdf = (shared_data / "pdfs" / "trauma-bmc2010.pdf").read_bytes()
    pdf += f"\n% only in this test: {uuid.uuid4()}\n".encode()
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        ws = (await client.post("/api/workspaces", json={"name": "on s3"})).json()
        response = await client.post(
            f"/api/workspaces/{ws['id']}/sources",
            files=[("files", ("trauma.pdf", pdf, "application/pdf"))],
        )
        assert response.status_code == 202, response.text
        job_id = uuid.UUID(response.json()["id"])
        _ = [e async for e in follow_events(s3_runtime.db, job_id)]
        assert (await s3_runtime.jobs.get(job_id)).status == "succeeded"
        assert s3_runtime.files.exists(content_hash(pdf))  # in the bucket

        source = (await client.get(f"/api/workspaces/{ws['id']}/sources")).json()[0]
        whole = await client.get(f"/api/sources/{source['id']}/file")
        assert whole.status_code == 200 and whole.content == pdf
        part = await client.get(f"/api/sources/{source['id']}/file", headers={"Range": "bytes=0-7"})
        assert part.status_code == 206 and part.content == pdf[:8]

        assert (await client.delete(f"/api/workspaces/{ws['id']}")).status_code == 204
        assert not s3_runtime.files.exists(content_hash(pdf))
