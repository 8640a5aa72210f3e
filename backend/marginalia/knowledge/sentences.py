"""A source's sentences as the offline engine reads them (chunk text, section, origin):
pure functions, no database, no model."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from marginalia.knowledge.text import (
    is_prose,
    normalize_whitespace,
    sentence_spans,
)

MIN_SENTENCE_CHARS = 25


MAX_SENTENCE_CHARS = 600


SKIP_SECTIONS = frozenset({"references", "bibliography", "acknowledgements", "acknowledgments"})


@dataclass(frozen=True)
class ChunkText:
    """A chunk of a source's text (``index`` is its ``chunk_index``)."""

    index: int
    text: str
    section_type: str = "other"


@dataclass(frozen=True)
class SourceSentence:
    text: str  # verbatim
    chunk_index: int | None
    section: str
    origin: str  # "title" | "abstract" | "chunk"
    chunk_pos: int  # position of the chunk in document order (-1 for title/abstract)
    order: int  # global document order


WORD_SPAN_RE = re.compile(r"[A-Za-z0-9][\w\-.’']*[A-Za-z0-9]|[A-Za-z0-9]")


def sentence_bounds(text: str) -> list[tuple[int, int]]:
    return sentence_spans(text)


def collect_sentences(
    title: str | None, abstract: str | None, chunks: Sequence[ChunkText]
) -> list[SourceSentence]:
    out: list[SourceSentence] = []
    order = 0
    if title and title.strip():
        out.append(SourceSentence(title.strip(), None, "title", "title", -1, order))
        order += 1
    if abstract:
        for s, e in sentence_bounds(abstract):
            out.append(SourceSentence(abstract[s:e], None, "abstract", "abstract", -1, order))
            order += 1
    for pos, chunk in enumerate(chunks):
        if chunk.section_type in SKIP_SECTIONS:
            continue
        for s, e in sentence_bounds(chunk.text):
            out.append(
                SourceSentence(
                    chunk.text[s:e], chunk.index, chunk.section_type, "chunk", pos, order
                )
            )
            order += 1
    return out


def usable(sentence: str) -> bool:
    n = len(sentence)
    return (
        MIN_SENTENCE_CHARS <= n <= MAX_SENTENCE_CHARS and sum(c.isalpha() for c in sentence) > n / 2
    )


def shown(sentence: str) -> bool:
    """:func:`usable` and a prose sentence (:func:`~marginalia.knowledge.text.is_prose`):
    what claims, takeaways and wiki pages may show."""
    return usable(sentence) and is_prose(sentence)


def dedupe_key(text: str) -> str:
    return normalize_whitespace(text).casefold()
