"""Source operations for the API and CLI: upload, list, read, delete."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass

from marginalia.db.models import Chunk, Job, Source, SourcePage
from marginalia.db.repositories import sources as repo
from marginalia.errors import NotFoundError
from marginalia.ingest.pipeline import validate_document
from marginalia.services.container import Services
from marginalia.services.workspaces import get_workspace


@dataclass(frozen=True)
class Upload:
    filename: str
    data: bytes
    content_type: str | None


async def validate_upload(services: Services, upload: Upload) -> None:
    """Raise IngestRefused (a clear, user-facing error) if the file cannot be ingested."""
    await asyncio.to_thread(
        validate_document, upload.data, upload.filename, upload.content_type, services.settings
    )


async def submit_uploads(
    services: Services, workspace_id: uuid.UUID, uploads: list[Upload], *, validated: bool = False
) -> Job:
    """Validate every file first (any refusal changes nothing), then store them and
    submit one ingest job."""
    await get_workspace(services.db, workspace_id)
    if not validated:
        for upload in uploads:
            await validate_upload(services, upload)
    files = []
    for upload in uploads:
        stored = await asyncio.to_thread(services.files.put, upload.data)
        files.append(
            {"key": stored.key, "filename": upload.filename, "content_type": upload.content_type}
        )
    return await services.jobs.submit(
        "ingest", {"workspace_id": str(workspace_id), "files": files}, workspace_id=workspace_id
    )


async def list_sources(
    services: Services, workspace_id: uuid.UUID, *, limit: int, offset: int
) -> list[Source]:
    await get_workspace(services.db, workspace_id)
    async with services.db.session() as session:
        return await repo.list_for_workspace(session, workspace_id, limit=limit, offset=offset)


async def get_source(services: Services, source_id: uuid.UUID) -> Source:
    async with services.db.session() as session:
        source = await repo.get(session, source_id)
    if source is None:
        raise NotFoundError(f"no source with id {source_id}")
    return source


async def source_chunks(
    services: Services, source_id: uuid.UUID, *, limit: int, offset: int
) -> list[Chunk]:
    await get_source(services, source_id)
    async with services.db.session() as session:
        return await repo.chunks_for_source(session, source_id, limit=limit, offset=offset)


async def source_pages(services: Services, source_id: uuid.UUID) -> list[SourcePage]:
    await get_source(services, source_id)
    async with services.db.session() as session:
        return await repo.pages_for_source(session, source_id)


async def delete_source(services: Services, source_id: uuid.UUID) -> None:
    """Delete a source and everything it owns; its file goes when nothing else uses it."""
    async with services.db.transaction() as session:
        source = await repo.get(session, source_id)
        if source is None:
            raise NotFoundError(f"no source with id {source_id}")
        file_key = source.file_key
        await repo.delete_source(session, source_id)
        still_used = bool(file_key) and await repo.file_key_in_use(session, str(file_key))
    if file_key and not still_used:
        await asyncio.to_thread(services.files.delete, file_key)
