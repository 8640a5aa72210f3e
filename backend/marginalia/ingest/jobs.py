"""The `ingest` job: documents already in the file store → sources, one file at a time.

Each file is its own transaction; the checkpoint records finished files, so a resumed
job skips them and a crashed one leaves no half-ingested source behind.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from marginalia.errors import MarginaliaError
from marginalia.ingest.pipeline import SourceMetadata, ingest_document
from marginalia.jobs.context import JobContext
from marginalia.jobs.registry import job


@job("ingest")
async def ingest_job(ctx: JobContext) -> dict[str, Any]:
    services = ctx.services
    workspace_id = uuid.UUID(str(ctx.params["workspace_id"]))
    files: list[dict[str, Any]] = list(ctx.params["files"])
    done: dict[str, dict[str, Any]] = dict(ctx.checkpoint.get("done", {}))
    total = len(files)
    for position, item in enumerate(files):
        key = f"{position}:{item['key']}"
        if key in done:
            continue
        ctx.raise_if_cancelled()
        name = str(item["filename"])

        async def progress(stage: str, message: str, _position: int = position) -> None:
            await ctx.emit(message, stage=stage, progress=_position / total)

        try:
            data = await asyncio.to_thread(services.files.get, str(item["key"]))
            meta = SourceMetadata(**item["metadata"]) if item.get("metadata") else None
            outcome = await ingest_document(
                services,
                workspace_id,
                data=data,
                filename=name,
                content_type=item.get("content_type"),
                metadata=meta,
                progress=progress,
            )
            done[key] = outcome.as_dict()
        except MarginaliaError as exc:
            done[key] = {"filename": name, "status": "failed", "error": exc.detail}
            await ctx.emit(f"{name}: {exc.detail}", stage="failed", type="log")
        await ctx.save_checkpoint(done=done)
    results = [done[f"{i}:{item['key']}"] for i, item in enumerate(files)]
    summary = {
        s: sum(1 for r in results if r["status"] == s) for s in ("created", "duplicate", "failed")
    }
    await ctx.emit(
        f"{summary['created']} added, {summary['duplicate']} already present, {summary['failed']} failed",
        stage="done",
        progress=1.0,
        data=summary,
    )
    return {"files": results, **summary}
