"""A cell by a generative model: one structured call per cell over the source's best
passages for the column, under the same verification as every quote.

The model returns a short answer and up to :data:`MAX_QUOTES` quotes, each naming the
numbered passage it is copied from, or ``not_reported``. Nothing it wrote is shown before
:func:`marginalia.tables.cells.verified_quote` has checked each quote verbatim against
the passage it names; an answer without a quote that holds is "not reported", with a
note saying so (never repaired, never shown unverified). A call that fails (deadline,
unreachable, invalid output after the one repair) leaves the offline engine's cell with a
note, marked ``transient`` so that the next fill asks the model again.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from marginalia.ingest.documents import Page
from marginalia.llm import LLMError, LLMProvider
from marginalia.llm.base import engine_label
from marginalia.llm.schema import bounds
from marginalia.tables.cells import CellResult, not_reported, searched_refs, verified_quote
from marginalia.tables.columns import Profile
from marginalia.tables.evidence import Evidence, SearchedPassage
from marginalia.tables.offline_engine import fill_cell

#: Passages shown to the model: the retrieval's best for the column, then the abstract.
MAX_PASSAGES = 8
MAX_PASSAGE_CHARS = 3000
MAX_QUOTES = 2

SYSTEM_PROMPT = """You fill one cell of an evidence table: a research paper is the row, a question is the column.
Use ONLY the numbered passages of the paper you are given.

Rules:
- answer: the shortest complete answer (a number with its unit for "how many", a name for "which", a phrase or one sentence otherwise). At most 200 characters.
- quotes: 1 or 2 spans copied VERBATIM, character for character, from the passages, each with the number of the passage it is copied from. A quote is at least 5 words and at most two sentences. Do not paraphrase, shorten with ellipses, or fix typos.
- If the passages do not state the answer, set not_reported to true and leave answer empty and quotes empty. Never guess and never use outside knowledge.
"""


class CellQuoteOut(BaseModel):
    passage: int = Field(description="The number of the passage the quote is copied from.")
    quote: str = Field(
        description="A verbatim span of that passage.", json_schema_extra=bounds(max_length=400)
    )


class TableCellOutput(BaseModel):
    """Record the cell: a short answer with the verbatim quotes it rests on, or not_reported."""

    not_reported: bool = Field(description="True when the passages do not state the answer.")
    answer: str = Field(
        default="", description="The short answer.", json_schema_extra=bounds(max_length=200)
    )
    quotes: list[CellQuoteOut] = Field(
        default_factory=list, json_schema_extra=bounds(max_items=MAX_QUOTES)
    )


def shown_passages(evidence: Evidence) -> list[SearchedPassage]:
    """The passages the model reads: the retrieval's best, then the abstract's, at most
    :data:`MAX_PASSAGES`, in that order."""
    ranked = sorted(
        (p for p in evidence.passages if p.retrieval_rank is not None),
        key=lambda p: p.retrieval_rank or 0,
    )
    abstract = [p for p in evidence.passages if p.section_type == "abstract" and p not in ranked]
    return (ranked + abstract)[:MAX_PASSAGES]


def build_prompt(question: str, passages: Sequence[SearchedPassage], document: str) -> str:
    parts = [f"Paper: {document}", "", "Passages:"]
    for i, p in enumerate(passages, 1):
        where = ", ".join(x for x in (f"p. {p.page}" if p.page else None, p.section_title) if x)
        parts.append(f"[{i}]{f' ({where})' if where else ''}\n{p.text[:MAX_PASSAGE_CHARS]}\n")
    parts.append(f"Question (the column): {question}")
    return "\n".join(parts)


async def fill_cell_with_model(
    provider: LLMProvider,
    evidence: Evidence,
    profile: Profile,
    pages: Sequence[Page],
    *,
    document: str,
) -> CellResult:
    """The cell for ``evidence.question`` by ``provider`` (see the module doc)."""
    passages = shown_passages(evidence)
    if not passages:
        return fill_cell(evidence, profile, pages)
    mark = provider.usage.mark()
    try:
        output = await provider.structured(
            task="extraction",
            system=SYSTEM_PROMPT,
            prompt=build_prompt(evidence.question, passages, document),
            schema=TableCellOutput,
            call="table",
        )
    except LLMError as exc:
        cell = fill_cell(evidence, profile, pages)
        cell.note = f"model call failed ({exc.reason_label}: {exc}); extractive answer instead"
        cell.produced_by = f"extractive ({exc.reason_label})"
        cell.transient = True
        return cell
    label = engine_label(provider, "extraction", since=mark)
    if output.not_reported:
        return not_reported("the model found no answer in the passages searched", passages, label)
    quotes = []
    rejected = 0
    for q in output.quotes[:MAX_QUOTES]:
        passage = passages[q.passage - 1] if 1 <= q.passage <= len(passages) else None
        verified = verified_quote(passage, q.quote, pages) if passage is not None else None
        if verified is None:
            rejected += 1
        else:
            quotes.append(verified)
    if not quotes or not output.answer.strip():
        why = (
            f"the model's answer “{' '.join(output.answer.split())[:120]}” had no quote that is "
            f"verbatim in the passage it cites ({rejected} rejected)"
            if output.answer.strip()
            else "the model gave no answer"
        )
        return not_reported(why, passages, label)
    return CellResult(
        answer=" ".join(output.answer.split()),
        not_reported=False,
        quotes=quotes,
        note=f"{rejected} quote(s) not verbatim, left out" if rejected else None,
        searched=searched_refs(passages),
        produced_by=label,
    )
