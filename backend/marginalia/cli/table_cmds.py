"""``marginalia table``: an evidence table of a workspace in the terminal (or as CSV/JSON)."""

from __future__ import annotations

import json
import uuid
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from marginalia.cli.support import console, err_console, follow_job, report_job, run, with_runtime
from marginalia.runtime import Runtime
from marginalia.tables.export import exported_rows, to_csv
from marginalia.tables.schemas import TableOut
from marginalia.usecases import tables as tables_usecase
from marginalia.usecases.lookup import resolve_id
from marginalia.usecases.workspaces import find_workspace


def print_table(table: TableOut) -> None:
    grid = Table(show_lines=True, title=table.name)
    grid.add_column("source", max_width=28)
    for column in table.columns:
        grid.add_column(column.question, max_width=40)
    for row in table.rows:
        values = []
        for cell in row.cells:
            if cell.state != "filled":
                values.append(f"[dim]{cell.state}[/dim]")
            elif cell.not_reported:
                values.append("[yellow]not reported[/yellow]")
            else:
                quote = cell.quotes[0] if cell.quotes else None
                where = f" (p. {quote.page})" if quote and quote.page else ""
                values.append(
                    f"[bold]{escape(cell.answer)}[/bold]{where}\n"
                    + (f"[dim]“{escape(' '.join(quote.text.split()))}”[/dim]" if quote else "")
                )
        grid.add_row(escape(row.title or row.file_name or str(row.source_id)), *values)
    console.print(grid)


def register(app: typer.Typer) -> None:
    @app.command("table")
    def table(
        workspace: Annotated[str, typer.Option("--workspace", "-w", help="Workspace id or name")],
        column: Annotated[
            list[str],
            typer.Option("--column", "-c", help="A column: a question asked of every source"),
        ],
        source: Annotated[
            list[str] | None,
            typer.Option("--source", "-s", help="Only these sources (id or unique prefix)"),
        ] = None,
        as_csv: Annotated[
            bool, typer.Option("--csv", help="Print CSV: each value with its quote and page")
        ] = False,
        as_json: Annotated[
            bool,
            typer.Option(
                "--json",
                help="Print JSON: one object per source (source_id, title, file_name, cells "
                "with column, answer, not_reported, quotes as {text, page})",
            ),
        ] = False,
    ) -> None:
        """Fill an evidence table — rows: the workspace's sources, columns: your questions —
        each cell a short answer with its verbatim quote and page, or "not reported".
        Cells already computed are reused (the table of the same columns is kept)."""
        if as_csv and as_json:
            err_console.print("[red]error:[/red] give --csv or --json, not both")
            raise typer.Exit(2)

        async def go(rt: Runtime) -> TableOut:
            ws = await find_workspace(rt, workspace)
            sources: list[uuid.UUID] | None = None
            if source:
                sources = [await resolve_id(rt, "source", s) for s in source]
            started = await tables_usecase.find_or_create(rt, ws.id, column, sources)
            if started.job_id is not None:
                finished = await follow_job(rt, started.job_id, quiet=as_json or as_csv)
                if finished.status != "succeeded":
                    report_job(finished)
                    raise typer.Exit(1)
            return await tables_usecase.get_table(rt, ws.id, started.table.id)

        result = run(with_runtime(go))
        if as_json:
            rows = [r.model_dump(mode="json") for r in exported_rows(result)]
            typer.echo(json.dumps(rows, ensure_ascii=False, indent=2))
        elif as_csv:
            typer.echo(to_csv(result), nl=False)
        else:
            print_table(result)
