from __future__ import annotations

import re
import uuid
from typing import Annotated

from fastapi import APIRouter, File, Header, Query, Request, Response, UploadFile, status
from fastapi.responses import StreamingResponse

from marginalia.api.deps import RuntimeDep
from marginalia.api.schemas import (
    ChunkOut,
    ErrorOut,
    JobOut,
    PageOut,
    SourceOut,
    UploadFileOut,
    UploadOut,
)
from marginalia.errors import PayloadTooLarge, ValidationFailed
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
    request: Request,
    rt: RuntimeDep,
    files: Annotated[list[UploadFile], File(description="one or more documents")],
) -> UploadOut:
    limit = rt.settings.ingest.max_upload_mb * 1024 * 1024
    declared = int(request.headers.get("content-length") or 0)
    if declared > limit * max(1, len(files)) + 1024 * 1024:
        raise PayloadTooLarge(
            f"the upload is larger than the {rt.settings.ingest.max_upload_mb} MB limit per file"
        )
    uploads: list[service.Upload] = []
    for upload in files:
        if upload.size is not None and upload.size > limit:
            raise PayloadTooLarge(
                f"“{upload.filename}” is {upload.size / 1e6:.1f} MB; the limit is "
                f"{rt.settings.ingest.max_upload_mb} MB per file"
            )
        data = await upload.read(limit + 1)
        if len(data) > limit:
            raise PayloadTooLarge(
                f"“{upload.filename}” exceeds the {rt.settings.ingest.max_upload_mb} MB limit per file"
            )
        uploads.append(service.Upload(upload.filename or "upload", data, upload.content_type))
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
    offset: Annotated[int, Query(ge=0)] = 0,
) -> list[SourceOut]:
    sources = await service.list_sources(rt, workspace_id, limit=limit, offset=offset)
    return [SourceOut.model_validate(s) for s in sources]


@router.get("/sources/{source_id}", response_model=SourceOut)
async def get_source(source_id: uuid.UUID, rt: RuntimeDep) -> SourceOut:
    return SourceOut.model_validate(await service.get_source(rt, source_id))


@router.delete("/sources/{source_id}", status_code=status.HTTP_204_NO_CONTENT)
async def delete_source(source_id: uuid.UUID, rt: RuntimeDep) -> Response:
    await service.delete_source(rt, source_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/sources/{source_id}/chunks", response_model=list[ChunkOut])
async def source_chunks(
    source_id: uuid.UUID,
    rt: RuntimeDep,
    limit: Annotated[int, Query(ge=1, le=5000)] = 1000,
    offset: Annotated[int, Query(ge=0)] = 0,
) -> list[ChunkOut]:
    chunks = await service.source_chunks(rt, source_id, limit=limit, offset=offset)
    return [ChunkOut.model_validate(c) for c in chunks]


@router.get(
    "/sources/{source_id}/pages",
    response_model=list[PageOut],
    summary="Per-page text (chunk offsets point into it)",
)
async def source_pages(source_id: uuid.UUID, rt: RuntimeDep) -> list[PageOut]:
    return [PageOut.model_validate(p) for p in await service.source_pages(rt, source_id)]


@router.get(
    "/sources/{source_id}/file",
    summary="The original file; supports HTTP range requests",
    response_class=StreamingResponse,
    responses={
        200: {"content": {"application/octet-stream": {}}},
        206: {"description": "partial content"},
        416: {"model": ErrorOut},
    },
)
async def source_file(
    source_id: uuid.UUID,
    rt: RuntimeDep,
    range_header: Annotated[str | None, Header(alias="range")] = None,
) -> Response:
    stored = await service.source_file(rt, source_id)
    source, size = stored.source, stored.size
    media = source.content_type or "application/octet-stream"
    headers = {
        "Accept-Ranges": "bytes",
        "Content-Disposition": f'inline; filename="{(source.file_name or "document").replace(chr(34), "")}"',
    }
    if range_header:
        match = _RANGE.match(range_header.strip())
        if not match or (not match.group(1) and not match.group(2)):
            return _unsatisfiable(size)
        if match.group(1):
            start = int(match.group(1))
            end = int(match.group(2)) if match.group(2) else size - 1
        else:  # suffix range: the last N bytes
            start, end = max(0, size - int(match.group(2))), size - 1
        end = min(end, size - 1)
        if start > end or start >= size:
            return _unsatisfiable(size)
        body = await stored.read(start, end)
        headers["Content-Range"] = f"bytes {start}-{end}/{size}"
        return Response(body, status_code=206, media_type=media, headers=headers)
    return Response(await stored.read(), media_type=media, headers=headers)


def _unsatisfiable(size: int) -> Response:
    import json

    body = json.dumps({"error": "range_not_satisfiable", "detail": f"the file has {size} bytes"})
    return Response(
        body,
        status_code=416,
        media_type="application/json",
        headers={"Content-Range": f"bytes */{size}"},
    )
