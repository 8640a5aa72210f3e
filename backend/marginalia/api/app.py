"""The FastAPI application."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.staticfiles import StaticFiles

from marginalia import __version__
from marginalia.api.errors import install_error_handlers
from marginalia.api.routes import answers, health, jobs, knowledge, research, sources, workspaces
from marginalia.config import Settings, get_settings
from marginalia.runtime import Runtime, open_runtime
from marginalia.usecases.health import calibration_status

log = logging.getLogger(__name__)

FRONTEND = Path(__file__).resolve().parents[3] / "frontend"


def create_app(settings: Settings | None = None, runtime: Runtime | None = None) -> FastAPI:
    """Build the app. Pass ``runtime`` to share an open one (tests); else the app opens its
    own from ``settings`` (default: the environment's) and closes it on shutdown."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = runtime is None
        svc = runtime or await open_runtime(settings or get_settings())
        app.state.runtime = svc
        # Read the calibrated refusal threshold at boot (invariant 4) and say what it is.
        answers = calibration_status(svc.settings)
        if answers["calibrated"]:
            log.info("refusal threshold %.4f from %s", answers["threshold"], answers["path"])
        else:
            log.warning("answers will be refused until calibrated: %s", answers["detail"])
        recovered = await svc.jobs.recover_stale()
        if recovered:
            log.warning(
                "marked %d stale job(s) as interrupted; resume them with POST /api/jobs/{id}/resume",
                len(recovered),
            )
        try:
            yield
        finally:
            if owned:
                await svc.close()

    app = FastAPI(
        title="Marginalia",
        version=__version__,
        summary="A research workspace that keeps its sources in the loop.",
        lifespan=lifespan,
    )
    install_error_handlers(app)
    for module in (health, workspaces, sources, knowledge, research, answers, jobs):
        app.include_router(module.router)
    _mount_frontend(app)
    return app


def _mount_frontend(app: FastAPI) -> None:
    dist = FRONTEND / "dist"
    if (dist / "index.html").exists():
        app.mount("/", StaticFiles(directory=dist, html=True), name="frontend")
        return
    placeholder = FRONTEND / "index.html"

    @app.get("/", include_in_schema=False, response_model=None)
    async def index() -> FileResponse | HTMLResponse:
        if placeholder.exists():
            return FileResponse(placeholder)
        return HTMLResponse("<h1>Marginalia</h1><p>API docs at <a href='/docs'>/docs</a>.</p>")
