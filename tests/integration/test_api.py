"""The API skeleton against the real embedded database: health, workspaces, errors."""

from __future__ import annotations

import uuid

import httpx
import pytest
from fastapi import FastAPI

from marginalia.api.app import create_app
from marginalia.runtime import Runtime


async def test_health_reports_database_and_backend(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/health")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"]["reachable"] is True
    assert body["database"]["embedded"] is True
    assert body["database"]["pgvector"] == "0.8.5"
    assert body["embedding_model"]["configured"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert body["jobs"]["backend"] == "in-process"
    assert body["database"]["migration"]["current"] == body["database"]["migration"]["head"]
    # The refusal threshold comes from eval/calibration.json (invariant 4).
    import json
    from pathlib import Path

    fitted = json.loads(
        (Path(__file__).resolve().parents[2] / "eval" / "calibration.json").read_text()
    )
    assert body["answers"]["calibrated"] is True
    assert body["answers"]["threshold"] == fitted["threshold"]


async def test_openapi_is_served(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/openapi.json")).json()
    assert "/api/workspaces/{workspace_id}" in spec["paths"]
    assert "/api/jobs/{job_id}/events" in spec["paths"]


async def test_placeholder_page(client: httpx.AsyncClient) -> None:
    response = await client.get("/")
    assert response.status_code == 200
    assert "Marginalia" in response.text


async def test_workspace_crud(client: httpx.AsyncClient) -> None:
    created = await client.post(
        "/api/workspaces", json={"name": "  Long documents ", "description": "efficient attention"}
    )
    assert created.status_code == 201, created.text
    workspace = created.json()
    assert workspace["name"] == "Long documents"
    wid = workspace["id"]

    shown = (await client.get(f"/api/workspaces/{wid}")).json()
    assert shown["counts"] == {"sources": 0, "chunks": 0}
    assert any(w["id"] == wid for w in (await client.get("/api/workspaces")).json())

    patched = await client.patch(f"/api/workspaces/{wid}", json={"description": "sparse attention"})
    assert patched.status_code == 200
    assert patched.json()["description"] == "sparse attention"

    assert (await client.delete(f"/api/workspaces/{wid}")).status_code == 204
    gone = await client.get(f"/api/workspaces/{wid}")
    assert gone.status_code == 404
    assert gone.json() == {"error": "not_found", "detail": f"no workspace with id {wid}"}


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status"),
    [
        ("get", f"/api/workspaces/{uuid.uuid4()}", {}, 404),
        ("delete", f"/api/workspaces/{uuid.uuid4()}", {}, 404),
        ("get", f"/api/jobs/{uuid.uuid4()}", {}, 404),
        ("get", f"/api/jobs/{uuid.uuid4()}/events", {}, 404),
        ("get", "/api/workspaces/not-a-uuid", {}, 422),
        ("post", "/api/workspaces", {"json": {}}, 422),
        ("post", "/api/workspaces", {"json": {"name": ""}}, 422),
        ("post", "/api/workspaces", {"json": {"name": 42}}, 422),
        ("post", "/api/workspaces", {"json": {"name": "x", "colour": "red"}}, 422),
        (
            "post",
            "/api/workspaces",
            {"content": b"{not json", "headers": {"content-type": "application/json"}},
            422,
        ),
        ("post", "/api/jobs/ping", {"json": {"steps": "many"}}, 422),
        ("get", "/api/nowhere", {}, 404),
        ("put", "/api/workspaces", {"json": {}}, 405),
    ],
)
async def test_bad_input_gets_json_errors(
    client: httpx.AsyncClient,
    method: str,
    path: str,
    kwargs: dict,
    status: int,  # type: ignore[type-arg]
) -> None:
    before = len((await client.get("/api/workspaces")).json())
    response = await client.request(method, path, **kwargs)
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) >= {"error", "detail"}
    assert body["detail"]
    assert len((await client.get("/api/workspaces")).json()) == before  # nothing changed


async def test_unexpected_error_hides_the_stack_trace(services: Runtime) -> None:
    app: FastAPI = create_app(services.settings, runtime=services)
    app.state.runtime = services

    @app.get("/api/boom")
    async def boom() -> None:
        raise RuntimeError("secret internals at /srv/code.py line 12")

    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        response = await http.get("/api/boom")
    assert response.status_code == 500
    body = response.json()
    assert body["error"] == "internal_error"
    assert "secret internals" not in response.text
    assert "Traceback" not in response.text
