"""The stale-job sweeper: every ``jobs.sweep_interval_s`` the API process and every worker
mark running jobs whose heartbeat stopped (their process died) as interrupted and resume
interrupted jobs from their checkpoints (up to ``jobs.max_attempts`` runs each), so a job
cut off by a crash finishes without anyone pressing resume."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Sequence
from typing import Protocol

from marginalia.db.supervisor import is_database_unavailable

log = logging.getLogger(__name__)


class Sweeps(Protocol):
    async def sweep(self) -> Sequence[object]: ...


async def sweep_forever(jobs: Sweeps, interval_s: float) -> None:
    while True:
        try:
            resumed = await jobs.sweep()
            if resumed:
                log.warning("resumed %d interrupted job(s) from their checkpoints", len(resumed))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the database may be restarting: try again next sweep
            if is_database_unavailable(exc):
                log.warning("the stale-job sweep found no database; retrying in %.0f s", interval_s)
            else:
                log.exception("the stale-job sweep failed; retrying in %.0f s", interval_s)
        await asyncio.sleep(interval_s)


@contextlib.asynccontextmanager
async def sweeping(jobs: Sweeps, interval_s: float) -> AsyncIterator[asyncio.Task[None]]:
    """Run :func:`sweep_forever` while the block runs (the first sweep at once)."""
    task = asyncio.create_task(sweep_forever(jobs, interval_s), name="marginalia-job-sweeper")
    try:
        yield task
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
