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

_BACK_MATTER_TITLE = re.compile(
    r"acknowledg|funding|financial (?:support|disclosure)|competing interests?|conflicts? of interest"
    r"|declaration|authors?['’]? contributions?|author information|contributors"
    r"|ethic|consent|data (?:and code )?availability|availability of (?:data|supporting)"
    r"|supplementary|supporting information|additional (?:information|files?)"
    r"|pre-publication history|publisher['’]?s note|abbreviations|about the authors?",
    re.IGNORECASE,
)
"""Titles of sections around a paper's content: acknowledgements, funding, competing
interests, author contributions, ethics, data availability, supplementary files."""


@dataclass(frozen=True)
class ChunkText:
    """A chunk of a source's text (``index`` is its ``chunk_index``)."""

    index: int
    text: str
    section_type: str = "other"
    section_title: str | None = None


@dataclass(frozen=True)
class SourceSentence:
    text: str  # verbatim
    chunk_index: int | None
    section: str
    origin: str  # "title" | "abstract" | "chunk"
    chunk_pos: int  # position of the chunk in document order (-1 for title/abstract)
    order: int  # global document order
    matter: str = "body"
    """``"front"`` (the untitled block before a paper's first section: running head,
    authors, affiliations, licence), ``"back"`` (acknowledgements, funding, competing
    interests … see :func:`matter_of`) or ``"body"``."""
    section_title: str | None = None


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
    matters = matter_of(chunks)
    for pos, chunk in enumerate(chunks):
        if chunk.section_type in SKIP_SECTIONS:
            continue
        for s, e in sentence_bounds(chunk.text):
            out.append(
                SourceSentence(
                    chunk.text[s:e],
                    chunk.index,
                    chunk.section_type,
                    "chunk",
                    pos,
                    order,
                    matters[pos],
                    chunk.section_title,
                )
            )
            order += 1
    return out


def matter_of(chunks: Sequence[ChunkText]) -> list[str]:
    """``"front"``, ``"back"`` or ``"body"`` for each chunk (in the given order).

    Front matter is the leading run of untitled ``other`` chunks, when a later chunk opens
    an abstract or a titled section (a document without structure is all body). Back
    matter is a section whose title reads as acknowledgements, funding, competing
    interests, author contributions, ethics, data availability or supplementary files.
    """
    out = ["body"] * len(chunks)
    first_body = next(
        (
            i
            for i, c in enumerate(chunks)
            if c.section_type != "other" or (c.section_title or "").strip()
        ),
        None,
    )
    if first_body is not None:
        for i in range(first_body):
            out[i] = "front"
    for i, c in enumerate(chunks):
        if c.section_title and _BACK_MATTER_TITLE.search(c.section_title):
            out[i] = "back"
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
