"""`marginalia export` (BibTeX, RIS, CSL-JSON with notes) and `marginalia
export-obsidian` (a folder of Markdown notes with [[links]] and a BibTeX file)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from marginalia.cli.support import err_console, run, with_runtime
from marginalia.runtime import Runtime
from marginalia.usecases import exports as exports_usecase
from marginalia.usecases.workspaces import find_workspace

_WS = typer.Option("--workspace", "-w", help="Workspace name, id or id prefix")


def register(app: typer.Typer) -> None:
    @app.command("export")
    def export(
        workspace: Annotated[str, _WS],
        fmt_arg: Annotated[
            str | None,
            typer.Argument(metavar="[FORMAT]", help="bibtex, ris or csl-json (or --format)"),
        ] = None,
        fmt: Annotated[
            str, typer.Option("--format", "-f", help="bibtex, ris or csl-json")
        ] = "bibtex",
        output: Annotated[
            Path | None,
            typer.Option(
                "--output",
                "-o",
                help="Write here instead of stdout (a folder: a file named after the "
                "workspace inside it)",
            ),
        ] = None,
    ) -> None:
        """The workspace's sources as BibTeX, RIS or CSL-JSON, with notes and highlights
        (annote / N1 / note) — what import-bibtex|import-ris|import-csl-json read back.
        DOI, pages and venue a source lacks come from the catalog's record of the same
        work, the origin written in metadata-origin."""
        fmt = fmt_arg or fmt
        if fmt not in exports_usecase.EXPORT_FORMATS:
            err_console.print("[red]error:[/red] the format must be one of bibtex, ris, csl-json")
            raise typer.Exit(2)

        async def go(rt: Runtime) -> tuple[str, str]:
            ws = await find_workspace(rt, workspace)
            return await exports_usecase.export_selection(rt, ws.id, fmt)

        text, name = run(with_runtime(go))
        if output is not None and output.is_dir():
            output = output / name
        if output is not None:
            output.write_text(text, encoding="utf-8")
            err_console.print(f"wrote {output}")
        else:
            typer.echo(text, nl=False)

    @app.command("export-obsidian")
    def export_obsidian(
        folder: Annotated[Path, typer.Argument(help="The vault folder (created if missing)")],
        workspace: Annotated[str, _WS],
    ) -> None:
        """Write the workspace as an Obsidian vault: Sources/ (one note per source: metadata,
        tldr, claims with quotes and pages, your notes), Wiki/ ([[links]] kept, citations
        linked to the source notes), an index and references.bib."""

        async def go(rt: Runtime) -> dict[str, object]:
            ws = await find_workspace(rt, workspace)
            return await exports_usecase.export_obsidian(rt, ws.id, folder)

        done = run(with_runtime(go))
        err_console.print(
            f"wrote {done['files']} files ({done['sources']} sources, {done['wiki_pages']} wiki "
            f"pages) to {done['folder']}"
        )
