"""The `ingest` job: documents already in the file store → sources, one file at a time.

Each file is its own transaction; the checkpoint records finished files, so a resumed
job skips them and a crashed one leaves no half-ingested source behind.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from marginalia.errors import MarginaliaError
from marginalia.ingest.pipeline import IngestItem, Progress, SourceMetadata, ingest_many
from marginalia.jobs.context import JobContext
from marginalia.jobs.registry import job


@job("ingest")
async def ingest_job(ctx: JobContext) -> dict[str, Any]:
    services = ctx.services
    workspace_id = uuid.UUID(str(ctx.params["workspace_id"]))
    files: list[dict[str, Any]] = list(ctx.params["files"])
    done: dict[str, dict[str, Any]] = dict(ctx.checkpoint.get("done", {}))
    total = len(files)
    todo = [(i, item) for i, item in enumerate(files) if f"{i}:{item['key']}" not in done]

    def load(key: str) -> Callable[[], bytes]:
        return lambda: services.files.get(key)

    def progress(position: int) -> Progress:
        async def report(stage: str, message: str) -> None:
            await ctx.emit(message, stage=stage, progress=position / total)

        return report

    items = [
        IngestItem(
            load=load(str(item["key"])),
            filename=str(item["filename"]),
            content_type=item.get("content_type"),
            metadata=SourceMetadata(**item["metadata"]) if item.get("metadata") else None,
        )
        for _i, item in todo
    ]
    async for n, outcome in ingest_many(
        services, workspace_id, items, progress=lambda n: progress(todo[n][0])
    ):
        ctx.raise_if_cancelled()
        position, item = todo[n]
        name = str(item["filename"])
        if isinstance(outcome, MarginaliaError):
            done[f"{position}:{item['key']}"] = {
                "filename": name,
                "status": "failed",
                "error": outcome.detail,
            }
            await ctx.emit(f"{name}: {outcome.detail}", stage="failed", type="log")
        else:
            done[f"{position}:{item['key']}"] = outcome.as_dict()
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
