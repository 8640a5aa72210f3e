"""Anthropic Messages API through the official ``anthropic`` SDK.

A Haiku-class model does extraction/decomposition, a Sonnet-class model synthesis. The
stable system prompt goes out as a text block with ``cache_control: ephemeral`` so
repeated calls read it from the prompt cache. Structured output is a forced tool call
whose ``input_schema`` is the pydantic model's JSON schema (every array and string
bounded); the tool input is validated with that model, and invalid input is asked for
once more with the problem in the prompt. ``max_tokens`` and one deadline per call come
from settings by call type (:class:`~marginalia.llm.limits.CallLimits`). The SDK's own
retries are off: :mod:`marginalia.llm.retry` does them, within the deadline.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

import anthropic
from anthropic.types import Message, MessageParam, TextBlockParam, ToolParam

from marginalia.llm.base import (
    ChatMessage,
    T,
    tool_description_for,
    tool_name_for,
    validate_output,
)
from marginalia.llm.deadline import Deadline
from marginalia.llm.errors import (
    LLMConfigError,
    LLMError,
    LLMRequestError,
    LLMResponseError,
    LLMUnavailableError,
)
from marginalia.llm.limits import CallLimits, call_type
from marginalia.llm.openai_wire import repair_prompt
from marginalia.llm.retry import (
    Retrier,
    Retryable,
    RetryPolicy,
    is_retryable_status,
    parse_retry_after,
)
from marginalia.llm.schema import bounded_json_schema
from marginalia.llm.usage import (
    CallType,
    CallUsage,
    Task,
    UsageLedger,
    error_kind,
    estimate_cost,
)

if TYPE_CHECKING:
    from marginalia.config import LLMSettings

R = TypeVar("R")

# Error types Anthropic may send inside a 200 event stream (``event: error``).
_RETRYABLE_ERROR_TYPES = frozenset({"overloaded_error", "rate_limit_error", "api_error"})


def classify_anthropic_error(exc: BaseException) -> Retryable | None:
    """Retry 429, 5xx, 529 overloaded, connection errors and timeouts."""
    if isinstance(exc, anthropic.APIStatusError):
        error_type = exc.type or ""
        if is_retryable_status(exc.status_code) or error_type in _RETRYABLE_ERROR_TYPES:
            detail = exc.api_message or exc.message
            return Retryable(
                f"HTTP {exc.status_code} {error_type}: {detail}".strip(),
                parse_retry_after(exc.response.headers),
            )
        return None
    if isinstance(exc, anthropic.APITimeoutError):
        return Retryable("request timed out")
    if isinstance(exc, anthropic.APIConnectionError):
        return Retryable(f"connection error: {exc.__cause__ or exc}")
    if isinstance(exc, StreamTruncatedError) or _is_transport_error(exc):
        return Retryable(f"stream broke off: {type(exc).__name__}: {exc}")
    if isinstance(exc, AttemptTimeoutError):
        return Retryable(str(exc))
    return None


class StreamTruncatedError(Exception):
    """The event stream ended without ``message_stop``."""


class AttemptTimeoutError(Exception):
    """One attempt ran out of its per-attempt timeout (the deadline still has time)."""


def _is_transport_error(exc: BaseException) -> bool:
    # Mid-stream network failures surface as the SDK's HTTP library's own TransportError
    # (httpx, or httpx2 in SDK 2.x): matched by name so no transitive import is needed.
    return any(
        cls.__name__ == "TransportError" and cls.__module__.split(".")[0] in {"httpx", "httpx2"}
        for cls in type(exc).__mro__
    )


class AnthropicProvider:
    name = "anthropic"
    is_generative = True

    def __init__(
        self,
        *,
        api_key: str,
        extraction_model: str,
        synthesis_model: str,
        base_url: str | None = None,
        timeout_s: float = 120.0,
        retry_policy: RetryPolicy | None = None,
        limits: CallLimits | None = None,
        usage: UsageLedger | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout_s
        )
        self._models: dict[Task, str] = {
            "extraction": extraction_model,
            "synthesis": synthesis_model,
        }
        self._timeout_s = timeout_s
        self.limits = limits or CallLimits.defaults()
        self.retry_policy = retry_policy or RetryPolicy()
        self.usage = usage if usage is not None else UsageLedger()
        self._sleep = sleep

    @classmethod
    def from_settings(
        cls, settings: LLMSettings, *, usage: UsageLedger | None = None
    ) -> AnthropicProvider:
        if settings.anthropic_api_key is None or not settings.anthropic_api_key.get_secret_value():
            raise LLMConfigError(
                "provider 'anthropic' needs an API key: set MARGINALIA_LLM__ANTHROPIC_API_KEY "
                "(or choose MARGINALIA_LLM__PROVIDER=offline|openai)"
            )
        return cls(
            api_key=settings.anthropic_api_key.get_secret_value(),
            base_url=settings.anthropic_base_url,
            extraction_model=settings.extraction_model,
            synthesis_model=settings.synthesis_model,
            timeout_s=settings.timeout_s,
            retry_policy=RetryPolicy(max_retries=settings.max_retries),
            limits=CallLimits.from_settings(settings),
            usage=usage,
        )

    def model_for(self, task: Task) -> str:
        return self._models[task]

    async def aclose(self) -> None:
        await self._client.close()

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
        model = self._models[task]
        kind = call_type(task, call)
        tool_name = tool_name_for(schema)
        tool: ToolParam = {
            "name": tool_name,
            "description": tool_description_for(schema),
            "input_schema": bounded_json_schema(schema),
        }
        run = _Call(self, task, model, kind, self.limits.deadline(kind, deadline))
        problem: str | None = None  # what was wrong with the previous reply, once
        while True:
            text = prompt if problem is None else repair_prompt(prompt, problem)
            messages: list[MessageParam] = [{"role": "user", "content": text}]

            async def attempt(messages: list[MessageParam] = messages) -> Message:
                return await self._bounded(
                    run,
                    lambda timeout: self._client.messages.create(
                        model=model,
                        max_tokens=self.limits.max_tokens[kind],
                        system=_cached_system(system),
                        messages=messages,
                        tools=[tool],
                        tool_choice={"type": "tool", "name": tool_name},
                        timeout=timeout,
                    ),
                )

            try:
                message = await run.retrier.run(attempt)
            except LLMError as exc:
                run.finish(exc)
                raise
            except (anthropic.APIResponseValidationError, ValueError) as exc:
                # A 200 whose body is not JSON (ValueError) or not a Messages API reply.
                error: LLMError = LLMResponseError(
                    f"the response body is not a valid Messages API reply: {exc}",
                    provider=self.name,
                    model=model,
                )
                run.finish(error)
                raise error from exc
            except anthropic.APIError as exc:
                refused = _request_error(model, exc)
                run.finish(refused)
                raise refused from exc

            run.spent(message)
            try:
                block = next(
                    (b for b in message.content if b.type == "tool_use" and b.name == tool_name),
                    None,
                )
                if block is None:
                    kinds = ", ".join(b.type for b in message.content) or "nothing"
                    raise LLMResponseError(
                        f"expected a call of tool {tool_name!r} but the reply held {kinds} "
                        f"(stop_reason={message.stop_reason})",
                        provider=self.name,
                        model=model,
                    )
                result = validate_output(
                    schema,
                    block.input,
                    provider=self.name,
                    model=model,
                    stop_reason=message.stop_reason,
                )
            except LLMResponseError as exc:
                if problem is None:
                    problem = exc.detail
                    continue
                final = LLMResponseError(
                    f"{exc.detail} (also after one repair attempt)",
                    provider=self.name,
                    model=model,
                )
                run.finish(final)
                raise final from exc
            run.finish(None)
            return result

    async def _bounded(self, run: _Call, send: Callable[[float], Awaitable[R]]) -> R:
        """One attempt with ``timeout=min(timeout_s, remaining)``, cut off at the deadline."""
        timeout = run.deadline.attempt_timeout(self._timeout_s)
        run.attempts += 1
        try:
            async with asyncio.timeout(timeout):
                return await send(timeout)
        except TimeoutError as exc:
            if run.deadline.expired:
                raise run.deadline.error(
                    f"anthropic model {run.model!r}", retries=run.retrier.retries
                ) from exc
            raise AttemptTimeoutError(
                f"no reply within the attempt timeout of {timeout:g} s"
            ) from exc

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
        model = self._models[task]
        kind = call_type(task, call) if call is not None else "chat"
        params = [_message_param(m) for m in messages]
        run = _Call(self, task, model, kind, self.limits.deadline(kind, deadline))
        yielded = False
        while True:
            try:
                run.retrier.check_deadline()
            except LLMError as exc:
                run.finish(exc)
                raise
            timeout = run.deadline.attempt_timeout(self._timeout_s)
            run.attempts += 1
            manager = self._client.messages.stream(
                model=model,
                max_tokens=self.limits.max_tokens[kind],
                system=_cached_system(system),
                messages=params,
                timeout=timeout,
            )
            try:
                async with asyncio.timeout(timeout):
                    stream = await manager.__aenter__()
            except TimeoutError as exc:
                await self._stream_failed(run, _attempt_timeout(run, timeout, exc), yielded)
                continue
            except (anthropic.APIError, ValueError) as exc:
                await self._stream_failed(run, exc, yielded)
                continue
            failed = False
            try:
                texts = stream.text_stream.__aiter__()
                while True:
                    try:
                        async with asyncio.timeout(run.deadline.remaining()):
                            text = await anext(texts)
                    except StopAsyncIteration:
                        break
                    except TimeoutError as exc:
                        raise _attempt_timeout(run, timeout, exc) from exc
                    yielded = True
                    yield text
                snapshot = _snapshot(stream)
                if snapshot is None or snapshot.stop_reason is None:
                    raise StreamTruncatedError("the event stream ended before message_stop")
            except Exception as exc:
                expected = (
                    anthropic.APIError | ValueError | StreamTruncatedError | AttemptTimeoutError
                )
                if isinstance(exc, LLMError):
                    failed = True
                    run.spent(_snapshot(stream))
                    run.finish(exc)
                    raise
                if not (isinstance(exc, expected) or _is_transport_error(exc)):
                    raise

                failed = True
                run.spent(_snapshot(stream))
                await self._stream_failed(run, exc, yielded)
                continue
            finally:
                await manager.__aexit__(None, None, None)
                if not failed:
                    # Normal end, or the consumer stopped early: tokens were spent either way.
                    run.spent(_snapshot(stream))
                    run.finish(None)
            return

    async def _stream_failed(self, call: _Call, exc: Exception, yielded: bool) -> None:
        """Return to retry the stream, or record the failure and raise."""
        model = call.model
        error: LLMError
        if isinstance(exc, LLMError):
            call.finish(exc)
            raise exc
        if isinstance(exc, ValueError):
            error = LLMResponseError(
                f"malformed event stream: {exc}", provider=self.name, model=model
            )
        elif not yielded:
            # Nothing went out yet, so a retry is invisible to the consumer.
            try:
                if await call.retrier.should_retry(exc):
                    return
            except LLMError as final:
                call.finish(final)
                raise
            error = _request_error(model, exc)
        elif classify_anthropic_error(exc) is not None:
            error = LLMUnavailableError(
                f"anthropic model {model!r}: stream broke off after text was sent: {exc}",
                retries=call.retrier.retries,
            )
        else:
            error = _request_error(model, exc)
        call.finish(error)
        raise error from exc

    def _retrier(self, model: str, deadline: Deadline) -> Retrier:
        return Retrier(
            self.retry_policy,
            classify_anthropic_error,
            describe=f"anthropic model {model!r}",
            sleep=self._sleep,
            deadline=deadline,
        )


def _attempt_timeout(run: _Call, timeout: float, exc: BaseException) -> Exception:
    """The deadline's error once it has passed, else a retryable attempt timeout."""
    if run.deadline.expired:
        return run.deadline.error(f"anthropic model {run.model!r}", retries=run.retrier.retries)
    return AttemptTimeoutError(f"no reply within the attempt timeout of {timeout:g} s")


