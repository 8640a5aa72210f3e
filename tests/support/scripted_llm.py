"""A generative LLM provider whose replies a test scripts: the provider protocol's real
shape (``structured``, ``stream_text``, ``model_for``, a usage ledger), no network.

``replies`` maps each output schema the code under test may ask for to the raw object the
"model" returns (validated into that schema, as a real provider does) or to an exception
it raises. A schema the script does not name fails the test. Every call is recorded."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping

from pydantic import BaseModel

from marginalia.answer.synthesis import SynthesisOutput
from marginalia.llm import ChatMessage, UsageLedger
from marginalia.llm.base import CallType, Deadline, T


class ScriptedLLM:
    is_generative = True

    def __init__(
        self, replies: Mapping[type[BaseModel], object], *, name: str = "scripted"
    ) -> None:
        self.name = name
        self.replies = dict(replies)
        self.usage = UsageLedger()
        self.prompts: list[str] = []
        self.schemas: list[str] = []
        self.deadlines: list[Deadline | None] = []
        self.call_types: list[CallType | None] = []

    def model_for(self, task: str) -> str | None:
        return f"{self.name}-1"

    async def structured(
        self,
        *,
        task: str,
        system: str,
        prompt: str,
        schema: type[T],
        call: CallType | None = None,
        deadline: Deadline | None = None,
    ) -> T:
        self.prompts.append(prompt)
        self.schemas.append(schema.__name__)
        self.deadlines.append(deadline)
        self.call_types.append(call)
        assert schema in self.replies, f"the script has no reply for {schema.__name__}"
        reply = self.replies[schema]
        if isinstance(reply, BaseException):
            raise reply
        return schema.model_validate(reply)

    async def stream_text(
        self,
        *,
        task: str,
        system: str,
        messages: list[ChatMessage],
        call: CallType | None = None,
        deadline: Deadline | None = None,
    ) -> AsyncIterator[str]:
        raise AssertionError("the script streams no text")
        yield ""  # a generator, as the protocol's streaming method is

    async def aclose(self) -> None:
        return None


def scripted_synthesis(claims: list[dict[str, object]]) -> ScriptedLLM:
    """A model whose cited synthesis proposes ``claims`` (text, citations, quote)."""
    return ScriptedLLM({SynthesisOutput: {"claims": claims}})
