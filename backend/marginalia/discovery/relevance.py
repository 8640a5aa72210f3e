"""Relevance of research candidates to the workspace (issue 36): a research run ranks what
the searches found by how close each paper is to what the workspace is about — its
description and, once it has sources, their centroid — not only by where a query put it.

score = W_DESCRIPTION · cos(description, paper) + W_SOURCES · cos(sources' centroid, paper)
        + W_TERMS · (BM25 of the description over the found papers, scaled to the best)

(without sources, the description takes the sources' weight). Papers are embedded as
title + the start of the abstract (the model's window is never exceeded). Each paper
gets a "why": the similarities and the description's words it shares.

The weights were chosen on the dev topics of the blind relevance gold only
(``eval/research_relevance.py``); the held-out topics are reported, not fitted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from marginalia.embed.base import Embedder, EmbeddingError, FloatArray
from marginalia.sources.candidate import Candidate
from marginalia.sources.catalog import BM25Index, tokenize

W_DESCRIPTION = 0.6
W_SOURCES = 0.3
W_TERMS = 0.4
ABSTRACT_WORDS = 120


@dataclass(frozen=True)
class Relevance:
    index: int
    score: float
    why: str


def paper_text(c: Candidate, words: int = ABSTRACT_WORDS) -> str:
    abstract = " ".join((c.abstract or "").split()[:words])
    return f"{c.title}. {abstract}".strip(" .")


def _shared_terms(description: str, text: str, limit: int = 4) -> list[str]:
    have = set(tokenize(text))
    words = set(re.findall(r"[a-z0-9]+", description.lower()))  # not "citationinformed"
    out: list[str] = []
    for term in tokenize(description):
        if term in have and term in words and term not in out and not term.isdigit():
            out.append(term)
    return out[:limit]


def score_candidates(
    description: str,
    texts: Sequence[str],
    description_vec: FloatArray | None,
    paper_vecs: FloatArray | None,
    centroid: FloatArray | None = None,
) -> list[Relevance]:
    """Every paper's score and why, best first (ties: the order found)."""
    n = len(texts)
    lexical = BM25Index(texts).scores(description) if n else {}
    top = max(lexical.values(), default=0.0) or 1.0
    to_desc = (
        paper_vecs @ description_vec
        if paper_vecs is not None and description_vec is not None
        else np.zeros(n)
    )
    to_sources = paper_vecs @ centroid if paper_vecs is not None and centroid is not None else None
    out: list[Relevance] = []
    for i, text in enumerate(texts):
        d = float(to_desc[i])
        terms = lexical.get(i, 0.0) / top
        if to_sources is not None:
            s = float(to_sources[i])
            score = W_DESCRIPTION * d + W_SOURCES * s + W_TERMS * terms
        else:
            s = None
            score = (W_DESCRIPTION + W_SOURCES) * d + W_TERMS * terms
        parts = [f"similar to the description ({d:.2f})"]
        if s is not None:
            parts.append(f"close to the workspace's sources ({s:.2f})")
        shared = _shared_terms(description, text)
        if shared:
            parts.append("shares " + ", ".join(f"“{t}”" for t in shared))
        out.append(Relevance(i, round(score, 4), "; ".join(parts)))
    out.sort(key=lambda r: (-r.score, r.index))
    return out


def _normalised(v: FloatArray) -> FloatArray | None:
    norm = float(np.linalg.norm(v))
    return (v / norm).astype(np.float32) if norm > 0 else None


async def rank_candidates(
    embedder: Embedder | None,
    description: str,
    candidates: Sequence[Candidate],
    centroid: Sequence[float] | None = None,
) -> list[Relevance]:
    """:func:`score_candidates` with the embeddings computed; without an embedder (or
    when embedding fails) the lexical part alone ranks."""
    texts = [paper_text(c) for c in candidates]
    desc_vec: FloatArray | None = None
    paper_vecs: FloatArray | None = None
    if embedder is not None and texts and description.strip():
        try:
            desc_vec = await embedder.embed_query(description[:1000])
            paper_vecs = await embedder.embed_documents(texts)
        except EmbeddingError:
            try:
                paper_vecs = await embedder.embed_documents([c.title for c in candidates])
            except EmbeddingError:
                desc_vec = paper_vecs = None
    center = _normalised(np.asarray(centroid, dtype=np.float32)) if centroid else None
    if center is not None and paper_vecs is not None and center.shape[0] != paper_vecs.shape[1]:
        center = None
    return score_candidates(description, texts, desc_vec, paper_vecs, center)
