"""Issue 32: every answer shows its best evidence first and says one of three outcomes
(answered, closest evidence, nothing relevant), on two of the shared PDFs (S2ORC and
SPECTER) with the shipped calibration (eval/calibration.json, invariant 4)."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from marginalia.answer import SIGNAL, Calibration
from marginalia.answer.calibration import DEFAULT_PATH
from marginalia.answer.outcomes import EVIDENCE_K
from marginalia.answer.service import answer_from_context, retrieve
from marginalia.api.errors import install_error_handlers
from marginalia.api.routes import answers
from marginalia.ingest.pipeline import ingest_document
from marginalia.knowledge.canvas_graph import graph_view
from marginalia.runtime import Runtime
from marginalia.usecases import ask as ask_usecase
from marginalia.usecases import workspaces as ws_service
from tests.support.scripted_llm import scripted_synthesis

S2ORC_Q = "How many papers are in S2ORC, and for how many of them do we get the full text?"
# Questions whose answer is in the two papers (gold from eval/qa, paraphrased).
ANSWERABLE = (
    S2ORC_Q,
    "What does SPECTER use as a signal of document relatedness during training?",
    "Which model is SPECTER initialized from?",
    "How many papers does the S2ORC corpus contain?",
)


@dataclass
class Two:
    workspace_id: uuid.UUID
    s2orc: uuid.UUID
    specter: uuid.UUID


@pytest.fixture(scope="module")
async def two(services: Runtime, shared_data: Path) -> AsyncIterator[Two]:
    ws = await ws_service.create_workspace(services, name=f"outcomes-{uuid.uuid4().hex[:6]}")
    ids = []
    for pdf in ("s2orc-acl2020.pdf", "specter-acl2020.pdf"):
        done = await ingest_document(
            services,
            ws.id,
            data=(shared_data / "pdfs" / pdf).read_bytes(),
            filename=pdf,
            content_type="application/pdf",
        )
        ids.append(done.source_id)
    try:
        yield Two(ws.id, ids[0], ids[1])
    finally:
        await ws_service.delete_workspace(services, ws.id)


def shipped() -> Calibration:
    data = json.loads(DEFAULT_PATH.read_text(encoding="utf-8"))
    return Calibration(threshold=float(data["threshold"]), signal=SIGNAL)


@pytest.fixture
async def api(services: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    app = FastAPI()
    install_error_handlers(app)
    app.include_router(answers.router)
    app.state.runtime = services
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http


async def stream(api: httpx.AsyncClient, url: str, **body: Any) -> list[dict[str, Any]]:
    async with api.stream("POST", url, json=body) as response:
        assert response.status_code == 200, await response.aread()
        return [json.loads(line) async for line in response.aiter_lines() if line.strip()]


async def test_s2orc_counts_are_in_the_top_evidence(services: Runtime, two: Two) -> None:
    answer = await ask_usecase.answer(
        services, workspace_id=two.workspace_id, question=S2ORC_Q, calibration=shipped()
    )
    assert answer.outcome != "nothing"
    assert 0 < len(answer.evidence) <= EVIDENCE_K
    top = [e.text for e in answer.evidence[:3]]
    assert any("81.1M" in t and "8.1M" in t for t in top), top
    # best first, each sentence exactly where its offsets say in its passage, with its paper
    passages = {p.n: p for p in answer.passages}
    for e in answer.evidence:
        assert passages[e.n].text[e.start : e.end] == e.text == e.passage[e.start : e.end]
        assert e.source_id == two.s2orc and e.document and e.page is not None
        assert e.location is not None and e.location.rects  # the reader can mark it
    assert answer.refused == (answer.outcome != "answered")


async def test_an_answer_in_the_passages_is_never_nothing(services: Runtime, two: Two) -> None:
    for question in ANSWERABLE:
        answer = await ask_usecase.answer(
            services, workspace_id=two.workspace_id, question=question, calibration=shipped()
        )
        assert answer.outcome in ("answered", "closest"), (question, answer.reason)
        assert answer.evidence, question
    off = await ask_usecase.answer(
        services,
        workspace_id=two.workspace_id,
        question="What is the half-life of caffeine in healthy adults?",
        calibration=shipped(),
    )
    assert off.outcome == "nothing" and off.refused and off.claims == []
    assert off.reason and off.reason.startswith("nothing relevant")
    assert off.refusal and "I found no evidence in your sources" in off.refusal


async def test_closest_stores_no_claim_and_adds_no_canvas_node(
    services: Runtime, two: Two, api: httpx.AsyncClient, tmp_path: Path
) -> None:
    retrieval = services.settings.retrieval
    before = retrieval.calibration_path
    high = tmp_path / "high.json"  # above every support: the evidence cannot be confirmed
    high.write_text(json.dumps({"threshold": 0.99, "signal": SIGNAL}), encoding="utf-8")
    retrieval.calibration_path = high
    try:
        events = await stream(api, f"/api/workspaces/{two.workspace_id}/ask", question=S2ORC_Q)
    finally:
        retrieval.calibration_path = before
    done = events[-1]
    assert done["type"] == "done", events[-1]
    summary = done["answer"]
    assert summary["outcome"] == "closest" and summary["refused"]
    assert summary["claims"] == [] and summary["cited"] == []
    assert summary["reason"].startswith("not confirmed as an answer: the evidence scored")
    assert summary["refusal"].startswith("Closest evidence — not confirmed as an answer")
    assert any("81.1M" in e["text"] for e in summary["evidence"])
    streamed = "".join(e["text"] for e in events if e["type"] == "token")
    assert streamed == summary["refusal"]

    conv = (await api.get(f"/api/conversations/{done['conversation_id']}")).json()
    stored = conv["messages"][1]
    assert stored["cited_sources"] == []
    assert stored["answer"]["outcome"] == "closest" and stored["answer"]["claims"] == []
    assert [e["text"] for e in stored["answer"]["evidence"]] == [
        e["text"] for e in summary["evidence"]
    ]
    graph = await graph_view(services, two.workspace_id)
    assert f"synthesis:{done['message_id']}" not in {n.id for n in graph.nodes}


async def test_a_how_many_question_whose_sentence_states_no_number_is_closest(
    services: Runtime, two: Two
) -> None:
    question = "How many papers does the S2ORC corpus contain?"
    context = await retrieve(services, workspace_id=two.workspace_id, question=question)
    # A model that answers with a sentence holding no number (a wrong passage).
    wordy = next(
        (p, s)
        for p in context.passages
        for s in p.text.split(". ")
        if len(s.split()) > 8 and not any(c.isdigit() for c in s) and "S2ORC" in p.text
    )
    passage, sentence = wordy
    provider = scripted_synthesis(
        [{"text": "The corpus is large.", "citations": [passage.n], "quote": sentence}]
    )
    low = Calibration(threshold=0.0, signal=SIGNAL)
    answer = await answer_from_context(
        services, context, question=question, calibration=low, provider=provider
    )
    assert answer.outcome == "closest" and answer.claims == [] and answer.refused
    assert answer.reason == (
        "not confirmed as an answer: the question asks for a number and the best sentence "
        "states none"
    )
    assert answer.evidence  # the evidence is still shown
    # the model judged over the best evidence: its prompt listed the evidence sentences
    assert "Best evidence" in provider.prompts[0]
    assert answer.evidence[0].text.split()[0] in provider.prompts[0]

    # the same claim quoting the sentence with the figure is answered
    figure = next(e for e in answer.evidence if "81.1M" in e.text)
    provider = scripted_synthesis(
        [{"text": "81.1M papers.", "citations": [figure.n], "quote": figure.text}]
    )
    ok = await answer_from_context(
        services, context, question=question, calibration=low, provider=provider
    )
    assert ok.outcome == "answered" and ok.claims and not ok.refused and ok.reason is None


async def test_a_named_entity_absent_from_the_answering_paper_is_closest(
    services: Runtime, two: Two
) -> None:
    # No answer type asked: only the named things decide. SciBERT is in the papers,
    # ZORBLAX in none of them.
    question = "Why do the authors start from SciBERT rather than ZORBLAX?"
    context = await retrieve(services, workspace_id=two.workspace_id, question=question)
    p = next(p for p in context.passages if "SciBERT" in p.text)
    provider = scripted_synthesis(
        [{"text": "It is SciBERT.", "citations": [p.n], "quote": " ".join(p.text.split()[:12])}]
    )
    answer = await answer_from_context(
        services,
        context,
        question=question,
        calibration=Calibration(threshold=0.0, signal=SIGNAL),
        provider=provider,
    )
    assert answer.outcome == "closest" and answer.claims == []
    assert answer.reason == (
        "not confirmed as an answer: the best sentence's paper does not mention zorblax"
    )
