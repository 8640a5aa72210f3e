"""Embedding texts that may exceed the model window (claims, summaries, wiki leads):
the embedder only, no database."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import numpy as np

from marginalia.embed.base import Embedder
from marginalia.knowledge.text import sentence_spans


def _window_pieces(embedder: Embedder, text: str) -> list[str]:
    """``text`` cut at sentence (then word) boundaries into pieces that fit the window."""
    text = text.strip() or "(empty)"
    limit = embedder.max_tokens
    if embedder.count_tokens(text) <= limit:
        return [text]
    pieces: list[str] = []
    current = ""
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        candidate = f"{current} {sentence}".strip()
        if embedder.count_tokens(candidate) <= limit:
            current = candidate
            continue
        if current:
            pieces.append(current)
        if embedder.count_tokens(sentence) <= limit:
            current = sentence
        else:
            pieces.extend(_split_words(embedder, sentence))
            current = ""
    if current:
        pieces.append(current)
    return pieces


def _split_words(embedder: Embedder, text: str) -> list[str]:
    words = text.split()
    if len(words) <= 1 or embedder.count_tokens(text) <= embedder.max_tokens:
        # a single enormous "word": keep a prefix that fits (never silently: it is one
        # of several pieces of a text embedded as a mean, not a stored chunk)
        out = text
        while embedder.count_tokens(out) > embedder.max_tokens and len(out) > 8:
            out = out[: len(out) * 3 // 4]
        return [out]
    mid = len(words) // 2
    return _split_words(embedder, " ".join(words[:mid])) + _split_words(
        embedder, " ".join(words[mid:])
    )


async def embed_texts(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """One unit vector per text; a text longer than the model window is embedded as the
    length-weighted mean of window-sized pieces (split at sentence boundaries)."""
    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    pieces: list[str] = []
    owners: list[int] = []
    for i, t in enumerate(texts):
        for piece in await asyncio.to_thread(_window_pieces, embedder, t):
            pieces.append(piece)
            owners.append(i)
    vectors = await embedder.embed_documents(pieces)
    out = np.zeros((len(texts), vectors.shape[1]), dtype=np.float64)
    for owner, piece, vec in zip(owners, pieces, vectors, strict=True):
        out[owner] += len(piece) * vec.astype(np.float64)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    out = np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)
    return out.astype(np.float32)


def lead_piece(embedder: Embedder, text: str) -> str:
    """The first window-sized piece of ``text`` (sentence-aligned)."""
    return _window_pieces(embedder, text)[0]


async def embed_leads(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """One unit vector per text from its first window-sized piece only.

    Used for wiki pages, which are rewritten often: a page's title and lead (definition and
    first cited sentences) represent it for wiki-first retrieval at a fraction of the cost of
    embedding the whole body (~160 ms per full window on 2 cores).
    """
    leads = [await asyncio.to_thread(lead_piece, embedder, t) for t in texts]
    if not leads:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return np.asarray(await embedder.embed_documents(leads), dtype=np.float32)
