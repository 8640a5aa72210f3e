"""Sources, whole: upload/ingest → knowledge update → ready; delete → knowledge removal →
the file removed when no other source uses it; and the reads behind the API and CLI.

The ``ingest`` job runs both halves of an arrival in one job (invariant 9): the files go
through the ingest pipeline (stages parsing, chunking, embedding, storing), then every
source the job created — or found already stored without knowledge — gets the knowledge
update (stage ``knowledge``). The checkpoint records finished files (``done``) and sources
whose knowledge update finished (``knowledge``), so a resumed job skips both and still
runs the update for a source whose ingest finished but whose knowledge step did not
(invariant 5).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from marginalia.answer.locations import locate_in_chunk
from marginalia.answer.schemas import CitationLocation
from marginalia.db.models import Chunk, Job, Source, SourcePage
from marginalia.db.repositories import sources as repo
from marginalia.errors import MarginaliaError, NotFoundError, ValidationFailed
from marginalia.ingest.documents import safe_file_name
from marginalia.ingest.errors import DocumentError
from marginalia.ingest.parse import sniff_kind
from marginalia.ingest.pipeline import (
    IngestItem,
    IngestOutcome,
    Progress,
    SourceMetadata,
    ingest_document,
    ingest_many,
)
from marginalia.ingest.validation import validate_document
from marginalia.jobs.context import JobContext
from marginalia.jobs.registry import job
from marginalia.knowledge import read as knowledge_read
from marginalia.knowledge.refresh import refresh_workspace
from marginalia.knowledge.update import KnowledgeUpdate, remove_source, update_for_source
from marginalia.knowledge.views import SourceCitationsView
from marginalia.runtime import Runtime
from marginalia.usecases.knowledge import request_refresh
from marginalia.usecases.workspaces import get_workspace, remove_unused_files

INGEST_KIND = "ingest"


@dataclass(frozen=True)
class Upload:
    """A file to ingest. Its name keeps only its last path component (no ``../``) before it
    is stored or echoed (``safe_file_name``)."""

    filename: str
    data: bytes
    content_type: str | None

    def __post_init__(self) -> None:
        object.__setattr__(self, "filename", safe_file_name(self.filename))


async def validate_upload(rt: Runtime, upload: Upload) -> None:
    """Raise IngestRefused (a clear, user-facing error) if the file cannot be ingested."""
    await asyncio.to_thread(
        validate_document, upload.data, upload.filename, upload.content_type, rt.settings
    )


@dataclass(frozen=True)
class UploadFileOutcome:
    """What happened to one file of an upload: ``accepted`` (in the job) or ``refused``."""

    filename: str
    status: Literal["accepted", "refused"]
    detail: str | None = None


@dataclass(frozen=True)
class UploadSubmitted:
    job: Job
    files: list[UploadFileOutcome]


async def submit_uploads(
    rt: Runtime,
    workspace_id: uuid.UUID,
    uploads: list[Upload],
    *,
    validated: bool = False,
    metadata: dict[str, Any] | None = None,
) -> UploadSubmitted:
    """Validate each file on its own — a refused file is reported, never stored, and does
    not sink the others — then store the accepted ones and submit one ingest job. When
    every file is refused nothing is stored and the (first) refusal is raised.
    ``metadata``: SourceMetadata fields every file gets (e.g. the URL it was fetched from)."""
    await get_workspace(rt, workspace_id)
    if not uploads:
        raise ValidationFailed("no files in the upload")
    outcomes: list[UploadFileOutcome] = []
    accepted: list[Upload] = []
    first_refusal: MarginaliaError | None = None
    for upload in uploads:
        if not validated:
            try:
                await validate_upload(rt, upload)
            except MarginaliaError as exc:
                first_refusal = first_refusal or exc
                outcomes.append(UploadFileOutcome(upload.filename, "refused", exc.detail))
                continue
        accepted.append(upload)
        outcomes.append(UploadFileOutcome(upload.filename, "accepted"))
    if not accepted:
        assert first_refusal is not None  # uploads is not empty
        raise first_refusal
    files = []
    for upload in accepted:
        stored = await asyncio.to_thread(rt.files.put, upload.data)
        item: dict[str, Any] = {
            "key": stored.key,
            "filename": upload.filename,
            "content_type": upload.content_type,
        }
        if metadata:
            item["metadata"] = {k: v for k, v in metadata.items() if v is not None}
        files.append(item)
    job = await rt.jobs.submit(
        INGEST_KIND, {"workspace_id": str(workspace_id), "files": files}, workspace_id=workspace_id
    )
    return UploadSubmitted(job, outcomes)


# ------------------------------------------------------------------------------ the knowledge step


async def needs_knowledge(rt: Runtime, source_id: uuid.UUID) -> bool:
    """A stored source the knowledge layer has not extracted yet."""
    async with rt.db.session() as session:
        source = await repo.get(session, source_id)
    return source is not None and source.extraction_engine is None


def knowledge_summary(update: KnowledgeUpdate) -> dict[str, Any]:
    return {
        "concepts": update.concepts,
        "claims": update.claims,
        "wiki_pages": len(update.wiki_pages),
        "cites": update.cites,
        "engine": update.engine,
    }


@dataclass
class DocumentsAdded:
    """What :func:`add_documents` did: per file the ingest outcome, and the knowledge step."""

    outcomes: list[IngestOutcome]
    knowledge: dict[str, Any]
    ingest_s: float
    knowledge_s: float


async def add_documents(
    rt: Runtime,
    workspace_id: uuid.UUID,
    documents: Sequence[tuple[str, Callable[[], bytes]]],
    *,
    progress: Callable[[str], None] = lambda _m: None,
) -> DocumentsAdded:
    """Ingest ``(file name, read bytes)`` documents one after another in this process, then
    run the knowledge update for each distinct source (the QA eval's and the benchmarks'
    way in; uploads go through the ``ingest`` job). A knowledge failure is reported, not
    raised: the sources stay stored and ``marginalia knowledge rebuild`` can redo it."""
    started = time.perf_counter()
    outcomes: list[IngestOutcome] = []
    for name, read in documents:
        progress(f"ingesting {name}")
        data = await asyncio.to_thread(read)
        outcomes.append(await ingest_document(rt, workspace_id, data=data, filename=name))
    ingest_s = time.perf_counter() - started
    t = time.perf_counter()
    done = 0
    errors: list[str] = []
    for sid in dict.fromkeys(o.source_id for o in outcomes):
        progress(f"knowledge update for source {sid}")
        try:
            await update_for_source(rt, workspace_id, sid, refresh=False)
            done += 1
        except Exception as exc:  # reported with the result; the sources stay usable
            errors.append(f"{sid}: {type(exc).__name__}: {exc}"[:300])
    if done:
        progress("knowledge refresh (centrality, clusters, wiki)")
        await refresh_workspace(rt, workspace_id)
    status = "ok" if not errors else ("partial" if done else "failed")
    return DocumentsAdded(
        outcomes,
        {"status": status, "sources": done, "errors": errors},
        ingest_s,
        time.perf_counter() - t,
    )


@job(INGEST_KIND)
async def ingest_job(ctx: JobContext) -> dict[str, Any]:
    """Files in the file store → sources → knowledge (see the module doc)."""
    workspace_id = uuid.UUID(str(ctx.params["workspace_id"]))
    files: list[dict[str, Any]] = list(ctx.params["files"])
    results = await _ingest_files(ctx, workspace_id, files)
    updated = await _knowledge_step(ctx, workspace_id, results)
    # Uploaded files that became no source (refused, or a duplicate of other bytes).
    await remove_unused_files(
        ctx.runtime,
        [
            str(item["key"])
            for item, r in zip(files, results, strict=True)
            if r["status"] != "created"
        ],
    )
    summary = {
        s: sum(1 for r in results if r["status"] == s) for s in ("created", "duplicate", "failed")
    }
    await ctx.emit(
        f"{summary['created']} added, {summary['duplicate']} already present, "
        f"{summary['failed']} failed; knowledge updated for {updated}",
        stage="done",
        progress=1.0,
        data=summary,
    )
    return {"files": results, **summary}


async def _ingest_files(
    ctx: JobContext, workspace_id: uuid.UUID, files: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Each file's outcome, in order; files a previous run finished (checkpoint ``done``)
    are not ingested again. Ingest is the first 80% of the job's progress."""
    rt = ctx.runtime
    done: dict[str, dict[str, Any]] = dict(ctx.checkpoint.get("done", {}))
    total = len(files)
    todo = [(i, item) for i, item in enumerate(files) if f"{i}:{item['key']}" not in done]

    def load(key: str) -> Callable[[], bytes]:
        def read() -> bytes:
            if not rt.files.exists(key):
                raise NotFoundError("the uploaded file is no longer stored; upload it again")
            return rt.files.get(key)

        return read

    # Each file's own progress (0–1); the job's is their mean over the first 80%.
    pending = {i for i, _item in todo}
    file_progress = {i: 1.0 for i in range(total) if i not in pending}

    def progress(position: int) -> Progress:
        name = str(files[position]["filename"])

        async def report(stage: str, message: str, fraction: float | None = None) -> None:
            if fraction is not None:
                file_progress[position] = max(file_progress.get(position, 0.0), fraction)
            await ctx.emit(
                message,
                stage=stage,
                progress=0.8 * sum(file_progress.values()) / total,
                data={"filename": name, "file_progress": file_progress.get(position, 0.0)},
            )

        return report

    items = [
        IngestItem(
            load=load(str(item["key"])),
            filename=str(item["filename"]),
            content_type=item.get("content_type"),
            metadata=SourceMetadata(**item["metadata"]) if item.get("metadata") else None,
        )
        for _i, item in todo
    ]
    async for n, outcome in ingest_many(
        rt, workspace_id, items, progress=lambda n: progress(todo[n][0])
    ):
        ctx.raise_if_cancelled()
        position, item = todo[n]
        name = str(item["filename"])
        if isinstance(outcome, MarginaliaError):
            done[f"{position}:{item['key']}"] = {
                "filename": name,
                "status": "failed",
                "error": outcome.detail,
            }
            await ctx.emit(f"{name}: {outcome.detail}", stage="failed", type="log")
        else:
            result = outcome.as_dict()
            if ctx.resumed and await _stored_by_earlier_attempt(ctx, outcome, str(item["key"])):
                # The killed attempt stored this file but not its checkpoint: the job as a
                # whole created it, it is no duplicate.
                result.update(status="created", dedup_layer=None, dedup_score=None)
            done[f"{position}:{item['key']}"] = result
        await ctx.save_checkpoint(done=done)
    return [done[f"{i}:{item['key']}"] for i, item in enumerate(files)]


