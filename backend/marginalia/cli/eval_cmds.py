"""``marginalia eval ...``: evaluation commands (registered on the main app as ``eval``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from marginalia.cli.support import console, err_console
from marginalia.errors import MarginaliaError

eval_app = typer.Typer(no_args_is_help=True, help="Evaluate retrieval and answers.")


@eval_app.command("retrieval")
def retrieval(
    beir: Annotated[
        Path,
        typer.Option(
            "--beir",
            help="BEIR-format folder: corpus.jsonl, queries.jsonl, qrels/<split>.tsv",
            file_okay=False,
        ),
    ],
    split: Annotated[str, typer.Option(help="qrels split to score (qrels/<split>.tsv)")] = "test",
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON")] = False,
    keep: Annotated[
        bool, typer.Option(help="Keep the imported workspace instead of deleting it")
    ] = False,
    workspace: Annotated[
        str | None,
        typer.Option(help="Reuse a workspace imported earlier with --keep (name or id)"),
    ] = None,
    legs: Annotated[
        str, typer.Option(help="Comma-separated legs to run: vector,lexical,concept")
    ] = "vector,lexical,concept",
    limit_queries: Annotated[
        int | None, typer.Option(help="Score only the first N queries (smoke runs)")
    ] = None,
    report_dir: Annotated[
        Path | None, typer.Option(help="Where to write the reports (default eval/reports)")
    ] = None,
    query_ids: Annotated[
        Path | None,
        typer.Option(
            help="Score only the query ids listed in this file, one a line (e.g. "
            "eval/reranker/scifact_heldout.txt)",
            dir_okay=False,
        ),
    ] = None,
) -> None:
    """Import a BEIR corpus into a throwaway workspace and report nDCG@10, Recall@10,
    Recall@100 and MRR@10 per leg, for the fusion (and rerank when configured), with
    retrieval latency p50/p95 (query embedding reported apart)."""
    from marginalia.evaluation.retrieval import render_markdown, run_retrieval_eval

    try:
        report = run_retrieval_eval(
            beir,
            split,
            json_out=as_json,
            keep=keep,
            workspace=workspace,
            legs=[leg.strip() for leg in legs.split(",") if leg.strip()],
            limit_queries=limit_queries,
            report_dir=report_dir,
            query_ids_file=query_ids,
        )
    except MarginaliaError as exc:
        err_console.print(f"[red]error:[/red] {exc.detail}")
        raise typer.Exit(1) from None
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return
    console.print(render_markdown(report))
    for path in report.get("report_files", []):
        err_console.print(f"wrote {path}")
    if report["run"].get("workspace_id"):
        err_console.print(f"workspace kept: {report['run']['workspace_id']}")


@eval_app.command("concepts")
def concepts(
    gold: Annotated[
        Path,
        typer.Option(
            "--gold", help="Concept gold set (JSONL: doc, concepts, junk)", dir_okay=False
        ),
    ],
    docs: Annotated[
        Path,
        typer.Option(
            "--docs", help="Folder holding every document the gold set names", file_okay=False
        ),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON")] = False,
    report_dir: Annotated[
        Path | None, typer.Option(help="Where to write the reports (default eval/reports)")
    ] = None,
) -> None:
    """Ingest the gold set's documents into a throwaway workspace and report, per source
    and overall, precision@10, recall, generic_rate and level_agreement of the concepts."""
    from marginalia.evaluation.concepts import REPORTS_DIR, render_markdown, run_concept_eval

    try:
        report = run_concept_eval(
            gold,
            docs,
            out_dir=report_dir or REPORTS_DIR,
            progress=(lambda _m: None) if as_json else (lambda m: err_console.print(m)),
        )
    except MarginaliaError as exc:
        err_console.print(f"[red]error:[/red] {exc.detail}")
        raise typer.Exit(1) from None
    if as_json:
        typer.echo(json.dumps(report, indent=2, ensure_ascii=False))
        return
    console.print(render_markdown(report))
    for path in report.get("report_files", []):
        err_console.print(f"wrote {path}")
