"""The one protocol every LLM provider implements, and helpers they share."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ValidationError

from marginalia.llm.deadline import Deadline
from marginalia.llm.errors import LLMResponseError
from marginalia.llm.usage import CallType, Task, UsageLedger

__all__ = ["CallType", "ChatMessage", "Deadline", "LLMProvider", "T", "Task", "engine_label"]

T = TypeVar("T", bound=BaseModel)


class ChatMessage(BaseModel):
    role: Literal["user", "assistant"]
    content: str


@runtime_checkable
class LLMProvider(Protocol):
    """A source of model output, chosen by settings (see :func:`make_provider`).

    ``task`` picks the model: ``"extraction"`` (structured extraction, decomposition:
    a small fast model) or ``"synthesis"`` (cited answers: a stronger model).

    ``call`` picks the limits: ``max_tokens`` from ``settings.llm.max_tokens.<call>`` and,
    unless the caller passes its own ``deadline``, a new deadline for the call type
    (``answer_deadline_s`` for synthesis, ``extraction_deadline_s`` for extraction,
    ``call_deadline_s`` otherwise). It defaults to the task's name (``"chat"`` for
    streams). Retries, response-format fallbacks and the one repair of invalid output
    all happen inside that one deadline.
    """

    name: str
    # False for the offline engine: callers then use their own extractive code.
    is_generative: bool
    usage: UsageLedger

    def model_for(self, task: Task) -> str | None:
        """The model id used for ``task`` (None when there is no model)."""
        ...

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
        """One call whose output is validated into ``schema``.

        Raises LLMResponseError (malformed/invalid output, also after one repair),
        LLMDeadlineError (the deadline passed), LLMUnavailableError (retries exhausted,
        unreachable), LLMRequestError (refused, not retryable).
        """
        ...

    def stream_text(
        self,
        *,
        task: Task,
        system: str,
        messages: list[ChatMessage],
        call: CallType | None = None,
        deadline: Deadline | None = None,
    ) -> AsyncIterator[str]:
        """Text deltas of one assistant reply, in order."""
        ...

    async def aclose(self) -> None:
        """Release network resources."""
        ...


def tool_name_for(schema: type[BaseModel]) -> str:
    """A tool / response-format name derived from the schema class (``[A-Za-z0-9_-]``)."""
    name = re.sub(r"[^A-Za-z0-9_-]+", "_", schema.__name__).strip("_") or "result"
    return f"record_{name}"[:64]


def tool_description_for(schema: type[BaseModel]) -> str:
    doc = schema.__doc__ if "__doc__" in schema.__dict__ else None
    text = " ".join((doc or "").split())
    return text or f"Record the {schema.__name__} result. Fill every field from the input."


def validate_output(
    schema: type[T], data: Any, *, provider: str, model: str, stop_reason: str | None = None
) -> T:
    """``schema.model_validate(data)``, turning failures into a clear LLMResponseError."""
    try:
        return schema.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or '<root>'}: {err['msg']}"
            for err in exc.errors()[:5]
        )
        more = f" (+{exc.error_count() - 5} more)" if exc.error_count() > 5 else ""
        hint = " (the reply was cut off at max_tokens)" if stop_reason == "max_tokens" else ""
        raise LLMResponseError(
            f"output failed validation against {schema.__name__}{hint}: {problems}{more}",
            provider=provider,
            model=model,
        ) from exc


def engine_label(provider: LLMProvider, task: Task, *, since: int = 0) -> str:
    """``<provider>:<model>`` for what produced an output: the model the server reported
    on the last successful call recorded after ``since`` (a local server serves whatever
    it loaded, whatever the request named), else the configured model."""
    served = [c.model for c in provider.usage.calls[since:] if c.ok and c.model]
    model = served[-1] if served else provider.model_for(task)
    return f"{provider.name}:{model}" if model else provider.name
