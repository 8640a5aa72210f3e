"""``marginalia eval table`` (added to the ``eval`` group)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from marginalia.cli.support import console, err_console
from marginalia.errors import MarginaliaError


def register(eval_app: typer.Typer) -> None:
    @eval_app.command("table")
    def table(
        gold: Annotated[
            Path,
            typer.Option(
                help="Table gold (JSON Lines), e.g. eval/tables/gold.jsonl", dir_okay=False
            ),
        ],
        docs: Annotated[
            Path,
            typer.Option(
                help="Folder of the documents: the PDFs and the unarXive papers rendered to "
                "<id>.md (eval/qa/render_unarxive.py --ids …)",
                file_okay=False,
            ),
        ],
        split: Annotated[str, typer.Option(help="all, dev or heldout")] = "all",
        as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON")] = False,
        keep: Annotated[
            bool, typer.Option(help="Keep the throwaway workspace instead of deleting it")
        ] = False,
        workspace: Annotated[
            str | None,
            typer.Option(help="Reuse a workspace kept by an earlier run (--keep), by name or id"),
        ] = None,
        out_dir: Annotated[
            Path | None, typer.Option(help="Where to write tables-<split>.json/.md (eval/reports)")
        ] = None,
    ) -> None:
        """Ingest the documents into a throwaway workspace, fill one evidence table of the
        gold's sources and columns through the product's job, and report cell accuracy
        (number/name, text, all), "not reported" precision and recall, and quote validity
        (verbatim on the page, overlapping a gold quote), each k/n with a Wilson 95%
        interval, for dev, heldout and both. Writes eval/reports/tables-<split>.json and .md."""
        from marginalia.evaluation.reports import REPORTS_DIR
        from marginalia.evaluation.tables import render_markdown, run_table_eval
        from marginalia.evaluation.tables_scoring import GoldError

        def show(message: str) -> None:
            if not as_json:
                err_console.print(f"[dim]{message}[/dim]")

        try:
            report = run_table_eval(
                gold,
                docs,
                split=split,  # type: ignore[arg-type]
                keep=keep,
                workspace=workspace,
                out_dir=out_dir or REPORTS_DIR,
                progress=show,
            )
        except MarginaliaError as exc:
            err_console.print(f"[red]error:[/red] {exc.detail}")
            raise typer.Exit(1) from None
        except (GoldError, ValueError) as exc:
            err_console.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(1) from None
        if as_json:
            typer.echo(json.dumps(report, indent=2, ensure_ascii=False))
            return
        console.print(render_markdown(report), markup=False)
        for path in report.get("report_files", []):
            err_console.print(f"wrote {path}")
