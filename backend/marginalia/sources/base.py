"""The interface every discovery source implements, and the one error they raise."""

from __future__ import annotations

from typing import Literal, Protocol, runtime_checkable

from marginalia.sources.candidate import Candidate

SourceErrorReason = Literal[
    "unreachable",  # connection refused / DNS / reset
    "http_status",  # the service answered with a non-success status (see ``status``)
    "timeout",  # one request, or the whole call's deadline, ran out
    "bad_response",  # the body could not be parsed into results
    "not_configured",  # the source needs a setting (API key, path) that is missing
]


class SourceError(Exception):
    """A source could not deliver results. The pipeline reports it and continues.

    ``reason`` is machine-readable (see :data:`SourceErrorReason`); ``message`` is for
    people. ``status`` and ``retry_after_s`` are set for HTTP errors.
    """

    def __init__(
        self,
        source: str,
        reason: SourceErrorReason,
        message: str,
        *,
        status: int | None = None,
        retry_after_s: float | None = None,
        attempts: int | None = None,
    ) -> None:
        super().__init__(f"{source}: {message}")
        self.source = source
        self.reason: SourceErrorReason = reason
        self.message = message
        self.status = status
        self.retry_after_s = retry_after_s
        self.attempts = attempts

    @property
    def retryable(self) -> bool:
        """Worth another try: timeouts, connection failures, 408/429 and 5xx."""
        if self.reason in ("timeout", "unreachable"):
            return True
        if self.reason == "http_status" and self.status is not None:
            return self.status in (408, 429) or self.status >= 500
        return False

    def __repr__(self) -> str:
        return (
            f"SourceError(source={self.source!r}, reason={self.reason!r}, "
            f"message={self.message!r}, status={self.status!r})"
        )


@runtime_checkable
class SourceClient(Protocol):
    """A place candidates come from: arXiv, OpenAlex, Brave, the local catalog, ..."""

    name: str

    async def search(self, query: str, *, limit: int) -> list[Candidate]:
        """Up to ``limit`` candidates for ``query``; raises :class:`SourceError`."""
        ...


_NAMES = {"arxiv": "arXiv", "openalex": "OpenAlex", "brave": "Brave", "catalog": "catalog"}
_CAUSES = (
    (
        "DNS",
        (
            "name resolution",
            "nameresolution",
            "name or service not known",
            "getaddrinfo",
            "nodename nor servname",
            "no address associated",
        ),
    ),
    ("connection refused", ("refused",)),
    ("TLS", ("ssl", "certificate", "tls")),
    ("connection reset", ("reset", "broken pipe", "remote end closed", "disconnected")),
    ("proxy", ("proxy",)),
)


def describe_failure(source: str, reason: str | None, message: str | None) -> str:
    """One line for people: ``arXiv: unreachable (DNS)``, ``OpenAlex: timeout``,
    ``Brave: not configured (set MARGINALIA_SOURCES__BRAVE_API_KEY)`` — never the raw
    exception text of the HTTP library."""
    name = _NAMES.get(source, source)
    text = (message or "").lower()
    if reason == "not_configured":
        hint = message.split(": ", 1)[-1] if message and ": " in message else message
        return f"{name}: not configured" + (f" ({hint})" if hint else "")
    if reason == "http_status":
        status = next(
            (w for w in text.replace("(", " ").split() if w.isdigit() and len(w) == 3), None
        )
        return f"{name}: HTTP error" + (f" ({status})" if status else "")
    if reason == "timeout":
        return f"{name}: timeout"
    if reason == "bad_response":
        return f"{name}: unreadable response"
    cause = next((label for label, words in _CAUSES if any(w in text for w in words)), None)
    return f"{name}: {(reason or 'failed').replace('_', ' ')}" + (f" ({cause})" if cause else "")
