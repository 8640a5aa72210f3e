"""`marginalia sources list|show`: a workspace's sources, as a table or JSON."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.table import Table

from marginalia.cli.support import console, run, with_runtime
from marginalia.runtime import Runtime
from marginalia.usecases import sources as sources_usecase
from marginalia.usecases.lookup import resolve_id
from marginalia.usecases.workspaces import find_workspace

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON")]


def register(app: typer.Typer) -> None:
    sources_app = typer.Typer(no_args_is_help=True, help="List and show a workspace's sources.")
    app.add_typer(sources_app, name="sources")

    @sources_app.command("list")
    def sources_list(
        workspace: Annotated[
            str, typer.Option("--workspace", "-w", help="Workspace name, id or id prefix")
        ],
        as_json: JsonOpt = False,
    ) -> None:
        """Every source of a workspace (kind ``metadata``: known by its record only)."""
        from marginalia.api.schemas import SourceOut

        async def go(rt: Runtime) -> None:
            ws = await find_workspace(rt, workspace)
            items = await sources_usecase.list_sources(rt, ws.id, limit=100_000, offset=0)
            if as_json:
                payload = [SourceOut.model_validate(s).model_dump(mode="json") for s in items]
                typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
                return
            table = Table("id", "kind", "year", "title", "status")
            for s in items:
                kind = "abstract" if s.abstract_only else s.kind
                table.add_row(
                    str(s.id)[:8], kind, str(s.year or ""), (s.title or "")[:70], s.status
                )
            console.print(table)

        run(with_runtime(go))

    @sources_app.command("show")
    def sources_show(
        ref: Annotated[str, typer.Argument(help="Source id, or a unique prefix of it")],
        as_json: JsonOpt = True,
    ) -> None:
        """One source's record, as JSON."""
        from marginalia.api.schemas import SourceOut

        async def go(rt: Runtime) -> None:
            source = await sources_usecase.get_source(rt, await resolve_id(rt, "source", ref))
            typer.echo(SourceOut.model_validate(source).model_dump_json(indent=2))

        run(with_runtime(go))
