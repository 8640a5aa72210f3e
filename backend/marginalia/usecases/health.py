"""What ``GET /api/health`` and ``marginalia db status`` report."""

from __future__ import annotations

import asyncio
import re
from pathlib import PurePath
from typing import Any

from marginalia.answer.calibration import CalibrationError, load_calibration
from marginalia.config import Settings
from marginalia.db import migrate
from marginalia.db.repositories import health as repo
from marginalia.db.supervisor import unavailable_detail
from marginalia.runtime import Runtime


async def health_report(rt: Runtime) -> dict[str, Any]:
    settings = rt.settings
    report: dict[str, Any] = {
        "status": "ok",
        "database": {"reachable": False, "embedded": rt.db.location.embedded},
        "embedding_model": {"configured": settings.embedding.model, "dim": settings.embedding.dim},
        "jobs": {"backend": rt.backend.name},
    }
    try:
        async with rt.db.session() as session:
            version, pgvector = await repo.server_facts(session)
            report["database"]["server_version"] = version
            report["database"]["pgvector"] = pgvector
            pinned = await repo.pinned_model(session)
        report["database"]["reachable"] = True
        report["embedding_model"]["pinned"] = (
            {"model": pinned[0], "dim": pinned[1]} if pinned else None
        )
        url = rt.db.location.url
        current, head = await asyncio.gather(
            asyncio.to_thread(migrate.current_revision, url),
            asyncio.to_thread(migrate.head_revision, url),
        )
        report["database"]["migration"] = {"current": current, "head": head}
        if current != head:
            report["status"] = "degraded"
    except Exception as exc:
        report["status"] = "unavailable"
        report["database"]["error"] = f"{exc.__class__.__name__}: {exc}".splitlines()[0]
        report["database"]["detail"] = unavailable_detail(rt.database)
    if rt.database is not None:  # the embedded server's supervisor: restarts, and why
        report["database"]["supervisor"] = rt.database.status()
    report["answers"] = calibration_status(settings)
    if settings.redis_url:
        report["jobs"]["redis"] = await _redis_ping(settings.redis_url)
        if not report["jobs"]["redis"]:
            report["status"] = "degraded" if report["status"] == "ok" else report["status"]
    return report


# An absolute path in a message: a slash-led run of path segments (a socket, a file).
_ABSOLUTE_PATH = re.compile(r"(?<![\w.~:/])/(?:[^\s\"'<>|/]+/)*[^\s\"'<>|/]*")


def without_paths(value: Any) -> Any:
    """``value`` (a report, a message) with every absolute path cut to its last part:
    ``GET /api/health`` is public in accounts mode, and where the server keeps its files
    is nobody else's business (``marginalia db status`` shows them in full)."""
    if isinstance(value, str):
        return _ABSOLUTE_PATH.sub(lambda m: PurePath(m.group(0)).name or "/", value)
    if isinstance(value, dict):
        return {k: without_paths(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_paths(v) for v in value]
    return value


async def public_health_report(rt: Runtime) -> dict[str, Any]:
    """What ``GET /api/health`` answers: :func:`health_report` without absolute paths."""
    report: dict[str, Any] = without_paths(await health_report(rt))
    return report


def calibration_status(settings: Settings) -> dict[str, Any]:
    """The refusal threshold answers will use (invariant 4), or why there is none."""
    try:
        calibration = load_calibration(settings=settings)
    except CalibrationError as exc:
        return {"calibrated": False, "detail": exc.detail}
    return {
        "calibrated": True,
        "threshold": calibration.threshold,
        "signal": calibration.signal,
        "path": str(calibration.path),
    }


async def _redis_ping(url: str) -> bool:
    from redis.asyncio import Redis

    client = Redis.from_url(url, socket_connect_timeout=2)
    try:
        return bool(await client.ping())
    except Exception:
        return False
    finally:
        await client.aclose()


def data_locations(rt: Runtime) -> dict[str, Any]:
    """Where this process's data lives (``marginalia db status``; not served over HTTP):
    the home, the database (the embedded server's data directory, or the external URL
    with its password masked), stored files and models."""
    from urllib.parse import urlsplit, urlunsplit

    settings = rt.settings
    location = rt.db.location
    if location.embedded:
        database = f"embedded PostgreSQL, data in {settings.pgdata_dir}"
    else:
        parts = urlsplit(location.url)
        netloc = parts.netloc
        if parts.password:
            netloc = netloc.replace(f":{parts.password}@", ":***@")
        database = urlunsplit(parts._replace(netloc=netloc))
    return {
        "home": str(settings.home),
        "database": database,
        "files": str(settings.files_dir),
        "models": str(settings.models_dir),
        "jobs": f"on Redis ({settings.redis_url.split('@')[-1]})"
        if settings.redis_url
        else "in this process (no REDIS_URL)",
    }
