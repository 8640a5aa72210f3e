"""The one retry policy type: exponential backoff with "equal jitter", a server's
``Retry-After`` honoured (bounded), and an optional overall deadline. The LLM providers
(:mod:`marginalia.llm.retry`) and the external sources (:mod:`marginalia.sources.ratelimit`)
both retry with it."""

from __future__ import annotations

import email.utils
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    # A server-sent retry-after is honoured up to this long.
    max_retry_after_s: float = 60.0
    # Overall bound of one logical call, waits and backoff sleeps included (None: none).
    deadline_s: float | None = None

    def delay(self, retry_index: int, retry_after_s: float | None = None) -> float:
        """Seconds to wait before retry number ``retry_index`` (0-based): the server's
        Retry-After if given (bounded), else exponential with "equal jitter" — at least half
        the exponential step, never more than all of it."""
        if retry_after_s is not None:
            return min(max(retry_after_s, 0.0), self.max_retry_after_s)
        ceiling = min(self.max_delay_s, self.base_delay_s * (2**retry_index))
        return ceiling / 2 + random.uniform(0, ceiling / 2)


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds from ``retry-after-ms`` or ``Retry-After`` (delta-seconds or an HTTP date),
    header names matched case-insensitively; None when there is none or it is unreadable."""
    if not headers:
        return None
    lowered = {str(k).lower(): v for k, v in headers.items()}
    raw_ms = lowered.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = lowered.get("retry-after")
    if raw is None or not str(raw).strip():
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(str(raw))
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
