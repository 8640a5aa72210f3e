"""Every citation of an answer carries where its quote stands (issue 16): the done
event's claims and the stored message name the page, the character range of the stored
page text and, for a PDF, rectangles whose characters read back as the quote."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from marginalia.answer import SIGNAL, normalize
from marginalia.api.errors import install_error_handlers
from marginalia.api.routes import answers
from marginalia.ingest.geometry import Rect, text_under
from marginalia.ingest.pipeline import ingest_document
from marginalia.runtime import Runtime
from marginalia.usecases import sources as sources_usecase
from marginalia.usecases import workspaces as ws_service

QUESTION = "How does SPECTER use the citation graph to learn document embeddings?"


@pytest.fixture(scope="module")
async def workspace(
    services: Runtime, shared_data: Path, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[tuple[uuid.UUID, uuid.UUID, bytes]]:
    ws = await ws_service.create_workspace(services, name=f"locations-{uuid.uuid4().hex[:6]}")
    data = (shared_data / "pdfs" / "specter-acl2020.pdf").read_bytes()
    outcome = await ingest_document(
        services, ws.id, data=data, filename="specter.pdf", content_type="application/pdf"
    )
    cal = tmp_path_factory.mktemp("calibration") / "calibration.json"
    cal.write_text(json.dumps({"threshold": 0.3, "signal": SIGNAL}), encoding="utf-8")
    retrieval = services.settings.retrieval
    before = retrieval.calibration_path
    retrieval.calibration_path = cal
    try:
        yield ws.id, outcome.source_id, data
    finally:
        retrieval.calibration_path = before
        await ws_service.delete_workspace(services, ws.id)


@pytest.fixture
async def api(services: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    app = FastAPI()
    install_error_handlers(app)
    app.include_router(answers.router)
    app.state.runtime = services
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http


def _squash(text: str) -> str:
    return re.sub(r"\s", "", normalize(text))


async def test_done_event_and_stored_message_carry_page_and_rects(
    services: Runtime, workspace: tuple[uuid.UUID, uuid.UUID, bytes], api: httpx.AsyncClient
) -> None:
    workspace_id, source_id, data = workspace
    async with api.stream(
        "POST", f"/api/workspaces/{workspace_id}/ask", json={"question": QUESTION}
    ) as response:
        assert response.status_code == 200
        events = [json.loads(line) async for line in response.aiter_lines() if line.strip()]
    done = events[-1]
    assert done["type"] == "done" and not done["answer"]["refused"]
    claims = done["answer"]["claims"]
    assert claims
    pages = {p.page_number: p.text for p in await sources_usecase.source_pages(services, source_id)}
    located = 0
    for claim in claims:
        for loc in claim["locations"]:
            assert loc["n"] in claim["citations"]
            assert loc["source_id"] == str(source_id)
            # The character range spells the quote in the stored page text …
            if loc["page"] == loc["page_end"]:
                stored = pages[loc["page"]][loc["char_start"] : loc["char_end"]]
            else:
                stored = pages[loc["page"]][loc["char_start"] :] + "\n"
                stored += pages[loc["page_end"]][: loc["char_end"]]
            assert normalize(stored) == normalize(claim["quote"])
            # … and the rectangles' characters, read back from PDFium, are the quote.
            rects = [Rect(**r) for r in loc["rects"]]
            assert rects and {r.page for r in rects} <= {loc["page"], loc["page_end"]}
            assert _squash(text_under(data, rects)) == _squash(claim["quote"])
            located += 1
    assert located >= 1

    conversation = (await api.get(f"/api/conversations/{done['conversation_id']}")).json()
    assistant = conversation["messages"][-1]
    assert assistant["answer"]["claims"][0]["locations"] == claims[0]["locations"]
    stored: list[dict[str, Any]] = assistant["cited_sources"]
    assert any(entry["locations"] and entry["locations"][0]["rects"] for entry in stored)
