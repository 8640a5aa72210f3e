"""What the app serves besides the API: the web app, offline Swagger UI, upload limits.

* ``/`` and every path that is not ``/api/…`` nor a file: ``frontend/dist/index.html``
  (history-API fallback, so a bookmarked ``/w/<id>/chat/<cid>`` loads the app), sent
  ``no-cache`` so a new build is picked up at once; ``/assets/…`` are content-hashed by
  Vite and cached for a year. A missing ``/api/…`` path or asset stays a JSON 404.
* ``/docs``: Swagger UI from the ``swagger-ui-bundle-v2`` Python package (Swagger UI 5,
  which renders OpenAPI 3.1), so the API docs work offline and without a Node build.
* ``GET /api/limits``: what an upload may be, so the web app can say it before sending.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from pydantic import BaseModel
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.responses import FileResponse, Response
from starlette.routing import Match, Mount
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from marginalia.api.deps import RuntimeDep

FRONTEND_DIST = Path(__file__).resolve().parents[3] / "frontend" / "dist"
ASSET_CACHE = "public, max-age=31536000, immutable"
DOCS_ASSETS = "/docs-assets"

# What the parser reads (marginalia.ingest.parse sniffs the content; names break ties).
ACCEPTED_EXTENSIONS = [".pdf", ".html", ".htm", ".xhtml", ".md", ".markdown", ".txt"]
ACCEPTED_TYPES = ["application/pdf", "text/html", "text/markdown", "text/plain"]

_NOT_BUILT = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>Marginalia</title></head><body style="font:16px/1.5 system-ui;max-width:40rem;margin:4rem auto">
<h1>Marginalia</h1><p>The web app is not built. <code>make run</code> builds it, or
<code>cd frontend &amp;&amp; npm ci &amp;&amp; npm run build</code>.</p>
<p>The API is running: <a href="/docs">/docs</a>, <a href="/api/health">/api/health</a>.</p>
</body></html>"""


class UploadLimits(BaseModel):
    max_upload_mb: int
    max_pages: int
    accepted_extensions: list[str]
    accepted_types: list[str]


limits_router = APIRouter(prefix="/api", tags=["health"])


@limits_router.get(
    "/limits",
    response_model=UploadLimits,
    summary="Upload limits and accepted document types (shown before an upload)",
)
async def upload_limits(runtime: RuntimeDep) -> UploadLimits:
    ingest = runtime.settings.ingest
    return UploadLimits(
        max_upload_mb=ingest.max_upload_mb,
        max_pages=ingest.max_pages,
        accepted_extensions=ACCEPTED_EXTENSIONS,
        accepted_types=ACCEPTED_TYPES,
    )


class WebAppFiles(StaticFiles):
    """``frontend/dist`` with a history-API fallback to ``index.html``."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        if path == "api" or path.startswith("api/"):
            raise HTTPException(404, f"no API route {scope['path']}")
        try:
            response = await super().get_response(path, scope)
        except HTTPException as exc:
            # A missing file-like path (…/x.js) stays a 404: answering HTML for a
            # missing script hides the real problem behind a parse error.
            name = path.rsplit("/", 1)[-1]
            if exc.status_code != 404 or (name not in ("", ".") and "." in name):
                raise
            response = await super().get_response("index.html", scope)
            path = "index.html"
        response = self._precompressed(path, scope, response)
        if path.startswith("assets/"):
            response.headers["Cache-Control"] = ASSET_CACHE
        else:
            response.headers["Cache-Control"] = "no-cache"
        return response

    def _precompressed(self, path: str, scope: Scope, response: Response) -> Response:
        """The build's ``.gz`` twin when the client takes gzip (the build writes them; the
        app compresses nothing on the fly, which would buffer its NDJSON/SSE streams)."""
        if response.status_code != 200 or not isinstance(response, FileResponse):
            return response
        accept = Headers(scope=scope).get("accept-encoding", "")
        twin = Path(str(response.path) + ".gz")
        if "gzip" not in accept or not twin.is_file():
            response.headers["Vary"] = "Accept-Encoding"
            return response
        return FileResponse(
            twin,
            media_type=response.media_type,
            headers={"Content-Encoding": "gzip", "Vary": "Accept-Encoding"},
        )


class _WebAppMount(Mount):
    """The web app at ``/``, blind to ``/api``: API paths keep the router's own answers
    (405 for a wrong method, JSON 404) and routes added later still match."""

    def __init__(self, files: WebAppFiles) -> None:
        super().__init__("/", app=files, name="webapp")

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        path = scope.get("path", "")
        if scope["type"] == "http" and (path == "/api" or path.startswith("/api/")):
            return Match.NONE, {}
        return super().matches(scope)


def install_frontend(app: FastAPI, dist: Path = FRONTEND_DIST) -> None:
    """Add the docs, the limits route and (last, since it catches every path) the web app."""
    app.include_router(limits_router)
    _install_docs(app)
    if (dist / "index.html").exists():
        app.router.routes.append(_WebAppMount(WebAppFiles(directory=dist)))
        return

    @app.get("/", include_in_schema=False)
    async def not_built() -> HTMLResponse:
        return HTMLResponse(_NOT_BUILT, headers={"Cache-Control": "no-cache"})


def _install_docs(app: FastAPI) -> None:
    import swagger_ui_bundle

    # FastAPI's own /docs loads Swagger UI from a CDN: unreachable offline.
    app.router.routes[:] = [
        r
        for r in app.router.routes
        if getattr(r, "path", None) not in ("/docs", "/docs/oauth2-redirect")
    ]
    app.mount(
        DOCS_ASSETS, StaticFiles(directory=swagger_ui_bundle.swagger_ui_path), name="docs-assets"
    )
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        return get_swagger_ui_html(
            openapi_url=root + openapi_url,
            title=f"{app.title} — API",
            swagger_js_url=f"{root}{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{root}{DOCS_ASSETS}/favicon-32x32.png",
        )
