"""The two halves of the knowledge update of a new source, shared by the per-source update
(:func:`marginalia.knowledge.update.update_for_source`) and the batched one
(:func:`marginalia.knowledge.batch_update.update_for_sources`):

* :func:`prepare_sources` — outside any transaction: the sources and their chunks read in one
  query, the extraction of each (pure: it reads only the source's own title, abstract, chunks
  and metadata concepts), and one embedding call for every claim and summary of the batch;
* :func:`apply_source` — inside the caller's transaction, after it took the workspace's
  knowledge lock: the extraction stored, concepts, claims and evidence, source edges, cites
  and quality of one source, reading what the sources applied before it wrote.

Applying prepared sources one after another in one transaction writes what as many
per-source updates would (``tests/integration/test_knowledge_batch.py`` compares them).
"""

from __future__ import annotations

import time
import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy.ext.asyncio import AsyncSession

from marginalia.db.models import Chunk, Source
from marginalia.db.repositories import sentences as sentences_repo
from marginalia.errors import NotFoundError
from marginalia.knowledge import llm_extraction as llmx
from marginalia.knowledge import repository as repo
from marginalia.knowledge.citation_links import link_source
from marginalia.knowledge.concept_local import LocalConcepts, sync_source_concepts
from marginalia.knowledge.context import (
    KnowledgeContext,
    chunk_texts,
    elapsed_ms,
    require_workspace,
    source_text,
)
from marginalia.knowledge.linking import (
    evidence_concept_forms,
    related_row,
    shared_terms,
    store_claims,
    store_quality,
    update_new_source_edges,
    workspace_vector,
)
from marginalia.knowledge.metadata_concepts import with_metadata_concepts
from marginalia.knowledge.schemas import Extraction
from marginalia.knowledge.vectors import embed_texts
from marginalia.llm.base import LLMProvider


def extraction_fields(ex: Extraction, engine: str) -> dict[str, Any]:
    return {
        "summary": ex.summary,
        "tldr": ex.tldr,
        "thesis": ex.thesis,
        "methodology": ex.methodology,
        "key_results": list(ex.key_results),
        "limitations": list(ex.limitations),
        "datasets": list(ex.datasets),
        "contributions": list(ex.contributions),
        "extraction_engine": engine,
    }


@dataclass
class PreparedSource:
    """A source extracted and its claims and summary embedded; nothing written yet."""

    source: Source
    chunks: list[Chunk]
    extraction: Extraction
    engine: str
    fallback_reason: str | None
    claim_vectors: np.ndarray
    summary_vector: np.ndarray | None  # None: the workspace has no description to score it by
    timings: dict[str, float] = field(default_factory=dict)


@dataclass
class AppliedSource:
    """What :func:`apply_source` wrote for one source."""

    new_row: repo.SourceRow
    local: LocalConcepts
    claim_ids: list[uuid.UUID]
    evidence_rows: list[dict[str, Any]]
    candidates: list[Any]
    source_edges: int
    edge_reads: int
    cites: int
    quality: float | None


async def extract_with_metadata(
    ctx: KnowledgeContext,
    provider: LLMProvider | None,
    source: Source | repo.SourceRow,
    chunks: list[Chunk],
) -> tuple[llmx.ExtractionResult, Extraction]:
    """One source's extraction, with the concepts its metadata carries (OpenAlex) added."""
    title, abstract = source.title, source.abstract
    result = await llmx.extract_source(
        provider,
        title,
        abstract,
        chunk_texts(chunks),
        claim_chunk_limit=ctx.settings.knowledge.claim_chunk_limit,
    )
    extraction = with_metadata_concepts(
        result.extraction, source.metadata_concepts, source_text(title, abstract, chunks)
    )
    return result, extraction


async def _sentence_vectors(session: AsyncSession, chunks: list[Chunk]) -> dict[str, np.ndarray]:
    """The stored vectors of the chunks' scored sentences, by their text (one query)."""
    text_of = {int(c.id): c.text for c in chunks if c.id is not None}
    out: dict[str, np.ndarray] = {}
    for chunk_id, stored in (await sentences_repo.load(session, list(text_of))).items():
        for row in stored.rows:
            if row.embedding is not None:
                sentence = text_of[chunk_id][row.char_start : row.char_end].strip()
                norm = float(np.linalg.norm(row.embedding))
                if sentence and norm > 0:
                    out.setdefault(sentence, (row.embedding / norm).astype(np.float32))
    return out


