"""Where each claim's quote stands: character offsets in the stored page text, and for a
PDF the rectangles of its characters on the page (issue 16, the reader).

A quote is verified as a *normalised* substring of its passage (:mod:`.quotes`), so this
module normalises the passage the same way while remembering, for every character of the
normalised text, which character of the passage it came from; the quote's match then maps
back to a range of the passage's text, that range to page offsets (a chunk's text is the
page slices joined with "\\n"), and those to PDFium character boxes
(:func:`marginalia.ingest.geometry.span_geometry`).
"""

from __future__ import annotations

import asyncio
import logging
import unicodedata
import uuid
from collections.abc import Sequence
from typing import Protocol

from marginalia.answer.quotes import _CHAR_MAP, _LINE_BREAK_HYPHEN, normalize
from marginalia.answer.schemas import Answer, CitationLocation, Passage, QuoteRect
from marginalia.db.engine import Database
from marginalia.db.repositories import sources as sources_repo
from marginalia.ingest.documents import Page
from marginalia.ingest.geometry import PageSpan, page_spans, span_geometry
from marginalia.storage.base import FileStore

log = logging.getLogger(__name__)


class LocationContext(Protocol):
    @property
    def db(self) -> Database: ...

    @property
    def files(self) -> FileStore: ...


def normalize_with_map(text: str) -> tuple[str, list[int]]:
    """:func:`.quotes.normalize` of ``text`` and, per character of the result, the index
    of the character of ``text`` it comes from."""
    chars: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        for out in unicodedata.normalize("NFKC", ch).translate(_CHAR_MAP):
            chars.append(out)
            origin.append(i)
    joined = "".join(chars)
    keep = [True] * len(joined)
    for m in _LINE_BREAK_HYPHEN.finditer(joined):
        for k in range(m.start(), m.end()):
            keep[k] = False
    result: list[str] = []
    result_origin: list[int] = []
    for k, ch in enumerate(joined):
        if not keep[k]:
            continue
        if ch.isspace():
            if not result or result[-1] == " ":
                continue
            ch = " "
        result.append(ch)
        result_origin.append(origin[k])
    if result and result[-1] == " ":
        result.pop()
        result_origin.pop()
    return "".join(result), result_origin


def quote_span(passage_text: str, quote: str) -> tuple[int, int] | None:
    """``[start, end)`` of ``quote`` in ``passage_text`` (matched normalised), or None."""
    needle = normalize(quote)
    if not needle:
        return None
    haystack, origin = normalize_with_map(passage_text)
    at = haystack.find(needle)
    if at < 0:
        return None
    return origin[at], origin[at + len(needle) - 1] + 1


async def locate_claims(ctx: LocationContext, answer: Answer) -> None:
    """Fill every kept claim's ``locations`` (one per cited chunk passage whose text holds
    the quote) and every best-evidence sentence's ``location``, with rectangles when the
    source is a PDF whose file is stored."""
    by_n = {p.n: p for p in answer.passages}
    wanted: list[tuple[int, Passage, tuple[int, int]]] = []
    for k, claim in enumerate(answer.claims):
        for n in dict.fromkeys(claim.citations):
            passage = by_n.get(n)
            if passage is None or not _locatable(passage) or not claim.quote:
                continue
            span = quote_span(passage.text, claim.quote)
            if span is not None:
                wanted.append((k, passage, span))
    # Evidence sentences: their offsets inside the passage are known (k < 0: evidence -k-1).
    for i, e in enumerate(answer.evidence):
        passage = by_n.get(e.n)
        if passage is not None and _locatable(passage):
            wanted.append((-i - 1, passage, (e.start, e.end)))
    if not wanted:
        return
    sources = {p.source_id for _, p, _ in wanted if p.source_id is not None}
    pages: dict[uuid.UUID, list[Page]] = {}
    pdfs: dict[uuid.UUID, str] = {}
    async with ctx.db.session() as session:  # one statement for every cited source
        found = await sources_repo.pages_and_files(session, sorted(sources))
    for source_id, (kind, file_key, rows) in found.items():
        pages[source_id] = [Page(number, page_text) for number, page_text in rows]
        if kind == "pdf" and file_key:
            pdfs[source_id] = str(file_key)
    for k, passage, (start, end) in wanted:
        assert passage.source_id is not None and passage.page is not None
        source_pages = pages.get(passage.source_id) or []
        if not source_pages:
            continue
        spans = page_spans(source_pages, passage.page, passage.char_start or 0, start, end)
        if not spans:
            continue
        rects = await _rects(ctx, pdfs.get(passage.source_id), spans, source_pages)
        location = CitationLocation(
            n=passage.n,
            source_id=passage.source_id,
            page=spans[0].page,
            page_end=spans[-1].page,
            char_start=spans[0].start,
            char_end=spans[-1].end,
            rects=rects,
        )
        if k >= 0:
            answer.claims[k].locations.append(location)
        else:
            evidence = answer.evidence[-k - 1]
            evidence.location = location
            evidence.page = location.page


def _locatable(passage: Passage) -> bool:
    return (
        passage.kind == "chunk"
        and passage.source_id is not None
        and passage.page is not None
        and passage.char_start is not None
    )


async def locate_in_chunk(
    ctx: LocationContext, source_id: uuid.UUID, chunk_index: int, quote: str | None
) -> CitationLocation | None:
    """Where ``quote`` stands in chunk ``chunk_index`` of a source (the whole chunk when
    the quote is empty or not in it): page offsets and, for a stored PDF, rectangles —
    what a wiki or evidence citation (a chunk, perhaps a quote) needs to open the reader
    with the passage marked. None when the chunk does not exist or has no page offsets."""
    async with ctx.db.session() as session:
        chunk = await sources_repo.chunk_by_index(session, source_id, chunk_index)
        if chunk is None or chunk.page_start is None:
            return None
        rows = await sources_repo.pages_for_source(session, source_id)
        source = await sources_repo.get(session, source_id)
    source_pages = [Page(r.page_number, r.text) for r in rows]
    if not source_pages:
        return None
    span = quote_span(chunk.text, quote) if quote else None
    start, end = span if span is not None else (0, len(chunk.text))
    spans = page_spans(source_pages, chunk.page_start, chunk.char_start or 0, start, end)
    if not spans:
        return None
    file_key = (
        str(source.file_key)
        if source is not None and source.kind == "pdf" and source.file_key
        else None
    )
    return CitationLocation(
        n=0,
        source_id=source_id,
        page=spans[0].page,
        page_end=spans[-1].page,
        char_start=spans[0].start,
        char_end=spans[-1].end,
        rects=await _rects(ctx, file_key, spans, source_pages),
    )


async def _rects(
    ctx: LocationContext, file_key: str | None, spans: Sequence[PageSpan], pages: Sequence[Page]
) -> list[QuoteRect]:
    if file_key is None:
        return []

    def compute() -> list[QuoteRect]:
        data = ctx.files.get(file_key)
        geometry = span_geometry(data, spans, {p.number: p.text for p in pages})
        return [
            QuoteRect(page=r.page, x0=r.x0, y0=r.y0, x1=r.x1, y1=r.y1)
            for g in geometry.values()
            for r in g.rects
        ]

    try:
        return await asyncio.to_thread(compute)
    except Exception:  # a missing or unreadable file leaves offsets without rectangles
        log.warning("quote rectangles failed for file %s", file_key, exc_info=True)
        return []
