"""SQL for sources, their pages and chunks."""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from pgvector.sqlalchemy import Vector
from psycopg.types.json import Jsonb
from sqlalchemy import delete, func, insert, select
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col

from marginalia.db.models import Chunk, Source, SourcePage
from marginalia.db.repositories import sentences as sentences_repo
from marginalia.db.repositories.binary import Statement
from marginalia.db.repositories.binary import execute_many as _execute_many
from marginalia.db.repositories.sentences import NewSentence

if TYPE_CHECKING:
    from marginalia.ingest.documents import Chunk as ParsedChunk


@dataclass(frozen=True)
class NewChunk:
    chunk_index: int
    text: str
    section_type: str
    section_title: str | None
    page_start: int | None
    page_end: int | None
    char_start: int | None
    char_end: int | None
    token_count: int
    embedding: np.ndarray
    #: Its sentences with their vectors (``chunk_sentences``); none stored when empty.
    sentences: tuple[NewSentence, ...] = ()

    @classmethod
    def from_chunk(
        cls, chunk: ParsedChunk, embedding: np.ndarray, sentences: Sequence[NewSentence] = ()
    ) -> NewChunk:
        return cls(
            chunk_index=chunk.index,
            text=chunk.text,
            section_type=chunk.section_type,
            section_title=chunk.section_title,
            page_start=chunk.page_start,
            page_end=chunk.page_end,
            char_start=chunk.char_start,
            char_end=chunk.char_end,
            token_count=chunk.token_count,
            embedding=embedding,
            sentences=tuple(sentences),
        )


_CHUNK_COLUMNS = (
    "source_id",
    "workspace_id",
    "chunk_index",
    "text",
    "section_type",
    "section_title",
    "page_start",
    "page_end",
    "char_start",
    "char_end",
    "token_count",
    "embedding",
)


def _chunk_rows(
    source_id: uuid.UUID, workspace_id: uuid.UUID, chunks: Sequence[NewChunk]
) -> list[tuple[Any, ...]]:
    return [
        (
            source_id,
            workspace_id,
            c.chunk_index,
            c.text,
            c.section_type,
            c.section_title,
            c.page_start,
            c.page_end,
            c.char_start,
            c.char_end,
            c.token_count,
            np.asarray(c.embedding, dtype=np.float32),
        )
        for c in chunks
    ]


#: Chunks per INSERT statement: the lexical index is maintained by statement-level
#: triggers (migration 0009), which aggregate df per statement, so many rows per statement.
CHUNKS_PER_STATEMENT = 500


def _chunk_statements(rows: Sequence[tuple[Any, ...]]) -> list[Statement]:
    """Multi-row INSERTs of at most CHUNKS_PER_STATEMENT chunks each."""
    one = f"({', '.join(['%s'] * (len(_CHUNK_COLUMNS) - 1))}, %b)"
    head = f"INSERT INTO chunks ({', '.join(_CHUNK_COLUMNS)}) VALUES "
    out: list[Statement] = []
    for start in range(0, len(rows), CHUNKS_PER_STATEMENT):
        part = rows[start : start + CHUNKS_PER_STATEMENT]
        flat = tuple(v for row in part for v in row)
        out.append((head + ", ".join([one] * len(part)), [flat]))
    return out


async def _insert_chunks(
    session: AsyncSession, source_id: uuid.UUID, workspace_id: uuid.UUID, chunks: Sequence[NewChunk]
) -> None:
    """The chunks, then their sentences (same transaction)."""
    await _execute_many(session, *_chunk_statements(_chunk_rows(source_id, workspace_id, chunks)))
    await sentences_repo.insert_for_source(
        session, source_id, [(c.chunk_index, c.sentences) for c in chunks]
    )


