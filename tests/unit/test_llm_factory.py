"""Provider selection, the offline shell, usage accounting and the retry policy."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import get_args

import pytest
from pydantic import BaseModel, SecretStr

from marginalia.config import LLMSettings
from marginalia.llm import (
    PROVIDERS,
    ChatMessage,
    LLMConfigError,
    LLMError,
    LLMProvider,
    UsageLedger,
    make_provider,
)
from marginalia.llm.anthropic_provider import AnthropicProvider
from marginalia.llm.base import tool_name_for
from marginalia.llm.offline import OfflineProvider
from marginalia.llm.openai_provider import OpenAICompatibleProvider
from marginalia.llm.retry import RetryPolicy, parse_retry_after
from marginalia.llm.usage import CallUsage, estimate_cost, price_for


class Out(BaseModel):
    x: int


def test_registry_covers_every_configurable_provider() -> None:
    literal = LLMSettings.model_fields["provider"].annotation
    assert set(PROVIDERS) == set(get_args(literal))


async def test_offline_is_the_default_and_says_it_cannot_generate() -> None:
    provider = make_provider(LLMSettings())
    assert isinstance(provider, OfflineProvider)
    assert isinstance(provider, LLMProvider)
    assert provider.is_generative is False
    assert provider.model_for("synthesis") is None
    with pytest.raises(LLMError, match="offline engine has no generative model"):
        await provider.structured(task="extraction", system="s", prompt="p", schema=Out)
    with pytest.raises(LLMError, match="offline engine has no generative model"):
        async for _ in provider.stream_text(
            task="synthesis", system="s", messages=[ChatMessage(role="user", content="q")]
        ):
            pass
    assert provider.usage.calls == []
    await provider.aclose()


def test_anthropic_without_a_key_is_a_config_error() -> None:
    with pytest.raises(LLMConfigError, match="MARGINALIA_LLM__ANTHROPIC_API_KEY"):
        make_provider(LLMSettings(provider="anthropic"))


async def test_anthropic_from_settings() -> None:
    ledger = UsageLedger()
    settings = LLMSettings(
        provider="anthropic",
        anthropic_api_key=SecretStr("sk-ant-x"),
        anthropic_base_url="http://127.0.0.1:9",
        extraction_model="claude-haiku-4-5",
        synthesis_model="claude-sonnet-4-6",
        max_retries=7,
    )
    provider = make_provider(settings, usage=ledger)
    assert isinstance(provider, AnthropicProvider)
    assert isinstance(provider, LLMProvider)
    assert provider.is_generative
    assert provider.usage is ledger
    assert provider.model_for("extraction") == "claude-haiku-4-5"
    assert provider.model_for("synthesis") == "claude-sonnet-4-6"
    assert provider.retry_policy.max_retries == 7
    await provider.aclose()


async def test_openai_from_settings() -> None:
    settings = LLMSettings(
        provider="openai", openai_base_url="http://127.0.0.1:9/v1", openai_model="qwen2.5"
    )
    provider = make_provider(settings)
    assert isinstance(provider, OpenAICompatibleProvider)
    assert isinstance(provider, LLMProvider)
    assert provider.model_for("extraction") == provider.model_for("synthesis") == "qwen2.5"
    await provider.aclose()


def test_tool_name_is_api_safe() -> None:
    class Weird_Name(BaseModel):
        pass

    assert tool_name_for(Out) == "record_Out"
    assert tool_name_for(Weird_Name) == "record_Weird_Name"


def test_prices_match_the_longest_prefix_and_unknown_models_cost_none() -> None:
    assert price_for("claude-haiku-4-5-20251001") is price_for("claude-haiku-4-5")
    opus_41, opus_45 = price_for("claude-opus-4-1"), price_for("claude-opus-4-5")
    assert opus_41 is not None and opus_45 is not None and opus_41.input > opus_45.input
    assert estimate_cost("llama3.1", input_tokens=10, output_tokens=10) is None
    cost = estimate_cost(
        "claude-sonnet-4-6",
        input_tokens=1_000_000,
        output_tokens=0,
        cache_read_tokens=1_000_000,
    )
    assert cost == pytest.approx(3.0 + 0.3)


def _call(cost: float | None, retries: int = 0, ok: bool = True) -> CallUsage:
    return CallUsage(
        provider="anthropic",
        model="m",
        task="extraction",
        input_tokens=10,
        output_tokens=5,
        cache_read_tokens=0,
        cache_creation_tokens=0,
        cost_usd=cost,
        latency_ms=1.0,
        retries=retries,
        ok=ok,
        error=None if ok else "unavailable",
    )


def test_ledger_totals_and_marks() -> None:
    ledger = UsageLedger()
    ledger.record(_call(0.5, retries=2))
    mark = ledger.mark()
    ledger.record(_call(0.25))
    ledger.record(_call(None, ok=False))

    everything = ledger.totals()
    assert (everything.calls, everything.retries, everything.failed_calls) == (3, 2, 1)
    assert everything.cost_usd == pytest.approx(0.75)
    assert everything.unpriced_calls == 1
    later = ledger.totals(since=mark)
    assert (later.calls, later.retries, later.input_tokens) == (2, 0, 20)


def test_ledger_is_thread_safe() -> None:
    ledger = UsageLedger()

    def work() -> None:
        for _ in range(500):
            ledger.record(_call(0.001))

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert ledger.totals().calls == 4000


def test_backoff_grows_with_jitter_and_is_capped() -> None:
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=4.0)
    for _ in range(50):
        assert 0.5 <= policy.delay(0) <= 1.0
        assert 1.0 <= policy.delay(1) <= 2.0
        assert 2.0 <= policy.delay(5) <= 4.0
    assert policy.delay(3, retry_after_s=1.5) == 1.5
    assert policy.delay(0, retry_after_s=10_000) == policy.max_retry_after_s


def test_parse_retry_after() -> None:
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({}) is None
    assert parse_retry_after({"retry-after": "soon"}) is None
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    seconds = parse_retry_after({"retry-after": later})
    assert seconds is not None and 25 <= seconds <= 31
