"""LLM providers behind one protocol, chosen by settings (see :func:`make_provider`)."""

from marginalia.llm.base import ChatMessage, LLMProvider, Task
from marginalia.llm.errors import (
    LLMConfigError,
    LLMError,
    LLMRequestError,
    LLMResponseError,
    LLMUnavailableError,
)
from marginalia.llm.factory import PROVIDERS, make_provider
from marginalia.llm.usage import CallUsage, UsageLedger, UsageTotals

__all__ = [
    "PROVIDERS",
    "CallUsage",
    "ChatMessage",
    "LLMConfigError",
    "LLMError",
    "LLMProvider",
    "LLMRequestError",
    "LLMResponseError",
    "LLMUnavailableError",
    "Task",
    "UsageLedger",
    "UsageTotals",
    "make_provider",
]
