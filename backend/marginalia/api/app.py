"""The FastAPI application."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI

from marginalia import __version__
from marginalia.api.deps import authenticate_early, require_access
from marginalia.api.errors import install_error_handlers
from marginalia.api.frontend import FRONTEND_DIST, install_frontend
from marginalia.api.hardening import (
    UNSAFE_METHODS,
    OriginGuard,
    RequestGuard,
    SecurityHeaders,
    allowed_host_names,
    inline_script_hashes,
)
from marginalia.api.routes import (
    answers,
    auth,
    citations,
    health,
    jobs,
    knowledge,
    notes,
    research,
    sources,
    tables,
    workspaces,
)
from marginalia.api.stream_schemas import install_stream_schemas
from marginalia.config import Settings, get_settings
from marginalia.db.supervisor import supervising
from marginalia.jobs.sweeper import sweeping
from marginalia.runtime import Runtime, open_runtime
from marginalia.usecases.health import calibration_status

log = logging.getLogger(__name__)
# Routers without the access check: their operations never answer 401.
PUBLIC_TAGS = frozenset({"health", "auth"})


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
        try:
            interval = (settings or svc.settings).jobs.sweep_interval_s
            check_s = (settings or svc.settings).database_check_s
            async with supervising(svc.database, check_s), sweeping(svc.jobs, interval):
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
    for public in (health, auth):
        app.include_router(public.router)
    # Every other route runs the access check (a no-op in local mode).
    for module in (
        workspaces,
        sources,
        citations,
        knowledge,
        research,
        answers,
        jobs,
        notes,
        tables,
    ):
        app.include_router(module.router, dependencies=[Depends(require_access)])
    install_stream_schemas(app)
    install_frontend(app)  # web app, offline /docs, upload limits (last: it catches every path)
    _document_errors(app)
    app_settings = settings or (runtime.settings if runtime else get_settings())
    index = FRONTEND_DIST / "index.html"
    hashes = inline_script_hashes(index.read_bytes()) if index.exists() else []
    app.add_middleware(
        RequestGuard,
        upload_limit_bytes=app_settings.ingest.max_upload_mb * 1024 * 1024,
        authenticate=authenticate_early,
    )
    app.add_middleware(
        OriginGuard,
        allowed_hosts=allowed_host_names(app_settings.allowed_hosts, app_settings.host),
    )
    app.add_middleware(SecurityHeaders, script_hashes=hashes)
    return app


def _document_errors(app: FastAPI) -> None:
    """Every operation documents the JSON error bodies it can answer with: 422 (a NUL
    character or a bad parameter, refused for any request), 413, and on guarded routes
    401/403/404 from the access check, all the API's ``ErrorOut``, never FastAPI's
    default validation shape."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        spec = build()
        ref = {"$ref": "#/components/schemas/ErrorOut"}
        for operations in spec.get("paths", {}).values():
            for method, operation in operations.items():
                responses = operation.setdefault("responses", {})
                unsafe = method.upper() in UNSAFE_METHODS
                guarded = not set(operation.get("tags") or ()) & PUBLIC_TAGS
                codes = [("400", "Not an allowed Host"), ("422", "Invalid request")]
                if "requestBody" in operation:
                    codes.append(("413", "Payload too large"))
                if guarded:
                    codes.append(("401", "No valid credentials (accounts mode)"))
                    codes.append(("404", "Not found, or not shared with you"))
                if unsafe:
                    who = "a reader's write (accounts mode), or " if guarded else ""
                    codes.append(("403", f"Forbidden: {who}a cross-origin browser request"))
                for code, text in codes:
                    responses[code] = {
                        "description": text,
                        "content": {"application/json": {"schema": ref}},
                    }
        schemas = spec.get("components", {}).get("schemas", {})
        for unused in ("HTTPValidationError", "ValidationError"):
            schemas.pop(unused, None)
        for schema in schemas.values():
            _no_nul_in_text(schema)
        for operations in spec.get("paths", {}).values():
            for operation in operations.values():
                for parameter in operation.get("parameters", []):
                    _no_nul_in_text(parameter.get("schema", {}))
        app.openapi_schema = spec
        return spec

    app.openapi = openapi  # type: ignore[method-assign]


#: A NUL character is refused in any text (api.hardening.RequestGuard: 422); the schema says so.
NO_NUL = r"^[^\x00]*$"


def _no_nul_in_text(node: Any) -> None:
    """Give every free-text string schema under ``node`` the ``NO_NUL`` pattern (not ids,
    dates, enums or file contents, whose own constraints already exclude NUL)."""
    if not isinstance(node, dict):
        return
    kinds = node.get("type")
    is_text = kinds == "string" or (isinstance(kinds, list) and "string" in kinds)
    constrained = {"format", "enum", "const", "pattern", "contentMediaType"} & node.keys()
    if is_text and not constrained:
        node["pattern"] = NO_NUL
    for key in ("items", "additionalProperties", "not"):
        _no_nul_in_text(node.get(key))
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        for item in node.get(key) or []:
            _no_nul_in_text(item)
    for item in (node.get("properties") or {}).values():
        _no_nul_in_text(item)
