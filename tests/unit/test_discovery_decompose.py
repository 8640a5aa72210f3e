"""Query decomposition: offline (deterministic keyphrase queries, no recommendations) and
with a model (intent, 2–3 queries, 5–8 named papers; falls back offline on failure)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from marginalia.discovery.decompose import (
    OFFLINE_NOTE,
    DecompositionOutput,
    decompose,
    decompose_offline,
    detect_intent,
)
from marginalia.discovery.support import ResearchOptions, abstract_document
from marginalia.llm.base import CallType, ChatMessage, Deadline, T
from marginalia.llm.errors import LLMUnavailableError
from marginalia.llm.usage import Task, UsageLedger
from marginalia.sources.candidate import Candidate


class FakeProvider:
    name = "fake"
    is_generative = True

    def __init__(self, reply: dict[str, Any] | Exception) -> None:
        self.reply = reply
        self.usage = UsageLedger()
        self.calls: list[dict[str, Any]] = []

    def model_for(self, task: Task) -> str | None:
        return "fake-model"

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
        self.calls.append({"task": task, "prompt": prompt, "schema": schema})
        if isinstance(self.reply, Exception):
            raise self.reply
        return schema.model_validate(self.reply)

    async def stream_text(
        self,
        *,
        task: Task,
        system: str,
        messages: list[ChatMessage],
        call: CallType | None = None,
        deadline: Deadline | None = None,
    ) -> AsyncIterator[str]:
        yield ""

    async def aclose(self) -> None:
        return None


def test_offline_queries_come_from_keyphrases_deterministically() -> None:
    d = decompose_offline("efficient attention for long documents")
    assert d.intent == "research"
    # "long documents" is not a concept (a document head of everyday words, issue 13)
    assert d.queries == ["efficient attention long documents", "efficient attention"]
    assert d.recommendations == [] and d.engine == "offline" and d.note == OFFLINE_NOTE
    assert decompose_offline("efficient attention for long documents") == d


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("I want to learn how transformers handle long context", "learn"),
        ("an introduction to graph neural networks", "learn"),
        ("what is contrastive learning", "learn"),
        ("learning rate schedules for large batch training", "research"),
        ("state of the art in dense retrieval", "research"),
    ],
)
def test_intent(text: str, intent: str) -> None:
    assert detect_intent(text) == intent


def test_offline_gives_two_queries_for_a_two_word_topic() -> None:
    d = decompose_offline("citation recommendation")
    assert len(d.queries) == 2 and d.queries[0] == "citation recommendation"


def test_request_phrasing_is_not_searched() -> None:
    d = decompose_offline("I want to learn about sparse attention mechanisms")
    assert d.intent == "learn"
    assert all("learn" not in q and "want" not in q for q in d.queries)


async def test_model_decomposition() -> None:
    reply = {
        "intent": "research",
        "queries": ["long document transformers", "sparse attention", "Sparse  attention"],
        "recommendations": [
            {"title": t, "authors": ["A. Author"], "year": 2020}
            for t in (
                "Longformer: The Long-Document Transformer",
                "Big Bird: Transformers for Longer Sequences",
                "Reformer: The Efficient Transformer",
                "Linformer: Self-Attention with Linear Complexity",
                "Rethinking Attention with Performers",
                "Rethinking attention with performers",
            )
        ],
    }
    provider = FakeProvider(reply)
    d = await decompose("efficient attention for long documents", provider=provider)
    assert provider.calls[0]["task"] == "extraction"
    assert provider.calls[0]["schema"] is DecompositionOutput
    assert d.engine == "fake" and d.intent == "research"
    assert d.queries == ["long document transformers", "sparse attention"]
    assert len(d.recommendations) == 5  # the case-variant duplicate is dropped
    assert d.note is None


async def test_model_failure_falls_back_to_offline() -> None:
    provider = FakeProvider(LLMUnavailableError("down", retries=3))
    d = await decompose("efficient attention for long documents", provider=provider)
    assert d.engine == "offline" and d.recommendations == []
    assert d.fallback_reason and "LLMUnavailableError" in d.fallback_reason


async def test_empty_description_is_refused() -> None:
    with pytest.raises(ValueError):
        await decompose("   ")


def test_abstract_document_and_options() -> None:
    c = Candidate(title="A Title", authors=["Ann Lee"], abstract="Some abstract.", origin="arxiv")
    doc = abstract_document(c)
    assert doc is not None and b"## Abstract" in doc and b"Some abstract." in doc
    assert abstract_document(c.model_copy(update={"abstract": None})) is None
    opts = ResearchOptions.from_params({"max_sources": 5, "fetch": False, "queries": ["q"]})
    assert (opts.max_sources, opts.fetch, opts.queries, opts.link) == (5, False, ["q"], True)
