"""OpenAI-compatible chat completions over httpx (Ollama, vLLM, llama.cpp server, ...).

Structured output, per call:

* ``max_tokens`` from settings for the call type, and a schema whose arrays and strings
  are all bounded (:func:`marginalia.llm.schema.bounded_json_schema`), so a small model
  cannot loop until its context is full;
* ``response_format`` falls back ``json_schema`` → ``json_object`` → plain prompting
  (schema in the system message, JSON taken out of the text) whenever the server
  refuses it: a 400/422/500/501 whose body names response_format/json_schema/grammar,
  or a 200 whose content is not JSON although JSON was asked for. The fallback is
  remembered for the life of the provider, so later calls skip what failed;
* output that is not valid JSON, or not valid against the schema, is asked for once
  more with the problem in the prompt; a second failure is an LLMResponseError;
* one :class:`~marginalia.llm.deadline.Deadline` bounds all of it: each HTTP attempt
  gets ``min(timeout_s, remaining)`` and nothing starts once it has passed.

Streaming reads ``data:`` server-sent events up to ``data: [DONE]``, every read bounded
by what is left of the deadline.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx

from marginalia.llm.base import ChatMessage, T, tool_name_for, validate_output
from marginalia.llm.deadline import Deadline
from marginalia.llm.errors import (
    LLMDeadlineError,
    LLMError,
    LLMRequestError,
    LLMResponseError,
    LLMUnavailableError,
)
from marginalia.llm.limits import CallLimits, call_type
from marginalia.llm.openai_wire import (
    MODES,
    AttemptTimeout,
    FormatRefused,
    ResponseMode,
    StatusError,
    StreamError,
    classify_openai_error,
    looks_like_json,
    parse_json_content,
    refuses_format,
    repair_prompt,
    reply_content,
    response_format,
    served_model,
    sse_chunks,
    system_for,
)
from marginalia.llm.retry import Retrier, RetryPolicy
from marginalia.llm.schema import bounded_json_schema
from marginalia.llm.usage import CallType, CallUsage, Task, UsageLedger, error_kind, estimate_cost

if TYPE_CHECKING:
    from marginalia.config import LLMSettings

__all__ = ["OpenAICompatibleProvider", "ResponseMode", "parse_json_content"]

log = logging.getLogger(__name__)


@dataclass
class _Tally:
    """Tokens and attempts of one logical call, over every HTTP reply it got."""

    task: Task
    call: CallType
    model: str
    started: float
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    attempts: int = 0

    def add(self, usage: Any) -> None:
        u = usage if isinstance(usage, dict) else {}
        self.prompt_tokens += int(u.get("prompt_tokens") or 0)
        self.completion_tokens += int(u.get("completion_tokens") or 0)
        details = u.get("prompt_tokens_details")
        if isinstance(details, dict):
            self.cached_tokens += int(details.get("cached_tokens") or 0)


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
        limits: CallLimits | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.AsyncClient(
            base_url=base_url.rstrip("/") + "/",
            headers=headers,
            timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 10.0)),
        )
        self._model = model
        self._timeout_s = timeout_s
        self.retry_policy = retry_policy or RetryPolicy()
        self.usage = usage if usage is not None else UsageLedger()
        self.limits = limits or CallLimits.defaults()
        self._temperature = temperature
        self._sleep = sleep
        # Moves down MODES the first time the server refuses a mode; never back up.
        self.response_mode: ResponseMode = "json_schema"
        # Why each fallback happened, in order (for logs, tests and `marginalia config`).
        self.format_fallbacks: list[str] = []

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
            limits=CallLimits.from_settings(settings),
        )

    def model_for(self, task: Task) -> str:
        return self._model

    async def aclose(self) -> None:
        await self._client.aclose()

    # -- structured output -------------------------------------------------------------

    async def structured(
        self,
        *,
        task: Task,
        system: str,
        prompt: str,
        schema: type[T],
        call: CallType | None = None,
        deadline: Deadline | None = None,
    ) -> T:
        kind = call_type(task, call)
        deadline = self.limits.deadline(kind, deadline)
        tally = _Tally(task, kind, self._model, time.perf_counter())
        retrier = self._retrier(deadline)
        json_schema = bounded_json_schema(schema)
        problem: str | None = None  # what was wrong with the previous reply, once
        while True:
            mode = self.response_mode
            body = self._structured_body(
                system=system,
                prompt=prompt if problem is None else repair_prompt(prompt, problem),
                mode=mode,
                name=tool_name_for(schema),
                json_schema=json_schema,
                max_tokens=self.limits.max_tokens[kind],
            )
            try:
                data = await retrier.run(
                    functools.partial(self._post_json, body, mode, deadline, tally)
                )
            except FormatRefused as exc:
                self._fall_back(mode, str(exc))
                continue
            except StatusError as exc:
                refused = _refused(self._model, exc)
                self._record(tally, retrier.retries, refused)
                raise refused from exc
            except LLMError as exc:
                self._record(tally, retrier.retries, exc)
                raise

            tally.add(data.get("usage"))
            tally.model = served_model(data, self._model)
            content, finish = reply_content(data)
            cut_off = finish == "length"
            if content is None or not content.strip():
                failure = f"the reply held no message content (finish_reason={finish})"
            else:
                try:
                    parsed = parse_json_content(content)
                except json.JSONDecodeError as exc:
                    if mode != "prompt" and not cut_off and not looks_like_json(content):
                        self._fall_back(
                            mode, f"HTTP 200 whose content is not JSON: {content[:120]!r}"
                        )
                        continue
                    failure = (
                        f"the reply is not valid JSON ({exc.msg} at char {exc.pos})"
                        + (" because it was cut off at max_tokens" if cut_off else "")
                        + f": {content[:200]!r}"
                    )
                else:
                    try:
                        result = validate_output(
                            schema,
                            parsed,
                            provider=self.name,
                            model=tally.model,
                            stop_reason="max_tokens" if cut_off else finish,
                        )
                    except LLMResponseError as exc:
                        failure = exc.detail
                    else:
                        self._record(tally, retrier.retries, None)
                        return result
            if problem is not None:
                error = LLMResponseError(
                    f"{failure} (also after one repair attempt)",
                    provider=self.name,
                    model=tally.model,
                )
                self._record(tally, retrier.retries, error)
                raise error
            log.info("openai-compatible %s: invalid output, asking once more: %s", kind, failure)
            problem = failure

    def _structured_body(
        self,
        *,
        system: str,
        prompt: str,
        mode: ResponseMode,
        name: str,
        json_schema: dict[str, Any],
        max_tokens: int,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self._model,
            "messages": [
                {"role": "system", "content": system_for(system, mode, json_schema)},
                {"role": "user", "content": prompt},
            ],
            "max_tokens": max_tokens,
            "stream": False,
        }
        fmt = response_format(mode, name, json_schema)
        if fmt is not None:
            body["response_format"] = fmt
        if self._temperature is not None:
            body["temperature"] = self._temperature
        return body

    def _fall_back(self, mode: ResponseMode, why: str) -> None:
        """Move to the mode after ``mode`` (once per provider: later calls start there)."""
        following = MODES[MODES.index(mode) + 1]
        if MODES.index(following) > MODES.index(self.response_mode):
            self.response_mode = following
            self.format_fallbacks.append(f"{mode} → {following}: {why}")
            log.warning(
                "openai-compatible server at %s refused %s (%s); using %s from now on",
                self._client.base_url,
                mode,
                why[:200],
                following,
            )

    async def _post_json(
        self, body: dict[str, Any], mode: ResponseMode, deadline: Deadline, tally: _Tally
    ) -> dict[str, Any]:
        timeout = deadline.attempt_timeout(self._timeout_s)
        tally.attempts += 1
        try:
            async with asyncio.timeout(timeout):
                response = await self._client.post(
                    "chat/completions", json=body, timeout=_httpx_timeout(timeout)
                )
        except (TimeoutError, httpx.TimeoutException) as exc:
            if deadline.expired:
                raise self._deadline_error(deadline) from exc
            raise AttemptTimeout(f"no reply within the attempt timeout of {timeout:g} s") from exc
        if response.status_code >= 400:
            error = StatusError(response, response.text)
            if mode != "prompt" and refuses_format(response.status_code, response.text):
                raise FormatRefused(str(error)) from error
            raise error
        try:
            data = response.json()
        except json.JSONDecodeError as exc:
            raise LLMResponseError(
                f"the response body is not JSON: {response.text[:200]!r}",
                provider=self.name,
                model=self._model,
            ) from exc
        if not isinstance(data, dict):
            raise LLMResponseError(
                "the response body is not a JSON object", provider=self.name, model=self._model
            )
        return data

    # -- streaming ---------------------------------------------------------------------

    async def stream_text(
        self,
        *,
        task: Task,
        system: str,
        messages: list[ChatMessage],
        call: CallType | None = None,
        deadline: Deadline | None = None,
    ) -> AsyncIterator[str]:
        kind = call_type(task, call) if call is not None else "chat"
        deadline = self.limits.deadline(kind, deadline)
        body: dict[str, Any] = {
            "model": self._model,
            "messages": [{"role": "system", "content": system}]
            + [{"role": m.role, "content": m.content} for m in messages],
            "max_tokens": self.limits.max_tokens[kind],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if self._temperature is not None:
            body["temperature"] = self._temperature
        tally = _Tally(task, kind, self._model, time.perf_counter())
        retrier = self._retrier(deadline)
        yielded = False
        usage: dict[str, Any] | None = None
        while True:
            try:
                retrier.check_deadline()
                tally.attempts += 1
                response = await self._open_stream(body, deadline)
                try:
                    if response.status_code >= 400:
                        text = (await response.aread()).decode("utf-8", "replace")
                        raise StatusError(response, text)
                    finished = False
                    try:
                        async for chunk in sse_chunks(_bounded_lines(response, deadline)):
                            if chunk is None:  # data: [DONE]
                                finished = True
                                break
                            if isinstance(chunk.get("usage"), dict):
                                usage = chunk["usage"]
                            if isinstance(chunk.get("model"), str):
                                tally.model = served_model(chunk, self._model)
                            for choice in chunk.get("choices") or []:
                                finished = finished or bool(choice.get("finish_reason"))
                                delta = (choice.get("delta") or {}).get("content")
                                if delta:
                                    yielded = True
                                    yield delta
                        if not finished:
                            raise StreamError("the event stream ended before data: [DONE]")
                    except (GeneratorExit, asyncio.CancelledError):
                        # The consumer stopped early; the tokens were spent all the same.
                        tally.add(usage)
                        self._record(tally, retrier.retries, None)
                        raise
                finally:
                    await response.aclose()
                tally.add(usage)
                self._record(tally, retrier.retries, None)
                return
            except _DeadlinePassed as exc:
                error = self._deadline_error(deadline, retrier.retries)
                tally.add(usage)
                self._record(tally, retrier.retries, error)
                raise error from exc
            except LLMError as exc:
                self._record(tally, retrier.retries, exc)
                raise
            except (StatusError, StreamError, httpx.TransportError, json.JSONDecodeError) as exc:
                if not yielded:
                    try:
                        if await retrier.should_retry(exc):
                            continue
                    except LLMError as final:
                        self._record(tally, retrier.retries, final)
                        raise
                failure: LLMError
                if isinstance(exc, StatusError):
                    failure = _refused(self._model, exc)
                elif isinstance(exc, json.JSONDecodeError):
                    failure = LLMResponseError(
                        f"malformed event in the stream: {exc.msg}",
                        provider=self.name,
                        model=self._model,
                    )
                else:
                    failure = LLMUnavailableError(
                        f"openai-compatible model {self._model!r}: stream broke off: {exc}",
                        retries=retrier.retries,
                    )
                tally.add(usage)
                self._record(tally, retrier.retries, failure)
                raise failure from exc

    async def _open_stream(self, body: dict[str, Any], deadline: Deadline) -> httpx.Response:
        timeout = deadline.attempt_timeout(self._timeout_s)
        request = self._client.build_request(
            "POST", "chat/completions", json=body, timeout=_httpx_timeout(timeout)
        )
        try:
            async with asyncio.timeout(timeout):
                return await self._client.send(request, stream=True)
        except (TimeoutError, httpx.TimeoutException) as exc:
            if deadline.expired:
                raise _DeadlinePassed from exc
            raise

    # -- helpers -----------------------------------------------------------------------

    def _retrier(self, deadline: Deadline) -> Retrier:
        return Retrier(
            self.retry_policy,
            classify_openai_error,
            describe=self._describe(),
            sleep=self._sleep,
            deadline=deadline,
        )

    def _describe(self) -> str:
        return f"openai-compatible model {self._model!r} at {self._client.base_url}"

    def _deadline_error(self, deadline: Deadline, retries: int = 0) -> LLMDeadlineError:
        return deadline.error(self._describe(), retries=retries)

    def _record(self, tally: _Tally, retries: int, error: LLMError | None) -> None:
        input_tokens = max(tally.prompt_tokens - tally.cached_tokens, 0)
        self.usage.record(
            CallUsage(
                provider=self.name,
                model=tally.model,
                task=tally.task,
                input_tokens=input_tokens,
                output_tokens=tally.completion_tokens,
                cache_read_tokens=tally.cached_tokens,
                cache_creation_tokens=0,
                cost_usd=estimate_cost(
                    tally.model,
                    input_tokens=input_tokens,
                    output_tokens=tally.completion_tokens,
                    cache_read_tokens=tally.cached_tokens,
                ),
                latency_ms=(time.perf_counter() - tally.started) * 1000,
                retries=retries,
                ok=error is None,
                error=error_kind(error),
                call=tally.call,
                attempts=max(tally.attempts, 1),
            )
        )


class _DeadlinePassed(Exception):
    """Internal: a stream read or connect was cut off by the deadline."""


async def _bounded_lines(response: httpx.Response, deadline: Deadline) -> AsyncIterator[str]:
    """``response.aiter_lines()``, each read bounded by what is left of the deadline."""
    lines = response.aiter_lines().__aiter__()
    while True:
        try:
            async with asyncio.timeout(deadline.remaining()):
                line = await anext(lines)
        except StopAsyncIteration:
            return
        except TimeoutError as exc:
            raise _DeadlinePassed from exc
        except httpx.TimeoutException as exc:
            if deadline.expired:
                raise _DeadlinePassed from exc
            raise
        yield line


def _httpx_timeout(seconds: float) -> httpx.Timeout:
    seconds = max(seconds, 0.001)
    return httpx.Timeout(seconds, connect=min(seconds, 10.0))


def _refused(model: str, exc: StatusError) -> LLMRequestError:
    return LLMRequestError(
        f"openai-compatible model {model!r}: request refused with {exc}",
        status_code=exc.status_code,
    )
