"""arq worker: runs the same job functions as the in-process backend, from Redis."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from marginalia.config import Settings, get_settings
from marginalia.jobs.backends import ARQ_FUNCTION
from marginalia.jobs.registry import load_job_modules
from marginalia.jobs.runner import run_job
from marginalia.jobs.sweeper import sweeping
from marginalia.runtime import open_runtime

log = logging.getLogger(__name__)


async def _startup(ctx: dict[str, Any]) -> None:
    settings: Settings = ctx.get("settings") or get_settings()
    load_job_modules()
    runtime = await open_runtime(settings)
    ctx["runtime"] = runtime
    sweeper = sweeping(runtime.jobs, settings.jobs.sweep_interval_s)
    await sweeper.__aenter__()
    ctx["sweeper"] = sweeper


async def _shutdown(ctx: dict[str, Any]) -> None:
    sweeper = ctx.get("sweeper")
    if sweeper is not None:
        await sweeper.__aexit__(None, None, None)
    runtime = ctx.get("runtime")
    if runtime is not None:
        await runtime.close()


async def run_marginalia_job(ctx: dict[str, Any], job_id: str) -> str:
    return await run_job(ctx["runtime"], uuid.UUID(job_id), backend="arq")


run_marginalia_job.__qualname__ = ARQ_FUNCTION


def worker_settings(settings: Settings) -> dict[str, Any]:
    from arq.connections import RedisSettings
    from arq.worker import func

    if not settings.redis_url:
        raise RuntimeError("`marginalia worker` needs REDIS_URL (jobs run in-process without it)")
    return {
        "functions": [func(run_marginalia_job, name=ARQ_FUNCTION)],
        "on_startup": _startup,
        "on_shutdown": _shutdown,
        "redis_settings": RedisSettings.from_dsn(settings.redis_url),
        "max_jobs": max(1, settings.jobs.pipeline_concurrency) * 4,
        "job_timeout": 6 * 3600,
        "ctx": {"settings": settings},
        "handle_signals": True,
    }


def run_worker(settings: Settings) -> None:
    from arq.worker import run_worker as arq_run_worker

    arq_run_worker(worker_settings(settings))
