"""The MCP server (issue 20 item 3), driven by the official SDK's own client over stdio:
`python -m marginalia mcp` as a subprocess on this session's database, a workspace of
shared PDFs — the client lists the tools, searches, gets a cited answer (claims with
verbatim quotes), reads a source by id prefix and a wiki page, and add_source goes
through the safe fetcher (a loopback URL is refused)."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from marginalia.answer.calibration import SIGNAL
from marginalia.runtime import Runtime
from marginalia.usecases import sources as sources_usecase
from marginalia.usecases import workspaces as ws_usecase
from tests.conftest import SHARED_DATA

PDFS = SHARED_DATA / "pdfs"
pytestmark = pytest.mark.skipif(not PDFS.is_dir(), reason=f"shared PDFs not found at {PDFS}")
QUESTION = "How does SPECTER use the citation graph to learn document embeddings?"


@pytest.fixture(scope="module")
async def workspace(services: Runtime) -> AsyncIterator[tuple[uuid.UUID, str, uuid.UUID]]:
    name = f"mcp-{uuid.uuid4().hex[:6]}"
    ws = await ws_usecase.create_workspace(services, name=name)
    docs = [
        (pdf, (lambda p=PDFS / pdf: p.read_bytes()))
        for pdf in ("specter-acl2020.pdf", "trauma-bmc2010.pdf")
    ]
    added = await sources_usecase.add_documents(services, ws.id, docs)
    yield ws.id, name, added.outcomes[0].source_id
    await ws_usecase.delete_workspace(services, ws.id)


def _data(result: Any) -> Any:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


async def test_the_sdk_client_over_stdio(
    workspace: tuple[uuid.UUID, str, uuid.UUID], subprocess_env: dict[str, str], tmp_path: Path
) -> None:
    workspace_id, name, specter_id = workspace
    calibration = tmp_path / "calibration.json"
    calibration.write_text(
        json.dumps({"threshold": 0.3, "signal": SIGNAL, "fitted_on": "test", "method": "fixed"}),
        encoding="utf-8",
    )
    env = {**subprocess_env, "MARGINALIA_RETRIEVAL__CALIBRATION_PATH": str(calibration)}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "marginalia", "mcp"], env=env
    )
    async with Client(params, read_timeout_seconds=240) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        assert {"list_workspaces", "search", "ask", "get_source", "add_source"} <= tools

        listed = _data(await client.call_tool("list_workspaces", {}))
        assert name in {w["name"] for w in listed["workspaces"]}

        found = _data(
            await client.call_tool("search", {"workspace": name, "query": "citation graph"})
        )
        passages = found["passages"]
        assert passages and passages[0]["source_id"] == str(specter_id)
        assert all({"source", "page", "section", "score", "text"} <= p.keys() for p in passages)
        assert passages[0]["source"].lower().startswith("specter")

        answer = _data(
            await client.call_tool("ask", {"workspace": str(workspace_id), "question": QUESTION})
        )
        assert not answer["refused"], answer
        assert answer["claims"]
        for claim in answer["claims"]:
            assert claim["quote"] and claim["citations"]
            # a passage of a source (with its page), or the workspace's wiki page (wiki-first)
            assert all(
                (c["source_id"] and c["page"]) or (c["wiki_slug"] and not c["source_id"])
                for c in claim["citations"]
            )
        cited = {c["source_id"] for claim in answer["claims"] for c in claim["citations"]}
        assert str(specter_id) in cited

        off_topic = _data(
            await client.call_tool(
                "ask", {"workspace": name, "question": "What is the capital of Australia?"}
            )
        )
        assert off_topic["refused"] and off_topic["refusal"]

        record = _data(await client.call_tool("get_source", {"source": str(specter_id)[:8]}))
        assert record["id"] == str(specter_id) and record["pages"] and record["pages"] > 5

        refused = await client.call_tool(
            "add_source", {"workspace": name, "url_or_doi": "http://127.0.0.1:9/paper.pdf"}
        )
        assert refused.is_error and "cannot fetch" in refused.content[0].text
        bad = await client.call_tool(
            "add_source", {"workspace": name, "url_or_doi": "file:///etc/passwd"}
        )
        assert bad.is_error and "neither an http(s) URL nor a DOI" in bad.content[0].text
        missing = await client.call_tool("search", {"workspace": "no-such-workspace", "query": "x"})
        assert missing.is_error and "no workspace" in missing.content[0].text

        resources = (await client.list_resources()).resources
        wiki = [r for r in resources if str(r.uri).startswith(f"marginalia://wiki/{workspace_id}/")]
        assert wiki, [str(r.uri) for r in resources]
        page = await client.read_resource(str(wiki[0].uri))
        text = page.contents[0].text  # type: ignore[union-attr]
        assert text.startswith("# ") and len(text) > 100
