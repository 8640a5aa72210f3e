"""Every error leaves the API as JSON {"error": ..., "detail": ...}; never a stack trace."""

from __future__ import annotations

import logging
import uuid
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

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
        return JSONResponse(error_body(exc.code, exc.detail), status_code=exc.status_code)

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
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse(
            error_body(_code_for(exc.status_code), exc.detail),
            status_code=exc.status_code,
            headers=getattr(exc, "headers", None),
        )

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        incident = uuid.uuid4().hex[:12]
        log.exception("unhandled error %s on %s %s", incident, request.method, request.url.path)
        return JSONResponse(
            error_body(
                "internal_error",
                f"an unexpected error occurred (incident {incident}); the server log has details",
            ),
            status_code=500,
        )
