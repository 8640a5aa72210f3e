"""`marginalia user …`: accounts for accounts mode (users, API tokens) and
`marginalia workspace share` (give another user a workspace, as owner or reader)."""

from __future__ import annotations

import sys
import uuid
from typing import Annotated

import typer
from rich.table import Table

from marginalia.cli.support import console, err_console, run, with_runtime
from marginalia.runtime import Runtime
from marginalia.usecases import accounts
from marginalia.usecases.workspaces import find_workspace

user_app = typer.Typer(no_args_is_help=True, help="Accounts (MARGINALIA_AUTH__MODE=accounts).")
token_app = typer.Typer(no_args_is_help=True, help="API tokens for the CLI and agents.")
user_app.add_typer(token_app, name="token")


def _read_password(from_stdin: bool) -> str:
    if from_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    password: str = typer.prompt("Password", hide_input=True, confirmation_prompt=True)
    return password


@user_app.command("add")
def add(
    email: Annotated[str, typer.Argument(help="the user's email (their sign-in name)")],
    name: Annotated[str | None, typer.Option(help="display name")] = None,
    password_stdin: Annotated[
        bool, typer.Option("--password-stdin", help="read the password from standard input")
    ] = False,
) -> None:
    """Add a user who signs in with EMAIL and a password (asked for, or read from stdin)."""
    password = _read_password(password_stdin)
    user = run(
        with_runtime(lambda rt: accounts.add_user(rt, email=email, password=password, name=name))
    )
    console.print(f"added user {user.email} ({user.id})")


@token_app.command("create")
def token_create(
    email: Annotated[str, typer.Argument(help="whose token")],
    name: Annotated[str, typer.Option(help="what the token is for")] = "cli",
) -> None:
    """Create an API token; it is printed once, on standard output (send it as
    `Authorization: Bearer <token>`)."""
    token, secret = run(with_runtime(lambda rt: accounts.create_token(rt, email=email, name=name)))
    err_console.print(f"token {token.id} ({token.name}) for {email}; it is shown only now:")
    typer.echo(secret)


@token_app.command("list")
def token_list(email: Annotated[str, typer.Argument(help="whose tokens")]) -> None:
    """A user's API tokens (ids and names; the secrets are not stored)."""
    tokens = run(with_runtime(lambda rt: accounts.list_tokens(rt, email=email)))
    table = Table("id", "name", "created", "last used")
    for t in tokens:
        table.add_row(
            str(t.id),
            t.name,
            f"{t.created_at:%Y-%m-%d %H:%M}",
            f"{t.last_used_at:%Y-%m-%d %H:%M}" if t.last_used_at else "never",
        )
    console.print(table)


@token_app.command("revoke")
def token_revoke(token_id: Annotated[str, typer.Argument(help="the token's id")]) -> None:
    """Revoke an API token at once."""
    try:
        parsed = uuid.UUID(token_id)
    except ValueError:
        err_console.print(f"[red]error:[/red] {token_id!r} is not a token id")
        raise typer.Exit(2) from None
    run(with_runtime(lambda rt: accounts.revoke_token(rt, parsed)))
    console.print(f"revoked token {parsed}")


def register(app: typer.Typer, workspace_app: typer.Typer) -> None:
    app.add_typer(user_app, name="user")

    @workspace_app.command("share")
    def share(
        workspace: Annotated[str, typer.Argument(help="workspace name, id or id prefix")],
        email: Annotated[str, typer.Argument(help="the user to share it with")],
        role: Annotated[str, typer.Option(help="owner or reader")] = "reader",
    ) -> None:
        """Give a user access to a workspace (accounts mode)."""

        async def go(rt: Runtime) -> accounts.Shared:
            ws = await find_workspace(rt, workspace)
            return await accounts.share_workspace(rt, ws.id, email=email, role=role)

        shared = run(with_runtime(go))
        if shared.status == "member":
            console.print(f"{shared.email} is now {shared.role} of {workspace}")
        else:
            console.print(
                f"invited {shared.email} as {shared.role} of {workspace}: it becomes theirs "
                "when they sign in or use the API with that email"
            )
