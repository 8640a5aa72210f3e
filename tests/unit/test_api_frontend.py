"""What the app serves besides the API: the web app with a history fallback, cache
headers, JSON 404s under /api, and Swagger UI from local files (no CDN)."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from marginalia.api.frontend import ASSET_CACHE, install_frontend


def _app(dist: Path) -> FastAPI:
    app = FastAPI(title="Marginalia")
    install_frontend(app, dist=dist)
    return app


@pytest.fixture
def dist(tmp_path: Path) -> Path:
    (tmp_path / "assets").mkdir()
    (tmp_path / "index.html").write_text('<!doctype html><div id="root"></div>')
    (tmp_path / "assets" / "index-abc123.js").write_text("console.log(1)")
    (tmp_path / "favicon.svg").write_text("<svg/>")
    return tmp_path


async def _get(
    app: FastAPI, path: str, method: str = "GET", headers: dict[str, str] | None = None
) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        return await client.request(method, path, headers=headers)


@pytest.mark.parametrize("path", ["/", "/w/abc", "/w/abc/chat/def", "/w/abc/read/x?page=3"])
async def test_deep_links_load_the_app_uncached(dist: Path, path: str) -> None:
    response = await _get(_app(dist), path)
    assert response.status_code == 200
    assert '<div id="root">' in response.text
    assert response.headers["cache-control"] == "no-cache"


async def test_hashed_assets_are_cached_for_a_year(dist: Path) -> None:
    response = await _get(_app(dist), "/assets/index-abc123.js")
    assert response.status_code == 200
    assert response.headers["cache-control"] == ASSET_CACHE
    other = await _get(_app(dist), "/favicon.svg")
    assert other.headers["cache-control"] == "no-cache"


async def test_precompressed_assets_go_to_clients_that_take_gzip(dist: Path) -> None:
    import gzip

    (dist / "assets" / "index-abc123.js.gz").write_bytes(gzip.compress(b"console.log(1)"))
    app = _app(dist)
    gz = await _get(app, "/assets/index-abc123.js", headers={"Accept-Encoding": "gzip"})
    assert gz.headers["content-encoding"] == "gzip"
    assert gz.headers["content-type"].startswith("text/javascript")
    assert gz.text == "console.log(1)"  # httpx decodes it
    assert gz.headers["cache-control"] == ASSET_CACHE
    plain = await _get(app, "/assets/index-abc123.js", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    assert plain.text == "console.log(1)"


@pytest.mark.parametrize("path", ["/api/nope", "/api", "/assets/missing.js"])
async def test_missing_api_routes_and_files_stay_404(dist: Path, path: str) -> None:
    from marginalia.api.errors import install_error_handlers

    app = _app(dist)
    install_error_handlers(app)
    response = await _get(app, path)
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["error"] == "not_found"


async def test_api_paths_keep_the_routers_answers(dist: Path) -> None:
    from marginalia.api.errors import install_error_handlers

    app = _app(dist)
    install_error_handlers(app)

    @app.get("/api/late")  # added after the web app: still reachable
    async def late() -> dict[str, bool]:
        return {"ok": True}

    assert (await _get(app, "/api/late")).json() == {"ok": True}
    wrong_method = await _get(app, "/api/limits", method="PUT")
    assert wrong_method.status_code == 405
    assert wrong_method.json()["error"] == "method_not_allowed"


async def test_without_a_build_the_root_says_how_to_build(tmp_path: Path) -> None:
    response = await _get(_app(tmp_path / "absent"), "/")
    assert response.status_code == 200
    assert "make run" in response.text


async def test_docs_load_swagger_ui_from_this_server(dist: Path) -> None:
    app = _app(dist)
    page = await _get(app, "/docs")
    assert page.status_code == 200
    assert "cdn" not in page.text.lower()
    for asset in ("/docs-assets/swagger-ui-bundle.js", "/docs-assets/swagger-ui.css"):
        assert asset in page.text
        served = await _get(app, asset)
        assert served.status_code == 200
        assert len(served.content) > 10_000
    # FastAPI writes OpenAPI 3.1, which Swagger UI renders from version 5 on (4.x cannot).
    import swagger_ui_bundle

    assert app.openapi()["openapi"].startswith("3.1")
    assert Path(swagger_ui_bundle.swagger_ui_path).name.startswith("swagger-ui-5.")
