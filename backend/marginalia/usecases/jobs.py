"""Jobs as users see them: list, read, follow (events), resume, retry, cancel, and the
diagnostic ticker."""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

from marginalia.db.models import Job, JobEvent
from marginalia.jobs.events import follow_events
from marginalia.runtime import Runtime


async def list_jobs(rt: Runtime, limit: int = 50, visible_to: uuid.UUID | None = None) -> list[Job]:
    """Recent jobs (only ``visible_to``'s, in accounts mode); a running job whose heartbeat
    stopped (its process died) is marked interrupted first, so a dead job never shows as
    running."""
    await rt.jobs.recover_stale()
    return await rt.jobs.list_recent(limit, visible_to)


async def get_job(rt: Runtime, job_id: uuid.UUID) -> Job:
    """One job (marked interrupted first when its process died; see :func:`list_jobs`)."""
    await rt.jobs.recover_stale()
    return await rt.jobs.get(job_id)


async def resume_job(rt: Runtime, job_id: uuid.UUID) -> Job:
    return await rt.jobs.resume(job_id)


async def retry_job(rt: Runtime, job_id: uuid.UUID) -> Job:
    return await rt.jobs.retry(job_id)


async def cancel_job(rt: Runtime, job_id: uuid.UUID) -> Job:
    return await rt.jobs.cancel(job_id)


async def ping(
    rt: Runtime, *, steps: int, interval_s: float, user_id: uuid.UUID | None = None
) -> Job:
    return await rt.jobs.submit(
        "diagnostics.ticker", {"steps": steps, "interval_s": interval_s}, user_id=user_id
    )


def job_events(
    rt: Runtime,
    job_id: uuid.UUID,
    *,
    after_id: int = 0,
    allowed: Callable[[], Awaitable[bool]] | None = None,
    recheck_s: float = 2.0,
) -> AsyncIterator[JobEvent]:
    """The job's events after ``after_id``, live until it finishes — or, with ``allowed``,
    until it says no: it is asked at least every ``recheck_s`` (also while no event comes)
    and before an event is handed on, so a stream ends within about ``recheck_s`` of its
    credentials ending (a token revoked, a session signed out, access withdrawn)."""
    events = follow_events(rt.db, job_id, after_id=after_id)
    if allowed is None:
        return events
    return _while_allowed(events, allowed, recheck_s)


async def _while_allowed(
    events: AsyncIterator[JobEvent], allowed: Callable[[], Awaitable[bool]], recheck_s: float
) -> AsyncIterator[JobEvent]:
    following = aiter(events)
    pending: asyncio.Future[JobEvent] | None = None
    checked = time.monotonic()
    try:
        while True:
            if pending is None:
                pending = asyncio.ensure_future(anext(following))
            done, _ = await asyncio.wait({pending}, timeout=recheck_s)
            if time.monotonic() - checked >= recheck_s or not done:
                if not await allowed():
                    return
                checked = time.monotonic()
            if not done:
                continue
            finished, pending = pending, None
            try:
                event = finished.result()
            except StopAsyncIteration:
                return
            yield event
    finally:
        if pending is not None:
            pending.cancel()
            with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                await pending
        closing = getattr(following, "aclose", None)
        if closing is not None:
            await closing()
