"""`marginalia ask`: a cited answer (or a refusal) in the terminal."""

from __future__ import annotations

import json
import uuid
from typing import Annotated

import typer
from rich.markup import escape

from marginalia.answer import Answer, normalize
from marginalia.cli.support import console, run, with_runtime
from marginalia.runtime import Runtime
from marginalia.usecases import ask as ask_usecase
from marginalia.usecases.lookup import resolve_id
from marginalia.usecases.workspaces import find_workspace


def print_answer(answer: Answer) -> None:
    """The best evidence first, then the outcome (claims with their [n] marks and quotes,
    the closest-evidence reason, or the refusal), then the numbered sources cited."""
    if answer.evidence and answer.outcome != "nothing":
        console.print("[bold]Best evidence[/bold]")
        for e in answer.evidence:
            page = f", p. {e.page}" if e.page is not None else ""
            console.print(
                f"  [{e.n}] “{escape(normalize(e.text))}” [dim]{escape(e.document)}{page}[/dim]"
            )
        console.print("")
    if answer.refused:
        console.print(f"[yellow]{escape(answer.refusal or 'No answer.')}[/yellow]")
    else:
        lead = answer.text.split("\n", 1)[0] if "\n" in answer.text else ""
        if lead:
            console.print(escape(lead))
        for claim in answer.claims:
            marks = "".join(f"[{n}]" for n in dict.fromkeys(claim.citations))
            console.print(f"• {escape(claim.text)} [bold cyan]{escape(marks)}[/bold cyan]")
            # Each claim once: the quote only when the claim paraphrases it.
            if claim.quote and normalize(claim.quote) != normalize(claim.text):
                console.print(f"    [dim]“{escape(normalize(claim.quote))}”[/dim]")
    cited = set(answer.cited_numbers())
    shown = [p for p in answer.passages if p.n in cited] if cited else answer.passages
    if shown:
        console.print("\n[bold]Sources[/bold]" + ("" if cited else " searched"))
        for p in shown:
            page = f", p. {p.page}" if p.page is not None else ""
            section = f" — {p.section_title}" if p.section_title else ""
            console.print(f"  [{p.n}] {escape(p.document)}{page}{escape(section)}")
    thr = f"{answer.threshold:.2f}" if answer.threshold is not None else "n/a"
    console.print(
        f"\n[dim]outcome {answer.outcome} · route {answer.route} · engine {answer.engine} · evidence "
        f"{answer.evidence_score:.2f} (threshold {thr}) · {len(answer.dropped)} claim(s) dropped"
        "[/dim]"
    )
    for note in answer.notes:
        console.print(f"[dim]note: {escape(note)}[/dim]")


def register(app: typer.Typer) -> None:
    @app.command()
    def ask(
        question: Annotated[str, typer.Argument(help="The question")],
        workspace: Annotated[str, typer.Option("--workspace", "-w", help="Workspace id or name")],
        source: Annotated[
            str | None, typer.Option("--source", "-s", help="Ask only this paper (source id)")
        ] = None,
        as_json: Annotated[
            bool, typer.Option("--json", help="Print the full answer, trace included, as JSON")
        ] = False,
    ) -> None:
        """Answer a question from a workspace's sources, with citations and quotes."""

        async def go(rt: Runtime) -> Answer:
            ws = await find_workspace(rt, workspace)
            source_id: uuid.UUID | None = None
            if source is not None:
                source_id = await resolve_id(rt, "source", source)
            return await ask_usecase.answer(
                rt, workspace_id=ws.id, question=question, source_id=source_id
            )

        answer = run(with_runtime(go))
        if as_json:
            typer.echo(json.dumps(answer.model_dump(mode="json"), ensure_ascii=False, indent=2))
        else:
            print_answer(answer)
