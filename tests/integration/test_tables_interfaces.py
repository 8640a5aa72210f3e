"""Evidence tables through `marginalia table` (--json shape, --csv, the reuse of a table
of the same columns), the MCP tool ``extract_table`` (the SDK's own client over stdio),
and the model engine (one call per cell under the same quote verification; a quote that
is not verbatim makes the cell "not reported" with a note; a failed call falls back to
the extractive cell, marked to be asked again)."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import re
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import typer
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from typer.testing import CliRunner

from marginalia.answer.quotes import normalize
from marginalia.cli import table_cmds
from marginalia.ingest.pipeline import ingest_document
from marginalia.llm.errors import LLMDeadlineError
from marginalia.runtime import Runtime
from marginalia.tables.columns import profile_of
from marginalia.tables.evidence import source_evidence
from marginalia.tables.fill import source_pages
from marginalia.tables.llm_engine import TableCellOutput, fill_cell_with_model, shown_passages
from marginalia.usecases import tables as tables_usecase
from marginalia.usecases import workspaces as ws_usecase
from tests.support.scripted_llm import ScriptedLLM

COUNT = "How many samples, participants or documents are studied?"
DATASET = "Which dataset or data source is used?"
KEYS = {"source_id", "title", "file_name", "cells"}


@pytest.fixture(scope="module")
async def workspace(
    services: Runtime, shared_data: Path
) -> AsyncIterator[tuple[uuid.UUID, str, list[uuid.UUID]]]:
    name = f"tables-if-{uuid.uuid4().hex[:6]}"
    ws = await ws_usecase.create_workspace(services, name=name)
    ids = []
    for pdf in ("literature-graph-naacl2018.pdf", "trauma-bmc2010.pdf"):
        outcome = await ingest_document(
            services, ws.id, data=(shared_data / "pdfs" / pdf).read_bytes(), filename=pdf
        )
        ids.append(outcome.source_id)
    yield ws.id, name, ids
    await ws_usecase.delete_workspace(services, ws.id)


def cli() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def _root() -> None:
        """marginalia"""

    table_cmds.register(app)
    return app


def check_rows(rows: Any, ids: list[uuid.UUID], columns: list[str]) -> None:
    assert isinstance(rows, list) and {r["source_id"] for r in rows} == {str(i) for i in ids}
    for row in rows:
        assert set(row) == KEYS
        assert row["file_name"].endswith(".pdf") and isinstance(row["title"], str)
        assert [c["column"] for c in row["cells"]] == columns
        for cell in row["cells"]:
            assert set(cell) == {"column", "answer", "not_reported", "quotes"}
            assert isinstance(cell["not_reported"], bool)
            if cell["not_reported"]:
                assert cell["answer"] == "" and cell["quotes"] == []
            else:
                assert cell["answer"] and cell["quotes"]
            for quote in cell["quotes"]:
                assert set(quote) == {"text", "page"}
                assert isinstance(quote["page"], int) and quote["page"] >= 1


async def test_cli_table_json_and_csv(
    services: Runtime, workspace: tuple[uuid.UUID, str, list[uuid.UUID]]
) -> None:
    workspace_id, name, ids = workspace
    runner = CliRunner()
    # The CLI runs its own event loop: in a thread, as a terminal would run it beside us.
    result = await asyncio.to_thread(
        runner.invoke,
        cli(),
        ["table", "-w", name, "--column", COUNT, "--column", DATASET, "--json"],
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    check_rows(rows, ids, [COUNT, DATASET])
    assert any(not c["not_reported"] for r in rows for c in r["cells"])
    tables = await tables_usecase.list_tables(services, workspace_id)
    assert len(tables) == 1

    # The same columns again: the same table, every cell cached (no job), as CSV.
    result = await asyncio.to_thread(
        runner.invoke,
        cli(),
        ["table", "-w", str(workspace_id), "-c", COUNT, "-c", DATASET, "--csv"],
    )
    assert result.exit_code == 0, result.output
    lines = list(csv.reader(io.StringIO(result.stdout)))
    assert lines[0][2:5] == [COUNT, f"{COUNT} — quote", f"{COUNT} — page"] and len(lines) == 3
    assert len(await tables_usecase.list_tables(services, workspace_id)) == 1

    bad = await asyncio.to_thread(runner.invoke, cli(), ["table", "-w", name, "-c", "  "])
    assert bad.exit_code == 1 and "column 1: the column text is empty" in bad.output
    both = await asyncio.to_thread(
        runner.invoke, cli(), ["table", "-w", name, "-c", COUNT, "--csv", "--json"]
    )
    assert both.exit_code == 2
    assert len(await tables_usecase.list_tables(services, workspace_id)) == 1


async def test_mcp_extract_table(
    workspace: tuple[uuid.UUID, str, list[uuid.UUID]], subprocess_env: dict[str, str]
) -> None:
    workspace_id, name, ids = workspace
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "marginalia", "mcp"], env=subprocess_env
    )
    async with Client(params, read_timeout_seconds=240) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert "extract_table" in tools
        assert {"workspace", "columns"} <= set(tools["extract_table"].input_schema["properties"])
        result = await client.call_tool(
            "extract_table",
            {"workspace": name, "columns": [COUNT, "What method or approach is proposed or used?"]},
        )
        assert not result.is_error, result.content
        data = result.structured_content or json.loads(result.content[0].text)
        assert data["status"] == "succeeded" and data["workspace"]["id"] == str(workspace_id)
        check_rows(data["rows"], ids, [COUNT, "What method or approach is proposed or used?"])

        refused = await client.call_tool("extract_table", {"workspace": name, "columns": [""]})
        assert refused.is_error and "empty" in refused.content[0].text
        missing = await client.call_tool(
            "extract_table", {"workspace": name, "columns": [COUNT], "sources": [str(uuid.uuid4())]}
        )
        assert missing.is_error


# ------------------------------------------------------------------------------ model engine


async def test_model_cells_are_verified_like_every_quote(
    services: Runtime, workspace: tuple[uuid.UUID, str, list[uuid.UUID]]
) -> None:
    workspace_id, _name, ids = workspace
    source_id = ids[0]
    evidence = await source_evidence(
        services, workspace_id=workspace_id, source_id=source_id, question=COUNT
    )
    pages = await source_pages(services, source_id)
    shown = shown_passages(evidence)
    spans = [m.span() for m in re.finditer(r"\S+", shown[1].text)]
    real = shown[1].text[spans[5][0] : spans[16][1]]  # twelve words of passage [2], as written

    good = ScriptedLLM(
        {
            TableCellOutput: {
                "not_reported": False,
                "answer": "37M papers",
                "quotes": [{"passage": 2, "quote": real}],
            }
        }
    )
    cell = await fill_cell_with_model(good, evidence, profile_of(COUNT), pages, document="LG")
    assert good.call_types[0] == "table" and "[2]" in good.prompts[0]
    assert not cell.not_reported and cell.answer == "37M papers"
    assert normalize(cell.quotes[0].text) == normalize(real)
    assert cell.quotes[0].chunk_index == shown[1].chunk_index and cell.quotes[0].page
    assert cell.produced_by == "scripted:scripted-1"

    # A quote that is not in the passage it names (or names no passage): not reported.
    for quote in ({"passage": 1, "quote": real + " and more"}, {"passage": 99, "quote": real}):
        bad = ScriptedLLM(
            {TableCellOutput: {"not_reported": False, "answer": "37M papers", "quotes": [quote]}}
        )
        cell = await fill_cell_with_model(bad, evidence, profile_of(COUNT), pages, document="LG")
        assert cell.not_reported and not cell.quotes and cell.answer == ""
        assert cell.note and "verbatim" in cell.note and cell.searched

    said = ScriptedLLM({TableCellOutput: {"not_reported": True, "answer": "", "quotes": []}})
    cell = await fill_cell_with_model(said, evidence, profile_of(COUNT), pages, document="LG")
    assert cell.not_reported and cell.note == "the model found no answer in the passages searched"

    failing = ScriptedLLM(
        {TableCellOutput: LLMDeadlineError("the deadline of 30 s passed", budget_s=30)}
    )
    cell = await fill_cell_with_model(failing, evidence, profile_of(COUNT), pages, document="LG")
    assert cell.transient and cell.produced_by.startswith("extractive (")
    assert cell.note and "extractive answer instead" in cell.note
    assert cell.not_reported or all(
        normalize(q.text) in normalize("\n".join(p.text for p in pages)) for q in cell.quotes
    )
