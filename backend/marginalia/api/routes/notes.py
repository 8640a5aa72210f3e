"""Highlights and notes: per source (list, create from a selection, Markdown export, the
BibTeX entry with them in ``annote``), per workspace (list and search, Markdown export),
and one highlight (edit, delete)."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import APIRouter, Query, Response, status
from fastapi.responses import PlainTextResponse

from marginalia.api.deps import RuntimeDep
from marginalia.api.downloads import attachment
from marginalia.api.schemas import ErrorOut
from marginalia.notes.schemas import (
    HighlightCreate,
    HighlightOut,
    HighlightUpdate,
    WorkspaceHighlightOut,
)
from marginalia.usecases import exports
from marginalia.usecases import notes as service

router = APIRouter(
    prefix="/api",
    tags=["notes"],
    responses={404: {"model": ErrorOut}, 422: {"model": ErrorOut}},
)

_MARKDOWN: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/markdown": {}}, "description": "Markdown"}
}


@router.get("/sources/{source_id}/highlights", response_model=list[HighlightOut])
async def list_source_highlights(source_id: uuid.UUID, rt: RuntimeDep) -> list[HighlightOut]:
    """A source's highlights and notes, in page order."""
    return [HighlightOut.model_validate(h) for h in await service.list_for_source(rt, source_id)]


@router.post(
    "/sources/{source_id}/highlights",
    status_code=status.HTTP_201_CREATED,
    response_model=HighlightOut,
)
async def create_highlight(
    source_id: uuid.UUID, body: HighlightCreate, rt: RuntimeDep
) -> HighlightOut:
    """Highlight a selection of page ``page`` (found in the stored page text by its text
    and context; 422 when it is not there), optionally with a note."""
    return HighlightOut.model_validate(await service.create_highlight(rt, source_id, body))


@router.get(
    "/sources/{source_id}/highlights.md",
    response_class=PlainTextResponse,
    responses=_MARKDOWN,
)
async def export_source_highlights(source_id: uuid.UUID, rt: RuntimeDep) -> PlainTextResponse:
    """A source's highlights as Markdown: each quote, its page and its note."""
    text = await service.source_markdown(rt, source_id)
    return PlainTextResponse(text, media_type="text/markdown; charset=utf-8")


@router.get(
    "/sources/{source_id}/bibtex",
    response_class=Response,
    responses={200: {"content": {"application/x-bibtex": {}}, "description": "BibTeX"}},
)
async def export_source_bibtex(source_id: uuid.UUID, rt: RuntimeDep) -> Response:
    """The source as one BibTeX entry, its notes and highlights (quote, page, note) in
    ``annote``."""
    text, name = await exports.export_source_bibtex_file(rt, source_id)
    return Response(
        text,
        media_type="application/x-bibtex; charset=utf-8",
        headers=attachment(name),
    )


@router.get("/workspaces/{workspace_id}/highlights", response_model=list[WorkspaceHighlightOut])
async def list_workspace_highlights(
    workspace_id: uuid.UUID,
    rt: RuntimeDep,
    q: str | None = Query(default=None, max_length=200, description="words in the quote or note"),
) -> list[WorkspaceHighlightOut]:
    """Every highlight of the workspace, or those whose quote or note contains ``q``."""
    rows = await service.list_for_workspace(rt, workspace_id, q)
    return [
        WorkspaceHighlightOut.model_validate(
            {**HighlightOut.model_validate(h).model_dump(), "source_title": title}
        )
        for h, title in rows
    ]


@router.get(
    "/workspaces/{workspace_id}/highlights.md",
    response_class=PlainTextResponse,
    responses=_MARKDOWN,
)
async def export_workspace_highlights(workspace_id: uuid.UUID, rt: RuntimeDep) -> PlainTextResponse:
    """The workspace's highlights as Markdown, one section per source."""
    text = await service.workspace_markdown(rt, workspace_id)
    return PlainTextResponse(text, media_type="text/markdown; charset=utf-8")


@router.patch("/highlights/{highlight_id}", response_model=HighlightOut)
async def update_highlight(
    highlight_id: uuid.UUID, body: HighlightUpdate, rt: RuntimeDep
) -> HighlightOut:
    """Change a highlight's colour or note (an empty note removes it)."""
    return HighlightOut.model_validate(await service.update_highlight(rt, highlight_id, body))


@router.delete("/highlights/{highlight_id}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_highlight(highlight_id: uuid.UUID, rt: RuntimeDep) -> Response:
    await service.delete_highlight(rt, highlight_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
