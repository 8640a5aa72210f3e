"""Run one job to completion: claim it, heartbeat, call its function, record the outcome."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import uuid
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from marginalia.db.repositories import jobs as jobs_repo
from marginalia.jobs.context import JobCancelled, JobContext, JobSuperseded
from marginalia.jobs.registry import get_job_function

if TYPE_CHECKING:
    from marginalia.runtime import Runtime

log = logging.getLogger(__name__)


# The runs of this process, by job id: a cancel handled here stops its run at once (at its
# next check), without waiting for the run's next heartbeat or report to read it.
_RUNNING: dict[uuid.UUID, JobContext] = {}


def notice_cancelled(job_id: uuid.UUID) -> None:
    """Tell this process's run of the job, if any, that it was cancelled."""
    ctx = _RUNNING.get(job_id)
    if ctx is not None:
        ctx.mark_cancelled()


def worker_name(backend: str) -> str:
    return f"{backend}:{socket.gethostname()}:{os.getpid()}"


async def run_job(runtime: Runtime, job_id: uuid.UUID, *, backend: str) -> str:
    """Execute a queued job; returns its final status ('skipped' if it was not claimable)."""
    db, settings = runtime.db, runtime.settings
    async with db.transaction() as session:
        job = await jobs_repo.claim(session, job_id, worker_name(backend))
        if job is None:
            return "skipped"
        resumed = bool(job.checkpoint)
        await jobs_repo.add_event(
            session,
            job_id,
            type="status",
            stage="running",
            message="resumed from checkpoint" if resumed else "started",
            data={"attempt": job.attempts, "worker": job.worker},
        )
    ctx = JobContext(
        job_id=job.id,
        kind=job.kind,
        params=dict(job.params or {}),
        checkpoint=dict(job.checkpoint or {}),
        workspace_id=job.workspace_id,
        db=db,
        settings=settings,
        runtime=runtime,
        resumed=resumed,
    )
    _RUNNING[job_id] = ctx
    beat = asyncio.create_task(_heartbeat(ctx, settings.jobs.heartbeat_s))
    status = "failed"
    result: dict[str, Any] | None = None
    error: str | None = None
    interrupted = False
    try:
        fn = get_job_function(job.kind)
        result = await fn(ctx)
        status = "succeeded"
    except JobSuperseded:
        log.warning("job %s (%s) stopped: the stale-job sweep queued it again", job_id, job.kind)
        return "superseded"
    except JobCancelled:
        status, error = "cancelled", "cancelled"
    except asyncio.CancelledError:
        # The process is shutting down: keep the checkpoint so the job can be resumed.
        interrupted, error = True, "interrupted: the process shut down; resume or retry it"
    except Exception as exc:  # the job's failure is data, reported to the user
        if not await _exists(runtime, job_id):
            log.info("job %s (%s) stopped: deleted with its workspace", job_id, job.kind)
            return "deleted"
        log.exception("job %s (%s) failed", job_id, job.kind)
        error = _describe(exc)
    finally:
        _RUNNING.pop(job_id, None)
        beat.cancel()
        with suppress(asyncio.CancelledError):
            await beat
    async with db.transaction() as session:
        current = await jobs_repo.status_of(session, job_id)
        if current is None:  # deleted with its workspace while it ran: nothing to record
            log.info("job %s (%s) ended after its workspace was deleted", job_id, job.kind)
            return "deleted"
        if current[0] == "cancelled":
            status = "cancelled"
        await jobs_repo.finish(
            session, job_id, status=status, result=result, error=error, interrupted=interrupted
        )
        await jobs_repo.add_event(
            session,
            job_id,
            type="status",
            stage="interrupted" if interrupted else status,
            message=error or status,
            progress=1.0 if status == "succeeded" else None,
            data={"result": result} if result else {},
        )
    return status


async def _exists(runtime: Runtime, job_id: uuid.UUID) -> bool:
    try:
        async with runtime.db.transaction() as session:
            return await jobs_repo.status_of(session, job_id) is not None
    except Exception:
        return True  # cannot tell: report the failure as usual


def _describe(exc: BaseException) -> str:
    message = str(exc) or exc.__class__.__name__
    # Our own errors carry user-facing messages; anything else is named by type.
    if getattr(exc, "user_facing", False):
        return message
    return f"{exc.__class__.__name__}: {message}"


async def _heartbeat(ctx: JobContext, every_s: float) -> None:
    while True:
        await asyncio.sleep(every_s)
        try:
            async with ctx.db.transaction() as session:
                status = await jobs_repo.heartbeat(session, ctx.job_id)
            ctx.observe_status(status)
        except Exception:  # a missed heartbeat is not fatal; the next one may succeed
            log.warning("heartbeat for job %s failed", ctx.job_id, exc_info=True)
