from __future__ import annotations

import json
import re
import uuid
from typing import Annotated, Any, Literal

from fastapi import APIRouter, File, Header, Path, Query, Response, UploadFile, status
from fastapi.responses import StreamingResponse

from marginalia.answer.schemas import CitationLocation
from marginalia.api.deps import RuntimeDep
from marginalia.api.downloads import content_disposition
from marginalia.api.schemas import (
    MAX_INT32,
    ChunkOut,
    ErrorOut,
    JobOut,
    Offset,
    PageOut,
    SourceOut,
    UploadFileOut,
    UploadOut,
)
from marginalia.db.models import Source
from marginalia.errors import PayloadTooLarge, ValidationFailed
from marginalia.knowledge.views import SourceCitationsView
from marginalia.usecases import sources as service

router = APIRouter(
    prefix="/api",
    tags=["sources"],
    responses={
        404: {"model": ErrorOut},
        413: {"model": ErrorOut},
        415: {"model": ErrorOut},
        422: {"model": ErrorOut},
    },
)

_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


@router.post(
    "/workspaces/{workspace_id}/sources",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=UploadOut,
    summary="Upload documents (PDF, HTML, Markdown, text); returns the ingest job and "
    "each file's outcome",
)
async def upload_sources(
    workspace_id: uuid.UUID,
    rt: RuntimeDep,
    files: Annotated[list[UploadFile], File(description="one or more documents", min_length=1)],
) -> UploadOut:
    # The body was counted while it streamed in (api.hardening.RequestGuard); this is the
    # per-file check on what arrived.
    limit = rt.settings.ingest.max_upload_mb * 1024 * 1024
    uploads: list[service.Upload] = []
    for upload in files:
        if "\x00" in (upload.filename or "") + (upload.content_type or ""):
            raise ValidationFailed(
                "a file name or content type in the upload contains a NUL character"
            )
        name = service.safe_file_name(upload.filename)
        if upload.size is not None and upload.size > limit:
            raise PayloadTooLarge(
                f"“{name}” is {upload.size / 1e6:.1f} MB; the limit is "
                f"{rt.settings.ingest.max_upload_mb} MB per file"
            )
        data = await upload.read(limit + 1)
        if len(data) > limit:
            raise PayloadTooLarge(
                f"“{name}” exceeds the {rt.settings.ingest.max_upload_mb} MB limit per file"
            )
        uploads.append(service.Upload(name, data, upload.content_type))
    if not uploads:
        raise ValidationFailed("no files in the upload")
    submitted = await service.submit_uploads(rt, workspace_id, uploads)
    job = JobOut.model_validate(submitted.job)
    outcomes = [
        UploadFileOut(filename=f.filename, status=f.status, detail=f.detail)
        for f in submitted.files
    ]
    return UploadOut(**job.model_dump(), files=outcomes)


@router.get("/workspaces/{workspace_id}/sources", response_model=list[SourceOut])
async def list_sources(
    workspace_id: uuid.UUID,
    rt: RuntimeDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
    offset: Offset = 0,
) -> list[SourceOut]:
    sources = await service.list_sources(rt, workspace_id, limit=limit, offset=offset)
    counts = await service.citation_counts(rt, workspace_id)
    return [_source_out(s, counts) for s in sources]


@router.get("/sources/{source_id}", response_model=SourceOut)
async def get_source(source_id: uuid.UUID, rt: RuntimeDep) -> SourceOut:
    source = await service.get_source(rt, source_id)
    return _source_out(source, await service.citation_counts(rt, source.workspace_id))


def _source_out(source: Source, counts: dict[uuid.UUID, tuple[int, int]]) -> SourceOut:
    cited_by, cites = counts.get(source.id, (0, 0))
    return SourceOut.model_validate(source).model_copy(
        update={"cited_by_here": cited_by, "cites_here": cites}
    )


@router.get("/sources/{source_id}/citations", response_model=SourceCitationsView)
async def get_source_citations(source_id: uuid.UUID, rt: RuntimeDep) -> SourceCitationsView:
    """Paper -> paper citations inside the workspace: the sources this one's reference
    list names (by DOI, arXiv id or title) and the sources whose reference lists name it."""
    return await service.source_citations(rt, source_id)


