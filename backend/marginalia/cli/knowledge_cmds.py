"""`marginalia graph`, `marginalia wiki`, `marginalia path` and `marginalia knowledge rebuild`."""

from __future__ import annotations

import json
from collections import Counter
from typing import Annotated, Any

import typer
from rich.table import Table

from marginalia.cli.support import console, follow_job, report_job, run, with_runtime
from marginalia.knowledge.views import GraphView, LearningPathView, WikiPageView
from marginalia.runtime import Runtime
from marginalia.usecases import knowledge, paths
from marginalia.usecases.workspaces import find_workspace

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
        "stale": path.stale,
        "stale_reason": path.stale_reason,
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
    knowledge_app = typer.Typer(no_args_is_help=True, help="Maintain the knowledge layer.")
    app.add_typer(knowledge_app, name="knowledge")

    @knowledge_app.command("rebuild")
    def rebuild(workspace: WorkspaceOpt) -> None:
        """Recompute a workspace's knowledge from its sources (extraction, concepts, claims
        and evidence, source edges, clusters, quality, wiki), following the job."""

        async def go(rt: Runtime) -> int:
            ws = await find_workspace(rt, workspace)
            job = await knowledge.submit_rebuild(rt, ws.id)
            finished = await follow_job(rt, job.id)
            report_job(finished)
            result = finished.result or {}
            if result:
                console.print(
                    f"{result.get('sources', 0)} sources: {result.get('concepts', 0)} concepts, "
                    f"{result.get('claims', 0)} claims, {result.get('wiki_pages', 0)} wiki pages"
                )
            return 0 if finished.status == "succeeded" else 1

        raise typer.Exit(run(with_runtime(go)))

    @app.command()
    def graph(workspace: WorkspaceOpt, as_json: JsonOpt = False) -> None:
        """The workspace's knowledge graph: sources, concepts (with levels), syntheses, edges."""

        async def go(rt: Runtime) -> None:
            ws = await find_workspace(rt, workspace)
            view = await knowledge.graph_view(rt, ws.id)
            if as_json:
                _echo_json(graph_payload(view))
            else:
                _print_graph(view)

        run(with_runtime(go))

    @app.command()
    def wiki(
        workspace: WorkspaceOpt,
        page: Annotated[str | None, typer.Option("--page", help="Show one page by slug")] = None,
        as_json: JsonOpt = False,
    ) -> None:
        """The workspace's wiki pages (or one page with --page)."""

        async def go(rt: Runtime) -> None:
            ws = await find_workspace(rt, workspace)
            if page is not None:
                pages = [await knowledge.get_wiki_page(rt, ws.id, page)]
            else:
                pages = [
                    await knowledge.get_wiki_page(rt, ws.id, p.slug)
                    for p in await knowledge.list_wiki_pages(rt, ws.id)
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

        run(with_runtime(go))

    @app.command()
    def path(
        workspace: WorkspaceOpt,
        regenerate: Annotated[
            bool, typer.Option("--regenerate", help="Plan a new path even if one exists")
        ] = False,
        as_json: JsonOpt = False,
    ) -> None:
        """A reading order that respects concept prerequisites (made on first use)."""

        async def go(rt: Runtime) -> None:
            ws = await find_workspace(rt, workspace)
            current = await paths.current_or_new_path(rt, ws.id, regenerate=regenerate)
            if as_json:
                _echo_json(path_payload(current))
                return
            console.print(f"[bold]{current.title}[/bold] ({current.engine})")
            if current.stale:
                console.print(f"[yellow]stale:[/yellow] {current.stale_reason}", highlight=False)
            for s in current.steps:
                console.print(
                    f"{s.position}. [bold]{s.title}[/bold] — {s.difficulty}, "
                    f"{s.reading_minutes} min",
                    highlight=False,
                )
                if s.prerequisites:
                    names = [
                        p.title[:60] + (f" ({', '.join(p.concepts[:3])})" if p.concepts else "")
                        for p in s.prerequisites
                    ]
                    console.print("   after: " + "; ".join(names), highlight=False)
                if s.concepts_covered:
                    console.print(
                        "   concepts: " + ", ".join(s.concepts_covered[:8]), highlight=False
                    )
                for t in s.key_takeaways:
                    console.print(f"   • {t}", highlight=False, markup=False)
            if current.notes:
                console.print(current.notes, markup=False, highlight=False)

        run(with_runtime(go))
