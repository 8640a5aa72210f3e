"""Ingest documents into a workspace: parse → dedup → chunk → embed → store.

`ingest_document` does one document; `ingest_many` runs many as a pipeline.
Everything for one source is written in a single transaction, so a failure leaves
nothing behind and a half-ingested source is never visible (invariant 5). The same
bytes twice give one source (SHA-256 of the content, unique per workspace).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

import numpy as np
from sqlalchemy.exc import IntegrityError

from marginalia.answer import sentences
from marginalia.config import Settings
from marginalia.db import Database
from marginalia.db.repositories import sources as sources_repo
from marginalia.db.repositories.sentences import NewSentence
from marginalia.db.repositories.sources import NewChunk
from marginalia.embed.base import Embedder, normalised_mean
from marginalia.embed.pinning import ensure_pinned
from marginalia.errors import MarginaliaError, NotFoundError
from marginalia.ingest.chunking import chunk_document
from marginalia.ingest.dedup import (
    DedupIndex,
    DedupLayer,
    DedupRecord,
    embedding_layer_applies,
    identifier_columns,
    identity_keys,
    match_cheap_layers,
)
from marginalia.ingest.documents import Chunk, ParsedDocument, content_type_for, safe_file_name
from marginalia.ingest.hygiene import clean_document
from marginalia.ingest.known_sources import KnownSources, PendingSources
from marginalia.ingest.progress import EMBED_REPORT_EVERY, STAGE_FRACTION, Progress, noop
from marginalia.ingest.validation import IngestRefused, validate_document
from marginalia.sources.candidate import normalized_url
from marginalia.storage import FileStore, content_hash

log = logging.getLogger(__name__)


class IngestContext(Protocol):
    """What ingest uses (a :class:`marginalia.runtime.Runtime` is one)."""

    @property
    def db(self) -> Database: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def embedder(self) -> Embedder: ...

    @property
    def files(self) -> FileStore: ...


@dataclass
class SourceMetadata:
    """What a caller knows about a document beyond its bytes (from a search result, say)."""

    title: str | None = None
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    venue: str | None = None
    pages: str | None = None
    metadata_origins: dict[str, str] = field(default_factory=dict)
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
    # The record's concepts/topics and references (sources.candidate.MetadataConcept /
    # MetadataReference as dicts): used by the knowledge update (issue 13).
    concepts: list[dict[str, Any]] = field(default_factory=list)
    references: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class IngestOutcome:
    filename: str
    status: str  # created | duplicate
    source_id: uuid.UUID
    dedup_layer: DedupLayer | None = None
    dedup_score: float | None = None
    chunks: int = 0
    pages: int = 0
    # A metadata-only source (ingest/metadata_only.py) that this document gave its text.
    upgraded: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "source_id": str(self.source_id)}


#: ``ingest_many`` fills one embedding call with the chunks of several documents, up to
#: about this many passages: one call over many passages, sorted by length, pads less
#: and runs measurably faster than one call per document (docs/BENCHMARKS.md).
GROUP_PASSAGES = 256
#: Documents read and parsed ahead of the one being prepared (each holds its bytes).
PARSE_AHEAD = 4


@dataclass
class _Prepared:
    """A document parsed, checked against the workspace and chunked; not yet embedded."""

    filename: str
    data: bytes
    digest: str
    content_type: str | None
    meta: SourceMetadata
    parsed: ParsedDocument
    # Its dedup record, with the id its source will get once stored.
    record: DedupRecord
    # What the workspace held when it was checked (for the embedding layer).
    known: DedupIndex
    chunks: list[Chunk]
    progress: Progress
    sources: KnownSources  # the workspace's, told what this stores
    upgrade_of: uuid.UUID | None = None  # the metadata-only source this fills in
    sentences: list[list[NewSentence]] = field(default_factory=list)  # per chunk, once embedded


class _Conflict:
    """`_prepare`'s answer for a document that matches a pending one."""


@dataclass
class _Group:
    """Documents embedded in one call (``members`` are their positions), with the
    outcomes of those that needed no embedding (duplicates, refusals)."""

    members: list[int]
    group: list[_Prepared]
    done: list[tuple[int, IngestOutcome | MarginaliaError]]
    embedding: asyncio.Future[list[np.ndarray]] | None


