from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from marginalia.api.deps import ServicesDep
from marginalia.services.health import health_report

router = APIRouter(prefix="/api", tags=["health"])


@router.get("/health", summary="Database, pgvector, embedding model and job backend status")
async def health(services: ServicesDep) -> Any:
    report = await health_report(services)
    return JSONResponse(report, status_code=200 if report["status"] != "unavailable" else 503)
