"""What the answer stage uses: retrieval's context plus the process's LLM provider (a
:class:`marginalia.runtime.Runtime` is one)."""

from __future__ import annotations

from typing import Protocol

from marginalia.llm.base import LLMProvider
from marginalia.retrieval.hybrid import RetrievalContext


class AnswerContext(RetrievalContext, Protocol):
    @property
    def llm(self) -> LLMProvider: ...