class _Call:
    """One logical call: its retrier, the tokens of every attempt, one usage record."""

    def __init__(
        self,
        provider: AnthropicProvider,
        task: Task,
        model: str,
        call: CallType,
        deadline: Deadline,
    ) -> None:
        self.provider = provider
        self.task = task
        self.model = model
        self.call = call
        self.deadline = deadline
        self.billed_model = model
        self.retrier = provider._retrier(model, deadline)
        self.started = time.perf_counter()
        self.attempts = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.cache_read = 0
        self.cache_creation = 0
        self.recorded = False

    def spent(self, message: Message | None) -> None:
        if message is None:
            return
        u = message.usage
        self.input_tokens += u.input_tokens
        self.output_tokens += u.output_tokens
        self.cache_read += u.cache_read_input_tokens or 0
        self.cache_creation += u.cache_creation_input_tokens or 0
        self.billed_model = message.model or self.model

    def finish(self, error: LLMError | None) -> None:
        if self.recorded:
            return
        self.recorded = True
        cost = estimate_cost(
            self.billed_model,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cache_read_tokens=self.cache_read,
            cache_creation_tokens=self.cache_creation,
        )
        self.provider.usage.record(
            CallUsage(
                provider=self.provider.name,
                model=self.billed_model,
                task=self.task,
                input_tokens=self.input_tokens,
                output_tokens=self.output_tokens,
                cache_read_tokens=self.cache_read,
                cache_creation_tokens=self.cache_creation,
                cost_usd=cost,
                latency_ms=(time.perf_counter() - self.started) * 1000,
                retries=self.retrier.retries,
                ok=error is None,
                error=error_kind(error),
                call=self.call,
                attempts=max(self.attempts, 1),
            )
        )


def _cached_system(system: str) -> list[TextBlockParam]:
    return [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}]


def _message_param(message: ChatMessage) -> MessageParam:
    if message.role == "user":
        return {"role": "user", "content": message.content}
    return {"role": "assistant", "content": message.content}


def _snapshot(stream: Any) -> Message | None:
    try:
        message = stream.current_message_snapshot
    except Exception:
        return None
    return message if isinstance(message, Message) else None


def _request_error(model: str, exc: Exception) -> LLMError:
    if isinstance(exc, anthropic.APIStatusError):
        return LLMRequestError(
            f"anthropic model {model!r}: request refused with HTTP {exc.status_code}: "
            f"{exc.api_message or exc.message}",
            status_code=exc.status_code,
        )
    return LLMError(f"anthropic model {model!r}: {exc}")
