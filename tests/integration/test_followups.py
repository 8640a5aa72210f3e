"""Follow-ups resolved against the conversation (issue 32 item 2), on two real PDFs, a
real database and the real ask routes: workspace chat and per-paper Q&A."""

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

from marginalia.answer import SIGNAL, Calibration, followup
from marginalia.answer.synthesis import SynthesisOutput
from marginalia.api.errors import install_error_handlers
from marginalia.api.routes import answers
from marginalia.ingest.pipeline import ingest_document
from marginalia.llm import ChatMessage
from marginalia.runtime import Runtime
from marginalia.usecases import ask as ask_usecase
from marginalia.usecases import workspaces as ws_service
from tests.support.scripted_llm import ScriptedLLM

FIRST = "What does SPECTER use as its training signal for document embeddings?"
FOLLOW_UP = "And how many triplets did they train on?"
STANDALONE = "Which trauma patients are at the highest risk of venous thromboembolism?"


@dataclass
class Corpus:
    workspace_id: uuid.UUID
    specter: uuid.UUID
    trauma: uuid.UUID


@pytest.fixture(scope="module")
async def corpus(
    services: Runtime, shared_data: Path, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Corpus]:
    ws = await ws_service.create_workspace(services, name=f"followups-{uuid.uuid4().hex[:6]}")
    ids = []
    for pdf in ("specter-acl2020.pdf", "trauma-bmc2010.pdf"):
        outcome = await ingest_document(
            services,
            ws.id,
            data=(shared_data / "pdfs" / pdf).read_bytes(),
            filename=pdf,
            content_type="application/pdf",
        )
        ids.append(outcome.source_id)
    cal = tmp_path_factory.mktemp("calibration") / "calibration.json"
    cal.write_text(
        json.dumps(
            {
                "threshold": 0.3,
                "signal": SIGNAL,
                "fitted_on": "test fixture",
                "method": "fixed for the test corpus",
                "created_at": "2025-01-01T00:00:00Z",
            }
        ),
        encoding="utf-8",
    )
    retrieval = services.settings.retrieval
    before = retrieval.calibration_path
    retrieval.calibration_path = cal
    try:
        yield Corpus(ws.id, ids[0], ids[1])
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


async def ask(api: httpx.AsyncClient, url: str, **body: Any) -> list[dict[str, Any]]:
    async with api.stream("POST", url, json=body) as response:
        assert response.status_code == 200, await response.aread()
        return [json.loads(line) async for line in response.aiter_lines() if line.strip()]


async def stored_answer(api: httpx.AsyncClient, cid: str, index: int) -> dict[str, Any]:
    conv = (await api.get(f"/api/conversations/{cid}")).json()
    answer: dict[str, Any] = conv["messages"][index]["answer"]
    return answer


async def test_a_follow_up_retrieves_with_the_resolved_question(
    corpus: Corpus, api: httpx.AsyncClient, services: Runtime
) -> None:
    url = f"/api/workspaces/{corpus.workspace_id}/ask"
    first = await ask(api, url, question=FIRST)
    cid = first[0]["conversation_id"]
    assert first[0]["resolved_question"] is None  # a first question is searched as asked
    first_answer = await stored_answer(api, cid, 1)
    first_papers = {
        s["source_id"]
        for s in (await api.get(f"/api/conversations/{cid}")).json()["messages"][1]["cited_sources"]
    }

    events = await ask(api, url, question=FOLLOW_UP, conversation_id=cid)
    meta, done = events[0], events[-1]
    assert meta["type"] == "meta" and done["type"] == "done"
    # the resolved text carries the previous subject; the trace (meta, done, stored) says so
    resolved = meta["resolved_question"]
    assert resolved is not None and resolved.startswith(FOLLOW_UP)
    assert "specter" in resolved.casefold() and "signal" in resolved
    assert done["answer"]["resolved_question"] == resolved
    follow = await stored_answer(api, cid, 3)
    assert follow["resolved_question"] == resolved and follow["question"] == FOLLOW_UP
    trace = follow["trace"]["followup"]
    assert trace["is_followup"] and trace["method"] == "offline" and "specter" in trace["terms"]
    # the previous answer's papers feed retrieval as a paper leg (cited, else best evidence)
    expected = first_papers or {
        p["source_id"]
        for p in first_answer["passages"]
        if p["n"] == first_answer["trace"]["evidence"]["top_sentences"][0]["n"]
    }
    assert set(trace["paper_ids"]) == expected == {str(corpus.specter)}
    leg = follow["trace"]["routing"]["history_leg"]
    assert leg["query"] == resolved and leg["papers"] == [str(corpus.specter)]
    assert leg["paper_hits"] and leg["paper_hits"][0]
    # the retrieved passages include the first turn's paper, first
    assert follow["passages"][0]["source_id"] == str(corpus.specter)
    specter_passages = [p for p in follow["passages"] if p["source_id"] == str(corpus.specter)]
    assert len(specter_passages) >= len(follow["passages"]) // 2

    # the same follow-up without the conversation is searched as written
    raw = await ask_usecase.answer(services, question=FOLLOW_UP, workspace_id=corpus.workspace_id)
    assert raw.resolved_question is None and raw.trace["followup"]["is_followup"] is False
    assert raw.trace["routing"]["history_leg"] is None


