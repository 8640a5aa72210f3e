"""The source dedup cascade, cheap to expensive (DESIGN §1, §6).

1. identity: normalised URL, DOI or arXiv id equal;
2. title: Jaccard of title words, stop words removed, >= 0.5;
3. embedding: cosine of content embeddings >= 0.7 (run by the caller against pgvector,
   only when layers 1–2 found nothing — see `embedding_layer_applies`).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from marginalia.knowledge.text import jaccard, title_tokens
from marginalia.sources.candidate import (
    normalize_arxiv_id,
    normalize_doi,
    normalize_openalex_id,
    normalized_url,
)

TITLE_THRESHOLD = 0.5
EMBEDDING_THRESHOLD = 0.7
# Very short titles ("Introduction", "Notes") match too easily to decide anything.
MIN_TITLE_WORDS = 3

DedupLayer = Literal["content_hash", "identity", "title", "embedding"]


@dataclass(frozen=True)
class DedupRecord:
    id: uuid.UUID | None
    title: str | None
    keys: frozenset[str]

    @property
    def has_scholarly_id(self) -> bool:
        return any(k.startswith(("doi:", "arxiv:", "openalex:")) for k in self.keys)


@dataclass(frozen=True)
class DedupMatch:
    existing_id: uuid.UUID
    layer: DedupLayer
    score: float


def identity_keys(
    *,
    url: str | None = None,
    doi: str | None = None,
    arxiv_id: str | None = None,
    openalex_id: str | None = None,
) -> frozenset[str]:
    keys: set[str] = set()
    if url:
        keys.add("url:" + normalized_url(url))
    if d := normalize_doi(doi):
        keys.add("doi:" + d)
    if a := normalize_arxiv_id(arxiv_id):
        keys.add("arxiv:" + a)
    if o := normalize_openalex_id(openalex_id):
        keys.add("openalex:" + o)
    return frozenset(keys)


def record_from_row(row: Mapping[str, Any]) -> DedupRecord:
    """A stored source (see repositories.sources.identities) as a dedup record."""
    keys = set(
        identity_keys(
            doi=row.get("doi"), arxiv_id=row.get("arxiv_id"), openalex_id=row.get("openalex_id")
        )
    )
    if row.get("normalized_url"):
        keys.add("url:" + str(row["normalized_url"]))
    return DedupRecord(id=row["id"], title=row.get("title"), keys=frozenset(keys))


def match_cheap_layers(
    new: DedupRecord,
    existing: Iterable[DedupRecord],
    *,
    title_threshold: float = TITLE_THRESHOLD,
) -> DedupMatch | None:
    """Layers 1 and 2. Identity beats title; the best title score wins among title matches
    (``ingest.dedup_title_jaccard``)."""
    new_title = title_tokens(new.title)
    best: DedupMatch | None = None
    for record in existing:
        assert record.id is not None
        if new.keys & record.keys:
            return DedupMatch(record.id, "identity", 1.0)
        if len(new_title) < MIN_TITLE_WORDS:
            continue
        other = title_tokens(record.title)
        if len(other) < MIN_TITLE_WORDS:
            continue
        score = jaccard(new_title, other)
        if score >= title_threshold and (best is None or score > best.score):
            best = DedupMatch(record.id, "title", score)
    return best


def embedding_layer_applies(new: DedupRecord, other_has_scholarly_id: bool) -> bool:
    """Two records that each carry a DOI/arXiv/OpenAlex id and did not match on it are
    different works by definition; content similarity only decides when one lacks one
    (e.g. a blog post rewriting a paper)."""
    return not (new.has_scholarly_id and other_has_scholarly_id)
