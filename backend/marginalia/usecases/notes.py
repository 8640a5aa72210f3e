"""Highlights and notes: create from a selection (anchored in the stored page text, with
rectangles on a PDF page), list, search, edit, delete, export as Markdown.

A selection arrives as the text the reader selected on page ``page`` plus a little text
around it; :func:`marginalia.notes.anchors.find_selection` finds it in the stored page
text (a selection not on that page is a 422 and nothing is stored); one that crosses page
breaks names its last page too (``page_end``) and is found in the pages' texts joined. Deleting a source
deletes its highlights (``ON DELETE CASCADE``).
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from marginalia.db.models import Highlight, Source
from marginalia.db.repositories import sources as sources_repo
from marginalia.db.repositories import workspaces as workspaces_repo
from marginalia.errors import NotFoundError, ValidationFailed
from marginalia.ingest.geometry import PageSpan, span_geometry
from marginalia.notes import export
from marginalia.notes import repository as repo
from marginalia.notes.anchors import find_selection
from marginalia.notes.schemas import MAX_PAGES_SPANNED, HighlightCreate, HighlightUpdate
from marginalia.runtime import Runtime


async def _source(rt: Runtime, source_id: uuid.UUID) -> Source:
    async with rt.db.session() as session:
        source = await sources_repo.get(session, source_id)
    if source is None:
        raise NotFoundError(f"no source with id {source_id}")
    return source


async def _rects(
    rt: Runtime, source: Source, spans: list[PageSpan], pages: dict[int, str]
) -> list[dict[str, Any]]:
    if source.kind != "pdf" or not source.file_key:
        return []
    key = str(source.file_key)

    def compute() -> list[dict[str, Any]]:
        if not rt.files.exists(key):
            return []
        geometry = span_geometry(rt.files.get(key), spans, pages)
        return [
            {"page": r.page, "x0": r.x0, "y0": r.y0, "x1": r.x1, "y1": r.y1}
            for g in geometry.values()
            for r in g.rects
        ]

    return await asyncio.to_thread(compute)


def _page_range(body: HighlightCreate, pages: dict[int, str]) -> list[int]:
    last = body.page_end or body.page
    if last < body.page or last - body.page >= MAX_PAGES_SPANNED:
        raise ValidationFailed(
            f"page_end must be from page to page + {MAX_PAGES_SPANNED - 1} "
            f"(got page {body.page}, page_end {last})"
        )
    missing = [n for n in range(body.page, last + 1) if n not in pages]
    if missing:
        raise ValidationFailed(f"this source has no page {missing[0]} (it has {len(pages)} pages)")
    return list(range(body.page, last + 1))


def _split(numbers: list[int], pages: dict[int, str], start: int, end: int) -> list[PageSpan]:
    """``[start, end)`` of the pages' texts joined with ``\n`` as one span per page."""
    spans, base = [], 0
    for n in numbers:
        length = len(pages[n])
        lo, hi = max(start, base), min(end, base + length)
        if hi > lo:
            spans.append(PageSpan(n, lo - base, hi - base))
        base += length + 1
    return spans


async def create_highlight(rt: Runtime, source_id: uuid.UUID, body: HighlightCreate) -> Highlight:
    source = await _source(rt, source_id)
    async with rt.db.session() as session:
        pages = {
            p.page_number: p.text for p in await sources_repo.pages_for_source(session, source_id)
        }
    numbers = _page_range(body, pages)
    joined = "\n".join(pages[n] for n in numbers)
    anchor = find_selection(joined, body.quote, body.prefix, body.suffix)
    spans = _split(numbers, pages, anchor.start, anchor.end) if anchor else []
    if anchor is None or not spans:
        where = f"page {body.page}" if len(numbers) == 1 else f"pages {numbers[0]}–{numbers[-1]}"
        raise ValidationFailed(
            f"the selected text is not on {where} of this source's text; select it again"
        )
    rects = await _rects(rt, source, spans, pages)
    async with rt.db.transaction() as session:
        return await repo.create(
            session,
            source_id=source_id,
            workspace_id=source.workspace_id,
            page=spans[0].page,
            page_end=spans[-1].page,
            char_start=spans[0].start,
            char_end=spans[-1].end,
            text=anchor.text,
            prefix=anchor.prefix,
            suffix=anchor.suffix,
            rects=rects,
            color=body.color,
            note=(body.note or "").strip() or None,
        )


async def list_for_source(rt: Runtime, source_id: uuid.UUID) -> list[Highlight]:
    await _source(rt, source_id)
    async with rt.db.session() as session:
        return await repo.for_source(session, source_id)


async def list_for_workspace(
    rt: Runtime, workspace_id: uuid.UUID, query: str | None = None
) -> list[tuple[Highlight, str | None]]:
    async with rt.db.session() as session:
        if await workspaces_repo.get(session, workspace_id) is None:
            raise NotFoundError(f"no workspace with id {workspace_id}")
        return await repo.for_workspace(session, workspace_id, (query or "").strip() or None)


async def update_highlight(
    rt: Runtime, highlight_id: uuid.UUID, body: HighlightUpdate
) -> Highlight:
    changes = body.model_dump(exclude_unset=True)
    if "color" in changes and changes["color"] is None:
        del changes["color"]
    if "note" in changes:
        changes["note"] = (changes["note"] or "").strip() or None
    async with rt.db.transaction() as session:
        highlight = await repo.get(session, highlight_id)
        if highlight is None:
            raise NotFoundError(f"no highlight with id {highlight_id}")
        return await repo.update(session, highlight, changes)


async def delete_highlight(rt: Runtime, highlight_id: uuid.UUID) -> None:
    async with rt.db.transaction() as session:
        highlight = await repo.get(session, highlight_id)
        if highlight is None:
            raise NotFoundError(f"no highlight with id {highlight_id}")
        await repo.delete(session, highlight)


def _title(source: Source) -> str:
    return source.title or source.file_name or str(source.id)


async def source_markdown(rt: Runtime, source_id: uuid.UUID) -> str:
    source = await _source(rt, source_id)
    return export.source_markdown(_title(source), await list_for_source(rt, source_id))


async def workspace_markdown(rt: Runtime, workspace_id: uuid.UUID) -> str:
    async with rt.db.session() as session:
        workspace = await workspaces_repo.get(session, workspace_id)
        if workspace is None:
            raise NotFoundError(f"no workspace with id {workspace_id}")
        rows = await repo.for_workspace(session, workspace_id)
    groups: dict[uuid.UUID, tuple[str, list[Highlight]]] = {}
    for highlight, title in rows:
        groups.setdefault(highlight.source_id, (title or str(highlight.source_id), []))[1].append(
            highlight
        )
    return export.workspace_markdown(workspace.name, list(groups.values()))
