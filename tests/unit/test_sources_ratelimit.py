"""The per-source rate limiter and the retry/deadline helper."""

from __future__ import annotations

import asyncio
import time

import pytest

from marginalia.retry import RetryPolicy, parse_retry_after
from marginalia.sources.base import SourceError
from marginalia.sources.ratelimit import RateLimiter, call_with_retry, shared_limiter

INTERVAL = 0.05


async def test_limiter_spaces_call_starts() -> None:
    limiter = RateLimiter(INTERVAL)
    starts: list[float] = []

    async def call() -> None:
        await limiter.acquire()
        starts.append(time.monotonic())

    await asyncio.gather(*(call() for _ in range(5)))
    assert len(starts) == 5
    # Call i never starts before its slot, i intervals after the first (10% slack for timer
    # rounding). Measured from the first start, not pairwise: a task that wakes late on a
    # loaded machine makes its own gap longer and the next one shorter, never the slots.
    offsets = [t - starts[0] for t in starts]
    assert all(off >= i * INTERVAL * 0.9 for i, off in enumerate(offsets)), offsets
    assert starts[-1] - starts[0] < INTERVAL * 4 + 0.2


async def test_limiter_does_not_delay_after_idle() -> None:
    limiter = RateLimiter(INTERVAL)
    await limiter.acquire()
    await asyncio.sleep(INTERVAL * 1.5)
    t0 = time.monotonic()
    await limiter.acquire()
    assert time.monotonic() - t0 < INTERVAL / 2


def test_shared_limiter_is_per_source() -> None:
    assert shared_limiter("test-src-a", 0.5) is shared_limiter("test-src-a", 0.5)
    assert shared_limiter("test-src-a", 0.5) is not shared_limiter("test-src-b", 0.5)


def test_parse_retry_after() -> None:
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    assert parse_retry_after({"retry-after": "0"}) == 0.0
    assert parse_retry_after({}) is None
    when = parse_retry_after({"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"})
    assert when == 0.0  # a date in the past means "now"


FAST = RetryPolicy(max_retries=3, base_delay_s=0.01, max_delay_s=0.05, deadline_s=2.0)


async def test_retries_retryable_errors_then_succeeds() -> None:
    calls = 0
    retries: list[int] = []

    async def attempt() -> str:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise SourceError("x", "http_status", "HTTP 429", status=429, retry_after_s=0.0)
        if calls == 2:
            raise SourceError("x", "http_status", "HTTP 503", status=503)
        return "ok"

    result = await call_with_retry(
        attempt, source="x", policy=FAST, on_retry=lambda n, e, d: retries.append(n)
    )
    assert result == "ok"
    assert calls == 3
    assert retries == [1, 2]


async def test_non_retryable_error_propagates_at_once() -> None:
    calls = 0

    async def attempt() -> str:
        nonlocal calls
        calls += 1
        raise SourceError("x", "http_status", "HTTP 400", status=400)

    with pytest.raises(SourceError) as info:
        await call_with_retry(attempt, source="x", policy=FAST)
    assert info.value.status == 400
    assert calls == 1


async def test_gives_up_after_max_retries() -> None:
    calls = 0

    async def attempt() -> str:
        nonlocal calls
        calls += 1
        raise SourceError("x", "http_status", "HTTP 500", status=500)

    with pytest.raises(SourceError) as info:
        await call_with_retry(attempt, source="x", policy=FAST)
    assert calls == FAST.max_retries + 1
    assert info.value.reason == "http_status"
    assert info.value.attempts == FAST.max_retries + 1


async def test_deadline_bounds_a_hanging_call() -> None:
    async def attempt() -> str:
        await asyncio.sleep(10)
        return "never"

    t0 = time.monotonic()
    with pytest.raises(SourceError) as info:
        await call_with_retry(
            attempt, source="x", policy=RetryPolicy(max_retries=5, deadline_s=0.2)
        )
    assert info.value.reason == "timeout"
    assert time.monotonic() - t0 < 1.0


async def test_retry_after_beyond_deadline_gives_up_early() -> None:
    async def attempt() -> str:
        raise SourceError("x", "http_status", "HTTP 429", status=429, retry_after_s=30.0)

    t0 = time.monotonic()
    with pytest.raises(SourceError) as info:
        await call_with_retry(attempt, source="x", policy=RetryPolicy(deadline_s=1.0))
    assert info.value.reason == "timeout"
    assert "429" in info.value.message
    assert time.monotonic() - t0 < 0.5


def test_backoff_grows_and_is_capped() -> None:
    policy = RetryPolicy(base_delay_s=0.1, max_delay_s=0.4)
    for i, ceiling in enumerate([0.1, 0.2, 0.4, 0.4]):
        delay = policy.delay(i)
        assert ceiling / 2 <= delay <= ceiling
    assert policy.delay(0, retry_after_s=2.5) == 2.5
