"""Where jobs run: in this process (embedded default) or on arq workers over Redis."""

from __future__ import annotations

import asyncio
import uuid
from typing import TYPE_CHECKING, Any, Protocol

from marginalia.jobs.runner import run_job

if TYPE_CHECKING:
    from marginalia.runtime import Runtime

ARQ_FUNCTION = "run_marginalia_job"


class JobBackend(Protocol):
    name: str

    async def submit(self, job_id: uuid.UUID) -> None: ...

    async def close(self) -> None: ...


class InProcessBackend:
    """Runs each job as a task on this process's event loop."""

    name = "in-process"

    def __init__(self) -> None:
        # Attached by open_runtime once the runtime that owns this backend exists.
        self._runtime: Runtime | None = None
        self._tasks: dict[uuid.UUID, asyncio.Task[str]] = {}

    def attach(self, runtime: Runtime) -> None:
        self._runtime = runtime

    async def submit(self, job_id: uuid.UUID) -> None:
        assert self._runtime is not None, "InProcessBackend used before open_runtime attached it"
        if job_id in self._tasks:  # already runs here (a second submit of a queued job)
            return
        task = asyncio.create_task(run_job(self._runtime, job_id, backend=self.name))
        self._tasks[job_id] = task
        task.add_done_callback(lambda _t: self._tasks.pop(job_id, None))

    async def wait(self, job_id: uuid.UUID) -> None:
        task = self._tasks.get(job_id)
        if task is not None:
            await asyncio.shield(task)

    async def close(self) -> None:
        # Tasks cut off here are recorded as interrupted (see runner) and can be resumed.
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


class ArqBackend:
    """Enqueues job ids on Redis; `marginalia worker` processes run them."""

    name = "arq"

    def __init__(self, redis_url: str) -> None:
        self._redis_url = redis_url
        self._pool: Any = None

    async def _get_pool(self) -> Any:
        if self._pool is None:
            from arq import create_pool
            from arq.connections import RedisSettings

            self._pool = await create_pool(RedisSettings.from_dsn(self._redis_url))
        return self._pool

    async def submit(self, job_id: uuid.UUID) -> None:
        pool = await self._get_pool()
        await pool.enqueue_job(ARQ_FUNCTION, str(job_id))

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.aclose()
            self._pool = None


def make_backend(redis_url: str | None) -> JobBackend:
    if redis_url:
        return ArqBackend(redis_url)
    return InProcessBackend()
