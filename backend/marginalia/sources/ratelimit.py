"""Politeness and resilience for external sources.

* :class:`RateLimiter` — at least ``min_interval_s`` between the *starts* of calls to
  one source (DESIGN §6: 1 s per external source). Loop-agnostic and thread-safe: a slot
  is reserved under a plain lock, the wait happens outside it.
* :func:`call_with_retry` — runs one logical call: waits for the limiter before every
  attempt, retries retryable :class:`SourceError`s (429, 5xx, timeouts, connection
  failures) with exponential backoff and jitter, honours ``Retry-After``, and bounds the
  whole thing by an overall deadline so nothing hangs.

Client libraries' own sleeps and retries are switched off so every retry is ours.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

import requests
import requests.adapters

from marginalia.retry import RetryPolicy, parse_retry_after
from marginalia.sources.base import SourceError

logger = logging.getLogger(__name__)

T = TypeVar("T")


class RateLimiter:
    """Spaces call starts at least ``min_interval_s`` apart (FIFO by reservation)."""

    def __init__(
        self, min_interval_s: float, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if min_interval_s < 0:
            raise ValueError("min_interval_s must be >= 0")
        self.min_interval_s = min_interval_s
        self._clock = clock
        self._mutex = threading.Lock()
        self._next_start: float | None = None

    def reserve(self) -> float:
        """Book the next slot; returns how many seconds to wait before starting."""
        with self._mutex:
            now = self._clock()
            start = now if self._next_start is None else max(now, self._next_start)
            self._next_start = start + self.min_interval_s
            return start - now

    async def acquire(self) -> None:
        delay = self.reserve()
        if delay > 0:
            await asyncio.sleep(delay)

    async def __aenter__(self) -> RateLimiter:
        await self.acquire()
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None


_registry: dict[tuple[str, float], RateLimiter] = {}
_registry_lock = threading.Lock()


def shared_limiter(source: str, min_interval_s: float) -> RateLimiter:
    """The process-wide limiter of ``source`` (one per source and interval), so several
    client instances of one source still respect the spacing together."""
    key = (source, float(min_interval_s))
    with _registry_lock:
        limiter = _registry.get(key)
        if limiter is None:
            limiter = _registry[key] = RateLimiter(min_interval_s)
        return limiter


#: A source call's overall bound when its policy sets none.
DEFAULT_DEADLINE_S = 60.0


def http_status_error(
    source: str, status: int, headers: Mapping[str, str] | None, detail: str = ""
) -> SourceError:
    """A uniform ``http_status`` SourceError (Retry-After parsed from ``headers``)."""
    message = f"HTTP {status}" + (f": {detail}" if detail else "")
    return SourceError(
        source, "http_status", message, status=status, retry_after_s=parse_retry_after(headers)
    )


async def call_with_retry(
    attempt: Callable[[], Awaitable[T]],
    *,
    source: str,
    policy: RetryPolicy,
    limiter: RateLimiter | None = None,
    on_retry: Callable[[int, SourceError, float], None] | None = None,
    describe: str = "request",
) -> T:
    """Run ``attempt`` until it succeeds, fails for good, or the deadline passes.

    ``attempt`` must raise :class:`SourceError` for failures. Non-retryable errors
    propagate at once; retryable ones are retried up to ``policy.max_retries`` times.
    When the deadline passes (or a Retry-After would pass it) a
    ``SourceError(reason="timeout")`` is raised.
    """
    loop = asyncio.get_running_loop()
    deadline_s = policy.deadline_s if policy.deadline_s is not None else DEFAULT_DEADLINE_S
    deadline_at = loop.time() + deadline_s
    retries = 0
    last: SourceError | None = None
    try:
        async with asyncio.timeout(deadline_s):
            while True:
                if limiter is not None:
                    await limiter.acquire()
                try:
                    return await attempt()
                except SourceError as exc:
                    last = exc
                    exc.attempts = retries + 1
                    if not exc.retryable or retries >= policy.max_retries:
                        raise
                    delay = policy.delay(retries, exc.retry_after_s)
                    if loop.time() + delay > deadline_at:
                        raise SourceError(
                            source,
                            "timeout",
                            f"{describe}: retry in {delay:.1f}s would pass the "
                            f"{deadline_s:g}s deadline; last error: {exc.message}",
                            status=exc.status,
                            attempts=retries + 1,
                        ) from exc
                    retries += 1
                    logger.info(
                        "%s %s failed (%s); retry %d/%d in %.2fs",
                        source,
                        describe,
                        exc.message,
                        retries,
                        policy.max_retries,
                        delay,
                    )
                    if on_retry is not None:
                        on_retry(retries, exc, delay)
                    await asyncio.sleep(delay)
    except TimeoutError as exc:
        detail = f"; last error: {last.message}" if last is not None else ""
        raise SourceError(
            source,
            "timeout",
            f"{describe}: gave up after the {deadline_s:g}s deadline "
            f"({retries + 1} attempt(s)){detail}",
            attempts=retries + 1,
        ) from exc


class _TimeoutAdapter(requests.adapters.HTTPAdapter):
    """An adapter that applies a default timeout and never retries on its own."""

    def __init__(self, timeout_s: float) -> None:
        super().__init__(max_retries=0)
        self._timeout_s = timeout_s

    def send(
        self,
        request: requests.PreparedRequest,
        stream: bool = False,
        timeout: float | tuple[float | None, float | None] | None = None,
        verify: bool | str = True,
        cert: str | tuple[str, str] | None = None,
        proxies: dict[str, str] | None = None,
    ) -> requests.Response:
        return super().send(
            request,
            stream=stream,
            timeout=self._timeout_s if timeout is None else timeout,
            verify=verify,
            cert=cert,
            proxies=proxies,
        )


def requests_session(timeout_s: float) -> requests.Session:
    """A ``requests`` session for the sync client libraries (arxiv, pyalex): every request
    times out after ``timeout_s`` (connect and read), and transport retries are off."""
    session = requests.Session()
    adapter = _TimeoutAdapter(timeout_s)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def requests_error(source: str, exc: requests.RequestException, describe: str) -> SourceError:
    """Translate a ``requests`` exception into a :class:`SourceError`."""
    if isinstance(exc, requests.Timeout):
        return SourceError(source, "timeout", f"{describe}: request timed out ({exc})")
    if isinstance(exc, requests.HTTPError) and exc.response is not None:
        resp = exc.response
        return http_status_error(source, resp.status_code, resp.headers, _short_body(resp))
    if isinstance(exc, requests.ConnectionError):
        return SourceError(source, "unreachable", f"{describe}: cannot connect ({exc})")
    return SourceError(source, "bad_response", f"{describe}: {exc}")


def _short_body(resp: requests.Response, limit: int = 200) -> str:
    try:
        text = resp.text
    except Exception:  # a body that cannot be decoded is not worth a second error
        return ""
    return " ".join(text.split())[:limit]
