"""The OpenAI-compatible provider against servers that refuse or break structured output,
and against slow servers (one deadline per call, not retries × timeout).

Each refusal is what a real server sends: llama-cpp-python and older llama.cpp answer a
``json_schema`` request with HTTP 500 (issue 20), vLLM and OpenAI with 400, FastAPI-based
servers with 422; some accept the request and ignore it (a 200 with prose).
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Iterator

import pytest
from pydantic import BaseModel

from marginalia.config import LLMSettings
from marginalia.llm.base import ChatMessage
from marginalia.llm.deadline import Deadline
from marginalia.llm.errors import LLMDeadlineError, LLMRequestError, LLMResponseError
from marginalia.llm.limits import CallLimits
from marginalia.llm.openai_provider import OpenAICompatibleProvider
from marginalia.llm.retry import RetryPolicy
from marginalia.llm.schema import bounded_json_schema
from tests.support.llm_servers import (
    Reply,
    ScriptedServer,
    json_schema_400,
    llama_cpp_grammar_500,
    llama_cpp_python_json_schema_500,
    openai_completion,
    openai_error,
    openai_stream,
    response_format_422,
)

SYSTEM = "You decompose research topics into search queries."


class Queries(BaseModel):
    intent: str
    queries: list[str]


GOOD = {"intent": "survey", "queries": ["efficient attention", "long documents"]}
SCHEMA_TEXT = json.dumps(bounded_json_schema(Queries), separators=(",", ":"))

# Real refusal bodies (see the module doc).
LLAMA_CPP_PYTHON_500 = llama_cpp_python_json_schema_500()
LLAMA_CPP_GRAMMAR_500 = llama_cpp_grammar_500()
VLLM_400 = json_schema_400()
FASTAPI_422 = response_format_422()


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with ScriptedServer() as s:
        yield s


def make_provider(
    base_url: str,
    *,
    max_retries: int = 2,
    timeout_s: float = 5.0,
    deadline_s: float | None = None,
    real_sleep: bool = False,
) -> OpenAICompatibleProvider:
    settings = LLMSettings()
    if deadline_s is not None:
        settings = settings.model_copy(
            update={
                "answer_deadline_s": deadline_s,
                "extraction_deadline_s": deadline_s,
                "call_deadline_s": deadline_s,
            }
        )

    async def no_sleep(seconds: float) -> None:
        return None

    kwargs = {} if real_sleep else {"sleep": no_sleep}
    return OpenAICompatibleProvider(
        base_url=base_url,
        model="llama3.1",
        timeout_s=timeout_s,
        retry_policy=RetryPolicy(max_retries=max_retries, base_delay_s=0.001),
        limits=CallLimits.from_settings(settings),
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.fixture
async def provider(server: ScriptedServer) -> AsyncIterator[OpenAICompatibleProvider]:
    p = make_provider(server.url + "/v1")
    yield p
    await p.aclose()


async def ask(provider: OpenAICompatibleProvider, **kwargs: object) -> Queries:
    return await provider.structured(
        task="extraction",
        system=SYSTEM,
        prompt="efficient attention",
        schema=Queries,
        call="decomposition",
        **kwargs,  # type: ignore[arg-type]
    )


def formats(server: ScriptedServer) -> list[str | None]:
    return [(r.json.get("response_format") or {}).get("type") for r in server.requests]


@pytest.mark.parametrize(
    "refusal",
    [LLAMA_CPP_PYTHON_500, LLAMA_CPP_GRAMMAR_500, VLLM_400, FASTAPI_422],
    ids=["500-llama-cpp-python", "500-grammar", "400-vllm", "422-fastapi"],
)
async def test_json_schema_refusal_falls_back_to_json_object_without_retrying(
    server: ScriptedServer, provider: OpenAICompatibleProvider, refusal: Reply
) -> None:
    server.enqueue(
        refusal, openai_completion(json.dumps(GOOD)), openai_completion(json.dumps(GOOD))
    )
    assert await ask(provider) == Queries.model_validate(GOOD)
    await ask(provider)  # remembered: the second call starts in json_object mode
    assert formats(server) == ["json_schema", "json_object", "json_object"]
    assert provider.response_mode == "json_object"
    assert SCHEMA_TEXT in server.requests[1].json["messages"][0]["content"]
    assert len(provider.format_fallbacks) == 1
    assert provider.format_fallbacks[0].startswith("json_schema → json_object")
    # The 500 was a refusal, not an outage: no retry was spent on it.
    assert [c.retries for c in provider.usage.calls] == [0, 0]
    assert [c.attempts for c in provider.usage.calls] == [2, 1]


async def test_every_response_format_refused_falls_back_to_plain_prompting(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    server.enqueue(
        LLAMA_CPP_PYTHON_500,
        openai_error(500, "response_format is not supported"),
        openai_completion("Sure! Here it is:\n```json\n" + json.dumps(GOOD) + "\n```"),
        openai_completion(json.dumps(GOOD)),
    )
    assert await ask(provider) == Queries.model_validate(GOOD)
    await ask(provider)
    assert formats(server) == ["json_schema", "json_object", None, None]
    third = server.requests[2].json
    assert "response_format" not in third
    assert SCHEMA_TEXT in third["messages"][0]["content"]  # the schema travels in the prompt
    assert provider.response_mode == "prompt"
    assert [f.split(":")[0] for f in provider.format_fallbacks] == [
        "json_schema → json_object",
        "json_object → prompt",
    ]


async def test_a_200_with_prose_under_json_schema_is_a_refusal(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    # A server that accepts response_format and ignores it answers in prose.
    server.enqueue(
        openai_completion("Efficient attention is a family of methods that ..."),
        openai_completion("I think the queries are efficient attention and long documents."),
        openai_completion(json.dumps(GOOD)),
    )
    assert await ask(provider) == Queries.model_validate(GOOD)
    assert formats(server) == ["json_schema", "json_object", None]
    assert provider.response_mode == "prompt"


async def test_a_500_that_does_not_name_the_format_is_retried_as_an_outage(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    server.enqueue(openai_error(500, "CUDA out of memory"), openai_completion(json.dumps(GOOD)))
    await ask(provider)
    assert formats(server) == ["json_schema", "json_schema"]
    assert provider.response_mode == "json_schema"
    assert provider.usage.calls[0].retries == 1


async def test_a_400_about_the_context_size_is_no_format_refusal(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    server.enqueue(openai_error(400, "the request exceeds the available context size"))
    with pytest.raises(LLMRequestError, match="context size"):
        await ask(provider)
    assert provider.response_mode == "json_schema" and len(server.requests) == 1


async def test_invalid_json_is_repaired_once_with_the_parse_error(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    server.enqueue(
        openai_completion('{"intent": "survey", "queries": ["a",'),
        openai_completion(json.dumps(GOOD)),
    )
    assert await ask(provider) == Queries.model_validate(GOOD)
    first, second = (r.json for r in server.requests)
    assert first["messages"][1]["content"] == "efficient attention"
    repair = second["messages"][1]["content"]
    assert repair.startswith("efficient attention")
    assert "not valid JSON" in repair and "Expecting value" in repair
    assert second["response_format"]["type"] == "json_schema"  # no downgrade for a bad reply
    [call] = provider.usage.calls
    assert call.ok and call.attempts == 2 and call.call == "decomposition"


async def test_output_cut_off_at_max_tokens_is_repaired_not_downgraded(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    server.enqueue(
        openai_completion(
            '{"intent": "survey", "queries": ["a", "a", "a", "a', finish_reason="length"
        ),
        openai_completion(json.dumps(GOOD)),
    )
    await ask(provider)
    assert "cut off at max_tokens" in server.requests[1].json["messages"][1]["content"]
    assert provider.response_mode == "json_schema"


async def test_schema_invalid_json_is_repaired_with_the_validation_error(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    server.enqueue(
        openai_completion(json.dumps({"intent": "survey"})), openai_completion(json.dumps(GOOD))
    )
    await ask(provider)
    repair = server.requests[1].json["messages"][1]["content"]
    assert "failed validation against Queries" in repair and "queries" in repair


async def test_max_tokens_follow_the_call_type(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    defaults = LLMSettings().max_tokens
    server.enqueue(*[openai_completion(json.dumps(GOOD))] * 3)
    await ask(provider)
    await provider.structured(task="synthesis", system=SYSTEM, prompt="q", schema=Queries)
    await provider.structured(
        task="extraction", system=SYSTEM, prompt="q", schema=Queries, call="evidence"
    )
    assert [r.json["max_tokens"] for r in server.requests] == [
        defaults.decomposition,
        defaults.synthesis,
        defaults.evidence,
    ]
    assert [c.call for c in provider.usage.calls] == ["decomposition", "synthesis", "evidence"]


# ---------------------------------------------------------------------------- deadlines


async def test_a_slow_server_is_cut_off_at_the_deadline_not_at_the_timeout(
    server: ScriptedServer,
) -> None:
    provider = make_provider(server.url + "/v1", timeout_s=30, deadline_s=0.6)
    server.enqueue(Reply(delay_s=3, body={}))
    started = time.monotonic()
    try:
        with pytest.raises(LLMDeadlineError, match=r"deadline of 0.6 s passed") as info:
            await ask(provider)
    finally:
        await provider.aclose()
    elapsed = time.monotonic() - started
    assert 0.5 <= elapsed < 1.5  # the attempt's timeout was min(30 s, what was left)
    assert info.value.reason_label == "model deadline passed"
    [call] = provider.usage.calls
    assert not call.ok and call.error == "deadline"


async def test_retries_stay_inside_one_deadline(server: ScriptedServer) -> None:
    # Each attempt times out after 0.4 s; ten retries would take > 4 s. The deadline is 1 s.
    provider = make_provider(
        server.url + "/v1", timeout_s=0.4, deadline_s=1.0, max_retries=10, real_sleep=True
    )
    server.enqueue(*[Reply(delay_s=2, body={})] * 10)
    started = time.monotonic()
    try:
        with pytest.raises(LLMDeadlineError):
            await ask(provider)
    finally:
        await provider.aclose()
    elapsed = time.monotonic() - started
    assert elapsed < 1.5
    assert 2 <= len(server.requests) <= 3
    # No attempt started after the deadline.
    assert all(r.at - started < 1.0 for r in server.requests)


async def test_no_retry_starts_when_the_backoff_would_end_past_the_deadline(
    server: ScriptedServer,
) -> None:
    provider = make_provider(server.url + "/v1", deadline_s=1.0, max_retries=5, real_sleep=True)
    server.enqueue(openai_error(503, "loading model", headers={"retry-after": "5"}))
    started = time.monotonic()
    try:
        with pytest.raises(LLMDeadlineError, match="loading model"):
            await ask(provider)
    finally:
        await provider.aclose()
    assert time.monotonic() - started < 0.5  # gave up at once instead of sleeping 5 s
    assert len(server.requests) == 1


async def test_a_shared_deadline_spans_calls(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    expired = Deadline.after(0.0)
    with pytest.raises(LLMDeadlineError):
        await ask(provider, deadline=expired)
    assert server.requests == []  # nothing starts past the deadline


async def test_a_stalled_stream_is_cut_off_at_the_deadline(server: ScriptedServer) -> None:
    provider = make_provider(server.url + "/v1", timeout_s=30, deadline_s=0.8)
    server.enqueue(Reply(events=openai_stream(["a ", "b ", "c"]).events, event_delay_s=0.5))
    parts: list[str] = []
    started = time.monotonic()
    try:
        with pytest.raises(LLMDeadlineError):
            async for text in provider.stream_text(
                task="synthesis", system=SYSTEM, messages=[ChatMessage(role="user", content="hi")]
            ):
                parts.append(text)
    finally:
        await provider.aclose()
    assert time.monotonic() - started < 1.5
    assert len(parts) < 3
    body = server.requests[0].json
    assert body["max_tokens"] == LLMSettings().max_tokens.chat


async def test_invalid_twice_is_a_response_error_for_the_extractive_fallback(
    server: ScriptedServer, provider: OpenAICompatibleProvider
) -> None:
    server.enqueue(*[openai_completion('{"intent": 1}')] * 2)
    with pytest.raises(LLMResponseError) as info:
        await ask(provider)
    assert info.value.reason_label == "model output invalid"
    assert str(info.value).count("model 'llama3.1'") == 1  # said once, not nested
    assert "failed validation against Queries" in str(info.value)
    assert len(server.requests) == 2
