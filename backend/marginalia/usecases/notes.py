"""Highlights and notes: create from a selection (anchored in the stored page text, with
rectangles on a PDF page), list, search, edit, delete, export as Markdown.

A selection arrives as the text the reader selected on page ``page`` plus a little text
around it; :func:`marginalia.notes.anchors.find_selection` finds it in the stored page
text (a selection not on that page is a 422 and nothing is stored). Deleting a source
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
from marginalia.notes.schemas import HighlightCreate, HighlightUpdate
from marginalia.runtime import Runtime


async def _source(rt: Runtime, source_id: uuid.UUID) -> Source:
    async with rt.db.session() as session:
        source = await sources_repo.get(session, source_id)
    if source is None:
        raise NotFoundError(f"no source with id {source_id}")
    return source


async def _rects(
    rt: Runtime, source: Source, page: int, start: int, end: int
) -> list[dict[str, Any]]:
    if source.kind != "pdf" or not source.file_key:
        return []
    key = str(source.file_key)

    def compute() -> list[dict[str, Any]]:
        if not rt.files.exists(key):
            return []
        geometry = span_geometry(rt.files.get(key), [PageSpan(page, start, end)])
        return [
            {"page": r.page, "x0": r.x0, "y0": r.y0, "x1": r.x1, "y1": r.y1}
            for g in geometry.values()
            for r in g.rects
        ]

    return await asyncio.to_thread(compute)


async def create_highlight(rt: Runtime, source_id: uuid.UUID, body: HighlightCreate) -> Highlight:
    source = await _source(rt, source_id)
    async with rt.db.session() as session:
        pages = {
            p.page_number: p.text for p in await sources_repo.pages_for_source(session, source_id)
        }
    if body.page not in pages:
        raise ValidationFailed(
            f"source {source_id} has no page {body.page} (it has {len(pages)} pages)"
        )
    anchor = find_selection(pages[body.page], body.quote, body.prefix, body.suffix)
    if anchor is None:
        raise ValidationFailed(
            f"the selected text is not on page {body.page} of this source's text; "
            "select text within one page and try again"
        )
    rects = await _rects(rt, source, body.page, anchor.start, anchor.end)
    async with rt.db.transaction() as session:
        return await repo.create(
            session,
            source_id=source_id,
            workspace_id=source.workspace_id,
            page=body.page,
            page_end=body.page,
            char_start=anchor.start,
            char_end=anchor.end,
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
