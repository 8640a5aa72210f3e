"""The offline engine's provider shell: no generative model, by design.

It is the default when no provider is configured. Callers check ``is_generative`` and
run their own deterministic, extractive code (knowledge and answer layers); asking this
provider to generate is a programming error and says so.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from marginalia.llm.base import ChatMessage, T
from marginalia.llm.deadline import Deadline
from marginalia.llm.errors import LLMError
from marginalia.llm.usage import CallType, Task, UsageLedger

if TYPE_CHECKING:
    from marginalia.config import LLMSettings

_NO_MODEL = (
    "the offline engine has no generative model: {what} needs MARGINALIA_LLM__PROVIDER="
    "anthropic or openai; callers must check `provider.is_generative` and use the "
    "extractive path"
)


class OfflineProvider:
    name = "offline"
    is_generative = False

    def __init__(self, *, usage: UsageLedger | None = None) -> None:
        self.usage = usage if usage is not None else UsageLedger()

    @classmethod
    def from_settings(
        cls, settings: LLMSettings, *, usage: UsageLedger | None = None
    ) -> OfflineProvider:
        return cls(usage=usage)

    def model_for(self, task: Task) -> str | None:
        return None

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
        raise LLMError(_NO_MODEL.format(what=f"structured {task} into {schema.__name__}"))

    async def stream_text(
        self,
        *,
        task: Task,
        system: str,
        messages: list[ChatMessage],
        call: CallType | None = None,
        deadline: Deadline | None = None,
    ) -> AsyncIterator[str]:
        raise LLMError(_NO_MODEL.format(what=f"streamed {task}"))
        yield ""  # pragma: no cover - makes this an async generator like the others

    async def aclose(self) -> None:
        return None
