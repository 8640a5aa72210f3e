"""Errors raised by the LLM layer.

Callers catch :class:`LLMError` for "the model did not give us something usable"; the
subclasses say why, so a job can tell a bad answer (do not store it) from an outage
(try again later) from a misconfiguration (tell the user).
"""

from __future__ import annotations


class LLMError(Exception):
    """Base class of every error raised by an LLM provider."""

    #: Why the model gave nothing usable, in a few words, for engine labels such as
    #: ``extractive (model output invalid)``.
    reason_label = "model failed"


class LLMConfigError(LLMError):
    """The provider cannot be built from the settings (e.g. a missing API key)."""

    reason_label = "model misconfigured"


class LLMResponseError(LLMError):
    """The model answered, but not with valid structured output.

    Raised for malformed JSON, a missing tool call, or output that fails pydantic
    validation. Nothing from such a response may be stored.
    """

    reason_label = "model output invalid"

    def __init__(self, message: str, *, provider: str, model: str) -> None:
        super().__init__(f"{provider} model {model!r}: {message}")
        self.provider = provider
        self.model = model
        self.detail = message


class LLMRequestError(LLMError):
    """The API refused the request and retrying will not help (400, 401, 403, 404, ...)."""

    reason_label = "model refused the request"

    def __init__(self, message: str, *, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code


class LLMUnavailableError(LLMError):
    """The service could not be reached or kept failing: retries exhausted, connection
    refused, timeouts, 429/5xx/overloaded."""

    reason_label = "model unavailable"

    def __init__(self, message: str, *, retries: int = 0) -> None:
        super().__init__(message)
        self.retries = retries


class LLMDeadlineError(LLMUnavailableError):
    """The call's one deadline passed (see :mod:`marginalia.llm.deadline`): an attempt
    was cut off, or no time was left to start another."""

    reason_label = "model deadline passed"

    def __init__(self, message: str, *, retries: int = 0, budget_s: float = 0.0) -> None:
        super().__init__(message, retries=retries)
        self.budget_s = budget_s
