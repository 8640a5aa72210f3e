"""LLM providers behind one protocol, chosen by settings (see :func:`make_provider`)."""

from marginalia.llm.base import CallType, ChatMessage, LLMProvider, Task, engine_label
from marginalia.llm.deadline import Deadline
from marginalia.llm.errors import (
    LLMConfigError,
    LLMDeadlineError,
    LLMError,
    LLMRequestError,
    LLMResponseError,
    LLMUnavailableError,
)
from marginalia.llm.factory import PROVIDERS, make_provider
from marginalia.llm.limits import CallLimits
from marginalia.llm.usage import CallUsage, UsageLedger, UsageTotals

__all__ = [
    "PROVIDERS",
    "CallLimits",
    "CallType",
    "CallUsage",
    "ChatMessage",
    "Deadline",
    "LLMConfigError",
    "LLMDeadlineError",
    "LLMError",
    "LLMProvider",
    "LLMRequestError",
    "LLMResponseError",
    "LLMUnavailableError",
    "Task",
    "UsageLedger",
    "UsageTotals",
    "engine_label",
    "make_provider",
]
