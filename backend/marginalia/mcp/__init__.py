"""The MCP server (``marginalia mcp``): agents list workspaces, search passages, ask for
cited answers, read and add sources, and read wiki pages, over stdio or streamable HTTP,
with the official ``mcp`` SDK. Tools call :mod:`marginalia.usecases.agent` only."""
