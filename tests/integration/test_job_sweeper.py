"""The stale-job sweeper (issue 18, item 3; issue 34): a job whose process died is marked
interrupted by the API process within a sweep and resumed from its checkpoint, with
nobody pressing resume."""

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
        while (swept := await services.jobs.get(job.id)).status != "succeeded" or (
            swept.attempts < 2
        ):
            assert time.monotonic() - started < 5, f"not resumed: {swept.status} {swept.error}"
            await asyncio.sleep(0.05)
        assert time.monotonic() - started < 2.5  # within a few sweep intervals
        assert swept.attempts == 2
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            events = (await http.get(f"/api/jobs/{job.id}/events")).text
            assert "resumed automatically (attempt 2 of 3)" in events
            # Finished: nothing left to resume by hand.
            assert (await http.post(f"/api/jobs/{job.id}/resume")).status_code == 409
    # The sweeper stopped with the app: no task left behind.
    assert not [t for t in asyncio.all_tasks() if t.get_name() == "marginalia-job-sweeper"]