async def _prepare(
    ctx: IngestContext,
    workspace_id: uuid.UUID,
    *,
    data: bytes,
    filename: str,
    content_type: str | None,
    metadata: SourceMetadata | None,
    progress: Progress,
    parsed: ParsedDocument | None = None,
    pending: PendingSources | None = None,
    sources: KnownSources | None = None,
) -> _Prepared | IngestOutcome | _Conflict:
    """Dedup by content hash, parse (unless ``parsed`` is given), dedup by identity and
    title, chunk (against ``sources``). With ``pending``, a match of one is a conflict."""
    settings = ctx.settings
    meta = metadata or SourceMetadata()
    digest = content_hash(data)
    sources = sources if sources is not None else KnownSources(workspace_id)

    async with ctx.db.session() as session:
        from marginalia.db.repositories import workspaces as workspaces_repo

        if await workspaces_repo.get(session, workspace_id) is None:
            raise NotFoundError(f"no workspace with id {workspace_id}")
        existing = await sources_repo.find_by_hash(session, workspace_id, digest)
        if existing is not None:
            await progress("dedup", f"{filename}: already in the workspace (same content)", 1.0)
            return IngestOutcome(filename, "duplicate", existing.id, "content_hash", 1.0)
        known = await sources.current(session)
    if pending is not None and digest in pending.digests:
        return _Conflict()

    if parsed is None:
        await progress("parsing", f"parsing {filename}", STAGE_FRACTION["parsing"])
        parsed = await asyncio.to_thread(validate_document, data, filename, content_type, settings)

    record = DedupRecord(
        id=uuid.uuid4(),
        title=meta.title or parsed.title,
        # The document's own ids, authors, year (ingest/metadata.py) count if the caller has none.
        keys=identity_keys(
            url=meta.url,
            doi=meta.doi or parsed.doi,
            arxiv_id=meta.arxiv_id or parsed.arxiv_id,
            openalex_id=meta.openalex_id,
        ),
        authors=tuple(meta.authors or parsed.authors),
        year=meta.year or parsed.year,
    )
    title_threshold = settings.ingest.dedup_title_jaccard
    match = known.match(record, title_threshold=title_threshold)
    # A full document of a work known only by its metadata fills that source in.
    metadata_only = sources.metadata_only
    upgrade_of = match.existing_id if match and not meta.abstract_only else None
    upgrade_of = upgrade_of if upgrade_of in metadata_only else None
    if match is not None and upgrade_of is None:
        await progress(
            "dedup", f"{filename}: duplicate of an existing source ({match.layer} layer)", 1.0
        )
        return IngestOutcome(
            filename, "duplicate", match.existing_id, match.layer, round(match.score, 4)
        )
    if (
        pending is not None
        and match_cheap_layers(record, pending.records, title_threshold=title_threshold) is not None
    ):
        return _Conflict()

    await progress(
        "chunking", f"chunking {filename} ({parsed.page_count} pages)", STAGE_FRACTION["chunking"]
    )
    parsed = await asyncio.to_thread(clean_document, parsed)  # text hygiene, issue 35
    chunks = await asyncio.to_thread(
        chunk_document,
        parsed,
        ctx.embedder.count_tokens,
        max_tokens=ctx.embedder.max_tokens,
        overlap=settings.ingest.chunk_overlap,
        count_tokens_batch=getattr(ctx.embedder, "count_tokens_batch", None),
        counts_add_up=getattr(ctx.embedder, "counts_add_up", False),
    )
    if not chunks:
        raise IngestRefused("no_text", f"“{filename}” has no text to index after parsing.")
    prepared = (filename, data, digest, content_type, meta, parsed, record, known, chunks)
    return _Prepared(*prepared, progress, sources, upgrade_of)


