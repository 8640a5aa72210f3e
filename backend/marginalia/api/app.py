"""The FastAPI application."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from marginalia import __version__
from marginalia.api.errors import install_error_handlers
from marginalia.api.frontend import install_frontend
from marginalia.api.routes import (
    answers,
    health,
    jobs,
    knowledge,
    notes,
    research,
    sources,
    workspaces,
)
from marginalia.api.stream_schemas import install_stream_schemas
from marginalia.config import Settings, get_settings
from marginalia.runtime import Runtime, open_runtime
from marginalia.usecases.health import calibration_status

log = logging.getLogger(__name__)


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
    for module in (health, workspaces, sources, knowledge, research, answers, jobs, notes):
        app.include_router(module.router)
    install_stream_schemas(app)
    install_frontend(app)  # web app, offline /docs, upload limits (last: it catches every path)
    return app
