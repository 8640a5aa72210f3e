"""What goes over the wire to an OpenAI-compatible server, and how replies are read.

Shared by :mod:`marginalia.llm.openai_provider`: the three structured-output modes and
their request bodies, the signs that a server refused ``response_format``, JSON taken
out of a model's text, error classification for retries, and the ``data:`` event stream.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from typing import Any, Literal

import httpx

from marginalia.llm.retry import Retryable, is_retryable_status, parse_retry_after

#: Structured-output modes, strongest first. ``json_schema``: the server constrains the
#: output to the schema; ``json_object``: the server guarantees JSON, the schema travels
#: in the system message; ``prompt``: no ``response_format`` at all, the schema in the
#: system message and the JSON taken out of the reply's text.
ResponseMode = Literal["json_schema", "json_object", "prompt"]
MODES: tuple[ResponseMode, ...] = ("json_schema", "json_object", "prompt")

# A refusal of response_format: these statuses with a body that names the feature.
# (llama-cpp-python and older llama.cpp answer json_schema with a 500; vLLM says 400,
# FastAPI-based servers 422.) A 400 about the context size or the model is no refusal.
_FORMAT_REFUSAL_STATUS = frozenset({400, 422, 500, 501})
_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "grammar", "schema")

_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


class StatusError(Exception):
    """A non-2xx reply, kept with its body for classification and messages."""

    def __init__(self, response: httpx.Response, body_text: str) -> None:
        super().__init__(f"HTTP {response.status_code}: {body_text[:500]}")
        self.status_code = response.status_code
        self.headers = response.headers
        self.body_text = body_text


class FormatRefused(Exception):
    """The server refused the ``response_format`` of the request (see :func:`refuses_format`)."""


class StreamError(Exception):
    """An ``error`` object inside an event stream, or a stream that ended without
    ``data: [DONE]`` or a ``finish_reason``."""


class AttemptTimeout(Exception):
    """One attempt ran out of its per-attempt timeout (the deadline still has time)."""


def refuses_format(status_code: int, body_text: str) -> bool:
    text = body_text.lower()
    return status_code in _FORMAT_REFUSAL_STATUS and any(w in text for w in _FORMAT_WORDS)


def classify_openai_error(exc: BaseException) -> Retryable | None:
    """Retry 429, 5xx, connection errors and timeouts."""
    if isinstance(exc, StatusError):
        if is_retryable_status(exc.status_code):
            return Retryable(str(exc), parse_retry_after(exc.headers))
        return None
    if isinstance(exc, StreamError):
        return Retryable(str(exc))
    if isinstance(exc, AttemptTimeout):
        return Retryable(str(exc))
    if isinstance(exc, httpx.TimeoutException):
        return Retryable(f"request timed out ({type(exc).__name__})")
    if isinstance(exc, httpx.TransportError):
        return Retryable(f"connection error: {type(exc).__name__}: {exc}")
    return None


def parse_json_content(content: str) -> Any:
    """JSON from a model reply: bare, inside ```json fences, or the outermost {...}."""
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        start, end = text.find("{"), text.rfind("}")
        if 0 <= start < end:
            return json.loads(text[start : end + 1])
        raise


def looks_like_json(content: str) -> bool:
    """Whether a reply at least starts as JSON (then a parse error is the model's, not a
    sign that the server ignored ``response_format``)."""
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    return text.startswith(("{", "["))


def response_format(mode: ResponseMode, name: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    if mode == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": True},
        }
    if mode == "json_object":
        return {"type": "json_object"}
    return None


def system_for(system: str, mode: ResponseMode, schema: dict[str, Any]) -> str:
    if mode == "json_schema":
        return system
    return (
        f"{system}\n\nReply with one JSON object, and nothing else, that validates "
        f"against this JSON schema:\n{json.dumps(schema, separators=(',', ':'))}"
    )


def repair_prompt(prompt: str, problem: str) -> str:
    """The prompt again, with what was wrong with the previous reply."""
    return (
        f"{prompt}\n\nYour previous reply could not be used: {problem}\n"
        "Reply again with only one JSON object that validates against the schema; keep "
        "every list short."
    )


def reply_content(data: dict[str, Any]) -> tuple[str | None, str | None]:
    """``(content, finish_reason)`` of the first choice of a chat completion."""
    choices = data.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices else {}
    if not isinstance(choice, dict):
        choice = {}
    message = choice.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    finish = choice.get("finish_reason")
    return (
        content if isinstance(content, str) else None,
        finish if isinstance(finish, str) else None,
    )


def served_model(data: dict[str, Any], requested: str) -> str:
    """The model the server says it ran; llama.cpp reports its GGUF path: keep the file name."""
    model = data.get("model")
    if not isinstance(model, str) or not model.strip():
        return requested
    return model.strip().replace("\\", "/").rsplit("/", 1)[-1]


async def sse_chunks(lines: AsyncIterator[str]) -> AsyncIterator[dict[str, Any] | None]:
    """The JSON payloads of ``data:`` lines; None for ``data: [DONE]``, then the end."""
    async for line in lines:
        if not line.startswith("data:"):
            continue  # blank separators, ": keep-alive" comments, "event:" lines
        payload = line[5:].strip()
        if payload == "[DONE]":
            yield None
            return
        if not payload:
            continue
        chunk = json.loads(payload)
        if not isinstance(chunk, dict):
            continue
        if chunk.get("error"):
            raise StreamError(f"error event in the stream: {chunk['error']}")
        yield chunk
