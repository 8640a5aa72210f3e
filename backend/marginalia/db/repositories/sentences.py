"""SQL for the stored sentences of chunks (``chunk_sentences``, migration 0012): written
with the chunks in the ingest's transaction, read by chunk id when an answer is scored,
rebuilt by ``marginalia reembed``; deleted with their chunk (``ON DELETE CASCADE``).

A row per non-empty sentence of a chunk (:func:`marginalia.answer.sentences.split`): its
span, whether it is prose, and for a scored sentence its vector and its Snowball lexemes
(``to_tsvector('english', …)``, computed by the server as the chunks' ``tsv`` is). A
chunk with rows has had its sentences computed; a chunk without (a database from before
0012, or whose rows ``reembed`` cleared) is split and embedded at question time.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from marginalia.db.repositories.binary import Statement, execute_many


@dataclass(frozen=True)
class NewSentence:
    """One sentence of a chunk to store; ``embedding`` (and lexemes) only when scored."""

    ordinal: int
    char_start: int
    char_end: int
    prose: bool
    #: The sentence's text when it is scored (the server computes its lexemes), else None.
    text: str | None
    embedding: np.ndarray | None


@dataclass(frozen=True)
class SentenceRow:
    ordinal: int
    char_start: int
    char_end: int
    prose: bool
    lexemes: frozenset[str] | None
    embedding: np.ndarray | None


@dataclass(frozen=True)
class ChunkSentences:
    """A chunk's stored sentences in order, and the lexemes of the chunk's whole text."""

    rows: list[SentenceRow]
    chunk_lexemes: frozenset[str]


_COLUMNS = "(chunk_id, ordinal, char_start, char_end, prose, lexemes, embedding)"
_ROW = "(%s, %s, %s, %s, %s, tsvector_to_array(to_tsvector('english', %s::text)), %b)"
#: Rows per INSERT statement.
ROWS_PER_STATEMENT = 1000


def insert_statements(rows: Sequence[tuple[int, NewSentence]]) -> list[Statement]:
    """Multi-row INSERTs of ``(chunk id, sentence)`` rows."""
    out: list[Statement] = []
    head = f"INSERT INTO chunk_sentences {_COLUMNS} VALUES "
    for lo in range(0, len(rows), ROWS_PER_STATEMENT):
        part = rows[lo : lo + ROWS_PER_STATEMENT]
        flat: list[Any] = []
        for chunk_id, s in part:
            vector = None if s.embedding is None else np.asarray(s.embedding, dtype=np.float32)
            flat += [chunk_id, s.ordinal, s.char_start, s.char_end, s.prose, s.text, vector]
        out.append((head + ", ".join([_ROW] * len(part)), [tuple(flat)]))
    return out


async def insert_for_source(
    session: AsyncSession,
    source_id: uuid.UUID,
    sentences: Sequence[tuple[int, Sequence[NewSentence]]],
) -> None:
    """Store ``(chunk_index, sentences)`` of a source's chunks, in the caller's
    transaction (the one that inserted the chunks: invariant 5)."""
    if not any(s for _, s in sentences):
        return
    ids = await session.execute(
        text("SELECT chunk_index, id FROM chunks WHERE source_id = :s"), {"s": source_id}
    )
    id_of = {int(r[0]): int(r[1]) for r in ids.all()}
    rows = [(id_of[index], s) for index, group in sentences for s in group]
    await execute_many(session, *insert_statements(rows))


async def replace(
    session: AsyncSession, chunks: Sequence[tuple[int, Sequence[NewSentence]]]
) -> None:
    """Replace the stored sentences of the given chunks (``reembed``, a question's
    fallback); a chunk deleted meanwhile is skipped."""
    if not chunks:
        return
    ids = [chunk_id for chunk_id, _ in chunks]
    await session.execute(
        text("DELETE FROM chunk_sentences WHERE chunk_id = ANY(:ids)"), {"ids": ids}
    )
    present = await session.execute(
        text("SELECT id FROM chunks WHERE id = ANY(:ids) FOR KEY SHARE"), {"ids": ids}
    )
    keep = {int(r[0]) for r in present.all()}
    rows = [(chunk_id, s) for chunk_id, group in chunks if chunk_id in keep for s in group]
    await execute_many(session, *insert_statements(rows))


async def delete_all(session: AsyncSession) -> None:
    """Forget every stored sentence (``reembed``: they are recomputed with the new model;
    meanwhile answers compute them)."""
    await session.execute(text("DELETE FROM chunk_sentences"))


async def chunk_texts_after(
    session: AsyncSession, after: int | None, limit: int
) -> list[tuple[int, str]]:
    """``(id, text)`` of chunks in id order after ``after``."""
    rows = await session.execute(
        text("SELECT id, text FROM chunks WHERE id > :after ORDER BY id LIMIT :limit"),
        {"after": -1 if after is None else after, "limit": limit},
    )
    return [(int(r[0]), str(r[1])) for r in rows.all()]


#: The chunk's lexemes ride on its first sentence's row only; vectors come as pgvector's
#: binary form (``vector_send``: dim and a reserved int16, then big-endian float4), which
#: reads back exactly and ~10x faster than parsing the text form.
_LOAD = text(
    """SELECT c.id, CASE WHEN s.ordinal = 0 THEN tsvector_to_array(c.tsv) END,
              s.ordinal, s.char_start, s.char_end, s.prose, s.lexemes,
              vector_send(s.embedding)
         FROM chunks c
         JOIN chunk_sentences s ON s.chunk_id = c.id
        WHERE c.id = ANY(:ids)
        ORDER BY c.id, s.ordinal"""
)


def _vector(data: bytes | None) -> np.ndarray | None:
    if data is None:
        return None
    return np.frombuffer(data, dtype=">f4", offset=4).astype(np.float32)


async def load(session: AsyncSession, chunk_ids: Sequence[int]) -> dict[int, ChunkSentences]:
    """The stored sentences of the given chunks (one statement); chunks without stored
    sentences are absent."""
    if not chunk_ids:
        return {}
    out: dict[int, ChunkSentences] = {}
    result = await session.execute(_LOAD, {"ids": list(chunk_ids)})
    for chunk_id, chunk_lexemes, ordinal, start, end, prose, lexemes, vector in result.all():
        entry = out.get(chunk_id)
        if entry is None:
            entry = out[chunk_id] = ChunkSentences([], frozenset(chunk_lexemes or ()))
        entry.rows.append(
            SentenceRow(
                ordinal,
                start,
                end,
                prose,
                None if lexemes is None else frozenset(lexemes),
                _vector(vector),
            )
        )
    return out