async def insert_source(
    session: AsyncSession,
    *,
    workspace_id: uuid.UUID,
    fields: dict[str, Any],
    pages: Sequence[tuple[int, str]],
    chunks: Sequence[NewChunk],
) -> Source:
    """Insert a ready source with its pages and chunks in the caller's transaction.

    Everything lands in one transaction, so a half-ingested source is never visible
    (invariant 5). Vectors must already be L2-normalised (invariant 2).
    """
    source = Source(workspace_id=workspace_id, status="ready", **fields)
    session.add(source)
    await session.flush()
    if pages:
        await session.execute(
            insert(SourcePage),
            [{"source_id": source.id, "page_number": n, "text": t} for n, t in pages],
        )
    if chunks:
        await _insert_chunks(session, source.id, workspace_id, chunks)
    await session.refresh(source)
    return source


#: Bibliographic columns an upgrade keeps from the metadata-only source when it has them
#: (the imported record knows them better than a parsed PDF does).
_KEPT_ON_UPGRADE = (
    "pages",
    "metadata_origins",
    "metadata_concepts",
    "metadata_references",
    "title",
    "authors",
    "year",
    "venue",
    "pages",
    "metadata_origins",
    "abstract",
    "url",
    "normalized_url",
    "pdf_url",
    "doi",
    "arxiv_id",
    "openalex_id",
    "citation_count",
    "origin",
)


async def upgrade_source(
    session: AsyncSession,
    source_id: uuid.UUID,
    *,
    fields: dict[str, Any],
    pages: Sequence[tuple[int, str]],
    chunks: Sequence[NewChunk],
) -> Source | None:
    """Give a metadata-only source the full text it lacked, in the caller's transaction:
    its row takes the document's columns (keeping its own bibliographic ones where set),
    and the pages and chunks are inserted. None when the source is gone or is no longer
    metadata-only (another ingest upgraded it first)."""
    source = await session.get(Source, source_id, with_for_update=True)
    if source is None or source.kind != "metadata":
        return None
    for name, value in fields.items():
        if name == "id" or (
            name in _KEPT_ON_UPGRADE and getattr(source, name) not in (None, [], "")
        ):
            continue
        setattr(source, name, value)
    source.status = "ready"
    await session.flush()
    if pages:
        await session.execute(
            insert(SourcePage),
            [{"source_id": source.id, "page_number": n, "text": t} for n, t in pages],
        )
    if chunks:
        await _insert_chunks(session, source.id, source.workspace_id, chunks)
    await session.refresh(source)
    return source


@dataclass(frozen=True)
class NewSource:
    """One source for :func:`insert_sources`: its columns, pages and chunks."""

    fields: dict[str, Any]
    pages: Sequence[tuple[int, str]]
    chunks: Sequence[NewChunk]


# Filled by the server (now()) when a row leaves them out.
_SERVER_FILLED = frozenset({"created_at", "updated_at"})
_SOURCE_COLUMNS = [
    c
    for c in Source.__table__.columns  # type: ignore[attr-defined]
    if c.name not in _SERVER_FILLED
]
_INSERT_SOURCES = (
    f"INSERT INTO sources ({', '.join(c.name for c in _SOURCE_COLUMNS)}) VALUES ("
    + ", ".join("%b" if isinstance(c.type, Vector) else "%s" for c in _SOURCE_COLUMNS)
    + ")"
)
_INSERT_PAGES = "INSERT INTO source_pages (source_id, page_number, text) VALUES (%s, %s, %s)"


def _source_value(column: Any, value: Any) -> Any:
    if value is None:
        return None
    if isinstance(column.type, JSONB):
        return Jsonb(value)
    if isinstance(column.type, Vector):
        return np.asarray(value, dtype=np.float32)
    return value


