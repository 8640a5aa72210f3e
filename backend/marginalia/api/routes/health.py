from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from marginalia.api.deps import RuntimeDep
from marginalia.usecases.health import public_health_report

router = APIRouter(prefix="/api", tags=["health"])


@router.get("/health", summary="Database, pgvector, embedding model and job backend status")
async def health(rt: RuntimeDep) -> Any:
    report = await public_health_report(rt)
    return JSONResponse(report, status_code=200 if report["status"] != "unavailable" else 503)
