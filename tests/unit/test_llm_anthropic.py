"""AnthropicProvider against a local server that speaks the Messages API."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator

import pytest
from pydantic import BaseModel, Field

from marginalia.config import LLMSettings
from marginalia.llm.anthropic_provider import AnthropicProvider
from marginalia.llm.base import ChatMessage
from marginalia.llm.errors import (
    LLMDeadlineError,
    LLMRequestError,
    LLMResponseError,
    LLMUnavailableError,
)
from marginalia.llm.limits import CallLimits
from marginalia.llm.retry import RetryPolicy
from marginalia.llm.schema import bounded_json_schema
from tests.support.llm_servers import (
    Reply,
    ScriptedServer,
    anthropic_error,
    anthropic_message,
    anthropic_text_stream,
    anthropic_tool_use,
    anthropic_usage,
)

SYSTEM = "You extract structured facts from research papers. Quote exactly."
MAX_RETRIES = 3


class Claim(BaseModel):
    text: str
    quote: str


class PaperFacts(BaseModel):
    """Facts extracted from one paper."""

    tldr: str
    claims: list[Claim] = Field(min_length=1)


GOOD = {"tldr": "Sparse attention scales.", "claims": [{"text": "It is fast", "quote": "fast"}]}


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
async def provider(server: ScriptedServer, sleeps: list[float]) -> AsyncIterator[AnthropicProvider]:
    async def fake_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    p = AnthropicProvider(
        api_key="sk-ant-test",
        base_url=server.url,
        extraction_model="claude-haiku-4-5",
        synthesis_model="claude-sonnet-4-6",
        timeout_s=5,
        retry_policy=RetryPolicy(max_retries=MAX_RETRIES, base_delay_s=0.001),
        sleep=fake_sleep,
    )
    yield p
    await p.aclose()


async def extract(provider: AnthropicProvider) -> PaperFacts:
    return await provider.structured(
        task="extraction", system=SYSTEM, prompt="Paper text ...", schema=PaperFacts
    )


async def test_structured_sends_cached_system_and_forced_tool(
    server: ScriptedServer, provider: AnthropicProvider
) -> None:
    server.enqueue(
        anthropic_tool_use(
            "record_PaperFacts",
            GOOD,
            usage=anthropic_usage(input_tokens=40, output_tokens=30, cache_read=2000),
        )
    )
    facts = await extract(provider)

    assert facts == PaperFacts.model_validate(GOOD)
    [request] = server.requests
    assert request.path == "/v1/messages"
    # Older SDKs send x-api-key, newer ones a bearer token: either carries the key.
    auth = request.headers.get("x-api-key") or request.headers.get("authorization", "")
    assert auth.endswith("sk-ant-test")
    assert "anthropic-version" in request.headers
    body = request.json
    assert body["model"] == "claude-haiku-4-5"
    assert body["system"] == [
        {"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}
    ]
    assert body["messages"] == [{"role": "user", "content": "Paper text ..."}]
    [tool] = body["tools"]
    assert tool["name"] == "record_PaperFacts"
    assert tool["input_schema"] == bounded_json_schema(PaperFacts)
    assert tool["description"] == "Facts extracted from one paper."
    assert body["tool_choice"] == {"type": "tool", "name": "record_PaperFacts"}
    assert body["max_tokens"] == LLMSettings().max_tokens.extraction
    assert "stream" not in body or body["stream"] is False

    [call] = provider.usage.calls
    assert (call.provider, call.model, call.task) == ("anthropic", "claude-haiku-4-5", "extraction")
    assert (call.input_tokens, call.output_tokens, call.cache_read_tokens) == (40, 30, 2000)
    assert call.ok and call.retries == 0
    # Haiku 4.5 list price: $1/M in, $5/M out, cache reads at a tenth of input.
    assert call.cost_usd == pytest.approx((40 * 1 + 30 * 5 + 2000 * 0.1) / 1e6)


async def test_synthesis_uses_the_synthesis_model(
    server: ScriptedServer, provider: AnthropicProvider
) -> None:
    server.enqueue(anthropic_tool_use("record_PaperFacts", GOOD, model="claude-sonnet-4-6"))
    await provider.structured(task="synthesis", system=SYSTEM, prompt="q", schema=PaperFacts)
    assert server.requests[0].json["model"] == "claude-sonnet-4-6"
    assert provider.usage.calls[0].model == "claude-sonnet-4-6"


async def test_429_with_retry_after_then_success(
    server: ScriptedServer, provider: AnthropicProvider, sleeps: list[float]
) -> None:
    server.enqueue(
        anthropic_error(429, "rate_limit_error", "slow down", headers={"retry-after": "0"}),
        anthropic_tool_use("record_PaperFacts", GOOD),
    )
    facts = await extract(provider)

    assert facts.tldr == GOOD["tldr"]
    assert len(server.requests) == 2
    assert sleeps == [0.0]  # retry-after honoured instead of the backoff
    assert provider.usage.calls[0].retries == 1
    assert provider.usage.totals().retries == 1


async def test_overloaded_and_dropped_connection_are_retried(
    server: ScriptedServer, provider: AnthropicProvider, sleeps: list[float]
) -> None:
    server.enqueue(
        anthropic_error(529, "overloaded_error", "Overloaded"),
        Reply(disconnect=True),
        anthropic_tool_use("record_PaperFacts", GOOD),
    )
    await extract(provider)
    assert len(server.requests) == 3
    assert len(sleeps) == 2
    assert 0.0005 <= sleeps[0] <= 0.001 and 0.001 <= sleeps[1] <= 0.002  # jittered backoff
    assert provider.usage.calls[0].retries == 2


async def test_5xx_until_retries_are_exhausted(
    server: ScriptedServer, provider: AnthropicProvider
) -> None:
    server.enqueue(*[anthropic_error(500, "api_error", "boom")] * (MAX_RETRIES + 1))
    with pytest.raises(LLMUnavailableError, match="gave up after 3 retries") as info:
        await extract(provider)
    assert info.value.retries == MAX_RETRIES
    assert len(server.requests) == MAX_RETRIES + 1
    [call] = provider.usage.calls
    assert not call.ok and call.error == "unavailable" and call.retries == MAX_RETRIES


async def test_tool_input_failing_the_schema_is_a_clear_error(
    server: ScriptedServer, provider: AnthropicProvider
) -> None:
    server.enqueue(*[anthropic_tool_use("record_PaperFacts", {"tldr": 3, "claims": []})] * 2)
    with pytest.raises(LLMResponseError) as info:
        await extract(provider)
    message = str(info.value)
    assert "claude-haiku-4-5" in message
    assert "PaperFacts" in message
    assert "tldr" in message and "claims" in message
    assert "after one repair attempt" in message
    # A bad answer is asked for once more, with the problem in the prompt; no more.
    assert len(server.requests) == 2
    repair = server.requests[1].json["messages"][0]["content"]
    assert repair.startswith("Paper text ...") and "could not be used" in repair
    [call] = provider.usage.calls
    assert not call.ok and call.error == "response" and call.input_tokens == 200


async def test_tool_input_repaired_on_the_second_attempt(
    server: ScriptedServer, provider: AnthropicProvider
) -> None:
    server.enqueue(
        anthropic_tool_use("record_PaperFacts", {"tldr": 3, "claims": []}),
        anthropic_tool_use("record_PaperFacts", GOOD),
    )
    assert (await extract(provider)).tldr == GOOD["tldr"]
    [call] = provider.usage.calls
    assert call.ok and call.attempts == 2 and call.retries == 0


async def test_reply_without_tool_use_is_a_clear_error(
    server: ScriptedServer, provider: AnthropicProvider
) -> None:
    server.enqueue(*[anthropic_message([{"type": "text", "text": "I cannot."}])] * 2)
    with pytest.raises(LLMResponseError, match="expected a call of tool 'record_PaperFacts'"):
        await extract(provider)


async def test_truncated_tool_input_names_max_tokens(
    server: ScriptedServer, provider: AnthropicProvider
) -> None:
    server.enqueue(
        *[anthropic_tool_use("record_PaperFacts", {"tldr": "x"}, stop_reason="max_tokens")] * 2
    )
    with pytest.raises(LLMResponseError, match="max_tokens"):
        await extract(provider)


async def test_body_that_is_not_json_is_a_clear_error(
    server: ScriptedServer, provider: AnthropicProvider
) -> None:
    server.enqueue(Reply(body='{"id": "msg_1", "content": [', headers={}))
    with pytest.raises(LLMResponseError):
        await extract(provider)
    assert len(server.requests) == 1


async def test_bad_request_is_not_retried(
    server: ScriptedServer, provider: AnthropicProvider
) -> None:
    server.enqueue(anthropic_error(400, "invalid_request_error", "max_tokens: too large"))
    with pytest.raises(LLMRequestError, match="too large") as info:
        await extract(provider)
    assert info.value.status_code == 400
    assert len(server.requests) == 1


async def test_stream_text_yields_deltas_and_records_usage(
    server: ScriptedServer, provider: AnthropicProvider
) -> None:
    server.enqueue(
        anthropic_text_stream(
            ["Sparse ", "attention ", "scales."],
            usage=anthropic_usage(input_tokens=12, output_tokens=9, cache_creation=1500),
        )
    )
    history = [
        ChatMessage(role="user", content="What scales?"),
        ChatMessage(role="assistant", content="Which kind?"),
        ChatMessage(role="user", content="Attention."),
    ]
    parts = [
        t async for t in provider.stream_text(task="synthesis", system=SYSTEM, messages=history)
    ]

    assert parts == ["Sparse ", "attention ", "scales."]
    body = server.requests[0].json
    assert body["stream"] is True
    assert body["model"] == "claude-sonnet-4-6"
    assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"] == [m.model_dump() for m in history]
    [call] = provider.usage.calls
    assert (call.task, call.input_tokens, call.output_tokens) == ("synthesis", 12, 9)
    assert call.cache_creation_tokens == 1500 and call.ok
    assert call.cost_usd == pytest.approx((12 * 3 + 9 * 15 + 1500 * 3.75) / 1e6)


async def test_stream_retries_before_the_first_delta(
    server: ScriptedServer, provider: AnthropicProvider
) -> None:
    server.enqueue(
        anthropic_error(429, "rate_limit_error", "slow down", headers={"retry-after": "0"}),
        anthropic_text_stream(["never ", "seen"], error_after=0),
        anthropic_text_stream(["Hello", "!"]),
    )
    parts = [
        t
        async for t in provider.stream_text(
            task="synthesis", system=SYSTEM, messages=[ChatMessage(role="user", content="hi")]
        )
    ]
    assert "".join(parts) == "Hello!"
    assert len(server.requests) == 3
    # One logical call, one record: the broken attempt's tokens are added in.
    [call] = provider.usage.calls
    assert call.ok and call.retries == 2
    assert call.input_tokens == 200


async def test_stream_broken_after_text_raises_unavailable(
    server: ScriptedServer, provider: AnthropicProvider
) -> None:
    server.enqueue(anthropic_text_stream(["Partial ", "answer"], error_after=1))
    parts: list[str] = []
    with pytest.raises(LLMUnavailableError, match="stream broke off"):
        async for t in provider.stream_text(
            task="synthesis", system=SYSTEM, messages=[ChatMessage(role="user", content="hi")]
        ):
            parts.append(t)
    assert parts == ["Partial "]
    assert len(server.requests) == 1  # text went out: no silent retry
    assert provider.usage.totals().failed_calls == 1


async def test_stream_stopped_early_still_records_usage(
    server: ScriptedServer, provider: AnthropicProvider
) -> None:
    server.enqueue(anthropic_text_stream(["a", "b", "c"]))
    stream = provider.stream_text(
        task="synthesis", system=SYSTEM, messages=[ChatMessage(role="user", content="hi")]
    )
    async for _ in stream:
        break
    await stream.aclose()  # type: ignore[attr-defined]
    [call] = provider.usage.calls
    assert call.ok and call.input_tokens == 100


async def test_stream_cut_off_without_message_stop(
    server: ScriptedServer, provider: AnthropicProvider
) -> None:
    server.enqueue(
        anthropic_text_stream(["lost"], truncate_after=0),  # nothing sent: retried
        anthropic_text_stream(["Half ", "a sentence"], truncate_after=1),
    )
    parts: list[str] = []
    with pytest.raises(LLMUnavailableError, match="before message_stop"):
        async for t in provider.stream_text(
            task="synthesis", system=SYSTEM, messages=[ChatMessage(role="user", content="hi")]
        ):
            parts.append(t)
    assert parts == ["Half "]
    assert len(server.requests) == 2
    [call] = provider.usage.calls
    assert not call.ok and call.retries == 1


def deadline_provider(server: ScriptedServer, deadline_s: float) -> AnthropicProvider:
    settings = LLMSettings(
        answer_deadline_s=deadline_s, extraction_deadline_s=deadline_s, call_deadline_s=deadline_s
    )
    return AnthropicProvider(
        api_key="sk-ant-test",
        base_url=server.url,
        extraction_model="claude-haiku-4-5",
        synthesis_model="claude-sonnet-4-6",
        timeout_s=30,
        retry_policy=RetryPolicy(max_retries=5, base_delay_s=0.001),
        limits=CallLimits.from_settings(settings),
    )


async def test_a_slow_reply_is_cut_off_at_the_deadline(server: ScriptedServer) -> None:
    provider = deadline_provider(server, 0.6)
    server.enqueue(Reply(delay_s=3, body={}), Reply(delay_s=3, body={}))
    started = time.monotonic()
    try:
        with pytest.raises(LLMDeadlineError, match=r"deadline of 0.6 s passed"):
            await extract(provider)
    finally:
        await provider.aclose()
    assert time.monotonic() - started < 1.5  # not the 30 s timeout, not 5 retries of it
    assert len(server.requests) == 1
    [call] = provider.usage.calls
    assert not call.ok and call.error == "deadline" and call.call == "extraction"


async def test_a_stalled_stream_is_cut_off_at_the_deadline(server: ScriptedServer) -> None:
    provider = deadline_provider(server, 0.8)
    reply = anthropic_text_stream(["a ", "b ", "c ", "d"])
    server.enqueue(Reply(events=reply.events, event_delay_s=0.4))
    started = time.monotonic()
    parts: list[str] = []
    try:
        with pytest.raises(LLMDeadlineError):
            async for t in provider.stream_text(
                task="synthesis", system=SYSTEM, messages=[ChatMessage(role="user", content="hi")]
            ):
                parts.append(t)
    finally:
        await provider.aclose()
    assert time.monotonic() - started < 1.6
    assert len(parts) < 4
    assert server.requests[0].json["max_tokens"] == LLMSettings().max_tokens.chat
