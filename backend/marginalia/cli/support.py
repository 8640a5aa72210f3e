"""Helpers the CLI commands share: run async code, open the runtime, follow a job with a bar."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

from marginalia.config import get_settings
from marginalia.db.models import Job
from marginalia.errors import MarginaliaError
from marginalia.runtime import Runtime, open_runtime
from marginalia.usecases import jobs as jobs_usecase

T = TypeVar("T")
console = Console()
err_console = Console(stderr=True)


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine; a MarginaliaError becomes a clear message and exit code 1."""
    try:
        return asyncio.run(coro)
    except MarginaliaError as exc:
        err_console.print(f"[red]error:[/red] {exc.detail}")
        raise typer.Exit(1) from None


async def with_runtime(fn: Callable[[Runtime], Awaitable[T]], *, migrate_db: bool = True) -> T:
    """Open the runtime from the environment's settings, run ``fn`` on it, close it."""
    rt = await open_runtime(get_settings(), migrate_db=migrate_db)
    try:
        return await fn(rt)
    finally:
        await rt.close()


async def follow_job(rt: Runtime, job_id: uuid.UUID, *, quiet: bool = False) -> Job:
    """Show a progress bar until the job finishes; returns the finished job."""
    if quiet:
        async for _event in jobs_usecase.job_events(rt, job_id):
            pass
        return await jobs_usecase.get_job(rt, job_id)
    with Progress(
        TextColumn("[bold]{task.fields[stage]}[/bold]"),
        BarColumn(),
        TaskProgressColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=err_console,
        transient=False,
    ) as progress:
        task = progress.add_task("queued", total=1.0, stage="queued")
        async for event in jobs_usecase.job_events(rt, job_id):
            fields: dict[str, Any] = {"description": (event.message or "")[:80]}
            if event.stage:
                fields["stage"] = event.stage
            if event.progress is not None:
                fields["completed"] = event.progress
            progress.update(task, **fields)
    return await jobs_usecase.get_job(rt, job_id)


def report_job(job: Job) -> None:
    colour = {"succeeded": "green", "failed": "red", "cancelled": "yellow"}.get(job.status, "white")
    console.print(f"job {job.id} [{colour}]{job.status}[/{colour}]")
    if job.error:
        err_console.print(f"[red]{job.error}[/red]")
        if job.interrupted:
            err_console.print(f"resume with: marginalia jobs resume {job.id}")