async def prepare_sources(
    ctx: KnowledgeContext,
    provider: LLMProvider,
    workspace_id: uuid.UUID,
    source_ids: Sequence[uuid.UUID],
) -> list[PreparedSource]:
    """Read, extract and embed ``source_ids`` (in that order); one embedding call for all."""
    async with ctx.db.session() as session:
        workspace = await require_workspace(session, workspace_id)
        # a summary's vector only scores its relevance to the workspace's description
        with_summaries = workspace.description_embedding is not None or bool(
            (workspace.description or "").strip()
        )
        sources: list[Source] = []
        for source_id in source_ids:
            source = await repo.get_source(session, source_id)
            if source is None or source.workspace_id != workspace_id:
                raise NotFoundError(f"no source with id {source_id} in workspace {workspace_id}")
            sources.append(source)
        chunks_of: dict[uuid.UUID, list[Chunk]] = defaultdict(list)
        for chunk in await repo.chunk_rows(session, list(source_ids)):
            chunks_of[chunk.source_id].append(chunk)
        stored = await _sentence_vectors(session, [c for cs in chunks_of.values() for c in cs])

    extracted: list[tuple[Source, list[Chunk], Extraction, str, str | None, float]] = []
    for source in sources:
        chunks = chunks_of.get(source.id, [])
        t = time.perf_counter()
        result, extraction = await extract_with_metadata(ctx, provider, source, chunks)
        extracted.append(
            (source, chunks, extraction, result.engine, result.fallback_reason, elapsed_ms(t))
        )

    # every claim and summary of the batch in one call (a text's vector does not depend
    # on the others embedded with it); a claim that is one of the source's sentences as
    # written has its vector already, stored with the sentences at ingest; summaries only
    # for a workspace with a description (else ``store_quality`` has nothing to score
    # them against — and embeds them itself if a description came meanwhile)
    t = time.perf_counter()
    texts: list[str] = []
    for source, _, extraction, *_ in extracted:
        texts += [c.text for c in extraction.claims]
        if with_summaries:
            texts.append(extraction.summary or source.title or "")
    todo = [i for i, text in enumerate(texts) if text.strip() not in stored]
    vectors = np.zeros((len(texts), ctx.embedder.dim), dtype=np.float32)
    if todo:
        vectors[todo] = await embed_texts(ctx.embedder, [texts[i] for i in todo])
    for i, text in enumerate(texts):
        if text.strip() in stored:
            vectors[i] = stored[text.strip()]
    embed_ms = elapsed_ms(t)

    out: list[PreparedSource] = []
    offset = 0
    for source, chunks, extraction, engine, fallback, extract_ms in extracted:
        n = len(extraction.claims)
        out.append(
            PreparedSource(
                source=source,
                chunks=chunks,
                extraction=extraction,
                engine=engine,
                fallback_reason=fallback,
                claim_vectors=vectors[offset : offset + n],
                summary_vector=vectors[offset + n] if with_summaries else None,
                timings={"extract": extract_ms, "embed": embed_ms},
            )
        )
        offset += n + int(with_summaries)
    return out


async def apply_source(
    session: AsyncSession,
    ctx: KnowledgeContext,
    workspace: Any,
    prepared: PreparedSource,
) -> AppliedSource:
    """Write one prepared source's knowledge (the caller holds the workspace's lock)."""
    settings = ctx.settings.knowledge
    embedder = ctx.embedder
    timings = prepared.timings
    source, extraction = prepared.source, prepared.extraction
    source_id, workspace_id = source.id, workspace.id
    chunk_ids = {c.chunk_index: int(c.id) for c in prepared.chunks if c.id is not None}

    fields = extraction_fields(extraction, prepared.engine)
    if source.mean_embedding is None:
        mean = await repo.mean_chunk_embedding(session, source_id)
        if mean is not None:
            fields["mean_embedding"] = mean
    await repo.store_extraction(session, source_id, fields)
    # the new source's row only: the steps below read what they need of the others
    mine = await repo.workspace_sources(session, workspace_id, [source_id])
    if not mine:
        raise NotFoundError(f"source {source_id} is not ready")
    new_row = mine[0]
    n_sources = await repo.count_ready_sources(session, workspace_id)
    await repo.bump_knowledge_version(session, workspace_id)

    t = time.perf_counter()
    local = await sync_source_concepts(
        session, embedder, workspace_id, source_id, extraction, n_sources
    )
    timings["concepts"] = elapsed_ms(t)

    t = time.perf_counter()
    await repo.delete_claims_of_source(session, source_id)
    claim_ids = await store_claims(
        session, workspace_id, source_id, extraction, chunk_ids, prepared.claim_vectors
    )
    forward = await repo.evidence_for_claims(
        session,
        claim_ids,
        min_similarity=settings.evidence_min_similarity,
        per_claim=settings.evidence_per_claim,
    )
    backward = await repo.claims_near_source(
        session,
        source_id,
        min_similarity=settings.evidence_min_similarity,
        limit=settings.evidence_backward_limit,
    )
    # a nearest passage is evidence only when it shares more than the topic (issue 35)
    forms = evidence_concept_forms(local.state, n_sources)
    shared = [(c, shared_terms(c, forms)) for c in [*forward, *backward]]
    candidates = [c for c, terms in shared if terms]
    evidence_rows = [related_row(c, terms) for c, terms in shared if terms]
    await repo.insert_evidence(session, evidence_rows)
    timings["claims"] = elapsed_ms(t)

    t = time.perf_counter()
    # Shared concepts are among the new source's: the local state has every source's.
    n_edges, edge_reads = await update_new_source_edges(session, workspace_id, new_row, local.state)
    timings["source_edges"] = elapsed_ms(t)
    t = time.perf_counter()
    n_cites = await link_source(session, workspace_id, source_id)
    timings["citations"] = elapsed_ms(t)

    t = time.perf_counter()
    ws_vector, recomputed = await workspace_vector(session, embedder, workspace)
    # every source's relevance only when the description embedding was just computed
    targets = await repo.workspace_sources(session, workspace_id) if recomputed else mine
    scores = await store_quality(
        session,
        embedder,
        targets,
        ws_vector,
        {} if prepared.summary_vector is None else {source_id: prepared.summary_vector},
    )
    timings["quality"] = elapsed_ms(t)
    return AppliedSource(
        new_row=new_row,
        local=local,
        claim_ids=claim_ids,
        evidence_rows=evidence_rows,
        candidates=candidates,
        source_edges=n_edges,
        edge_reads=edge_reads,
        cites=n_cites,
        quality=scores.get(source_id),
    )
