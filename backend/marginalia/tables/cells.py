"""A cell's content and the one place its quotes are verified (pure).

Invariant 3 for tables: a quote is shown only when it is a verbatim (normalised)
substring of the passage it cites (:func:`marginalia.answer.quotes.quote_in_passage`) and
at least :data:`marginalia.answer.quotes.MIN_QUOTE_WORDS` words long; its page is where
its characters stand in the source's stored page text. A cell without such a quote is
"not reported", whatever the engine proposed.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from marginalia.answer.locations import quote_span
from marginalia.answer.quotes import MIN_QUOTE_WORDS, normalize, quote_in_passage
from marginalia.ingest.documents import Page
from marginalia.ingest.geometry import page_spans
from marginalia.tables.evidence import SearchedPassage

#: Passages a "not reported" cell lists as searched (best first).
SEARCHED_SHOWN = 5


class CellQuote(BaseModel):
    """A verified quote: its text exactly as the passage has it, the chunk it stands in
    (the reader opens ``?chunk=I&quote=…``) and the page(s) of its characters."""

    text: str
    page: int | None = None
    page_end: int | None = None
    chunk_index: int
    #: Offsets in the stored text of ``page`` (start) and ``page_end`` (end).
    char_start: int | None = None
    char_end: int | None = None


class SearchedRef(BaseModel):
    """A passage a cell's question searched."""

    chunk_index: int
    page: int | None = None
    section: str | None = None


class CellResult(BaseModel):
    answer: str = ""
    not_reported: bool
    quotes: list[CellQuote] = Field(default_factory=list)
    confidence: float | None = None
    note: str | None = None
    searched: list[SearchedRef] = Field(default_factory=list)
    #: What produced the cell: ``extractive``, ``<provider>:<model>``, or the fallback.
    produced_by: str
    #: Left by a failed model call: computed again by the next fill.
    transient: bool = False


def verified_quote(passage: SearchedPassage, text: str, pages: Sequence[Page]) -> CellQuote | None:
    """``text`` as a cell quote of ``passage``, or None when it is not verbatim in it or
    shorter than :data:`MIN_QUOTE_WORDS` words."""
    if len(normalize(text).split()) < MIN_QUOTE_WORDS or not quote_in_passage(text, passage.text):
        return None
    quote = CellQuote(text=text.strip(), chunk_index=passage.chunk_index, page=passage.page)
    span = quote_span(passage.text, text)
    if span is not None and passage.page is not None and pages:
        spans = page_spans(pages, passage.page, passage.char_start or 0, *span)
        if spans:
            quote.page, quote.page_end = spans[0].page, spans[-1].page
            quote.char_start, quote.char_end = spans[0].start, spans[-1].end
    return quote


def searched_refs(passages: Sequence[SearchedPassage]) -> list[SearchedRef]:
    """The passages shown as searched: the retrieval's best first, at most
    :data:`SEARCHED_SHOWN`."""
    ranked = sorted(
        (p for p in passages if p.retrieval_rank is not None),
        key=lambda p: p.retrieval_rank or 0,
    )
    return [
        SearchedRef(chunk_index=p.chunk_index, page=p.page, section=p.section_title)
        for p in (ranked or list(passages))[:SEARCHED_SHOWN]
    ]


def not_reported(
    reason: str, passages: Sequence[SearchedPassage], produced_by: str, *, transient: bool = False
) -> CellResult:
    """A "not reported" cell saying why and what was searched."""
    return CellResult(
        not_reported=True,
        note=reason,
        searched=searched_refs(passages),
        produced_by=produced_by,
        transient=transient,
    )
