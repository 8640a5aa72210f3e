"""`marginalia ingest` and `marginalia reembed`."""

from __future__ import annotations

import asyncio
import mimetypes
import uuid
from pathlib import Path
from typing import Annotated

import typer

from marginalia.cli.support import console, err_console, follow_job, report_job, run, with_runtime
from marginalia.errors import MarginaliaError
from marginalia.runtime import Runtime
from marginalia.usecases import knowledge as knowledge_usecase
from marginalia.usecases import sources as sources_service
from marginalia.usecases.embedding import submit_reembed
from marginalia.usecases.workspaces import find_workspace

SUPPORTED = {".pdf", ".html", ".htm", ".md", ".markdown", ".txt"}


def _collect(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(
                sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUPPORTED)
            )
        elif path.is_file():
            files.append(path)
        else:
            raise typer.BadParameter(f"{path} does not exist")
    return files


async def _wait_for_refresh(rt: Runtime, workspace_id: uuid.UUID) -> bool:
    """Follow the knowledge refresh the ingest queued (debounced), so this process does
    not exit before it runs and cut it off; False when it did not succeed."""
    refresh = await knowledge_usecase.pending_refresh(rt, workspace_id)
    if refresh is None:
        return True
    err_console.print("knowledge refresh (centrality, clusters, wiki pages) queued: waiting")
    done = await follow_job(rt, refresh.id)
    report_job(done)
    return done.status == "succeeded"


def register(app: typer.Typer) -> None:
    @app.command()
    def ingest(
        paths: Annotated[
            list[Path], typer.Argument(help="Files or folders (PDF, HTML, Markdown, text)")
        ],
        workspace: Annotated[str, typer.Option("--workspace", "-w", help="Workspace id or name")],
    ) -> None:
        """Add documents to a workspace, showing progress; refused files are reported and skipped."""
        files = _collect(paths)
        if not files:
            err_console.print("[red]error:[/red] no supported files (pdf, html, md, txt) found")
            raise typer.Exit(1)

        async def go(rt: Runtime) -> int:
            ws = await find_workspace(rt, workspace)
            uploads: list[sources_service.Upload] = []
            refused = 0
            for path in files:
                upload = sources_service.Upload(
                    path.name,
                    await asyncio.to_thread(path.read_bytes),
                    mimetypes.guess_type(path.name)[0],
                )
                try:
                    await sources_service.validate_upload(rt, upload)
                except MarginaliaError as exc:
                    refused += 1
                    err_console.print(f"[red]refused[/red] {path}: {exc.detail}")
                    continue
                uploads.append(upload)
            if not uploads:
                return 1
            job = (await sources_service.submit_uploads(rt, ws.id, uploads, validated=True)).job
            finished = await follow_job(rt, job.id)
            report_job(finished)
            for item in (finished.result or {}).get("files", []):
                line = f"{item['status']:>9}  {item['filename']}"
                if item.get("dedup_layer"):
                    line += f"  (matched by {item['dedup_layer']})"
                if item.get("error"):
                    line += f"  {item['error']}"
                knowledge = item.get("knowledge") or {}
                if knowledge.get("status") == "ok":
                    line += (
                        f"  (knowledge: {knowledge['concepts']} concepts, "
                        f"{knowledge['claims']} claims)"
                    )
                elif knowledge.get("status") == "failed":
                    line += f"  (knowledge update failed: {knowledge.get('error')})"
                console.print(line)
            failed = (finished.result or {}).get("failed", 0)
            refreshed = await _wait_for_refresh(rt, ws.id)
            return 1 if refused or failed or finished.status != "succeeded" or not refreshed else 0

        code = run(with_runtime(go))
        raise typer.Exit(code)

    @app.command()
    def reembed() -> None:
        """Re-embed every stored vector with the configured model and pin it."""

        async def go(rt: Runtime) -> int:
            job = await submit_reembed(rt)
            finished = await follow_job(rt, job.id)
            report_job(finished)
            return 0 if finished.status == "succeeded" else 1

        raise typer.Exit(run(with_runtime(go)))
