"""OpenAICompatibleProvider against a local server that speaks chat completions."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator, Iterator

import pytest
from pydantic import BaseModel

from marginalia.config import LLMSettings
from marginalia.llm.base import ChatMessage
from marginalia.llm.errors import LLMRequestError, LLMResponseError, LLMUnavailableError
from marginalia.llm.openai_provider import OpenAICompatibleProvider, parse_json_content
from marginalia.llm.retry import RetryPolicy
from marginalia.llm.schema import DEFAULT_MAX_ITEMS, DEFAULT_MAX_LENGTH, bounded_json_schema
from tests.support.llm_servers import (
    Reply,
    ScriptedServer,
    openai_completion,
    openai_error,
    openai_stream,
    openai_usage,
)

SYSTEM = "You decompose research topics into search queries."
MAX_RETRIES = 2


class Decomposition(BaseModel):
    intent: str
    queries: list[str]


GOOD = {"intent": "survey", "queries": ["efficient attention", "long documents"]}


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


@pytest.fixture
def sleeps() -> list[float]:
    return []


def make_provider(base_url: str, sleeps: list[float]) -> OpenAICompatibleProvider:
    async def fake_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    return OpenAICompatibleProvider(
        base_url=base_url,
        model="llama3.1",
        api_key="sk-local",
        timeout_s=5,
        retry_policy=RetryPolicy(max_retries=MAX_RETRIES, base_delay_s=0.001),
        sleep=fake_sleep,
    )


@pytest.fixture
async def provider(
    server: ScriptedServer, sleeps: list[float]
) -> AsyncIterator[OpenAICompatibleProvider]:
    p = make_provider(server.url + "/v1", sleeps)
    yield p
    await p.aclose()


async def decompose(provider: OpenAICompatibleProvider) -> Decomposition:
    return await provider.structured(
        task="extraction", system=SYSTEM, prompt="efficient attention", schema=Decomposition
    )


async def test_structured_asks_for_a_strict_json_schema(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    server.enqueue(openai_completion(json.dumps(GOOD), usage=openai_usage(70, 12, cached=20)))
    result = await decompose(provider)

    assert result == Decomposition.model_validate(GOOD)
    [request] = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-local"
    body = request.json
    assert body["model"] == "llama3.1"
    assert body["messages"] == [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "efficient attention"},
    ]
    # Every array and string of the schema sent out is bounded, and max_tokens is the
    # setting for the call type: nothing lets a small model loop to its context limit.
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {
            "name": "record_Decomposition",
            "schema": bounded_json_schema(Decomposition),
            "strict": True,
        },
    }
    sent = body["response_format"]["json_schema"]["schema"]["properties"]
    assert sent["queries"]["maxItems"] == DEFAULT_MAX_ITEMS
    assert sent["queries"]["items"]["maxLength"] == DEFAULT_MAX_LENGTH
    assert sent["intent"]["maxLength"] == DEFAULT_MAX_LENGTH
    assert body["max_tokens"] == LLMSettings().max_tokens.extraction
    [call] = provider.usage.calls
    assert (call.provider, call.model, call.task, call.ok) == (
        "openai",
        "llama3.1",
        "extraction",
        True,
    )
    assert (call.input_tokens, call.cache_read_tokens, call.output_tokens) == (50, 20, 12)
    assert call.cost_usd is None  # a local model has no list price


async def test_fenced_json_is_accepted(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    server.enqueue(openai_completion("```json\n" + json.dumps(GOOD) + "\n```"))
    assert (await decompose(provider)).intent == "survey"


async def test_falls_back_to_json_mode_and_remembers(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    server.enqueue(
        openai_error(400, "response_format type 'json_schema' is not supported"),
        openai_completion(json.dumps(GOOD)),
        openai_completion(json.dumps(GOOD)),
    )
    await decompose(provider)
    await decompose(provider)

    first, second, third = (r.json for r in server.requests)
    assert first["response_format"]["type"] == "json_schema"
    assert second["response_format"] == {"type": "json_object"}
    # In JSON mode the schema travels in the system message instead.
    assert (
        json.dumps(bounded_json_schema(Decomposition), separators=(",", ":"))
        in (second["messages"][0]["content"])
    )
    assert third["response_format"] == {"type": "json_object"}
    assert provider.response_mode == "json_object"
    assert provider.usage.totals().retries == 0


async def test_other_400s_are_refused_without_fallback(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    server.enqueue(openai_error(400, "model 'llama3.1' not found"))
    with pytest.raises(LLMRequestError, match="not found"):
        await decompose(provider)
    assert len(server.requests) == 1
    assert provider.response_mode == "json_schema"


async def test_429_with_retry_after_then_success(
    server: ScriptedServer, provider: OpenAICompatibleProvider, sleeps: list[float]
) -> None:
    server.enqueue(
        openai_error(429, "rate limited", headers={"retry-after": "0"}),
        openai_completion(json.dumps(GOOD)),
    )
    await decompose(provider)
    assert len(server.requests) == 2
    assert sleeps == [0.0]
    assert provider.usage.calls[0].retries == 1


async def test_5xx_until_retries_are_exhausted(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    server.enqueue(*[openai_error(503, "loading model")] * (MAX_RETRIES + 1))
    with pytest.raises(LLMUnavailableError, match="gave up after 2 retries") as info:
        await decompose(provider)
    assert info.value.retries == MAX_RETRIES
    assert len(server.requests) == MAX_RETRIES + 1
    [call] = provider.usage.calls
    assert not call.ok and call.error == "unavailable"


async def test_unreachable_server_is_unavailable(sleeps: list[float]) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    provider = make_provider(f"http://127.0.0.1:{port}/v1", sleeps)
    try:
        with pytest.raises(LLMUnavailableError, match="connection error"):
            await decompose(provider)
    finally:
        await provider.aclose()
    assert len(sleeps) == MAX_RETRIES


async def test_malformed_json_twice_is_a_clear_error(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    server.enqueue(*[openai_completion('{"intent": "survey", "queries": ["a", ')] * 2)
    with pytest.raises(LLMResponseError, match="not valid JSON") as info:
        await decompose(provider)
    assert "llama3.1" in str(info.value) and "after one repair attempt" in str(info.value)
    assert len(server.requests) == 2  # the reply, and one repair: no more
    [call] = provider.usage.calls
    assert not call.ok and call.error == "response" and call.output_tokens == 20
    assert call.attempts == 2
    assert provider.response_mode == "json_schema"  # JSON-looking output is no refusal


async def test_json_failing_the_schema_is_a_clear_error(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    server.enqueue(
        *[openai_completion(json.dumps({"intent": "survey"}), finish_reason="length")] * 2
    )
    with pytest.raises(LLMResponseError) as info:
        await decompose(provider)
    message = str(info.value)
    assert "Decomposition" in message and "queries" in message and "max_tokens" in message


async def test_empty_content_is_a_clear_error(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    server.enqueue(openai_completion(None), openai_completion(""))
    with pytest.raises(LLMResponseError, match="no message content"):
        await decompose(provider)


async def test_stream_text_yields_deltas_and_records_usage(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    server.enqueue(openai_stream(["Efficient ", "attention ", "helps."], usage=openai_usage(30, 5)))
    history = [ChatMessage(role="user", content="Why?")]
    parts = [
        t async for t in provider.stream_text(task="synthesis", system=SYSTEM, messages=history)
    ]

    assert "".join(parts) == "Efficient attention helps."
    body = server.requests[0].json
    assert body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["messages"] == [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": "Why?"},
    ]
    [call] = provider.usage.calls
    assert (call.task, call.input_tokens, call.output_tokens, call.ok) == ("synthesis", 30, 5, True)


async def test_stream_retries_before_the_first_delta(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    server.enqueue(
        openai_error(500, "oops"),
        Reply(disconnect=True),
        openai_stream(["ok"]),
    )
    parts = [
        t
        async for t in provider.stream_text(
            task="synthesis", system=SYSTEM, messages=[ChatMessage(role="user", content="hi")]
        )
    ]
    assert parts == ["ok"]
    assert len(server.requests) == 3
    assert provider.usage.calls[0].retries == 2


async def test_stream_error_after_text_raises_unavailable(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    server.enqueue(openai_stream(["Partial ", "answer"], error_after=1))
    parts: list[str] = []
    with pytest.raises(LLMUnavailableError, match="stream broke off"):
        async for t in provider.stream_text(
            task="synthesis", system=SYSTEM, messages=[ChatMessage(role="user", content="hi")]
        ):
            parts.append(t)
    assert parts == ["Partial "]
    assert len(server.requests) == 1
    [call] = provider.usage.calls
    assert not call.ok


async def test_stream_stopped_early_still_records_usage(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    server.enqueue(openai_stream(["a", "b", "c"]))
    stream = provider.stream_text(
        task="synthesis", system=SYSTEM, messages=[ChatMessage(role="user", content="hi")]
    )
    async for _ in stream:
        break
    await stream.aclose()  # type: ignore[attr-defined]
    [call] = provider.usage.calls
    assert call.ok


@pytest.mark.parametrize(
    "content",
    [
        '{"a": 1}',
        '  ```json\n{"a": 1}\n```  ',
        '```\n{"a": 1}\n```',
        'Here you go: {"a": 1} — hope it helps',
    ],
)
def test_parse_json_content(content: str) -> None:
    assert parse_json_content(content) == {"a": 1}


def test_parse_json_content_rejects_garbage() -> None:
    with pytest.raises(json.JSONDecodeError):
        parse_json_content("no json here")


async def test_stream_cut_off_without_done(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    server.enqueue(
        openai_stream(["lost"], truncate_after=0),  # nothing sent: retried
        openai_stream(["Half ", "a sentence"], truncate_after=1),
    )
    parts: list[str] = []
    with pytest.raises(LLMUnavailableError, match=r"before data: \[DONE\]"):
        async for t in provider.stream_text(
            task="synthesis", system=SYSTEM, messages=[ChatMessage(role="user", content="hi")]
        ):
            parts.append(t)
    assert parts == ["Half "]
    assert len(server.requests) == 2
    [call] = provider.usage.calls
    assert not call.ok and call.retries == 1
