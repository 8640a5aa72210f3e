"""Ingest one document into a workspace: parse → dedup → chunk → embed → store.

Everything for one source is written in a single transaction, so a failure leaves
nothing behind and a half-ingested source is never visible (invariant 5). The same
bytes twice give one source (SHA-256 of the content, unique per workspace).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy.exc import IntegrityError

from marginalia.config import Settings
from marginalia.db.repositories import sources as sources_repo
from marginalia.db.repositories.sources import NewChunk
from marginalia.embed.pinning import ensure_pinned
from marginalia.errors import MarginaliaError, NotFoundError, PayloadTooLarge, UnsupportedMedia
from marginalia.ingest.chunking import chunk_document
from marginalia.ingest.dedup import (
    EMBEDDING_THRESHOLD,
    DedupLayer,
    DedupRecord,
    embedding_layer_applies,
    identity_keys,
    match_cheap_layers,
    record_from_row,
)
from marginalia.ingest.documents import ParsedDocument
from marginalia.ingest.errors import DocumentError
from marginalia.ingest.parse import parse_document
from marginalia.services.container import Services
from marginalia.sources.candidate import normalized_url
from marginalia.storage import content_hash

log = logging.getLogger(__name__)

Progress = Callable[[str, str], Awaitable[None]]


class IngestRefused(MarginaliaError):
    """A document we will not ingest; `code` says why (DocumentError codes)."""

    status_code = 422

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code


_STATUS_FOR_CODE = {
    "too_large": PayloadTooLarge.status_code,
    "unsupported_type": UnsupportedMedia.status_code,
}


def refused(error: DocumentError, filename: str) -> IngestRefused:
    # Name the file: an upload may carry several.
    message = error.message if filename in error.message else f"“{filename}”: {error.message}"
    exc = IngestRefused(error.code, message)
    exc.status_code = _STATUS_FOR_CODE.get(error.code, 422)
    return exc


def validate_document(
    data: bytes, filename: str, content_type: str | None, settings: Settings
) -> ParsedDocument:
    """Parse with the configured limits; refusals become IngestRefused with a clear message."""
    try:
        return parse_document(
            data,
            filename,
            content_type=content_type,
            max_bytes=settings.ingest.max_upload_mb * 1024 * 1024,
            max_pages=settings.ingest.max_pages,
        )
    except DocumentError as exc:
        raise refused(exc, filename) from exc


@dataclass
class SourceMetadata:
    """What a caller knows about a document beyond its bytes (from a search result, say)."""

    title: str | None = None
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    venue: str | None = None
    abstract: str | None = None
    url: str | None = None
    pdf_url: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    openalex_id: str | None = None
    citation_count: int | None = None
    origin: str = "upload"
    # True when only the title/abstract could be had (no reachable full text).
    abstract_only: bool = False


@dataclass
class IngestOutcome:
    filename: str
    status: str  # created | duplicate
    source_id: uuid.UUID
    dedup_layer: DedupLayer | None = None
    dedup_score: float | None = None
    chunks: int = 0
    pages: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "filename": self.filename,
            "status": self.status,
            "source_id": str(self.source_id),
            "dedup_layer": self.dedup_layer,
            "dedup_score": self.dedup_score,
            "chunks": self.chunks,
            "pages": self.pages,
        }


async def _noop(stage: str, message: str) -> None:
    return None


async def ingest_document(
    services: Services,
    workspace_id: uuid.UUID,
    *,
    data: bytes,
    filename: str,
    content_type: str | None = None,
    metadata: SourceMetadata | None = None,
    progress: Progress = _noop,
    embedding_dedup: bool = False,
    parsing: asyncio.Future[ParsedDocument] | None = None,
) -> IngestOutcome:
    """Ingest one document. `parsing` may be a parse of `data` already under way (see
    `ingest_many`), so the next file parses while this one is embedded."""
    settings = services.settings
    meta = metadata or SourceMetadata()
    digest = content_hash(data)

    async with services.db.session() as session:
        from marginalia.db.repositories import workspaces as workspaces_repo

        if await workspaces_repo.get(session, workspace_id) is None:
            raise NotFoundError(f"no workspace with id {workspace_id}")
        existing = await sources_repo.find_by_hash(session, workspace_id, digest)
        if existing is not None:
            await progress("dedup", f"{filename}: already in the workspace (same content)")
            return IngestOutcome(filename, "duplicate", existing.id, "content_hash", 1.0)
        known = await sources_repo.identities(session, workspace_id)

    await progress("parsing", f"parsing {filename}")
    parsed = await (
        parsing
        if parsing is not None
        else asyncio.to_thread(validate_document, data, filename, content_type, settings)
    )

    title = meta.title or parsed.title
    new_record = DedupRecord(
        id=None,
        title=title,
        keys=identity_keys(
            url=meta.url, doi=meta.doi, arxiv_id=meta.arxiv_id, openalex_id=meta.openalex_id
        ),
    )
    records = [record_from_row(row) for row in known]
    match = match_cheap_layers(new_record, records)
    if match is not None:
        await progress(
            "dedup", f"{filename}: duplicate of an existing source ({match.layer} layer)"
        )
        return IngestOutcome(
            filename, "duplicate", match.existing_id, match.layer, round(match.score, 4)
        )

    await progress("chunking", f"chunking {filename} ({parsed.page_count} pages)")
    embedder = services.embedder
    chunks = await asyncio.to_thread(
        chunk_document,
        parsed,
        embedder.count_tokens,
        max_tokens=embedder.max_tokens,
        overlap=settings.ingest.chunk_overlap,
        count_tokens_batch=getattr(embedder, "count_tokens_batch", None),
    )
    if not chunks:
        raise IngestRefused("no_text", f"“{filename}” has no text to index after parsing.")

    await progress("embedding", f"embedding {len(chunks)} passages of {filename}")
    await ensure_pinned(services.db, embedder)
    vectors = await embedder.embed_documents([c.text for c in chunks])
    mean = _normalised_mean(vectors)

    if embedding_dedup:
        async with services.db.session() as session:
            nearest = await sources_repo.nearest_by_mean_embedding(
                session, workspace_id, mean, limit=1
            )
        if nearest and nearest[0][1] >= EMBEDDING_THRESHOLD:
            other = next((r for r in records if r.id == nearest[0][0]), None)
            if other is not None and embedding_layer_applies(new_record, other.has_scholarly_id):
                await progress(
                    "dedup", f"{filename}: duplicate of an existing source (embedding layer)"
                )
                return IngestOutcome(
                    filename, "duplicate", nearest[0][0], "embedding", round(nearest[0][1], 4)
                )

    await progress("storing", f"storing {filename}")
    stored = await asyncio.to_thread(services.files.put, data)
    fields: dict[str, Any] = {
        "kind": parsed.kind,
        "origin": meta.origin,
        "title": title,
        "authors": meta.authors or parsed.authors,
        "year": meta.year,
        "venue": meta.venue,
        "abstract": meta.abstract or parsed.abstract,
        "url": meta.url,
        "normalized_url": normalized_url(meta.url) if meta.url else None,
        "pdf_url": meta.pdf_url,
        "doi": next((k[4:] for k in new_record.keys if k.startswith("doi:")), None),
        "arxiv_id": next((k[6:] for k in new_record.keys if k.startswith("arxiv:")), None),
        "openalex_id": next((k[9:] for k in new_record.keys if k.startswith("openalex:")), None),
        "citation_count": meta.citation_count,
        "abstract_only": meta.abstract_only,
        "content_hash": digest,
        "file_key": stored.key,
        "file_name": filename,
        "content_type": content_type or _content_type_for(parsed.kind),
        "byte_size": len(data),
        "page_count": parsed.page_count,
        "mean_embedding": mean,
    }
    new_chunks = [NewChunk.from_chunk(c, vectors[i]) for i, c in enumerate(chunks)]
    try:
        async with services.db.transaction() as session:
            source = await sources_repo.insert_source(
                session,
                workspace_id=workspace_id,
                fields=fields,
                pages=[(p.number, p.text) for p in parsed.pages],
                chunks=new_chunks,
            )
    except IntegrityError:
        # Another ingest of the same bytes won the race: one source, as promised.
        async with services.db.session() as session:
            winner = await sources_repo.find_by_hash(session, workspace_id, digest)
        if winner is None:
            raise
        return IngestOutcome(filename, "duplicate", winner.id, "content_hash", 1.0)
    await progress("stored", f"{filename}: {len(chunks)} passages from {parsed.page_count} pages")
    return IngestOutcome(filename, "created", source.id, None, None, len(chunks), parsed.page_count)


@dataclass
class IngestItem:
    load: Callable[[], bytes]  # read lazily: at most two files are held at once
    filename: str
    content_type: str | None = None
    metadata: SourceMetadata | None = None


async def ingest_many(
    services: Services,
    workspace_id: uuid.UUID,
    items: list[IngestItem],
    *,
    progress: Callable[[int], Progress] = lambda _i: _noop,
) -> AsyncIterator[tuple[int, IngestOutcome | MarginaliaError]]:
    """Ingest documents one after another, parsing the next while this one is embedded.

    Yields (position, outcome or the refusal) as each finishes, so a caller can
    checkpoint per file; every file is still its own transaction.
    """

    def start(item: IngestItem) -> asyncio.Future[tuple[bytes, ParsedDocument]]:
        def read_and_parse() -> tuple[bytes, ParsedDocument]:
            data = item.load()
            return data, validate_document(
                data, item.filename, item.content_type, services.settings
            )

        return asyncio.ensure_future(asyncio.to_thread(read_and_parse))

    upcoming = start(items[0]) if items else None
    for position, item in enumerate(items):
        assert upcoming is not None
        current = upcoming
        upcoming = start(items[position + 1]) if position + 1 < len(items) else None
        try:
            data, parsed = await current
            parsing: asyncio.Future[ParsedDocument] = asyncio.get_running_loop().create_future()
            parsing.set_result(parsed)
            yield (
                position,
                await ingest_document(
                    services,
                    workspace_id,
                    data=data,
                    filename=item.filename,
                    content_type=item.content_type,
                    metadata=item.metadata,
                    progress=progress(position),
                    parsing=parsing,
                ),
            )
        except MarginaliaError as exc:
            yield position, exc
    if upcoming is not None:
        upcoming.cancel()


def _normalised_mean(vectors: np.ndarray) -> np.ndarray:
    mean = vectors.mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return (mean / norm if norm > 0 else mean).astype(np.float32)


def _content_type_for(kind: str) -> str:
    return {
        "pdf": "application/pdf",
        "html": "text/html",
        "markdown": "text/markdown",
        "text": "text/plain",
    }.get(kind, "application/octet-stream")
