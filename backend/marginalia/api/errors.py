"""Every error leaves the API as JSON {"error": ..., "detail": ...}; never a stack trace."""

from __future__ import annotations

import logging
import uuid
from http import HTTPStatus
from typing import Any

import psycopg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy import exc as sa_exc
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from marginalia.db.supervisor import is_database_unavailable, unavailable_detail
from marginalia.errors import MarginaliaError

log = logging.getLogger(__name__)


def error_body(error: str, detail: Any) -> dict[str, Any]:
    return {"error": error, "detail": detail}


def _code_for(status: int) -> str:
    try:
        return HTTPStatus(status).phrase.lower().replace(" ", "_").replace("-", "_")
    except ValueError:
        return "error"


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(MarginaliaError)
    async def _marginalia(_: Request, exc: MarginaliaError) -> JSONResponse:
        retry = getattr(exc, "retry_after_s", None)
        headers = {"Retry-After": str(retry)} if retry is not None else None
        return JSONResponse(
            error_body(exc.code, exc.detail), status_code=exc.status_code, headers=headers
        )

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        problems = [
            {
                "loc": [str(p) for p in err.get("loc", ())],
                "msg": err.get("msg", ""),
                "type": err.get("type", ""),
            }
            for err in exc.errors()
        ]
        summary = "; ".join(f"{'.'.join(p['loc'])}: {p['msg']}" for p in problems)
        return JSONResponse(
            {"error": "invalid_request", "detail": summary, "problems": problems}, status_code=422
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        headers = dict(getattr(exc, "headers", None) or {})
        if exc.status_code == 405:
            headers["Allow"] = ", ".join(allowed_methods(request))
        return JSONResponse(
            error_body(_code_for(exc.status_code), exc.detail),
            status_code=exc.status_code,
            headers=headers or None,
        )

    @app.exception_handler(sa_exc.OperationalError)
    @app.exception_handler(sa_exc.InterfaceError)
    @app.exception_handler(psycopg.OperationalError)
    async def _database(request: Request, exc: Exception) -> JSONResponse:
        if is_database_unavailable(exc):
            return database_unavailable(request, exc)
        return await _unexpected(request, exc)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        # Raised outside the routes' handlers too (middleware: the access check).
        if is_database_unavailable(exc):
            return database_unavailable(request, exc)
        incident = uuid.uuid4().hex[:12]
        log.exception("unhandled error %s on %s %s", incident, request.method, request.url.path)
        return JSONResponse(
            error_body(
                "internal_error",
                f"an unexpected error occurred (incident {incident}); the server log has details",
            ),
            status_code=500,
        )


def database_unavailable(request: Request, exc: BaseException) -> JSONResponse:
    """503 while the database is away (its server died and is being restarted): a clear
    JSON answer and one log line, never a 500 with a traceback."""
    runtime = getattr(request.app.state, "runtime", None)
    detail = unavailable_detail(getattr(runtime, "database", None))
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    log.warning("database unavailable on %s %s: %s", request.method, request.url.path, reason)
    return JSONResponse(
        error_body("database_unavailable", detail), status_code=503, headers={"Retry-After": "2"}
    )


def allowed_methods(request: Request) -> list[str]:
    """Every method some route answers on this path (RFC 9110: a 405's ``Allow`` lists
    them all; Starlette names only the first route whose path matched)."""
    methods: set[str] = set()
    pending: list[Any] = list(request.app.router.routes)
    while pending:
        route = pending.pop()
        nested = getattr(route, "original_router", None)  # FastAPI's included routers
        if nested is not None:
            pending.extend(nested.routes)
            continue
        if getattr(route, "methods", None) and route.matches(request.scope)[0] is not Match.NONE:
            methods.update(route.methods)
    return sorted(methods)