async def _stored_by_earlier_attempt(ctx: JobContext, outcome: IngestOutcome, key: str) -> bool:
    """A same-content duplicate whose source holds this upload's file and was stored
    after this job was submitted: an earlier attempt of this job stored it."""
    if outcome.status != "duplicate" or outcome.dedup_layer != "content_hash":
        return False
    job = await ctx.runtime.jobs.get(ctx.job_id)
    async with ctx.runtime.db.session() as session:
        source = await repo.get(session, outcome.source_id)
    return source is not None and source.file_key == key and source.created_at >= job.created_at


async def _knowledge_step(
    ctx: JobContext, workspace_id: uuid.UUID, results: list[dict[str, Any]]
) -> int:
    """The knowledge update (stage ``knowledge``) for each source the job created, or
    found stored without knowledge, unless a previous run finished it (checkpoint
    ``knowledge``). Adds each result's ``knowledge`` summary; returns how many ran."""
    rt = ctx.runtime
    knowledge: dict[str, dict[str, Any]] = dict(ctx.checkpoint.get("knowledge", {}))
    candidates = dict.fromkeys(
        uuid.UUID(r["source_id"])
        for r in results
        if r["status"] != "failed" and r.get("source_id") and r["source_id"] not in knowledge
    )
    created = {r["source_id"] for r in results if r["status"] == "created"}
    targets = [sid for sid in candidates if str(sid) in created or await needs_knowledge(rt, sid)]
    for k, sid in enumerate(targets):
        ctx.raise_if_cancelled()
        name = next(r["filename"] for r in results if r.get("source_id") == str(sid))
        await ctx.emit(
            f"knowledge update for {name}", stage="knowledge", progress=0.8 + 0.2 * k / len(targets)
        )
        try:
            update = await update_for_source(rt, workspace_id, sid, refresh=False)
            knowledge[str(sid)] = {"status": "ok", **knowledge_summary(update)}
        except MarginaliaError as exc:
            # The source is stored and visible; `marginalia knowledge rebuild` redoes it.
            knowledge[str(sid)] = {"status": "failed", "error": exc.detail}
            await ctx.emit(
                f"{name}: knowledge update failed: {exc.detail}", stage="knowledge", type="log"
            )
        await ctx.save_checkpoint(knowledge=knowledge)
    if targets:
        # Centrality, levels, clusters, central wiki pages: once, debounced across uploads.
        await request_refresh(rt, workspace_id)
    for r in results:
        if r.get("source_id") in knowledge:
            r["knowledge"] = knowledge[r["source_id"]]
    return len(targets)


