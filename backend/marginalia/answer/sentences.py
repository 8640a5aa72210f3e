"""The sentences of a passage that the offline engine scores, and their stored form.

:func:`split` is the one definition of a passage's sentences: each sentence span of
:func:`marginalia.knowledge.text.sentence_spans`, without the non-prose lines glued to it
(:func:`marginalia.answer.prose.trim_lines`), with whether it is prose and whether it fits
the embedder's window. A sentence is *scored* when it is prose and fits (invariant 1: a
sentence over the window is neither embedded nor scored, never truncated).

Ingest computes this once per chunk and stores it with the scored sentences' vectors and
lexemes (``chunk_sentences``, migration 0012; docs/decisions/0013): at question time the
engine loads them by chunk id instead of splitting and embedding again.
:func:`select_candidates` applies what depends on the context — a sentence already seen
in an earlier passage (overlapping chunks) is scored once — identically to stored and
freshly computed sentences.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from marginalia.answer.prose import is_prose, trim_lines
from marginalia.answer.quotes import normalize
from marginalia.answer.schemas import Passage
from marginalia.db.repositories.sentences import ChunkSentences, NewSentence
from marginalia.embed.base import Embedder
from marginalia.knowledge.text import sentence_spans


@dataclass(frozen=True)
class SentenceSpan:
    """One sentence of a passage: ``text[start:end]``."""

    start: int
    end: int
    prose: bool
    #: Prose within the embedder's window: embedded and scored.
    scored: bool


def split(text: str, embedder: Embedder | None = None) -> list[SentenceSpan]:
    """Every non-empty sentence of ``text`` in order; without an embedder every prose
    sentence is scored (no window to check)."""
    out: list[SentenceSpan] = []
    for span in sentence_spans(text):
        start, end = trim_lines(text, *span)
        if end <= start:
            continue
        sentence = text[start:end]
        prose = is_prose(sentence)
        fits = (
            prose
            and embedder is not None
            and embedder.count_tokens(sentence) <= embedder.max_tokens
        )
        out.append(SentenceSpan(start, end, prose, fits if embedder is not None else prose))
    return out


Candidate = tuple[int, int, int, str]


def select_candidates(
    passages: Sequence[Passage], spans: Mapping[int, Sequence[SentenceSpan]]
) -> list[Candidate]:
    """``(passage n, start, end, text)`` of each scored sentence of ``passages`` (their
    spans by passage number), the first occurrence only of a sentence repeated."""
    seen: set[str] = set()
    out: list[Candidate] = []
    for passage in passages:
        for s in spans.get(passage.n, ()):
            if not s.scored:
                continue
            sentence = passage.text[s.start : s.end]
            if not is_prose(sentence):  # stored before a prose rule was added
                continue
            key = normalize(sentence)
            if key in seen:
                continue
            seen.add(key)
            out.append((passage.n, s.start, s.end, sentence))
    return out


def spans_of(stored: ChunkSentences) -> list[SentenceSpan]:
    """A chunk's stored sentences as spans (a stored sentence is scored when it has a
    vector)."""
    return [
        SentenceSpan(r.char_start, r.char_end, r.prose, r.embedding is not None)
        for r in stored.rows
    ]


async def compute(texts: Sequence[str], embedder: Embedder) -> list[list[NewSentence]]:
    """The sentences of each text, ready to store: split (in a worker thread), and every
    scored sentence embedded — a sentence repeated across texts (overlapping chunks) once."""

    def split_all() -> list[list[SentenceSpan]]:
        return [split(t, embedder) for t in texts]

    spans = await asyncio.to_thread(split_all)
    wanted = list(
        dict.fromkeys(
            t[s.start : s.end]
            for t, group in zip(texts, spans, strict=True)
            for s in group
            if s.scored
        )
    )
    vectors = await embedder.embed_documents(wanted) if wanted else None
    row_of = {sentence: i for i, sentence in enumerate(wanted)}
    out: list[list[NewSentence]] = []
    for t, group in zip(texts, spans, strict=True):
        rows = []
        for ordinal, s in enumerate(group):
            sentence = t[s.start : s.end] if s.scored else None
            vector = None
            if sentence is not None and vectors is not None:
                vector = vectors[row_of[sentence]]
            rows.append(NewSentence(ordinal, s.start, s.end, s.prose, sentence, vector))
        out.append(rows)
    return out
