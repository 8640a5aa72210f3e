"""Build knowledge-layer test workspaces from ACL 2020 catalog records (title + abstract)."""

from __future__ import annotations

import hashlib
import json
import uuid
from functools import cache
from pathlib import Path
from typing import Any

from marginalia.db.repositories.sources import NewChunk, insert_source
from marginalia.knowledge.text import sentence_spans
from marginalia.runtime import Runtime

CHUNK_TOKENS = 200

# Related papers: BERT, its compression and distillation, pre-training.
RELATED = [
    "2020.acl-main.195",  # MobileBERT
    "2020.acl-main.202",  # XtremeDistil
    "2020.acl-main.204",  # DeeBERT
    "2020.emnlp-main.74",  # KD for NMT (defines KD)
    "2020.emnlp-main.499",  # data-free distillation (defines KD)
    "2020.findings-emnlp.372",  # TinyBERT (defines KD)
    "2020.acl-main.247",  # span selection pre-training (defines BERT)
    "2020.findings-emnlp.58",  # Chinese pre-trained models (defines BERT)
    "2020.acl-main.89",  # numerical reasoning in LMs
]
UNRELATED = "2020.acl-main.1"  # child-directed speech


@cache
def catalog(path: Path) -> dict[str, dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return {r["id"]: r for r in map(json.loads, fh)}


def split_chunks(services: Runtime, text: str) -> list[tuple[int, int]]:
    """Sentence-aligned spans of ``text`` under CHUNK_TOKENS tokens each."""
    spans: list[tuple[int, int]] = []
    start: int | None = None
    end = 0
    for s, e in sentence_spans(text):
        if start is None:
            start, end = s, e
            continue
        if services.embedder.count_tokens(text[start:e]) <= CHUNK_TOKENS:
            end = e
        else:
            spans.append((start, end))
            start, end = s, e
    if start is not None:
        spans.append((start, end))
    return spans


async def add_paper(
    services: Runtime,
    workspace_id: uuid.UUID,
    record: dict[str, Any],
    *,
    suffix: str = "",
    citations: int | None = None,
) -> uuid.UUID:
    text = record["abstract"] + suffix
    spans = split_chunks(services, text)
    vectors = await services.embedder.embed_documents([text[s:e] for s, e in spans])
    chunks = [
        NewChunk(
            chunk_index=i,
            text=text[s:e],
            section_type="abstract",
            section_title="Abstract",
            page_start=1,
            page_end=1,
            char_start=s,
            char_end=e,
            token_count=services.embedder.count_tokens(text[s:e]),
            embedding=vectors[i],
        )
        for i, (s, e) in enumerate(spans)
    ]
    mean = vectors.mean(axis=0)
    mean = mean / float((mean**2).sum() ** 0.5)
    async with services.db.transaction() as session:
        source = await insert_source(
            session,
            workspace_id=workspace_id,
            fields={
                "kind": "abstract",
                "origin": "catalog",
                "title": record["title"],
                "authors": record.get("authors") or [],
                "year": record.get("year"),
                "venue": record.get("venue"),
                "abstract": text,
                "doi": record.get("doi"),
                "citation_count": citations,
                "abstract_only": True,
                "content_hash": hashlib.sha256(text.encode()).hexdigest(),
                "mean_embedding": mean,
            },
            pages=[(1, text)],
            chunks=chunks,
        )
        return source.id