async def _embed(ctx: IngestContext, group: list[_Prepared]) -> list[np.ndarray]:
    """The chunk vectors of every document of ``group``, ``EMBED_REPORT_EVERY`` passages
    at a time, each document reporting ``embedding n/N`` as its passages are done."""
    embedder = ctx.embedder
    start_f, end_f = STAGE_FRACTION["embedding"], STAGE_FRACTION["storing"]
    for p in group:
        await p.progress(
            "embedding", f"embedding 0/{len(p.chunks)} passages of {p.filename}", start_f
        )
    await ensure_pinned(ctx.db, embedder)
    texts = [c.text for p in group for c in p.chunks]
    owners = [i for i, p in enumerate(group) for _c in p.chunks]
    parts: list[np.ndarray] = []
    done = [0] * len(group)
    for lo in range(0, len(texts), EMBED_REPORT_EVERY):
        hi = min(lo + EMBED_REPORT_EVERY, len(texts))
        parts.append(await embedder.embed_documents(texts[lo:hi]))
        for i in sorted(set(owners[lo:hi])):
            p = group[i]
            done[i] += owners[lo:hi].count(i)
            if done[i] < len(p.chunks):  # the last report is the storing stage's
                fraction = start_f + (end_f - start_f) * done[i] / len(p.chunks)
                message = f"embedding {done[i]}/{len(p.chunks)} passages of {p.filename}"
                await p.progress("embedding", message, fraction)
    vectors = np.concatenate(parts) if parts else np.zeros((0, embedder.dim), np.float32)
    # The sentences the offline engine scores, embedded once here (answer/sentences.py).
    rows = await sentences.compute(texts, embedder)
    out: list[np.ndarray] = []
    start = 0
    for p in group:
        out.append(vectors[start : start + len(p.chunks)])
        p.sentences = rows[start : start + len(p.chunks)]
        start += len(p.chunks)
    return out


async def _store(
    ctx: IngestContext,
    workspace_id: uuid.UUID,
    prepared: _Prepared,
    vectors: np.ndarray,
    *,
    embedding_dedup: bool = False,
) -> IngestOutcome:
    """The embedding dedup layer (when asked), then one transaction for the source."""
    p, filename, parsed = prepared, prepared.filename, prepared.parsed
    mean = normalised_mean(vectors)
    if embedding_dedup and p.upgrade_of is None:
        async with ctx.db.session() as session:
            nearest = await sources_repo.nearest_by_mean_embedding(
                session, workspace_id, mean, limit=1
            )
        if nearest and nearest[0][1] >= ctx.settings.ingest.dedup_embedding:
            other = p.known.get(nearest[0][0])
            if other is not None and embedding_layer_applies(p.record, other):
                await p.progress(
                    "dedup", f"{filename}: duplicate of an existing source (embedding layer)", 1.0
                )
                return IngestOutcome(
                    filename, "duplicate", nearest[0][0], "embedding", round(nearest[0][1], 4)
                )

    await p.progress("storing", f"storing {filename}", STAGE_FRACTION["storing"])
    stored = await asyncio.to_thread(ctx.files.put, p.data)
    meta, keys = p.meta, p.record.keys
    fields: dict[str, Any] = {
        "id": p.record.id,
        "kind": parsed.kind,
        "origin": meta.origin,
        "title": p.record.title,
        "authors": meta.authors or parsed.authors,
        "year": meta.year or parsed.year,
        "venue": meta.venue or parsed.venue,
        "pages": meta.pages,
        "metadata_origins": dict(meta.metadata_origins),
        "abstract": meta.abstract or parsed.abstract,
        "url": meta.url,
        "normalized_url": normalized_url(meta.url) if meta.url else None,
        "pdf_url": meta.pdf_url,
        **identifier_columns(keys),
        "citation_count": meta.citation_count,
        "abstract_only": meta.abstract_only,
        "metadata_concepts": list(meta.concepts),
        "metadata_references": list(meta.references),
        "content_hash": p.digest,
        "file_key": stored.key,
        "file_name": safe_file_name(filename),
        "content_type": p.content_type or content_type_for(parsed.kind),
        "byte_size": len(p.data),
        "page_count": parsed.page_count,
        "mean_embedding": mean,
    }
    new_chunks = [
        NewChunk.from_chunk(c, vectors[i], p.sentences[i]) for i, c in enumerate(p.chunks)
    ]
    pages = [(page.number, page.text) for page in parsed.pages]
    if p.upgrade_of is not None:
        async with ctx.db.transaction() as session:
            upgraded = await sources_repo.upgrade_source(
                session, p.upgrade_of, fields=fields, pages=pages, chunks=new_chunks
            )
        p.sources.invalidate()
        if upgraded is None:  # another ingest filled it in first
            return IngestOutcome(filename, "duplicate", p.upgrade_of, "identity", 1.0)
        await p.progress("stored", f"{filename}: filled in a metadata-only source")
        counts = (len(p.chunks), parsed.page_count)
        return IngestOutcome(filename, "created", p.upgrade_of, None, None, *counts, True)
    try:
        async with ctx.db.transaction() as session:
            source = await sources_repo.insert_source(
                session,
                workspace_id=workspace_id,
                fields=fields,
                pages=pages,
                chunks=new_chunks,
            )
    except IntegrityError:
        # Another ingest of the same bytes won the race: one source, as promised.
        async with ctx.db.session() as session:
            winner = await sources_repo.find_by_hash(session, workspace_id, p.digest)
        if winner is None:
            raise
        return IngestOutcome(filename, "duplicate", winner.id, "content_hash", 1.0)
    p.sources.stored(fields)
    await p.progress(
        "stored", f"{filename}: {len(p.chunks)} passages from {parsed.page_count} pages", 1.0
    )
    return IngestOutcome(
        filename, "created", source.id, None, None, len(p.chunks), parsed.page_count
    )


