"""The learning path over HTTP: stale once a source is added or removed, regenerated on
request, steps marked read on the server (kept across a regeneration)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from marginalia.knowledge import update as knowledge_update
from marginalia.runtime import Runtime
from marginalia.usecases import workspaces as ws_service
from tests.integration.knowledge_support import RELATED, add_paper, catalog


@pytest.fixture
async def workspace(services: Runtime, shared_data: Path) -> AsyncIterator[uuid.UUID]:
    records = catalog(shared_data / "catalog" / "acl2020" / "papers.jsonl")
    ws = await ws_service.create_workspace(
        services, name=f"kpath-{uuid.uuid4().hex[:8]}", description="compressing BERT"
    )
    for cid in (RELATED[0], RELATED[5], RELATED[6]):
        sid = await add_paper(services, ws.id, records[cid])
        await knowledge_update.update_for_source(services, ws.id, sid)
    yield ws.id
    await ws_service.delete_workspace(services, ws.id)


async def test_path_goes_stale_and_keeps_read_marks(
    services: Runtime, client: httpx.AsyncClient, workspace: uuid.UUID, shared_data: Path
) -> None:
    base = f"/api/workspaces/{workspace}/path"
    made = await client.post(base)
    assert made.status_code == 201, made.text
    path = made.json()
    assert path["stale"] is False and path["stale_reason"] is None and path["steps_read"] == 0
    titles = {s["source_id"]: s["title"] for s in path["steps"]}
    for step in path["steps"]:
        assert step["read"] is False and step["read_at"] is None
        for pre in step["prerequisites"]:  # named, with the position of their step
            assert pre["title"] == titles[pre["source_id"]]
            assert pre["position"] < step["position"]
        assert [c["slug"] for c in step["concepts"]] == step["concepts_covered"]
        assert all(c["name"] and c["level"] in (0, 1, 2) for c in step["concepts"])

    first = path["steps"][0]
    marked = await client.put(f"{base}/steps/{first['id']}/read")
    assert marked.status_code == 200, marked.text
    again = (await client.get(base)).json()  # another browser sees it
    assert again["steps"][0]["read"] is True and again["steps"][0]["read_at"]
    assert again["steps_read"] == 1
    assert all(s["read"] is False for s in again["steps"][1:])

    # unknown step, another workspace's step: 404, nothing changed
    assert (await client.put(f"{base}/steps/{uuid.uuid4()}/read")).status_code == 404
    other = f"/api/workspaces/{uuid.uuid4()}/path/steps/{first['id']}/read"
    assert (await client.put(other)).status_code == 404
    assert (await client.put(f"{base}/steps/not-a-uuid/read")).status_code == 422

    # a source arrives: the path is stale and says why
    records = catalog(shared_data / "catalog" / "acl2020" / "papers.jsonl")
    sid = await add_paper(services, workspace, records[RELATED[2]])
    await knowledge_update.update_for_source(services, workspace, sid)
    stale = (await client.get(base)).json()
    assert stale["id"] == path["id"] and stale["stale"] is True
    assert "(1 source added)" in stale["stale_reason"]

    # regenerate: fresh, the new source in it, the read mark carried over
    fresh = await client.post(base)
    assert fresh.status_code == 201
    body = fresh.json()
    assert body["stale"] is False and body["id"] != path["id"]
    assert str(sid) in {s["source_id"] for s in body["steps"]}
    read = [s for s in body["steps"] if s["read"]]
    assert [s["source_id"] for s in read] == [first["source_id"]]

    # unread it
    step = read[0]
    unread = await client.delete(f"{base}/steps/{step['id']}/read")
    assert unread.status_code == 200 and unread.json()["steps_read"] == 0

    # a source removed: stale again
    await knowledge_update.remove_source(services, workspace, sid)
    gone = (await client.get(base)).json()
    assert gone["stale"] is True and "(1 source removed)" in gone["stale_reason"]