async def test_a_self_contained_question_is_not_rewritten(
    corpus: Corpus, api: httpx.AsyncClient
) -> None:
    url = f"/api/workspaces/{corpus.workspace_id}/ask"
    first = await ask(api, url, question=FIRST)
    cid = first[0]["conversation_id"]
    events = await ask(api, url, question=STANDALONE, conversation_id=cid)
    assert events[0]["resolved_question"] is None
    assert events[-1]["answer"]["resolved_question"] is None
    answer = await stored_answer(api, cid, 3)
    assert answer["query"] == STANDALONE and answer["resolved_question"] is None
    assert answer["trace"]["followup"] == {
        "is_followup": False,
        "why": "not a follow-up",
        "method": "none",
        "resolved_question": None,
        "terms": [],
        "paper_ids": [],
        "notes": [],
    }
    assert answer["trace"]["routing"]["history_leg"] is None
    # the SPECTER conversation does not pull SPECTER into a trauma question
    assert answer["passages"][0]["source_id"] == str(corpus.trauma)


async def test_per_paper_follow_up_is_resolved_inside_the_paper(
    corpus: Corpus, api: httpx.AsyncClient
) -> None:
    url = f"/api/sources/{corpus.specter}/ask"
    first = await ask(api, url, question="What is the training signal?")
    cid = first[0]["conversation_id"]
    events = await ask(api, url, question="And how many triplets?", conversation_id=cid)
    resolved = events[0]["resolved_question"]
    assert resolved is not None and resolved.startswith("And how many triplets?")
    assert "training" in resolved and "signal" in resolved
    answer = await stored_answer(api, cid, 3)
    # the paper leg is moot inside one paper: no extra search, only the paper's passages
    assert answer["trace"]["routing"]["history_leg"]["papers"] == []
    assert {p["source_id"] for p in answer["passages"]} == {str(corpus.specter)}


async def test_with_a_model_the_rewrite_is_what_retrieval_searches(
    corpus: Corpus, services: Runtime
) -> None:
    rewrite = "How many training triplets was SPECTER trained on?"
    provider = ScriptedLLM(
        {
            followup.StandaloneQuestion: {"question": rewrite, "followup": True},
            SynthesisOutput: {"claims": []},  # the answer is then refused; not looked at here
        }
    )
    history = [
        ChatMessage(role="user", content=FIRST),
        ChatMessage(role="assistant", content="Citations [1]."),
    ]
    answer = await ask_usecase.answer(
        services,
        question=FOLLOW_UP,
        workspace_id=corpus.workspace_id,
        history=history,
        provider=provider,
        calibration=Calibration(threshold=0.0, signal=SIGNAL),
        previous_turn=followup.PreviousTurn(FIRST, (corpus.specter,)),
    )
    assert provider.schemas[0] == "StandaloneQuestion"
    assert answer.resolved_question == rewrite and answer.question == FOLLOW_UP
    assert answer.trace["followup"]["method"] == "model"
    leg = answer.trace["routing"]["history_leg"]
    assert leg["query"] == rewrite and leg["papers"] == [str(corpus.specter)]
    assert answer.passages[0].source_id == corpus.specter


async def test_a_deleted_paper_of_the_previous_answer_is_searched_as_empty(
    corpus: Corpus, services: Runtime
) -> None:
    """The previous answer's paper was deleted since: its leg finds nothing, the rest
    of the follow-up's retrieval goes on."""
    gone = uuid.uuid4()
    answer = await ask_usecase.answer(
        services,
        question=FOLLOW_UP,
        workspace_id=corpus.workspace_id,
        history=[ChatMessage(role="user", content=FIRST)],
        score_only=True,
        previous_turn=followup.PreviousTurn(FIRST, (gone,)),
    )
    leg = answer.trace["routing"]["history_leg"]
    assert leg["papers"] == [str(gone)] and leg["paper_hits"] == [[]]
    assert answer.passages and answer.resolved_question is not None
    assert {p.source_id for p in answer.passages} <= {corpus.specter, corpus.trauma}