# ------------------------------------------------------------------------------ reads


async def list_sources(
    rt: Runtime, workspace_id: uuid.UUID, *, limit: int, offset: int
) -> list[Source]:
    await get_workspace(rt, workspace_id)
    async with rt.db.session() as session:
        return await repo.list_for_workspace(session, workspace_id, limit=limit, offset=offset)


async def get_source(rt: Runtime, source_id: uuid.UUID) -> Source:
    async with rt.db.session() as session:
        source = await repo.get(session, source_id)
    if source is None:
        raise NotFoundError(f"no source with id {source_id}")
    return source


async def citation_counts(rt: Runtime, workspace_id: uuid.UUID) -> dict[uuid.UUID, tuple[int, int]]:
    """Per source of the workspace: (cited by N sources here, cites N sources here)."""
    return await knowledge_read.citation_counts(rt, workspace_id)


async def source_citations(rt: Runtime, source_id: uuid.UUID) -> SourceCitationsView:
    """The workspace sources ``source_id`` cites and those citing it (paper -> paper)."""
    return await knowledge_read.source_citations(rt, source_id)


async def source_chunks(
    rt: Runtime, source_id: uuid.UUID, *, limit: int, offset: int
) -> list[Chunk]:
    await get_source(rt, source_id)
    async with rt.db.session() as session:
        return await repo.chunks_for_source(session, source_id, limit=limit, offset=offset)


