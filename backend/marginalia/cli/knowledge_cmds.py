"""`marginalia graph`, `marginalia wiki` and `marginalia path`."""

from __future__ import annotations

import json
from collections import Counter
from typing import Annotated, Any

import typer
from rich.table import Table

from marginalia.cli.runtime import console, run, with_services
from marginalia.knowledge import service
from marginalia.knowledge.views import GraphView, LearningPathView, WikiPageView
from marginalia.services.container import Services
from marginalia.services.workspaces import find_workspace

WorkspaceOpt = Annotated[str, typer.Option("--workspace", "-w", help="Workspace id or name")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text")]

LEVELS = {0: "foundational", 1: "intermediate", 2: "specialised"}


def _echo_json(data: Any) -> None:
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def graph_payload(view: GraphView) -> dict[str, Any]:
    return {
        "nodes": [n.model_dump(mode="json") for n in view.nodes],
        "edges": [e.model_dump(mode="json") for e in view.edges],
    }


def wiki_payload(pages: list[WikiPageView]) -> dict[str, Any]:
    return {"pages": [p.model_dump(mode="json") for p in pages]}


def path_payload(path: LearningPathView) -> dict[str, Any]:
    return {
        "title": path.title,
        "engine": path.engine,
        "notes": path.notes,
        "broken_cycles": path.broken_cycles,
        "steps": [s.model_dump(mode="json") for s in path.steps],
    }


def _print_graph(view: GraphView) -> None:
    types = Counter(n.type for n in view.nodes)
    edge_types = Counter(e.type for e in view.edges)
    console.print(
        f"[bold]{types.get('source', 0)}[/bold] sources, [bold]{types.get('concept', 0)}[/bold] "
        f"concepts, [bold]{types.get('synthesis', 0)}[/bold] syntheses; edges: "
        + ", ".join(f"{k} {v}" for k, v in sorted(edge_types.items()))
    )
    concepts = sorted(
        (n for n in view.nodes if n.type == "concept"),
        key=lambda n: -float(n.data.get("centrality") or 0.0),
    )
    table = Table("concept", "level", "sources", "centrality", title="Most central concepts")
    for n in concepts[:25]:
        table.add_row(
            n.label,
            LEVELS.get(n.level if n.level is not None else 1, "?"),
            str(n.data.get("sources", 0)),
            f"{float(n.data.get('centrality') or 0.0):.4f}",
        )
    console.print(table)
    labels = {n.id: n.label for n in view.nodes}
    similar = [e for e in view.edges if e.type == "similar"]
    if similar:
        table = Table("source", "source", "strength", "label", title="Source edges")
        for e in similar[:40]:
            table.add_row(
                labels.get(e.source, e.source)[:50],
                labels.get(e.target, e.target)[:50],
                str(e.data.get("strength", "")),
                e.label or "",
            )
        console.print(table)


def register(app: typer.Typer) -> None:
    @app.command()
    def graph(workspace: WorkspaceOpt, as_json: JsonOpt = False) -> None:
        """The workspace's knowledge graph: sources, concepts (with levels), syntheses, edges."""

        async def go(services: Services) -> None:
            ws = await find_workspace(services.db, workspace)
            view = await service.graph_view(services, ws.id)
            if as_json:
                _echo_json(graph_payload(view))
            else:
                _print_graph(view)

        run(with_services(go))

    @app.command()
    def wiki(
        workspace: WorkspaceOpt,
        page: Annotated[str | None, typer.Option("--page", help="Show one page by slug")] = None,
        as_json: JsonOpt = False,
    ) -> None:
        """The workspace's wiki pages (or one page with --page)."""

        async def go(services: Services) -> None:
            ws = await find_workspace(services.db, workspace)
            if page is not None:
                pages = [await service.get_wiki_page(services, ws.id, page)]
            else:
                pages = [
                    await service.get_wiki_page(services, ws.id, p.slug)
                    for p in await service.list_wiki_pages(services, ws.id)
                ]
            if as_json:
                _echo_json(wiki_payload(pages))
                return
            if page is not None:
                p = pages[0]
                console.print(p.body, markup=False, highlight=False)
                console.print(
                    f"revision {p.revision} ({p.revisions} kept); links: "
                    f"{', '.join(p.links) or '-'}; backlinks: {', '.join(p.backlinks) or '-'}"
                )
                return
            table = Table("slug", "title", "rev", "links", "backlinks")
            for p in pages:
                table.add_row(
                    p.slug, p.title, str(p.revision), str(len(p.links)), str(len(p.backlinks))
                )
            console.print(table)

        run(with_services(go))

    @app.command()
    def path(
        workspace: WorkspaceOpt,
        regenerate: Annotated[
            bool, typer.Option("--regenerate", help="Plan a new path even if one exists")
        ] = False,
        as_json: JsonOpt = False,
    ) -> None:
        """A reading order that respects concept prerequisites (made on first use)."""

        async def go(services: Services) -> None:
            ws = await find_workspace(services.db, workspace)
            current = None if regenerate else await service.latest_learning_path(services, ws.id)
            if current is None:
                current = await service.generate_learning_path(services, ws.id)
            if as_json:
                _echo_json(path_payload(current))
                return
            console.print(f"[bold]{current.title}[/bold] ({current.engine})")
            titles = {s.source_id: s.title for s in current.steps}
            for s in current.steps:
                console.print(
                    f"{s.position}. [bold]{s.title}[/bold] — {s.difficulty}, "
                    f"{s.reading_minutes} min",
                    highlight=False,
                )
                if s.prerequisites:
                    names = [titles.get(_as_uuid(p), p)[:60] for p in s.prerequisites]
                    console.print("   after: " + "; ".join(names), highlight=False)
                if s.concepts_covered:
                    console.print(
                        "   concepts: " + ", ".join(s.concepts_covered[:8]), highlight=False
                    )
                for t in s.key_takeaways:
                    console.print(f"   • {t}", highlight=False, markup=False)
            if current.notes:
                console.print(current.notes, markup=False, highlight=False)

        run(with_services(go))


def _as_uuid(value: str) -> Any:
    import uuid

    try:
        return uuid.UUID(value)
    except ValueError:
        return value
