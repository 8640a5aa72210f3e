"""`marginalia backup FILE` and `marginalia restore FILE`: the database (pg_dump of the
same PostgreSQL) and every stored file in one archive, and back."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from marginalia.cli.support import err_console
from marginalia.config import get_settings
from marginalia.errors import MarginaliaError
from marginalia.usecases import backup as backup_usecase


def _human(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def register(app: typer.Typer) -> None:
    @app.command("backup")
    def backup(
        file: Annotated[
            Path, typer.Argument(help="Archive to write (.tar, or .tar.gz to compress)")
        ],
        force: Annotated[bool, typer.Option("--force", help="Replace FILE if it exists")] = False,
    ) -> None:
        """Write the database (pg_dump) and every stored file to one archive."""
        try:
            manifest = backup_usecase.create_backup(get_settings(), file, overwrite=force)
        except MarginaliaError as exc:
            err_console.print(f"[red]error:[/red] {exc.detail}")
            raise typer.Exit(1) from None
        counts = manifest["counts"]
        files = manifest["files"]
        if files["missing"]:
            err_console.print(
                f"[yellow]warning:[/yellow] {len(files['missing'])} file(s) that sources name "
                f"were not in the store: {', '.join(k[:12] for k in files['missing'][:5])}"
            )
        typer.echo(
            f"wrote {file}: {counts.get('workspaces', 0)} workspaces, "
            f"{counts.get('sources', 0)} sources, {files['count']} files "
            f"({_human(files['bytes'])}), schema {manifest['alembic_revision']}"
        )

    @app.command("restore")
    def restore(
        file: Annotated[Path, typer.Argument(help="Archive written by `marginalia backup`")],
        force: Annotated[
            bool,
            typer.Option("--force", help="Replace a database that already holds workspaces"),
        ] = False,
        check: Annotated[
            bool, typer.Option("--check", help="Only validate the archive; change nothing")
        ] = False,
    ) -> None:
        """Restore an archive into the configured database and file store (stop `serve`
        and workers first). Refuses a database with workspaces unless --force."""
        try:
            if check:
                manifest = backup_usecase.read_manifest(file)
                typer.echo(
                    f"{file} is a valid backup made {manifest['created_at']} "
                    f"(schema {manifest['alembic_revision']}, {manifest['files']['count']} files)"
                )
                return
            report = backup_usecase.restore_backup(get_settings(), file, force=force)
        except MarginaliaError as exc:
            err_console.print(f"[red]error:[/red] {exc.detail}")
            raise typer.Exit(1) from None
        for warning in report.warnings:
            err_console.print(f"[yellow]warning:[/yellow] {warning}")
        counts = report.manifest["counts"]
        upgraded = f", migrated from {report.upgraded_from}" if report.upgraded_from else ""
        typer.echo(
            f"restored {file}: {counts.get('workspaces', 0)} workspaces, "
            f"{counts.get('sources', 0)} sources, {report.files_added} files added, "
            f"{report.files_removed} removed; schema {report.revision}{upgraded}"
        )
