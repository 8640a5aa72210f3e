"""One wall-clock budget for a logical model call, shared by its retries and fallbacks.

A provider call is several HTTP attempts (retries, ``response_format`` fallbacks, one
repair of invalid output). Bounding each attempt by ``timeout_s`` alone lets a call take
retries × timeout; a :class:`Deadline` bounds the whole: each attempt gets
``min(timeout_s, remaining)``, and no attempt or backoff sleep starts once it has passed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from marginalia.llm.errors import LLMDeadlineError

#: Below this many seconds left, starting an attempt is pointless: nothing can come back.
MIN_ATTEMPT_S = 0.05


@dataclass(frozen=True)
class Deadline:
    """An instant on the monotonic clock, with the budget it was made from."""

    expires_at: float
    budget_s: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(expires_at=time.monotonic() + seconds, budget_s=seconds)

    def remaining(self) -> float:
        return max(0.0, self.expires_at - time.monotonic())

    @property
    def expired(self) -> bool:
        return self.remaining() < MIN_ATTEMPT_S

    def attempt_timeout(self, per_attempt_s: float) -> float:
        """The timeout of the next HTTP attempt: ``min(per_attempt_s, remaining)``."""
        return min(per_attempt_s, self.remaining())

    def error(self, what: str, *, retries: int = 0) -> LLMDeadlineError:
        return LLMDeadlineError(
            f"{what}: the deadline of {self.budget_s:g} s passed"
            + (f" after {retries} retries" if retries else ""),
            retries=retries,
            budget_s=self.budget_s,
        )

    def check(self, what: str, *, retries: int = 0) -> None:
        """Raise :class:`LLMDeadlineError` when no time is left for another attempt."""
        if self.expired:
            raise self.error(what, retries=retries)
