"""The stale-job sweeper (issue 18, item 3): a job whose process died is marked
interrupted by the API process within a sweep, so resume works without a restart."""

from __future__ import annotations

import asyncio
import time

import httpx
from fastapi import FastAPI
from sqlalchemy import text

from marginalia.api.app import create_app
from marginalia.runtime import Runtime


async def test_the_api_sweeps_stale_jobs_while_it_runs(services: Runtime) -> None:
    settings = services.settings.model_copy(deep=True)
    settings.jobs.sweep_interval_s = 0.3
    app: FastAPI = create_app(settings, runtime=services)
    async with app.router.lifespan_context(app):
        app.state.runtime = services
        # Let the submitted ticker finish first, so its own runner does not race the test.
        job = await services.jobs.submit("diagnostics.ticker", {"steps": 1, "interval_s": 0})
        deadline = time.monotonic() + 20
        while (await services.jobs.get(job.id)).status not in ("succeeded", "failed"):
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        async with services.db.transaction() as session:
            await session.execute(
                text(
                    "UPDATE jobs SET status = 'running', finished_at = NULL, interrupted = false, "
                    "heartbeat_at = now() - interval '1 hour' WHERE id = :id"
                ),
                {"id": job.id},
            )
        started = time.monotonic()
        while not (await services.jobs.get(job.id)).interrupted:
            assert time.monotonic() - started < 5, "the sweeper never marked the job"
            await asyncio.sleep(0.05)
        assert time.monotonic() - started < 1.5  # within a few sweep intervals
        swept = await services.jobs.get(job.id)
        assert swept.status == "failed" and swept.interrupted
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            resumed = await http.post(f"/api/jobs/{job.id}/resume")
            assert resumed.status_code == 200, resumed.text
    # The sweeper stopped with the app: no task left behind.
    assert not [t for t in asyncio.all_tasks() if t.get_name() == "marginalia-job-sweeper"]
