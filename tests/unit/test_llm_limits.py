"""Per-call limits from settings, bounded schemas, and the engine labels of fallbacks."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic import BaseModel, Field

from marginalia.answer.synthesis import SynthesisOutput
from marginalia.config import LLMMaxTokens, LLMSettings, Settings
from marginalia.knowledge.extraction import ChunkText
from marginalia.knowledge.llm_extraction import extract_source
from marginalia.knowledge.schemas import Extraction
from marginalia.llm.base import CallType, ChatMessage, Deadline, T
from marginalia.llm.errors import LLMDeadlineError, LLMResponseError
from marginalia.llm.limits import CALL_TYPES, CallLimits
from marginalia.llm.schema import bounded_json_schema, bounds
from marginalia.llm.usage import Task, UsageLedger


def walk(node: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if isinstance(node, dict):
        out.append(node)
        for value in node.values():
            out.extend(walk(value))
    elif isinstance(node, list):
        for value in node:
            out.extend(walk(value))
    return out


@pytest.mark.parametrize("schema", [Extraction, SynthesisOutput])
def test_every_array_and_string_the_model_fills_is_bounded(schema: type[BaseModel]) -> None:
    nodes = walk(bounded_json_schema(schema))
    arrays = [n for n in nodes if n.get("type") == "array"]
    strings = [n for n in nodes if n.get("type") == "string"]
    assert arrays and strings
    assert all("maxItems" in n for n in arrays)
    assert all("maxLength" in n for n in strings)


def test_field_bounds_win_over_the_defaults_and_reach_optional_strings() -> None:
    schema = bounded_json_schema(Extraction)
    props = schema["properties"]
    assert props["claims"]["maxItems"] == 15
    assert props["concepts"]["maxItems"] == 12
    assert props["key_results"]["items"]["maxLength"] == 300
    thesis = next(b for b in props["thesis"]["anyOf"] if b.get("type") == "string")
    assert thesis["maxLength"] == 500
    synthesis = bounded_json_schema(SynthesisOutput)
    assert synthesis["properties"]["claims"]["maxItems"] == 6


def test_schema_bounds_are_not_enforced_on_replies() -> None:
    # The offline engine and a model may return more than the schema asked for; the
    # reply is still usable (the bound is there to stop a looping model, not to refuse).
    many = Extraction(summary="s" * 5000, tldr="t", claims=[], key_results=["r"] * 30)
    assert len(many.key_results) == 30

    class Bounded(BaseModel):
        tags: list[str] = Field(json_schema_extra=bounds(max_items=2, item_max_length=5))

    assert Bounded(tags=["a", "b", "c"]).tags == ["a", "b", "c"]
    assert bounded_json_schema(Bounded)["properties"]["tags"] == {
        "items": {"type": "string", "maxLength": 5},
        "maxItems": 2,
        "title": "Tags",
        "type": "array",
    }


def test_limits_come_from_settings_for_every_call_type() -> None:
    assert set(CALL_TYPES) == set(LLMSettings().max_tokens.model_dump())
    settings = Settings(
        llm=LLMSettings.model_validate(
            {
                "answer_deadline_s": 7,
                "extraction_deadline_s": 11,
                "call_deadline_s": 3,
                "table_deadline_s": 5,
                "max_tokens": {"synthesis": 300, "wiki": 900},
            }
        )
    )
    limits = CallLimits.from_settings(settings.llm)
    assert limits.max_tokens["synthesis"] == 300 and limits.max_tokens["wiki"] == 900
    assert limits.max_tokens["extraction"] == LLMSettings().max_tokens.extraction
    assert limits.deadlines_s["synthesis"] == 7
    assert limits.deadlines_s["extraction"] == 11
    assert limits.deadlines_s["table"] == 5  # an evidence-table cell has its own
    own = {"synthesis", "extraction", "table"}
    assert {limits.deadlines_s[c] for c in CALL_TYPES if c not in own} == {3}
    before = time.monotonic()
    assert 6.9 <= limits.deadline("synthesis").expires_at - before <= 7.1
    shared = Deadline.after(1)
    assert limits.deadline("wiki", shared) is shared


def test_settings_read_the_limits_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MARGINALIA_LLM__ANSWER_DEADLINE_S", "12.5")
    monkeypatch.setenv("MARGINALIA_LLM__MAX_TOKENS__SYNTHESIS", "256")
    settings = Settings()
    assert settings.llm.answer_deadline_s == 12.5
    assert settings.llm.max_tokens.synthesis == 256
    for model in (LLMSettings, LLMMaxTokens):
        for name, field in model.model_fields.items():
            assert field.description, f"{model.__name__}.{name} has no description"


class FailingModel:
    name = "openai"
    is_generative = True

    def __init__(self, error: Exception) -> None:
        self.error = error
        self.usage = UsageLedger()
        self.calls: list[CallType | None] = []

    def model_for(self, task: Task) -> str | None:
        return "smollm2"

    async def structured(
        self,
        *,
        task: Task,
        system: str,
        prompt: str,
        schema: type[T],
        call: CallType | None = None,
        deadline: Deadline | None = None,
    ) -> T:
        self.calls.append(call)
        raise self.error

    async def stream_text(
        self,
        *,
        task: Task,
        system: str,
        messages: list[ChatMessage],
        call: CallType | None = None,
        deadline: Deadline | None = None,
    ) -> AsyncIterator[str]:  # pragma: no cover
        yield ""

    async def aclose(self) -> None:
        return None


CHUNKS = [
    ChunkText(
        index=0,
        section_type="abstract",
        text="We propose a sparse attention model. It scales linearly with the input length.",
    )
]


@pytest.mark.parametrize(
    ("error", "engine"),
    [
        (
            LLMResponseError("not JSON", provider="openai", model="m"),
            "offline (model output invalid)",
        ),
        (LLMDeadlineError("the deadline of 120 s passed"), "offline (model deadline passed)"),
    ],
)
async def test_a_failed_extraction_says_which_engine_produced_it(
    error: Exception, engine: str
) -> None:
    model = FailingModel(error)
    result = await extract_source(model, "Sparse attention", None, CHUNKS)
    assert model.calls == ["extraction"]
    assert result.engine == engine
    assert result.fallback_reason is not None and str(error) in result.fallback_reason
    assert result.extraction.summary  # the offline engine's extraction