async def insert_sources(
    session: AsyncSession, *, workspace_id: uuid.UUID, sources: Sequence[NewSource]
) -> list[uuid.UUID]:
    """Insert many ready sources in three statements (sources, pages, chunks) — for
    imports of many small documents, where one round trip per row would dominate.
    Same guarantees as :func:`insert_source` within the caller's transaction. Rows go
    straight to the driver, vectors in binary form (through SQLAlchemy, pgvector's
    column type formats each mean embedding as text)."""
    if not sources:
        return []
    rows: list[tuple[Any, ...]] = []
    ids: list[uuid.UUID] = []
    for new in sources:
        # Built as a model so that its defaults apply, then inserted as plain rows.
        model = Source(workspace_id=workspace_id, status="ready", **new.fields)
        rows.append(tuple(_source_value(c, getattr(model, c.name)) for c in _SOURCE_COLUMNS))
        ids.append(model.id)
    pages = [(sid, n, t) for sid, new in zip(ids, sources, strict=True) for n, t in new.pages]
    chunk_rows = [
        row
        for sid, new in zip(ids, sources, strict=True)
        for row in _chunk_rows(sid, workspace_id, new.chunks)
    ]
    await _execute_many(
        session, (_INSERT_SOURCES, rows), (_INSERT_PAGES, pages), *_chunk_statements(chunk_rows)
    )
    return ids


async def get(session: AsyncSession, source_id: uuid.UUID) -> Source | None:
    return await session.get(Source, source_id)


async def find_by_hash(
    session: AsyncSession, workspace_id: uuid.UUID, content_hash: str
) -> Source | None:
    result = await session.execute(
        select(Source).where(
            col(Source.workspace_id) == workspace_id, col(Source.content_hash) == content_hash
        )
    )
    return result.scalars().first()


async def list_for_workspace(
    session: AsyncSession, workspace_id: uuid.UUID, *, limit: int = 500, offset: int = 0
) -> list[Source]:
    result = await session.execute(
        select(Source)
        .where(col(Source.workspace_id) == workspace_id)
        .order_by(col(Source.created_at), col(Source.id))
        .limit(limit)
        .offset(offset)
    )
    return list(result.scalars().all())


async def identities(
    session: AsyncSession, workspace_id: uuid.UUID, *, with_abstract: bool = False
) -> list[dict[str, Any]]:
    """What the dedup cascade compares against: ids, titles and identifiers (and the
    abstracts, for research's embedding layer)."""
    extra = [col(Source.abstract)] if with_abstract else []
    result = await session.execute(
        select(
            col(Source.id),
            col(Source.title),
            col(Source.kind),
            col(Source.authors),
            col(Source.year),
            *extra,
            col(Source.normalized_url),
            col(Source.doi),
            col(Source.arxiv_id),
            col(Source.openalex_id),
        ).where(col(Source.workspace_id) == workspace_id)
    )
    return [dict(row._mapping) for row in result.all()]


async def count_in_workspace(session: AsyncSession, workspace_id: uuid.UUID) -> int:
    """How many sources the workspace has (of every kind)."""
    result = await session.execute(
        select(func.count()).select_from(Source).where(col(Source.workspace_id) == workspace_id)
    )
    return int(result.scalar_one())


async def nearest_by_mean_embedding(
    session: AsyncSession, workspace_id: uuid.UUID, vector: np.ndarray, *, limit: int = 5
) -> list[tuple[uuid.UUID, float]]:
    distance = mean_embedding_column().cosine_distance(vector)
    result = await session.execute(
        select(col(Source.id), (1 - distance).label("similarity"))
        .where(col(Source.workspace_id) == workspace_id, col(Source.mean_embedding).is_not(None))
        .order_by(distance)
        .limit(limit)
    )
    return [(row[0], float(row[1])) for row in result.all()]


def mean_embedding_column() -> Any:
    # pgvector's comparator methods (cosine_distance, ...) are invisible to the type checker.
    return col(Source.mean_embedding)


async def chunks_for_source(
    session: AsyncSession, source_id: uuid.UUID, *, limit: int = 1000, offset: int = 0
) -> list[Chunk]:
    result = await session.execute(
        select(Chunk)
        .where(col(Chunk.source_id) == source_id)
        .order_by(col(Chunk.chunk_index))
        .limit(limit)
        .offset(offset)
    )
    return list(result.scalars().all())


