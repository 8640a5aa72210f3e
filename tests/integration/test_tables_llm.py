"""An evidence-table cell through a REAL llama.cpp server (xllamacpp serving
SmolLM2-135M-Instruct, as tests/integration/test_llm_local_server.py does): the cell's
call goes out as call type ``table`` with its own ``max_tokens``, the reply is the bounded
schema, and whatever the small model writes, a shown quote is verbatim in the passage it
names — or the cell is "not reported" with a note, or (a failed call) the extractive
cell. The model's answers are not judged."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from marginalia.answer.quotes import normalize
from marginalia.config import LLMSettings
from marginalia.ingest.pipeline import ingest_document
from marginalia.llm.openai_provider import OpenAICompatibleProvider
from marginalia.runtime import Runtime
from marginalia.tables.columns import profile_of
from marginalia.tables.evidence import source_evidence
from marginalia.tables.fill import source_pages
from marginalia.tables.llm_engine import fill_cell_with_model, shown_passages
from marginalia.usecases import workspaces as ws_usecase
from tests.support.llama_server import (
    MODEL_ALIAS,
    RunningServer,
    ServerOptions,
    llama_server,
    unavailable_reason,
)

pytestmark = pytest.mark.slow

QUESTION = "How many samples, participants or documents are studied?"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    reason = unavailable_reason()
    if reason is not None:
        pytest.skip(f"real llama.cpp server unavailable: {reason}")
    log = tmp_path_factory.mktemp("llama") / "llama-server.log"
    with llama_server(log, ServerOptions(threads=1, ctx=4096, n_predict=512)) as running:
        yield running


@pytest.fixture(scope="module")
async def source(
    services: Runtime, shared_data: Path
) -> AsyncIterator[tuple[uuid.UUID, uuid.UUID]]:
    ws = await ws_usecase.create_workspace(services, name=f"tables-llm-{uuid.uuid4().hex[:6]}")
    pdf = "trauma-bmc2010.pdf"
    outcome = await ingest_document(
        services, ws.id, data=(shared_data / "pdfs" / pdf).read_bytes(), filename=pdf
    )
    yield ws.id, outcome.source_id
    await ws_usecase.delete_workspace(services, ws.id)


async def test_a_cell_through_the_real_server(
    services: Runtime, server: RunningServer, source: tuple[uuid.UUID, uuid.UUID]
) -> None:
    workspace_id, source_id = source
    deadline_s = 60.0
    provider = OpenAICompatibleProvider.from_settings(
        LLMSettings.model_validate(
            {
                "provider": "openai",
                "openai_base_url": server.openai_base_url,
                "openai_model": MODEL_ALIAS,
                "table_deadline_s": deadline_s,
            }
        )
    )
    evidence = await source_evidence(
        services, workspace_id=workspace_id, source_id=source_id, question=QUESTION
    )
    pages = await source_pages(services, source_id)
    started = time.monotonic()
    try:
        cell = await fill_cell_with_model(
            provider, evidence, profile_of(QUESTION), pages, document="trauma review"
        )
    finally:
        await provider.aclose()
    elapsed = time.monotonic() - started

    [call] = provider.usage.calls
    assert call.call == "table" and call.attempts <= 2
    assert call.output_tokens <= 2 * LLMSettings().max_tokens.table
    assert elapsed < deadline_s + 5, elapsed
    shown = {p.chunk_index: p.text for p in shown_passages(evidence)}
    if cell.transient:  # the documented fallback: the extractive cell, the reason noted
        assert cell.produced_by.startswith("extractive (") and cell.note
    elif cell.not_reported:
        assert not cell.quotes and cell.note and cell.searched
        assert cell.produced_by == f"openai:{MODEL_ALIAS}"
    else:
        assert cell.answer and cell.quotes and cell.produced_by == f"openai:{MODEL_ALIAS}"
        for quote in cell.quotes:  # invariant 3, whatever the model wrote
            assert normalize(quote.text) in normalize(shown[quote.chunk_index])
