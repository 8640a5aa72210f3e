"""A research run leaves the workspace's description alone unless asked (issue 36)."""

from __future__ import annotations

import uuid

import httpx

from marginalia.jobs.events import follow_events
from marginalia.runtime import Runtime


async def _research(
    services: Runtime, client: httpx.AsyncClient, ws: str, body: dict[str, object]
) -> None:
    got = await client.post(f"/api/workspaces/{ws}/research", json=body)
    assert got.status_code == 202, got.text
    async for _ in follow_events(services.db, uuid.UUID(got.json()["id"])):
        pass


async def test_research_keeps_the_description_unless_asked(
    services: Runtime, client: httpx.AsyncClient
) -> None:
    created = await client.post(
        "/api/workspaces",
        json={"name": f"desc-{uuid.uuid4().hex[:6]}", "description": "my own words"},
    )
    ws = created.json()["id"]
    # the catalog is the only source asked (unconfigured here: the run ends at once)
    base = {"sources": ["catalog"], "max_sources": 1, "fetch": False}
    await _research(services, client, ws, {**base, "description": "citation graphs"})
    assert (await client.get(f"/api/workspaces/{ws}")).json()["description"] == "my own words"
    await _research(
        services, client, ws, {**base, "description": "citation graphs", "save_description": True}
    )
    assert (await client.get(f"/api/workspaces/{ws}")).json()["description"] == "citation graphs"
    refused = await client.post(
        f"/api/workspaces/{ws}/research", json={**base, "save_description": "yes"}
    )
    assert refused.status_code == 422
