"""`marginalia mcp`: the MCP server for agents, over stdio (default) or streamable HTTP."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from marginalia.config import get_settings


def register(app: typer.Typer) -> None:
    @app.command()
    def mcp(
        http: Annotated[
            bool, typer.Option("--http", help="Serve streamable HTTP at /mcp instead of stdio")
        ] = False,
        host: Annotated[str, typer.Option(help="HTTP bind address")] = "127.0.0.1",
        port: Annotated[int, typer.Option(help="HTTP port")] = 8765,
    ) -> None:
        """Serve the MCP tools (list_workspaces, search, ask, get_source, add_source) and
        the wiki pages as resources, to an agent such as Claude Desktop or Claude Code."""
        from marginalia.mcp.server import serve_http, serve_stdio

        settings = get_settings()
        if http:
            typer.echo(f"MCP over streamable HTTP at http://{host}:{port}/mcp", err=True)
            serve_http(settings, host=host, port=port)
            return
        asyncio.run(serve_stdio(settings))