async def chunk_location(
    rt: Runtime, source_id: uuid.UUID, chunk_index: int, quote: str | None
) -> CitationLocation:
    """Where a quote (or the whole chunk) of chunk ``chunk_index`` stands on its pages."""
    await get_source(rt, source_id)
    location = await locate_in_chunk(rt, source_id, chunk_index, quote)
    if location is None:
        raise NotFoundError(f"no chunk {chunk_index} with page offsets in source {source_id}")
    return location


async def source_pages(rt: Runtime, source_id: uuid.UUID) -> list[SourcePage]:
    await get_source(rt, source_id)
    async with rt.db.session() as session:
        return await repo.pages_for_source(session, source_id)


# How a stored file is served: its type is sniffed from its bytes (never the uploader's
# word); only PDFs are shown inline (the reader), everything else is a download.
_SERVED_TYPES = {
    "pdf": "application/pdf",
    "html": "text/html",
    "markdown": "text/markdown",
    "text": "text/plain",
}
_STREAM_CHUNK = 256 * 1024


@dataclass(frozen=True)
class SourceFile:
    """A source's stored original file: what the API's file route serves."""

    source: Source
    key: str
    size: int
    media_type: str
    rt: Runtime

    @property
    def inline(self) -> bool:
        return self.media_type == "application/pdf"

    async def read(self, start: int | None = None, end_inclusive: int | None = None) -> bytes:
        if start is None or end_inclusive is None:
            return await asyncio.to_thread(self.rt.files.get, self.key)
        return await asyncio.to_thread(self.rt.files.read_range, self.key, start, end_inclusive)

    async def stream(self, start: int, end_inclusive: int) -> AsyncIterator[bytes]:
        """The bytes ``start..end_inclusive`` in chunks (constant memory per download)."""
        position = start
        while position <= end_inclusive:
            last = min(end_inclusive, position + _STREAM_CHUNK - 1)
            chunk = await asyncio.to_thread(self.rt.files.read_range, self.key, position, last)
            if not chunk:
                return
            yield chunk
            position += len(chunk)


def served_type(head: bytes, filename: str) -> str:
    """The media type a stored file is served as, from its first bytes."""
    try:
        kind = sniff_kind(head, filename)
    except DocumentError:
        return "application/octet-stream"
    return _SERVED_TYPES.get(kind, "application/octet-stream")


async def source_file(rt: Runtime, source_id: uuid.UUID) -> SourceFile:
    source = await get_source(rt, source_id)
    key = source.file_key
    if not key or not await asyncio.to_thread(rt.files.exists, key):
        raise NotFoundError(f"source {source_id} has no stored file")
    size = await asyncio.to_thread(rt.files.size, key)
    head = (
        await asyncio.to_thread(rt.files.read_range, key, 0, min(size, 8192) - 1) if size else b""
    )
    media = served_type(head, source.file_name or "document")
    return SourceFile(source, key, size, media, rt)


# ------------------------------------------------------------------------------ delete


async def delete_source(rt: Runtime, source_id: uuid.UUID) -> None:
    """Delete a source and whatever only it supported: the knowledge layer removes it
    (its chunks, claims, evidence, edges and cluster memberships go; concepts no other
    source discusses are deleted; wiki pages it fed are revised or, citing nothing left,
    deleted), then its file goes when no other source uses it."""
    source = await get_source(rt, source_id)
    file_key = source.file_key
    await remove_source(rt, source.workspace_id, source_id, refresh=False)
    await request_refresh(rt, source.workspace_id)  # debounced graph-wide statistics
    if file_key:
        await remove_unused_files(rt, [str(file_key)])