async def ingest_document(
    ctx: IngestContext,
    workspace_id: uuid.UUID,
    *,
    data: bytes,
    filename: str,
    content_type: str | None = None,
    metadata: SourceMetadata | None = None,
    progress: Progress = noop,
    embedding_dedup: bool = False,
    sources: KnownSources | None = None,
) -> IngestOutcome:
    """Ingest one document: parse → dedup → chunk → embed → store (one transaction)."""
    prepared = await _prepare(
        ctx,
        workspace_id,
        data=data,
        filename=filename,
        content_type=content_type,
        metadata=metadata,
        progress=progress,
        sources=sources,
    )
    if isinstance(prepared, IngestOutcome):
        return prepared
    assert isinstance(prepared, _Prepared)  # no pending set, so no conflict
    (vectors,) = await _embed(ctx, [prepared])
    return await _store(ctx, workspace_id, prepared, vectors, embedding_dedup=embedding_dedup)


@dataclass
class IngestItem:
    load: Callable[[], bytes]  # read lazily: at most PARSE_AHEAD + a group are held at once
    filename: str
    content_type: str | None = None
    metadata: SourceMetadata | None = None


Result = tuple[int, IngestOutcome | MarginaliaError]


async def ingest_many(
    ctx: IngestContext,
    workspace_id: uuid.UUID,
    items: list[IngestItem],
    *,
    progress: Callable[[int], Progress] = lambda _i: noop,
    group_passages: int = GROUP_PASSAGES,
    sources: KnownSources | None = None,
) -> AsyncIterator[Result]:
    """Ingest documents as a pipeline; yields (position, outcome or refusal) per document.

    Three stages overlap: documents are read, parsed and chunked ahead; the chunks of
    several documents (about ``group_passages``) are embedded in one call, the next
    group's call queued behind it; while that group is embedded, the previous one is
    stored, one transaction per document. So the embedder — the bottleneck — is rarely
    left waiting. A document that matches one
    accepted but not yet stored (the same bytes or title twice in one batch) is set aside
    and ingested after the others, when the normal checks can see what it duplicates;
    so results come in input order except for those (``sources``: kept by the caller).
    """
    sources = sources if sources is not None else KnownSources(workspace_id)

    def read_and_parse(item: IngestItem) -> tuple[bytes, ParsedDocument]:
        data = item.load()
        return data, validate_document(data, item.filename, item.content_type, ctx.settings)

    # Parse-ahead: at most PARSE_AHEAD documents are read and parsed before their turn.
    ahead: list[asyncio.Future[tuple[bytes, ParsedDocument]]] = []
    next_item = 0

    def top_up(limit: int = PARSE_AHEAD) -> None:
        nonlocal next_item
        while next_item < len(items) and len(ahead) < limit:
            ahead.append(asyncio.ensure_future(asyncio.to_thread(read_and_parse, items[next_item])))
            next_item += 1

    pending = PendingSources()
    deferred: list[int] = []
    position = 0

    async def form_group() -> tuple[list[int], list[_Prepared], list[Result]]:
        """Prepare documents until the group holds ``group_passages`` passages, or until
        the embedder has nothing left to do (at the start, say): then it gets what there is."""
        nonlocal position
        members: list[int] = []
        group: list[_Prepared] = []
        done: list[Result] = []
        passages = 0
        while position < len(items) and passages < group_passages:
            top_up(PARSE_AHEAD if in_flight else 1)
            current, item = ahead.pop(0), items[position]
            if in_flight:
                # Parse ahead while the embedder works. At the start it waits for this
                # document alone, which parses faster without the others beside it.
                top_up()
            try:
                await progress(position)(
                    "parsing", f"parsing {item.filename}", STAGE_FRACTION["parsing"]
                )
                data, parsed = await current
                prepared = await _prepare(
                    ctx,
                    workspace_id,
                    data=data,
                    filename=item.filename,
                    content_type=item.content_type,
                    metadata=item.metadata,
                    progress=progress(position),
                    parsed=parsed,
                    pending=pending,
                    sources=sources,
                )
            except MarginaliaError as exc:
                done.append((position, exc))
            else:
                if isinstance(prepared, _Conflict):
                    deferred.append(position)
                elif isinstance(prepared, IngestOutcome):
                    done.append((position, prepared))
                else:
                    pending.add(prepared.digest, prepared.record)
                    members.append(position)
                    group.append(prepared)
                    passages += len(prepared.chunks)
            position += 1
            if group and all(g.embedding is None or g.embedding.done() for g in in_flight):
                break  # the embedder has nothing else to do
        return members, group, done

    async def store_group(
        members: list[int], group: list[_Prepared], vectors: list[np.ndarray]
    ) -> list[Result]:
        out: list[Result] = []
        for n, prepared, vecs in zip(members, group, vectors, strict=True):
            try:
                out.append((n, await _store(ctx, workspace_id, prepared, vecs)))
            except MarginaliaError as exc:
                out.append((n, exc))
            finally:
                pending.discard(prepared.digest, prepared.record)
        return out

    # Up to two groups' embedding calls are in flight: the next one waits for the
    # embedder's turns while the current one runs, so no slot idles between calls.
    in_flight: deque[_Group] = deque()
    storing: asyncio.Future[list[Result]] | None = None

    def launch(formed: tuple[list[int], list[_Prepared], list[Result]]) -> None:
        members, group, done = formed
        if group or done:
            embedding = asyncio.ensure_future(_embed(ctx, group)) if group else None
            in_flight.append(_Group(members, group, done, embedding))

    try:
        launch(await form_group())
        while in_flight:
            # The next group is read, checked, chunked and queued for the embedder while
            # this one is embedded (and the previous one stored).
            launch(await form_group())
            current = in_flight.popleft()
            results = list(current.done)
            vectors: list[np.ndarray] | None = []
            if current.embedding is not None:
                try:
                    vectors = await current.embedding
                except MarginaliaError as exc:
                    vectors = None
                    results += [(n, exc) for n in current.members]
                    for prepared in current.group:
                        pending.discard(prepared.digest, prepared.record)
            if storing is not None:
                results += await storing
                storing = None
            if vectors and current.group:
                storing = asyncio.ensure_future(
                    store_group(current.members, current.group, vectors)
                )
            for result in sorted(results, key=lambda r: r[0]):
                yield result
        if storing is not None:
            results = await storing
            storing = None
            for result in results:
                yield result
    finally:
        for future in (*ahead, *(g.embedding for g in in_flight), storing):
            if future is not None:
                future.cancel()
    # Set-aside documents, now that what they matched is stored (or failed).
    pending.clear()
    for n in deferred:
        item = items[n]
        try:
            data = await asyncio.to_thread(item.load)
            yield (
                n,
                await ingest_document(
                    ctx,
                    workspace_id,
                    data=data,
                    filename=item.filename,
                    content_type=item.content_type,
                    metadata=item.metadata,
                    progress=progress(n),
                    sources=sources,
                ),
            )
        except MarginaliaError as exc:
            yield n, exc
