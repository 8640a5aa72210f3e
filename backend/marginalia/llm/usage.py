"""Per-call token and cost accounting.

Every provider call (successful or not, once a request was attempted) is recorded as a
:class:`CallUsage` in the provider's :class:`UsageLedger`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Literal

from marginalia.llm.errors import (
    LLMDeadlineError,
    LLMError,
    LLMRequestError,
    LLMResponseError,
    LLMUnavailableError,
)

#: Picks the model (Anthropic: Haiku-class for extraction, Sonnet-class for synthesis).
Task = Literal["extraction", "synthesis"]
#: Picks the limits of one call: its ``max_tokens`` and its deadline (settings
#: ``llm.max_tokens.<call>``; ``llm.answer_deadline_s`` for synthesis,
#: ``llm.extraction_deadline_s`` for extraction, ``llm.table_deadline_s`` for a table cell,
#: ``llm.call_deadline_s`` for the others).
CallType = Literal[
    "synthesis", "extraction", "decomposition", "evidence", "wiki", "path", "chat", "table"
]


@dataclass(frozen=True)
class ModelPrice:
    """USD per million tokens."""

    input: float
    output: float
    cache_read: float
    cache_write: float


def _anthropic(input_: float, output: float) -> ModelPrice:
    # Anthropic bills prompt-cache reads at 0.1x and 5-minute cache writes at 1.25x input.
    return ModelPrice(input_, output, cache_read=input_ * 0.1, cache_write=input_ * 1.25)


# List prices in USD per million tokens, approximate and for estimates only: check the
# vendor's pricing page before relying on them. Keys are model-id prefixes; the longest
# matching prefix wins. Models not listed (e.g. local Ollama/vLLM models) cost None.
PRICES_PER_MTOK: dict[str, ModelPrice] = {
    "claude-haiku-4": _anthropic(1.00, 5.00),
    "claude-3-5-haiku": _anthropic(0.80, 4.00),
    "claude-3-haiku": _anthropic(0.25, 1.25),
    "claude-sonnet-4": _anthropic(3.00, 15.00),
    "claude-3-7-sonnet": _anthropic(3.00, 15.00),
    "claude-3-5-sonnet": _anthropic(3.00, 15.00),
    # Opus 4.5 and later dropped to $5/$25; Opus 4 and 4.1 were $15/$75.
    "claude-opus-4": _anthropic(5.00, 25.00),
    "claude-opus-4-0": _anthropic(15.00, 75.00),
    "claude-opus-4-1": _anthropic(15.00, 75.00),
    "claude-opus-4-2025": _anthropic(15.00, 75.00),
    "claude-3-opus": _anthropic(15.00, 75.00),
}


def price_for(model: str) -> ModelPrice | None:
    best: str | None = None
    for prefix in PRICES_PER_MTOK:
        if model.startswith(prefix) and (best is None or len(prefix) > len(best)):
            best = prefix
    return PRICES_PER_MTOK[best] if best is not None else None


def estimate_cost(
    model: str,
    *,
    input_tokens: int,
    output_tokens: int,
    cache_read_tokens: int = 0,
    cache_creation_tokens: int = 0,
) -> float | None:
    """Estimated USD cost of one call; ``input_tokens`` excludes cached tokens."""
    price = price_for(model)
    if price is None:
        return None
    total = (
        input_tokens * price.input
        + output_tokens * price.output
        + cache_read_tokens * price.cache_read
        + cache_creation_tokens * price.cache_write
    )
    return total / 1_000_000


def error_kind(error: LLMError | None) -> str | None:
    """The ``CallUsage.error`` label for an outcome (None when the call succeeded)."""
    if error is None:
        return None
    if isinstance(error, LLMResponseError):
        return "response"
    if isinstance(error, LLMDeadlineError):
        return "deadline"
    if isinstance(error, LLMUnavailableError):
        return "unavailable"
    if isinstance(error, LLMRequestError):
        return "request"
    return "error"


@dataclass(frozen=True)
class CallUsage:
    provider: str
    model: str
    task: Task
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_creation_tokens: int
    cost_usd: float | None
    latency_ms: float
    retries: int
    ok: bool = True
    # "response" (invalid output), "deadline", "unavailable", "request" or None when ok.
    error: str | None = None
    # The call type that set max_tokens and the deadline (None for calls made before
    # call types existed, e.g. in stored ledgers).
    call: CallType | None = None
    # HTTP attempts made, retries, format fallbacks and the repair of invalid output included.
    attempts: int = 1


@dataclass(frozen=True)
class UsageTotals:
    calls: int = 0
    failed_calls: int = 0
    retries: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_creation_tokens: int = 0
    # Sum over calls with a known price; ``unpriced_calls`` counts the others.
    cost_usd: float = 0.0
    unpriced_calls: int = 0


@dataclass
class UsageLedger:
    """Collects :class:`CallUsage` records; safe to share across threads and tasks."""

    _calls: list[CallUsage] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, usage: CallUsage) -> None:
        with self._lock:
            self._calls.append(usage)

    @property
    def calls(self) -> list[CallUsage]:
        with self._lock:
            return list(self._calls)

    def mark(self) -> int:
        """A position to pass to :meth:`totals` to count only later calls (e.g. one job)."""
        with self._lock:
            return len(self._calls)

    def totals(self, since: int = 0) -> UsageTotals:
        calls = self.calls[since:]
        priced = [c.cost_usd for c in calls if c.cost_usd is not None]
        return UsageTotals(
            calls=len(calls),
            failed_calls=sum(1 for c in calls if not c.ok),
            retries=sum(c.retries for c in calls),
            input_tokens=sum(c.input_tokens for c in calls),
            output_tokens=sum(c.output_tokens for c in calls),
            cache_read_tokens=sum(c.cache_read_tokens for c in calls),
            cache_creation_tokens=sum(c.cache_creation_tokens for c in calls),
            cost_usd=sum(priced),
            unpriced_calls=len(calls) - len(priced),
        )