@router.delete("/sources/{source_id}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_source(source_id: uuid.UUID, rt: RuntimeDep) -> Response:
    await service.delete_source(rt, source_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/sources/{source_id}/chunks", response_model=list[ChunkOut])
async def source_chunks(
    source_id: uuid.UUID,
    rt: RuntimeDep,
    limit: Annotated[int, Query(ge=1, le=5000)] = 1000,
    offset: Offset = 0,
) -> list[ChunkOut]:
    chunks = await service.source_chunks(rt, source_id, limit=limit, offset=offset)
    return [ChunkOut.model_validate(c) for c in chunks]


@router.get(
    "/sources/{source_id}/chunks/{chunk_index}/location",
    response_model=CitationLocation,
    summary="Where a quote of a chunk (or the whole chunk) stands: pages, offsets, PDF rectangles",
)
async def chunk_location(
    source_id: uuid.UUID,
    chunk_index: Annotated[int, Path(ge=0, le=MAX_INT32, description="the chunk's index")],
    rt: RuntimeDep,
    quote_text: Annotated[
        str | None,
        Query(
            alias="quote",
            max_length=4000,
            description="the quote to find in the chunk; the whole chunk without it",
        ),
    ] = None,
) -> CitationLocation:
    """What a wiki or evidence citation needs to open the reader with its passage marked."""
    return await service.chunk_location(rt, source_id, chunk_index, quote_text)


@router.get(
    "/sources/{source_id}/pages",
    response_model=list[PageOut],
    summary="Per-page text (chunk offsets point into it)",
)
async def source_pages(source_id: uuid.UUID, rt: RuntimeDep) -> list[PageOut]:
    return [PageOut.model_validate(p) for p in await service.source_pages(rt, source_id)]


_FILE_DOC: dict[int | str, dict[str, Any]] = {
    # The type is sniffed from the stored bytes: any media type.
    200: {"content": {"*/*": {"schema": {"type": "string", "format": "binary"}}}},
    206: {"description": "partial content"},
    416: {"model": ErrorOut},
}


@router.get(
    "/sources/{source_id}/file",
    summary="The original file; supports HTTP range requests",
    response_class=StreamingResponse,
    responses=_FILE_DOC,
)
async def source_file(
    source_id: uuid.UUID,
    rt: RuntimeDep,
    range_header: Annotated[str | None, Header(alias="range")] = None,
) -> Response:
    return await _file_response(rt, source_id, range_header, with_body=True)


@router.head("/sources/{source_id}/file", include_in_schema=False)
async def source_file_head(
    source_id: uuid.UUID,
    rt: RuntimeDep,
    range_header: Annotated[str | None, Header(alias="range")] = None,
) -> Response:
    return await _file_response(rt, source_id, range_header, with_body=False)


async def _file_response(
    rt: RuntimeDep, source_id: uuid.UUID, range_header: str | None, *, with_body: bool
) -> Response:
    """Stored bytes are served as the type sniffed from them, never inline unless a PDF,
    and sandboxed: an uploaded page cannot run script on the app's origin."""
    stored = await service.source_file(rt, source_id)
    size = stored.size
    headers = {
        "Accept-Ranges": "bytes",
        "Content-Disposition": content_disposition(
            "inline" if stored.inline else "attachment", stored.source.file_name or "document"
        ),
        "Content-Security-Policy": "sandbox",
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "private, no-cache",
    }
    span = parse_range(range_header, size)
    if span == "unsatisfiable":
        return _unsatisfiable(size)
    status_code = 200
    start, end = 0, size - 1
    if span is not None:
        start, end = span
        status_code = 206
        headers["Content-Range"] = f"bytes {start}-{end}/{size}"
    headers["Content-Length"] = str(end - start + 1)
    if not with_body:
        return Response(status_code=status_code, media_type=stored.media_type, headers=headers)
    return StreamingResponse(
        stored.stream(start, end),
        status_code=status_code,
        media_type=stored.media_type,
        headers=headers,
    )


# Byte positions longer than this are beyond any stored file (and beyond int64).
_MAX_DIGITS = 18


def parse_range(header: str | None, size: int) -> tuple[int, int] | Literal["unsatisfiable"] | None:
    """One ``bytes=`` range → ``(start, end)``; ``None`` means serve the whole file (no
    header, or one that is malformed or not a single range: RFC 9110 says ignore it);
    a start at or past the end of the file is unsatisfiable (416)."""
    if not header:
        return None
    match = _RANGE.match(header.strip())
    if not match or (not match.group(1) and not match.group(2)):
        return None
    first, last = match.group(1), match.group(2)
    if first:
        if len(first) > _MAX_DIGITS or int(first) >= size:
            return "unsatisfiable"
        start = int(first)
        end = size - 1 if not last or len(last) > _MAX_DIGITS else min(int(last), size - 1)
        return None if end < start else (start, end)
    # A suffix range: the last N bytes.
    if len(last) <= _MAX_DIGITS and int(last) == 0:
        return "unsatisfiable"
    count = size if len(last) > _MAX_DIGITS else min(int(last), size)
    return (size - count, size - 1)


def _unsatisfiable(size: int) -> Response:
    body = json.dumps({"error": "range_not_satisfiable", "detail": f"the file has {size} bytes"})
    return Response(
        body,
        status_code=416,
        media_type="application/json",
        headers={"Content-Range": f"bytes */{size}"},
    )
