"""Per-call limits from settings: ``max_tokens`` and one deadline per call type."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, get_args

from marginalia.llm.deadline import Deadline
from marginalia.llm.usage import CallType, Task

if TYPE_CHECKING:
    from marginalia.config import LLMSettings

CALL_TYPES: tuple[CallType, ...] = get_args(CallType)


def call_type(task: Task, call: CallType | None) -> CallType:
    """The call type of a call: as given, else the task's name."""
    return call if call is not None else task


@dataclass(frozen=True)
class CallLimits:
    max_tokens: Mapping[CallType, int]
    deadlines_s: Mapping[CallType, float]

    @classmethod
    def from_settings(cls, settings: LLMSettings) -> CallLimits:
        deadlines: dict[CallType, float] = {c: settings.call_deadline_s for c in CALL_TYPES}
        deadlines["synthesis"] = settings.answer_deadline_s
        deadlines["extraction"] = settings.extraction_deadline_s
        deadlines["table"] = settings.table_deadline_s
        return cls(
            max_tokens={c: int(getattr(settings.max_tokens, c)) for c in CALL_TYPES},
            deadlines_s=deadlines,
        )

    @classmethod
    def defaults(cls) -> CallLimits:
        from marginalia.config import LLMSettings

        return cls.from_settings(LLMSettings())

    def deadline(self, call: CallType, given: Deadline | None = None) -> Deadline:
        """``given`` when the caller shares one deadline across calls, else a new one."""
        return given if given is not None else Deadline.after(self.deadlines_s[call])
