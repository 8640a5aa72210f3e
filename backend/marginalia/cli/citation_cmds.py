"""`marginalia citations SOURCE [--cited-by] [--add 1,3|all] [--json]` and
`marginalia suggest -w W [--add 1,3|all] [--json]`: citation chasing from the terminal."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Annotated

import typer
from rich.table import Table

from marginalia.cli.support import console, err_console, follow_job, report_job, run, with_runtime
from marginalia.runtime import Runtime
from marginalia.usecases import citations as citations_usecase
from marginalia.usecases.citations import CitedWork
from marginalia.usecases.lookup import resolve_id
from marginalia.usecases.workspaces import find_workspace

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON")]
AddOpt = Annotated[
    str | None,
    typer.Option(
        "--add",
        help="Add these works (the numbers of the listing, e.g. 1,3,4, or 'all') to the "
        "workspace through the import (dedup, fetch, ingest)",
    ),
]
FetchOpt = Annotated[
    bool, typer.Option("--fetch/--no-fetch", help="Fetch full text of added works when allowed")
]


def chosen(add: str, works: Sequence[CitedWork]) -> list[CitedWork]:
    """The works ``--add`` names among those not in the workspace (numbers are 1-based
    positions in the listing)."""
    if add.strip().lower() == "all":
        return [w for w in works if not w.in_workspace]
    picked: list[CitedWork] = []
    for part in add.split(","):
        part = part.strip()
        if not part:
            continue
        if not part.isdigit() or not 1 <= int(part) <= len(works):
            err_console.print(f"[red]error:[/red] --add: {part!r} is not a listed number")
            raise typer.Exit(2)
        work = works[int(part) - 1]
        if not work.in_workspace:
            picked.append(work)
    return picked


async def _add(
    rt: Runtime, workspace_id: uuid.UUID, works: list[CitedWork], fetch: bool, quiet: bool
) -> None:
    if not works:
        err_console.print("nothing to add: the chosen works are in the workspace already")
        return
    job = await citations_usecase.add_works(
        rt,
        workspace_id,
        [
            citations_usecase.WorkToAdd(
                title=w.title,
                doi=w.doi,
                arxiv_id=w.arxiv_id,
                openalex_id=w.openalex_id,
                catalog_id=w.catalog_id,
                year=w.year,
            )
            for w in works
        ],
        fetch=fetch,
    )
    report_job(await follow_job(rt, job.id, quiet=quiet))


def _table(works: Sequence[CitedWork], why: Sequence[str] | None = None) -> Table:
    table = Table("#", "year", "title", "ids", "here", "origin", *(["why"] if why else []))
    for i, w in enumerate(works, start=1):
        ids = w.doi or (f"arXiv:{w.arxiv_id}" if w.arxiv_id else "") or w.openalex_id or ""
        here = str(w.source_id)[:8] if w.in_workspace else ""
        row = [str(i), str(w.year or ""), w.title[:70], ids, here, ",".join(w.origins)]
        table.add_row(*row, *([why[i - 1][:80]] if why else []))
    return table


def register(app: typer.Typer) -> None:
    @app.command("citations")
    def citations(
        source: Annotated[str, typer.Argument(help="Source id, or a unique prefix of it")],
        cited_by: Annotated[
            bool, typer.Option("--cited-by", help="The works citing it, not those it cites")
        ] = False,
        add: AddOpt = None,
        fetch: FetchOpt = True,
        as_json: JsonOpt = False,
    ) -> None:
        """The known works a source cites (or, --cited-by, that cite it): from its PDF's
        reference list, the catalog's reference data and OpenAlex, each marked in the
        workspace or not."""

        async def go(rt: Runtime) -> None:
            source_id = await resolve_id(rt, "source", source)
            listing = await (
                citations_usecase.cited_by(rt, source_id)
                if cited_by
                else citations_usecase.references(rt, source_id)
            )
            if as_json:
                typer.echo(listing.model_dump_json(indent=2))
            else:
                console.print(_table(listing.works))
                if listing.unresolved:
                    console.print(f"{listing.unresolved} entries match no known work")
                for note in listing.notes:
                    err_console.print(note)
            if add:
                from marginalia.usecases.sources import get_source

                here = await get_source(rt, source_id)
                await _add(rt, here.workspace_id, chosen(add, listing.works), fetch, as_json)

        run(with_runtime(go))

    @app.command("suggest")
    def suggest(
        workspace: Annotated[
            str, typer.Option("--workspace", "-w", help="Workspace name, id or id prefix")
        ],
        limit: Annotated[int, typer.Option("--limit", min=1, max=200)] = 30,
        add: AddOpt = None,
        fetch: FetchOpt = True,
        as_json: JsonOpt = False,
    ) -> None:
        """Works not in the workspace, ranked by how many of its sources cite them or are
        cited by them (co-citation, bibliographic coupling), with why."""

        async def go(rt: Runtime) -> None:
            ws = await find_workspace(rt, workspace)
            items = await citations_usecase.suggestions(rt, ws.id, limit=limit)
            if as_json:
                payload = [s.model_dump(mode="json") for s in items]
                typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
            else:
                console.print(_table(items, [s.why for s in items]))
            if add:
                await _add(rt, ws.id, chosen(add, items), fetch, as_json)

        run(with_runtime(go))
