"""A diagnostic job: proves a backend runs jobs end to end (`marginalia jobs ping`).

It ticks N times, reporting progress and checkpointing each tick, so it also shows
that an interrupted job resumes where it stopped.
"""

from __future__ import annotations

import asyncio
from typing import Any

from marginalia.jobs.context import JobContext
from marginalia.jobs.registry import job


@job("diagnostics.ticker")
async def ticker(ctx: JobContext) -> dict[str, Any]:
    steps = int(ctx.params.get("steps", 5))
    interval = float(ctx.params.get("interval_s", 0.1))
    start = int(ctx.checkpoint.get("done", 0))
    executed: list[int] = list(ctx.checkpoint.get("executed", []))
    for step in range(start, steps):
        ctx.raise_if_cancelled()
        await asyncio.sleep(interval)
        executed.append(step)
        await ctx.save_checkpoint(done=step + 1, executed=executed)
        await ctx.emit(
            f"tick {step + 1}/{steps}",
            stage="ticking",
            progress=(step + 1) / steps,
            type="progress",
            data={"step": step + 1, "of": steps},
        )
    return {"steps": steps, "resumed_from": start, "executed": executed}
