"""`marginalia research`, `marginalia import-bibtex`, `marginalia export-bibtex`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer

from marginalia.cli.support import console, err_console, follow_job, report_job, run, with_runtime
from marginalia.db.models import Job, Workspace
from marginalia.errors import NotFoundError, ValidationFailed
from marginalia.runtime import Runtime
from marginalia.usecases import imports as imports_usecase
from marginalia.usecases import research as research_usecase
from marginalia.usecases import workspaces as ws_service


async def ensure_workspace(
    rt: Runtime, ref: str, description: str, *, save_description: bool = False
) -> Workspace:
    """The workspace named (or with id) ``ref``, created when missing (``description`` is
    its description then); an existing one's description changes only when
    ``save_description`` (issue 36: a research run does not silently rewrite it)."""
    try:
        workspace = await ws_service.find_workspace(rt, ref)
    except NotFoundError:
        workspace = await ws_service.create_workspace(rt, name=ref, description=description)
        console.print(f"created workspace [bold]{workspace.name}[/bold] ({workspace.id})")
        return workspace
    if save_description and description.strip() and description.strip() != workspace.description:
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
            line = report.get("summary") or research_usecase.describe_source_failure(
                name, report.get("reason"), report.get("message")
            )
            console.print(
                f"  [yellow]{line}[/yellow]"
                + (" (partly)" if report.get("status") == "partial" else "")
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


_FILE_ARG = typer.Argument(help="The export file (attachments are read from its folder only)")
_WS_OPT = typer.Option("--workspace", "-w", help="Workspace name or id (created if new)")
_NO_FETCH_OPT = typer.Option("--no-fetch", help="Download no linked PDF (attachments still read)")
_QUIET_OPT = typer.Option("--quiet", "-q", help="No progress bar")


def print_import_summary(summary: dict[str, Any]) -> None:
    """imported / abstract-only / metadata-only / duplicates / failed, with reasons."""
    console.print(
        f"{summary['entries']} entries: imported {summary['imported']} with full text "
        f"({summary['attachments_ingested']} from attachments), "
        f"{summary['abstract_only']} abstract-only, {summary['metadata_only']} metadata-only"
        + (f" ({summary['upgraded']} filled in)" if summary.get("upgraded") else "")
        + f"; duplicates: {summary['duplicates_in_file']} in the file, "
        f"{summary['already_in_workspace']} already in the workspace; "
        f"failed {len(summary['failed'])}"
        + (f"; notes added {summary['notes_added']}" if summary.get("notes_added") else "")
    )
    for refused in summary.get("attachments_refused") or []:
        console.print(
            f"  [yellow]attachment refused[/yellow] ({refused['reason']}) "
            f"{refused['entry']}: {refused['detail']}"
        )
    for failure in summary.get("failed") or []:
        console.print(
            f"  [red]failed[/red] ({failure['reason']}) {failure['entry']}: {failure['detail']}"
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
        save_description: Annotated[
            bool,
            typer.Option(
                "--save-description",
                help="Make this text the existing workspace's description (a new workspace "
                "takes it anyway)",
            ),
        ] = False,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar")] = False,
    ) -> None:
        """Research a topic: decompose, search, dedup, fetch, read and link, with progress."""

        async def go(rt: Runtime) -> int:
            ws = await ensure_workspace(
                rt, workspace, description, save_description=save_description
            )
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

    def _read_export_file(file: Path) -> str:
        """The file's text; one larger than the import limit is refused unread."""
        size = file.stat().st_size
        if size > imports_usecase.MAX_IMPORT_BYTES:
            raise ValidationFailed(
                f"{file} is {size / 1e6:.1f} MB; import files up to "
                f"{imports_usecase.MAX_IMPORT_BYTES // (1024 * 1024)} MB (split a larger library)"
            )
        return file.read_text(encoding="utf-8", errors="replace")

    def _import(
        file: Path, workspace: str, fmt: imports_usecase.ImportFormat, no_fetch: bool, quiet: bool
    ) -> None:
        if not file.is_file():
            err_console.print(f"[red]error:[/red] {file} does not exist")
            raise typer.Exit(1)

        async def go(rt: Runtime) -> int:
            text = await asyncio.to_thread(_read_export_file, file)
            await imports_usecase.read_export(rt, text, fmt)  # a bad file creates no workspace
            ws = await ensure_workspace(rt, workspace, "")
            job = await imports_usecase.submit_import(
                rt, ws.id, text, fmt, folder=file.resolve().parent, fetch=not no_fetch
            )
            console.print(f"submitted import job {job.id} for workspace {ws.name}")
            finished = await follow_job(rt, job.id, quiet=quiet)
            report_job(finished)
            summary = (finished.result or {}).get("import")
            if not summary:
                return 1
            print_import_summary(summary)
            kept = (
                summary["imported"]
                + summary["abstract_only"]
                + summary["metadata_only"]
                + summary["already_in_workspace"]
            )
            return 0 if finished.status == "succeeded" and kept > 0 else 1

        raise typer.Exit(run(with_runtime(go)))

    @app.command("import-bibtex")
    def import_bibtex(
        file: Annotated[Path, _FILE_ARG],
        workspace: Annotated[str, _WS_OPT],
        no_fetch: Annotated[bool, _NO_FETCH_OPT] = False,
        quiet: Annotated[bool, _QUIET_OPT] = False,
    ) -> None:
        """Import a BibTeX file (Zotero, Better BibTeX, Mendeley): every entry becomes a source."""
        _import(file, workspace, "bibtex", no_fetch, quiet)

    @app.command("import-ris")
    def import_ris(
        file: Annotated[Path, _FILE_ARG],
        workspace: Annotated[str, _WS_OPT],
        no_fetch: Annotated[bool, _NO_FETCH_OPT] = False,
        quiet: Annotated[bool, _QUIET_OPT] = False,
    ) -> None:
        """Import a RIS file (Zotero, Mendeley, EndNote): every entry becomes a source."""
        _import(file, workspace, "ris", no_fetch, quiet)

    @app.command("import-csl-json")
    def import_csl_json(
        file: Annotated[Path, _FILE_ARG],
        workspace: Annotated[str, _WS_OPT],
        no_fetch: Annotated[bool, _NO_FETCH_OPT] = False,
        quiet: Annotated[bool, _QUIET_OPT] = False,
    ) -> None:
        """Import a CSL-JSON file (Zotero, Mendeley, Pandoc): every entry becomes a source."""
        _import(file, workspace, "csl-json", no_fetch, quiet)

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
