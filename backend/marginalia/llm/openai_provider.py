"""OpenAI-compatible chat completions over httpx (Ollama, vLLM, llama.cpp server, ...).

Structured output asks for ``response_format: json_schema`` (strict); a server that
answers 400 about ``response_format`` is asked again with ``json_object`` mode (the
schema then travels in the system message), and the fallback is remembered for the
life of the provider. Either way the reply is parsed as JSON and validated with the
pydantic model. Streaming reads ``data:`` server-sent events up to ``data: [DONE]``.
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal

import httpx

from marginalia.llm.base import ChatMessage, T, tool_name_for, validate_output
from marginalia.llm.errors import (
    LLMError,
    LLMRequestError,
    LLMResponseError,
    LLMUnavailableError,
)
from marginalia.llm.retry import (
    Retrier,
    Retryable,
    RetryPolicy,
    is_retryable_status,
    parse_retry_after,
)
from marginalia.llm.usage import CallUsage, Task, UsageLedger, error_kind, estimate_cost

if TYPE_CHECKING:
    from marginalia.config import LLMSettings

ResponseMode = Literal["json_schema", "json_object"]

_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)


class _StatusError(Exception):
    """A non-2xx reply, kept with its body for classification and messages."""

    def __init__(self, response: httpx.Response, body_text: str) -> None:
        super().__init__(f"HTTP {response.status_code}: {body_text[:500]}")
        self.status_code = response.status_code
        self.headers = response.headers
        self.body_text = body_text


class _StreamError(Exception):
    """An ``error`` object inside an event stream, or a stream that ended without
    ``data: [DONE]`` or a ``finish_reason``."""


def classify_openai_error(exc: BaseException) -> Retryable | None:
    """Retry 429, 5xx, connection errors and timeouts."""
    if isinstance(exc, _StatusError):
        if is_retryable_status(exc.status_code):
            return Retryable(str(exc), parse_retry_after(exc.headers))
        return None
    if isinstance(exc, _StreamError):
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


class OpenAICompatibleProvider:
    name = "openai"
    is_generative = True

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout_s: float = 120.0,
        retry_policy: RetryPolicy | None = None,
        usage: UsageLedger | None = None,
        temperature: float | None = 0.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.AsyncClient(
            base_url=base_url.rstrip("/") + "/",
            headers=headers,
            timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 10.0)),
        )
        self._model = model
        self.retry_policy = retry_policy or RetryPolicy()
        self.usage = usage if usage is not None else UsageLedger()
        self._temperature = temperature
        self._sleep = sleep
        # Switched to "json_object" the first time the server rejects json_schema.
        self.response_mode: ResponseMode = "json_schema"

    @classmethod
    def from_settings(
        cls, settings: LLMSettings, *, usage: UsageLedger | None = None
    ) -> OpenAICompatibleProvider:
        key = settings.openai_api_key.get_secret_value() if settings.openai_api_key else None
        return cls(
            base_url=settings.openai_base_url,
            model=settings.openai_model,
            api_key=key or None,
            timeout_s=settings.timeout_s,
            retry_policy=RetryPolicy(max_retries=settings.max_retries),
            usage=usage,
        )

    def model_for(self, task: Task) -> str:
        return self._model

    async def aclose(self) -> None:
        await self._client.aclose()

    # -- structured output -------------------------------------------------------------

    async def structured(self, *, task: Task, system: str, prompt: str, schema: type[T]) -> T:
        model = self._model
        retrier = self._retrier(model)
        started = time.perf_counter()
        try:
            data = await self._complete_json(model, system, prompt, schema, retrier)
        except LLMError as exc:
            self._record(task, model, None, started, retrier.retries, error=exc)
            raise

        try:
            result = self._parse_reply(data, schema, model)
        except LLMResponseError as exc:
            self._record(task, model, data.get("usage"), started, retrier.retries, exc)
            raise
        self._record(task, model, data.get("usage"), started, retrier.retries, None)
        return result

    def _parse_reply(self, data: dict[str, Any], schema: type[T], model: str) -> T:
        choices = data.get("choices")
        choice = choices[0] if isinstance(choices, list) and choices else {}
        if not isinstance(choice, dict):
            choice = {}
        message = choice.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        finish = choice.get("finish_reason")
        if not isinstance(content, str) or not content.strip():
            raise LLMResponseError(
                f"the reply held no message content (finish_reason={finish})",
                provider=self.name,
                model=model,
            )
        try:
            parsed = parse_json_content(content)
        except json.JSONDecodeError as exc:
            raise LLMResponseError(
                f"the reply is not valid JSON ({exc.msg} at char {exc.pos}): {content[:200]!r}",
                provider=self.name,
                model=model,
            ) from exc
        return validate_output(
            schema,
            parsed,
            provider=self.name,
            model=model,
            stop_reason="max_tokens" if finish == "length" else finish,
        )

    async def _complete_json(
        self, model: str, system: str, prompt: str, schema: type[T], retrier: Retrier
    ) -> dict[str, Any]:
        json_schema = schema.model_json_schema()
        while True:
            mode = self.response_mode
            body: dict[str, Any] = {
                "model": model,
                "messages": [
                    {"role": "system", "content": _system_for(system, mode, json_schema)},
                    {"role": "user", "content": prompt},
                ],
                "response_format": _response_format(mode, tool_name_for(schema), json_schema),
                "stream": False,
            }
            if self._temperature is not None:
                body["temperature"] = self._temperature
            try:
                return await retrier.run(functools.partial(self._post_json, model, body))
            except _StatusError as exc:
                text = exc.body_text.lower()
                if (
                    mode == "json_schema"
                    and exc.status_code == 400
                    and ("response_format" in text or "json_schema" in text)
                ):
                    self.response_mode = "json_object"
                    continue
                raise _refused(model, exc) from exc

    async def _post_json(self, model: str, body: dict[str, Any]) -> dict[str, Any]:
        response = await self._client.post("chat/completions", json=body)
        if response.status_code >= 400:
            raise _StatusError(response, response.text)
        try:
            data = response.json()
        except json.JSONDecodeError as exc:
            raise LLMResponseError(
                f"the response body is not JSON: {response.text[:200]!r}",
                provider=self.name,
                model=model,
            ) from exc
        if not isinstance(data, dict):
            raise LLMResponseError(
                "the response body is not a JSON object", provider=self.name, model=model
            )
        return data

    # -- streaming ---------------------------------------------------------------------

    async def stream_text(
        self, *, task: Task, system: str, messages: list[ChatMessage]
    ) -> AsyncIterator[str]:
        model = self._model
        body: dict[str, Any] = {
            "model": model,
            "messages": [{"role": "system", "content": system}]
            + [{"role": m.role, "content": m.content} for m in messages],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        retrier = self._retrier(model)
        started = time.perf_counter()
        yielded = False
        usage: dict[str, Any] | None = None
        while True:
            try:
                async with self._client.stream("POST", "chat/completions", json=body) as response:
                    if response.status_code >= 400:
                        text = (await response.aread()).decode("utf-8", "replace")
                        raise _StatusError(response, text)
                    finished = False
                    try:
                        async for chunk in _sse_chunks(response):
                            if chunk is None:  # data: [DONE]
                                finished = True
                                break
                            if isinstance(chunk.get("usage"), dict):
                                usage = chunk["usage"]
                            for choice in chunk.get("choices") or []:
                                finished = finished or bool(choice.get("finish_reason"))
                                delta = (choice.get("delta") or {}).get("content")
                                if delta:
                                    yielded = True
                                    yield delta
                        if not finished:
                            raise _StreamError("the event stream ended before data: [DONE]")
                    except (GeneratorExit, asyncio.CancelledError):
                        # The consumer stopped early; the tokens were spent all the same.
                        self._record(task, model, usage, started, retrier.retries, None)
                        raise
                self._record(task, model, usage, started, retrier.retries, None)
                return
            except (_StatusError, _StreamError, httpx.TransportError, json.JSONDecodeError) as exc:
                error: LLMError
                if not yielded:
                    try:
                        if await retrier.should_retry(exc):
                            continue
                    except LLMError as final:
                        self._record(task, model, None, started, retrier.retries, final)
                        raise
                if isinstance(exc, _StatusError):
                    error = _refused(model, exc)
                elif isinstance(exc, json.JSONDecodeError):
                    error = LLMResponseError(
                        f"malformed event in the stream: {exc.msg}", provider=self.name, model=model
                    )
                else:
                    error = LLMUnavailableError(
                        f"openai-compatible model {model!r}: stream broke off: {exc}",
                        retries=retrier.retries,
                    )
                self._record(task, model, usage, started, retrier.retries, error)
                raise error from exc

    # -- helpers -----------------------------------------------------------------------

    def _retrier(self, model: str) -> Retrier:
        return Retrier(
            self.retry_policy,
            classify_openai_error,
            describe=f"openai-compatible model {model!r} at {self._client.base_url}",
            sleep=self._sleep,
        )

    def _record(
        self,
        task: Task,
        model: str,
        usage: Any,
        started: float,
        retries: int,
        error: LLMError | None,
    ) -> None:
        u = usage if isinstance(usage, dict) else {}
        prompt_tokens = int(u.get("prompt_tokens") or 0)
        output_tokens = int(u.get("completion_tokens") or 0)
        details = u.get("prompt_tokens_details")
        cached = int(details.get("cached_tokens") or 0) if isinstance(details, dict) else 0
        input_tokens = max(prompt_tokens - cached, 0)
        self.usage.record(
            CallUsage(
                provider=self.name,
                model=model,
                task=task,
                input_tokens=input_tokens,
                output_tokens=output_tokens,
                cache_read_tokens=cached,
                cache_creation_tokens=0,
                cost_usd=estimate_cost(
                    model,
                    input_tokens=input_tokens,
                    output_tokens=output_tokens,
                    cache_read_tokens=cached,
                ),
                latency_ms=(time.perf_counter() - started) * 1000,
                retries=retries,
                ok=error is None,
                error=error_kind(error),
            )
        )


def _response_format(mode: ResponseMode, name: str, schema: dict[str, Any]) -> dict[str, Any]:
    if mode == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": True},
        }
    return {"type": "json_object"}


def _system_for(system: str, mode: ResponseMode, schema: dict[str, Any]) -> str:
    if mode == "json_schema":
        return system
    return (
        f"{system}\n\nReply with one JSON object, and nothing else, that validates "
        f"against this JSON schema:\n{json.dumps(schema, separators=(',', ':'))}"
    )


async def _sse_chunks(response: httpx.Response) -> AsyncIterator[dict[str, Any] | None]:
    """The JSON payloads of ``data:`` lines; None for ``data: [DONE]``, then the end."""
    async for line in response.aiter_lines():
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
            raise _StreamError(f"error event in the stream: {chunk['error']}")
        yield chunk


def _refused(model: str, exc: _StatusError) -> LLMRequestError:
    return LLMRequestError(
        f"openai-compatible model {model!r}: request refused with {exc}",
        status_code=exc.status_code,
    )
