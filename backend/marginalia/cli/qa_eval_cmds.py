"""``marginalia eval qa`` and ``marginalia eval calibrate`` (added to the ``eval`` group)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from marginalia.cli.support import console, err_console
from marginalia.errors import MarginaliaError

SPLITS = ("all", "fit", "eval")

SetOption = Annotated[
    Path,
    typer.Option("--set", help="Keyed QA set (JSON Lines), e.g. eval/qa/dev.jsonl", dir_okay=False),
]
DocsOption = Annotated[
    Path,
    typer.Option("--docs", help="Folder of the PDFs the set is about", file_okay=False),
]
SplitOption = Annotated[
    str,
    typer.Option(
        help="all, or a deterministic stratified half: fit (even items) / eval (odd items)"
    ),
]
KeepOption = Annotated[
    bool, typer.Option(help="Keep the throwaway workspace instead of deleting it")
]
WorkspaceOption = Annotated[
    str | None,
    typer.Option(help="Reuse a workspace kept by an earlier run (--keep), by name or id"),
]
KnowledgeOption = Annotated[
    bool, typer.Option(help="Run the knowledge update (wiki pages) after ingesting")
]


def _split(value: str) -> Any:
    if value not in SPLITS:
        err_console.print(f"[red]error:[/red] --split must be one of {', '.join(SPLITS)}")
        raise typer.Exit(2)
    return value


def _progress(quiet: bool) -> Any:
    def show(message: str) -> None:
        if not quiet:
            err_console.print(f"[dim]{message}[/dim]")

    return show


def register(eval_app: typer.Typer) -> None:
    """Add ``qa`` and ``calibrate`` to the ``eval`` command group."""

    @eval_app.command("qa")
    def qa(
        set_path: SetOption,
        docs: DocsOption,
        split: SplitOption = "all",
        as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON")] = False,
        keep: KeepOption = False,
        workspace: WorkspaceOption = None,
        knowledge: KnowledgeOption = True,
        calibration: Annotated[
            Path | None,
            typer.Option(
                help="Answer with this calibration file instead of eval/calibration.json",
                dir_okay=False,
            ),
        ] = None,
        threshold: Annotated[
            float | None, typer.Option(help="Answer with this refusal threshold instead")
        ] = None,
        out_dir: Annotated[
            Path | None, typer.Option(help="Where to write qa-<set>.json/.md (eval/reports)")
        ] = None,
    ) -> None:
        """Ingest the documents into a throwaway workspace, answer every item of a keyed
        set and report recall@8, answer rate, refusal rate, citation precision and
        faithfulness (each k/n with a Wilson 95% interval), the earliest failing stage of
        every missed item, and the run's cost. Writes eval/reports/qa-<set>.json and .md."""
        from marginalia.evaluation.qa import REPORTS_DIR, render_markdown, run_qa_eval
        from marginalia.evaluation.qa_scoring import QASetError

        try:
            report = run_qa_eval(
                set_path,
                docs,
                split=_split(split),
                keep=keep,
                workspace=workspace,
                knowledge=knowledge,
                calibration=calibration,
                threshold=threshold,
                out_dir=out_dir or REPORTS_DIR,
                progress=_progress(as_json),
            )
        except MarginaliaError as exc:
            err_console.print(f"[red]error:[/red] {exc.detail}")
            raise typer.Exit(1) from None
        except (QASetError, ValueError) as exc:
            err_console.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(1) from None
        if as_json:
            typer.echo(json.dumps(report, indent=2, ensure_ascii=False))
            return
        console.print(render_markdown(report), markup=False)
        for path in report.get("report_files", []):
            err_console.print(f"wrote {path}")
        if report["run"].get("workspace_id"):
            err_console.print(f"workspace kept: {report['run']['workspace_id']}")

    @eval_app.command("calibrate")
    def calibrate(
        set_path: SetOption,
        docs: DocsOption,
        split: SplitOption = "all",
        out: Annotated[
            Path | None,
            typer.Option(help="Where to write the calibration (default eval/calibration.json)"),
        ] = None,
        min_refusal: Annotated[
            float, typer.Option(help="Required refusal rate on unanswerable items")
        ] = 0.9,
        as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON")] = False,
        keep: KeepOption = False,
        workspace: WorkspaceOption = None,
        knowledge: KnowledgeOption = True,
        gate: Annotated[
            bool,
            typer.Option(
                help="Fit the answerability gate (logistic regression + threshold); "
                "--no-gate fits a threshold on the support signal"
            ),
        ] = True,
    ) -> None:
        """Score every item of a keyed set (evidence only: no calibration read, no claims,
        no model call), fit the refusal threshold that maximises the answer rate with at
        least --min-refusal of the unanswerable items refused, and write it to
        eval/calibration.json."""
        from marginalia.evaluation.calibrate import run_calibration
        from marginalia.evaluation.qa import fmt_rate
        from marginalia.evaluation.qa_scoring import QASetError

        try:
            result = run_calibration(
                set_path,
                docs,
                split=_split(split),
                out=out,
                min_refusal=min_refusal,
                keep=keep,
                workspace=workspace,
                knowledge=knowledge,
                gate=gate,
                progress=_progress(as_json),
            )
        except MarginaliaError as exc:
            err_console.print(f"[red]error:[/red] {exc.detail}")
            raise typer.Exit(1) from None
        except (QASetError, ValueError) as exc:
            err_console.print(f"[red]error:[/red] {exc}")
            raise typer.Exit(1) from None
        if as_json:
            typer.echo(json.dumps(result, indent=2))
            return
        fit = result["expected_on_fit_set"]
        scores = result["scores"]
        console.print(
            f"threshold {result['threshold']:.4f} ({result['signal']}) written to {result['path']}",
            markup=False,
        )
        console.print(
            f"  answer rate on the fit set:  {fmt_rate(fit['answer_rate'])}", markup=False
        )
        console.print(
            f"  refusal rate on the fit set: {fmt_rate(fit['refusal_rate'])}", markup=False
        )
        for side in ("answerable", "unanswerable"):
            s = scores[side]
            if s.get("n"):
                console.print(
                    f"  {side}: n={s['n']} min {s['min']:.3f} median {s['median']:.3f} "
                    f"max {s['max']:.3f}",
                    markup=False,
                )
        err_console.print(
            "note: fitted on a development set; report held-out numbers with "
            "--split fit here and `eval qa --split eval --calibration <file>`."
        )
