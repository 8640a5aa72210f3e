"""Cited synthesis with a generative model (Anthropic Sonnet-class or OpenAI-compatible).

One structured call returns claims, each with the numbers of the passages it rests on
and a verbatim quote. Nothing the model wrote is shown before
:func:`marginalia.answer.quotes.validate_claims` has checked it; failing claims are
dropped, never repaired.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from marginalia.answer.schemas import AnswerClaim, EvidenceSentence, Passage
from marginalia.llm import ChatMessage, LLMProvider
from marginalia.llm.deadline import Deadline
from marginalia.llm.schema import bounds

SYSTEM_PROMPT = """You answer research questions using ONLY the numbered passages you are given.

Rules:
- Answer as a short list of claims (1 to 6). Each claim is one or two sentences in your own words.
- Every claim cites the passage numbers it rests on, e.g. [2] -> citations: [2]. Cite only numbers that appear in the passages.
- Every claim carries a quote: a span copied VERBATIM, character for character, from one of the passages it cites (at least a few words, at most two sentences). Do not paraphrase, shorten with ellipses, fix typos, or add quotation marks around it.
- Do not use outside knowledge. If the passages do not answer the question, return no claims.
- Judge first whether the best-evidence sentences (listed after the passages) answer the question: the right kind of answer (a number for "how many", a name for "which"), about the things the question names. If they do not, and no other passage does, return no claims.
- Earlier turns of the conversation are context for what the question refers to; they are not evidence.
"""

#: Characters of each passage shown to the model (chunks are ≤ 256 tokens; wiki pages longer).
MAX_PASSAGE_CHARS = 6000


# Bounds of the schema the model fills (sent, not enforced on the reply): a small model
# cannot loop, and 6 claims of this size fit in settings.llm.max_tokens.synthesis.
class SynthesisClaim(BaseModel):
    text: str = Field(
        description="The claim, in your own words.", json_schema_extra=bounds(max_length=400)
    )
    citations: list[int] = Field(
        description="Numbers of the passages this claim rests on.",
        json_schema_extra=bounds(max_items=4),
    )
    quote: str = Field(
        description="A verbatim span copied from one of the cited passages.",
        json_schema_extra=bounds(max_length=400),
    )


class SynthesisOutput(BaseModel):
    """Record the cited answer: claims, each with passage numbers and a verbatim quote."""

    claims: list[SynthesisClaim] = Field(
        default_factory=list, json_schema_extra=bounds(max_items=6)
    )


def build_prompt(
    question: str,
    passages: Sequence[Passage],
    history: Sequence[ChatMessage] | None,
    evidence: Sequence[EvidenceSentence] = (),
) -> str:
    parts: list[str] = []
    if history:
        parts.append("Conversation so far:")
        for msg in history:
            parts.append(f"{msg.role}: {' '.join(msg.content.split())[:1500]}")
        parts.append("")
    parts.append("Passages:")
    for p in passages:
        where = p.document
        if p.page is not None:
            where += f", p. {p.page}"
        if p.section_title:
            where += f", {p.section_title}"
        parts.append(f"[{p.n}] ({where})\n{p.text[:MAX_PASSAGE_CHARS]}\n")
    if evidence:
        # The sufficiency judgement reads the best evidence first (issue 32, item 5).
        parts.append(
            "Best evidence (the sentences of the passages most likely to answer; answer "
            "only if they or the passages actually answer the question):"
        )
        for e in evidence:
            parts.append(f"[{e.n}] {' '.join(e.text.split())}")
        parts.append("")
    parts.append(f"Question: {question.strip()}")
    return "\n".join(parts)


async def synthesize_claims(
    provider: LLMProvider,
    *,
    question: str,
    passages: Sequence[Passage],
    history: Sequence[ChatMessage] | None = None,
    deadline: Deadline | None = None,
    evidence: Sequence[EvidenceSentence] = (),
) -> list[AnswerClaim]:
    """The model's claims, unvalidated (the caller validates them). ``deadline``: the
    answer's one deadline (default: ``settings.llm.answer_deadline_s`` from now)."""
    output = await provider.structured(
        task="synthesis",
        system=SYSTEM_PROMPT,
        prompt=build_prompt(question, passages, history, evidence),
        schema=SynthesisOutput,
        call="synthesis",
        deadline=deadline,
    )
    return [
        AnswerClaim(text=c.text, citations=list(c.citations), quote=c.quote) for c in output.claims
    ]
