"""GET /api/limits: the upload limits the web app shows before an upload."""

from __future__ import annotations

import httpx

from marginalia.runtime import Runtime


async def test_limits_come_from_the_settings(client: httpx.AsyncClient, services: Runtime) -> None:
    response = await client.get("/api/limits")
    assert response.status_code == 200
    body = response.json()
    assert body["max_upload_mb"] == services.settings.ingest.max_upload_mb
    assert body["max_pages"] == services.settings.ingest.max_pages
    assert ".pdf" in body["accepted_extensions"] and ".md" in body["accepted_extensions"]
