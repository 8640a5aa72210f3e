"""`marginalia research`, `marginalia import-bibtex`, `marginalia export-bibtex`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer

from marginalia.cli.support import console, err_console, follow_job, report_job, run, with_runtime
from marginalia.db.models import Job, Workspace
from marginalia.errors import NotFoundError
from marginalia.runtime import Runtime
from marginalia.usecases import research as research_usecase
from marginalia.usecases import workspaces as ws_service


async def ensure_workspace(rt: Runtime, ref: str, description: str) -> Workspace:
    """The workspace named (or with id) ``ref``, created when missing; its description is
    set to ``description`` when one is given."""
    try:
        workspace = await ws_service.find_workspace(rt, ref)
    except NotFoundError:
        workspace = await ws_service.create_workspace(rt, name=ref, description=description)
        console.print(f"created workspace [bold]{workspace.name}[/bold] ({workspace.id})")
        return workspace
    if description.strip() and description.strip() != workspace.description:
        workspace = await ws_service.update_workspace(
            rt, workspace.id, {"description": description}
        )
    return workspace


def _print_summary(job: Job) -> None:
    result: dict[str, Any] = job.result or {}
    for name, report in (result.get("sources") or {}).items():
        if report.get("status") == "ok":
            console.print(f"  {name:<9} {report.get('found', 0)} results")
        else:
            console.print(
                f"  {name:<9} [yellow]{report.get('status')}[/yellow] "
                f"({report.get('reason')}): {report.get('message')}"
            )
    counts = result.get("counts") or {}
    if counts:
        duplicates = counts.get("duplicates") or {}
        by_layer = ", ".join(f"{n} {layer}" for layer, n in sorted(duplicates.items())) or "0"
        failed = counts.get("fetch_failed") or {}
        console.print(
            f"found {counts.get('found', 0)}; duplicates dropped: {by_layer}; "
            f"already known {counts.get('known', 0)}; fetched {counts.get('fetched', 0)}; "
            f"fetch failed {sum(failed.values())}"
            + (f" ({', '.join(f'{r} {n}' for r, n in sorted(failed.items()))})" if failed else "")
            + f"; ingested {counts.get('ingested', 0)} "
            f"({counts.get('abstract_only', 0)} abstract-only); linked {counts.get('linked', 0)}"
        )


def register(app: typer.Typer) -> None:
    @app.command()
    def research(
        description: Annotated[str, typer.Argument(help="What to research, in your words")],
        workspace: Annotated[
            str, typer.Option("--workspace", "-w", help="Workspace name or id (created if new)")
        ],
        max_sources: Annotated[
            int, typer.Option(help="Ingest at most this many new sources", min=1, max=200)
        ] = 30,
        source: Annotated[
            list[str] | None,
            typer.Option("--source", help="Only these sources (arxiv, openalex, brave, catalog)"),
        ] = None,
        query: Annotated[
            list[str] | None, typer.Option("--query", help="Search these queries instead")
        ] = None,
        no_fetch: Annotated[bool, typer.Option("--no-fetch", help="Abstracts only")] = False,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar")] = False,
    ) -> None:
        """Research a topic: decompose, search, dedup, fetch, read and link, with progress."""

        async def go(rt: Runtime) -> int:
            ws = await ensure_workspace(rt, workspace, description)
            job = await research_usecase.submit_research(
                rt,
                ws.id,
                description=description,
                max_sources=max_sources,
                queries=query or None,
                sources=source or None,
                fetch=not no_fetch,
            )
            console.print(f"submitted research job {job.id} for workspace {ws.name}")
            finished = await follow_job(rt, job.id, quiet=quiet)
            report_job(finished)
            _print_summary(finished)
            return 0 if finished.status == "succeeded" else 1

        raise typer.Exit(run(with_runtime(go)))

    @app.command("import-bibtex")
    def import_bibtex(
        file: Annotated[Path, typer.Argument(help="A .bib file (e.g. a Zotero export)")],
        workspace: Annotated[str, typer.Option("--workspace", "-w", help="Workspace name or id")],
        no_fetch: Annotated[bool, typer.Option("--no-fetch", help="Abstracts only")] = False,
    ) -> None:
        """Import BibTeX entries: dedup, fetch PDFs where linked, ingest and link them."""
        if not file.is_file():
            err_console.print(f"[red]error:[/red] {file} does not exist")
            raise typer.Exit(1)

        async def go(rt: Runtime) -> int:
            ws = await ws_service.find_workspace(rt, workspace)
            text = await asyncio.to_thread(file.read_text, encoding="utf-8", errors="replace")
            job = await research_usecase.submit_bibtex_import(rt, ws.id, text, fetch=not no_fetch)
            console.print(f"submitted import job {job.id}")
            finished = await follow_job(rt, job.id)
            report_job(finished)
            _print_summary(finished)
            return 0 if finished.status == "succeeded" else 1

        raise typer.Exit(run(with_runtime(go)))

    @app.command("export-bibtex")
    def export_bibtex_cmd(
        workspace: Annotated[str, typer.Option("--workspace", "-w", help="Workspace name or id")],
        output: Annotated[
            Path | None, typer.Option("--output", "-o", help="Write here instead of stdout")
        ] = None,
    ) -> None:
        """Write the workspace's sources as BibTeX."""

        async def go(rt: Runtime) -> str:
            ws = await ws_service.find_workspace(rt, workspace)
            return await research_usecase.export_bibtex(rt, ws.id)

        text = run(with_runtime(go))
        if output is not None:
            output.write_text(text, encoding="utf-8")
            err_console.print(f"wrote {text.count('@')} entries to {output}")
        else:
            typer.echo(text, nl=False)
