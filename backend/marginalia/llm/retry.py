"""Retry with exponential backoff and jitter, shared by the remote providers (the policy
and ``Retry-After`` parsing are the project's one :mod:`marginalia.retry`).

The SDK's and httpx's own retries are switched off so every retry is ours: visible,
counted into usage and testable against a local server. With a
:class:`~marginalia.llm.deadline.Deadline`, no retry starts (nor a backoff sleep that
would end) past it: the call fails with :class:`LLMDeadlineError` instead.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from marginalia.llm.errors import LLMUnavailableError
from marginalia.retry import RetryPolicy, parse_retry_after

if TYPE_CHECKING:
    from marginalia.llm.deadline import Deadline

R = TypeVar("R")

# Status codes worth retrying: rate limited, server errors, Anthropic's 529 "overloaded".
RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504, 529})


def is_retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUS or status >= 500


@dataclass(frozen=True)
class Retryable:
    """Why an error is worth retrying, and how long the server asked us to wait."""

    reason: str
    retry_after_s: float | None = None


class Retrier:
    """Counts retries of one logical call and sleeps between attempts.

    Usage::

        while True:
            try:
                return await attempt()
            except Exception as exc:
                if not await retrier.should_retry(exc):
                    raise
    """

    def __init__(
        self,
        policy: RetryPolicy,
        classify: Callable[[BaseException], Retryable | None],
        *,
        describe: str,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        deadline: Deadline | None = None,
    ) -> None:
        self.policy = policy
        self.classify = classify
        self.describe = describe
        self.sleep = sleep
        self.deadline = deadline
        self.retries = 0

    def check_deadline(self) -> None:
        """Raise LLMDeadlineError when the call's deadline leaves no time for an attempt."""
        if self.deadline is not None:
            self.deadline.check(self.describe, retries=self.retries)

    async def should_retry(self, exc: BaseException) -> bool:
        """False for errors that are not retryable; sleeps and returns True otherwise.

        Raises :class:`LLMUnavailableError` once ``max_retries`` retries were spent, and
        :class:`LLMDeadlineError` when the retry would start past the deadline.
        """
        decision = self.classify(exc)
        if decision is None:
            return False
        if self.retries >= self.policy.max_retries:
            raise LLMUnavailableError(
                f"{self.describe}: gave up after {self.retries} retries; "
                f"last error: {decision.reason}",
                retries=self.retries,
            ) from exc
        delay = self.policy.delay(self.retries, decision.retry_after_s)
        if self.deadline is not None and delay >= self.deadline.remaining():
            error = self.deadline.error(self.describe, retries=self.retries)
            raise type(error)(
                f"{error}; last error: {decision.reason}",
                retries=self.retries,
                budget_s=self.deadline.budget_s,
            ) from exc
        await self.sleep(delay)
        self.retries += 1
        return True

    async def run(self, attempt: Callable[[], Awaitable[R]]) -> R:
        while True:
            self.check_deadline()
            try:
                return await attempt()
            except Exception as exc:
                if not await self.should_retry(exc):
                    raise


__all__ = [
    "RETRYABLE_STATUS",
    "Retrier",
    "RetryPolicy",
    "Retryable",
    "is_retryable_status",
    "parse_retry_after",
]
