"""Re-embedding: every stored vector with the configured model, which is then pinned (the
``reembed`` job, :mod:`marginalia.embed.reembed`)."""

from __future__ import annotations

from marginalia.db.models import Job
from marginalia.runtime import Runtime


async def submit_reembed(rt: Runtime) -> Job:
    return await rt.jobs.submit("reembed", {})