async def chunk_by_index(
    session: AsyncSession, source_id: uuid.UUID, chunk_index: int
) -> Chunk | None:
    result = await session.execute(
        select(Chunk).where(
            col(Chunk.source_id) == source_id, col(Chunk.chunk_index) == chunk_index
        )
    )
    return result.scalars().first()


async def pages_for_source(session: AsyncSession, source_id: uuid.UUID) -> list[SourcePage]:
    result = await session.execute(
        select(SourcePage)
        .where(col(SourcePage.source_id) == source_id)
        .order_by(col(SourcePage.page_number))
    )
    return list(result.scalars().all())


async def pages_and_files(
    session: AsyncSession, source_ids: Sequence[uuid.UUID]
) -> dict[uuid.UUID, tuple[str, str | None, list[tuple[int, str]]]]:
    """``source id → (kind, file key, [(page number, text)])`` of the given sources that
    have pages, in one statement (where an answer's quotes stand)."""
    if not source_ids:
        return {}
    result = await session.execute(
        select(
            col(SourcePage.source_id),
            col(Source.kind),
            col(Source.file_key),
            col(SourcePage.page_number),
            col(SourcePage.text),
        )
        .join(Source, col(Source.id) == col(SourcePage.source_id))
        .where(col(SourcePage.source_id).in_(list(source_ids)))
        .order_by(col(SourcePage.source_id), col(SourcePage.page_number))
    )
    out: dict[uuid.UUID, tuple[str, str | None, list[tuple[int, str]]]] = {}
    for source_id, kind, file_key, number, page_text in result.all():
        entry = out.setdefault(source_id, (str(kind), file_key, []))
        entry[2].append((int(number), str(page_text)))
    return out


async def delete_source(session: AsyncSession, source_id: uuid.UUID) -> bool:
    result = await session.execute(
        delete(Source).where(col(Source.id) == source_id).returning(col(Source.id))
    )
    return result.first() is not None


async def file_key_in_use(session: AsyncSession, file_key: str) -> bool:
    value = await session.scalar(
        select(func.count()).select_from(Source).where(col(Source.file_key) == file_key)
    )
    return bool(value)


async def file_keys_of_workspace(session: AsyncSession, workspace_id: uuid.UUID) -> list[str]:
    """The stored-file keys the workspace's sources use."""
    result = await session.execute(
        select(col(Source.file_key))
        .where(col(Source.workspace_id) == workspace_id, col(Source.file_key).is_not(None))
        .distinct()
    )
    return [str(k) for k in result.scalars().all()]


async def all_for_workspace(session: AsyncSession, workspace_id: uuid.UUID) -> list[Source]:
    """Every source of the workspace, oldest first (BibTeX export)."""
    result = await session.execute(
        select(Source)
        .where(col(Source.workspace_id) == workspace_id)
        .order_by(col(Source.created_at), col(Source.id))
    )
    return list(result.scalars().all())


async def ids_by_file_name(session: AsyncSession, workspace_id: uuid.UUID) -> dict[str, uuid.UUID]:
    """File name → source id of the workspace's sources that have a file name."""
    result = await session.execute(
        select(col(Source.id), col(Source.file_name)).where(
            col(Source.workspace_id) == workspace_id
        )
    )
    return {str(name): sid for sid, name in result.all() if name}


async def embedding_centroid(session: AsyncSession, workspace_id: uuid.UUID) -> list[float] | None:
    """The mean of the workspace's ready sources' mean embeddings (None without any)."""
    result = await session.execute(
        select(func.avg(col(Source.mean_embedding))).where(
            col(Source.workspace_id) == workspace_id,
            col(Source.status) == "ready",
            col(Source.mean_embedding).is_not(None),
        )
    )
    value = result.scalar_one_or_none()
    if value is None:
        return None
    if isinstance(value, str):  # pgvector's avg() comes back as its text form "[…]"
        value = json.loads(value)
    return [float(x) for x in value]
