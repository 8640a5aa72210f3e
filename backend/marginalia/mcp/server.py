"""The MCP server's tools and resources, and how it runs (stdio, streamable HTTP).

Tools: ``list_workspaces``; ``search`` (``workspace`` id or name, ``query``) → passages
with source, page, section and score; ``ask`` (``workspace``, ``question``) → claims
with verbatim quotes and citations, or the refusal; ``get_source`` (id or unique id
prefix); ``add_source`` (``workspace``, a URL or DOI, fetched through the same safe
fetcher as research); ``extract_table`` (``workspace``, ``columns``: questions) → per
source, per column, a short answer with its verbatim quotes and pages, or "not reported".
Resources: every wiki page, ``marginalia://wiki/{workspace}/{slug}``
(listed afresh on each request), and ``marginalia://workspaces``.

The runtime (database, embedder, jobs) is opened on first use inside the transport — on
stdio, after the SDK has moved stray output off the wire — and closed when the server
stops.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.resources import FunctionResource

from marginalia.config import Settings
from marginalia.errors import MarginaliaError
from marginalia.runtime import Runtime, open_runtime
from marginalia.usecases import agent

T = TypeVar("T")
INSTRUCTIONS = (
    "Marginalia is a research workspace. Call list_workspaces first; then search a "
    "workspace for passages, or ask it a question: answers carry claims with verbatim "
    "quotes and numbered citations (source, page), or a refusal when the sources do not "
    "support an answer. Wiki pages are resources."
)


class RuntimeHolder:
    """Opens the runtime once, on first use; :meth:`close` closes it."""

    def __init__(self, settings: Settings, runtime: Runtime | None = None) -> None:
        self.settings = settings
        self._runtime = runtime
        self._owned = runtime is None
        self._lock = asyncio.Lock()

    async def get(self) -> Runtime:
        async with self._lock:
            if self._runtime is None:
                self._runtime = await open_runtime(self.settings)
            return self._runtime

    async def close(self) -> None:
        if self._runtime is not None and self._owned:
            await self._runtime.close()
        self._runtime = None


class MarginaliaMCP(MCPServer):
    """The SDK's server, listing the wiki pages as they are when a client asks."""

    def __init__(self, holder: RuntimeHolder, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.holder = holder
        self._listed: set[str] = set()

    async def list_resources(self) -> Any:
        rt = await self.holder.get()
        for page in await agent.wiki_pages(rt):
            uri = f"marginalia://wiki/{page['workspace_id']}/{page['slug']}"
            if uri in self._listed:
                continue
            self._listed.add(uri)
            self.add_resource(
                FunctionResource(
                    uri=uri,
                    name=page["slug"],
                    title=page["title"],
                    description=f"wiki page “{page['title']}”",
                    mime_type="text/markdown",
                    fn=_page_reader(self.holder, page["workspace_id"], page["slug"]),
                )
            )
        return await super().list_resources()


def _page_reader(holder: RuntimeHolder, workspace: str, slug: str) -> Callable[[], Awaitable[str]]:
    async def read() -> str:
        try:
            return await agent.wiki_page(await holder.get(), workspace, slug)
        except MarginaliaError as exc:
            raise ResourceError(exc.detail) from exc

    return read


async def _tool(holder: RuntimeHolder, fn: Callable[[Runtime], Awaitable[T]]) -> T:
    """Run a use case; a Marginalia error becomes the tool's error message."""
    try:
        return await fn(await holder.get())
    except MarginaliaError as exc:
        raise ToolError(exc.detail) from exc


def build_server(holder: RuntimeHolder) -> MarginaliaMCP:
    server = MarginaliaMCP(holder, name="marginalia", title="Marginalia", instructions=INSTRUCTIONS)

    @server.tool()
    async def list_workspaces() -> dict[str, Any]:
        """Every workspace: id, name, description and counts (sources, concepts, …)."""
        return {"workspaces": await _tool(holder, agent.workspaces)}

    @server.tool()
    async def search(workspace: str, query: str, limit: int = 8) -> dict[str, Any]:
        """The workspace's best passages for a query (hybrid retrieval): each with its
        source, page, section and score. ``workspace``: id, name or unique id prefix."""
        return await _tool(holder, lambda rt: agent.search(rt, workspace, query, limit))

    @server.tool()
    async def ask(workspace: str, question: str) -> dict[str, Any]:
        """A cited answer from the workspace's sources: ``outcome`` (answered, closest or
        nothing), ``evidence`` (the best sentences, best first, with source and page),
        claims, each with a verbatim quote and the passages it cites (source, page) — or,
        for closest/nothing, no claims and a one-line ``reason``."""
        return await _tool(holder, lambda rt: agent.ask(rt, workspace, question))

    @server.tool()
    async def get_source(source: str) -> dict[str, Any]:
        """One source's record (title, authors, year, venue, DOI, arXiv id, tldr, summary,
        claims) by id or unique id prefix."""
        return await _tool(holder, lambda rt: agent.source(rt, source))

    @server.tool()
    async def add_source(workspace: str, url_or_doi: str) -> dict[str, Any]:
        """Fetch a paper by URL or DOI (through the safe fetcher: public http(s) only,
        size-capped) and ingest it into the workspace; waits for the ingest job."""
        return await _tool(holder, lambda rt: agent.add_source(rt, workspace, url_or_doi))

    @server.tool()
    async def extract_table(
        workspace: str, columns: list[str], sources: list[str] | None = None
    ) -> dict[str, Any]:
        """An evidence table: rows are the workspace's sources (or ``sources``: ids or
        unique prefixes), columns are your questions ("Which dataset is used?", "How many
        participants?"). Each cell is a short answer with the verbatim quotes it rests on
        and their pages, or not_reported when the source does not say. Cells computed
        before are reused."""
        return await _tool(holder, lambda rt: agent.extract_table(rt, workspace, columns, sources))

    @server.resource(
        "marginalia://wiki/{workspace}/{slug}", name="wiki-page", mime_type="text/markdown"
    )
    async def wiki_page(workspace: str, slug: str) -> str:
        """A wiki page of a workspace (id or name), as Markdown with its citations."""
        return await _page_reader(holder, workspace, slug)()

    @server.resource("marginalia://workspaces", name="workspaces", mime_type="application/json")
    async def workspaces_resource() -> dict[str, Any]:
        """The workspaces and their wiki pages."""
        rt = await holder.get()
        return {"workspaces": await agent.workspaces(rt), "wiki": await agent.wiki_pages(rt)}

    return server


async def serve_stdio(settings: Settings) -> None:
    holder = RuntimeHolder(settings)
    try:
        await build_server(holder).run_stdio_async()
    finally:
        await holder.close()


def serve_http(settings: Settings, *, host: str, port: int) -> None:
    """Streamable HTTP at ``http://host:port/mcp`` (DNS-rebinding protection on: only
    this host and port are accepted in the Host header). The runtime opens on the first
    call, in the server's event loop, and lives as long as the process."""
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    server = build_server(RuntimeHolder(settings))
    allowed = sorted({f"{host}:{port}", f"localhost:{port}", f"127.0.0.1:{port}"})
    app = server.streamable_http_app(
        transport_security=TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=allowed,
            allowed_origins=[f"http://{h}" for h in allowed],
        ),
        host=host,
    )
    uvicorn.run(app, host=host, port=port, log_level="warning")
