"""Hybrid retrieval: legs in parallel → fusion (relative score, or RRF) → optional rerank → hits.

``hybrid_search`` is the one entry point the answer stage, the API and the eval use.
With ``source_id`` set every leg is restricted to that source (per-paper Q&A) and the
final rows are filtered by it again, so another paper's passage can never come back.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np

from marginalia.config import Settings
from marginalia.db import Database
from marginalia.embed.base import Embedder
from marginalia.errors import ValidationFailed
from marginalia.retrieval import repository as repo
from marginalia.retrieval.bm25 import DEFAULT_PARAMS, BM25Params
from marginalia.retrieval.fusion import (
    DEFAULT_FUSION,
    FUSION_METHODS,
    RRF,
    Fused,
    rrf_fuse,
    score_fuse,
)
from marginalia.retrieval.legs import (
    ALL_LEGS,
    CONCEPT,
    LEXICAL,
    VECTOR,
    LegOutcome,
    concept_leg,
    lexical_leg,
    vector_leg,
)
from marginalia.retrieval.rerank import Reranker
from marginalia.retrieval.trace import FusedEntry, LegTrace, RankedEntry, RetrievalTrace

log = logging.getLogger(__name__)

#: Results each leg contributes to the fusion.
DEFAULT_DEPTH = 100
#: Fused candidates the reranker reads (it is the slow part).
DEFAULT_RERANK_DEPTH = 30
#: Entries per list kept in the trace returned with an answer.
DEFAULT_TRACE_DEPTH = 20


class RetrievalContext(Protocol):
    """What retrieval needs; :class:`marginalia.runtime.Runtime` is one."""

    @property
    def db(self) -> Database: ...

    @property
    def embedder(self) -> Embedder: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def reranker(self) -> Reranker | None:
        """The configured cross-encoder (loaded once by the owner), None when off."""
        ...


@dataclass(frozen=True)
class Hit:
    chunk_id: int
    source_id: uuid.UUID
    text: str
    section_type: str
    section_title: str | None
    page_start: int | None
    page_end: int | None
    char_start: int | None
    char_end: int | None
    score: float  # fused score (relative-score or RRF), or the reranker's when rerank ran
    rank: int  # 1-based
    leg_ranks: dict[str, int] = field(default_factory=dict)


@dataclass
class RetrievalResult:
    hits: list[Hit]
    trace: RetrievalTrace

    def to_dict(self) -> dict[str, Any]:
        return {
            "hits": [{**h.__dict__, "source_id": str(h.source_id)} for h in self.hits],
            "trace": self.trace.to_dict(),
        }


async def hybrid_search(
    ctx: RetrievalContext,
    *,
    workspace_id: uuid.UUID,
    query: str,
    source_id: uuid.UUID | None = None,
    k: int = 10,
    legs: Sequence[str] = ALL_LEGS,
    depth: int = DEFAULT_DEPTH,
    trace_depth: int = DEFAULT_TRACE_DEPTH,
    rerank: bool | Reranker = True,
    rerank_depth: int = DEFAULT_RERANK_DEPTH,
    bm25: BM25Params = DEFAULT_PARAMS,
    query_vector: np.ndarray | None = None,
    fusion: str | None = None,
) -> RetrievalResult:
    """The top ``k`` chunks of a workspace (or of one source) for ``query``.

    ``rerank``: True uses the reranker named in settings if any (off by default),
    False skips it, a :class:`Reranker` instance uses that one. ``query_vector`` lets a
    caller that already embedded the query skip doing it again. ``fusion``: "score"
    (relative-score fusion) or "rrf" (reciprocal rank fusion, k from settings); None takes
    ``settings.retrieval.fusion`` (see docs/decisions/0005-relative-score-fusion.md).
    """
    fusion = fusion or ctx.settings.retrieval.fusion
    query = query.strip()
    if not query:
        raise ValidationFailed("the query is empty")
    unknown = [leg for leg in legs if leg not in ALL_LEGS]
    if unknown or not legs:
        raise ValidationFailed(
            f"unknown retrieval legs {unknown}; choose from {', '.join(ALL_LEGS)}"
        )
    if fusion not in FUSION_METHODS:
        raise ValidationFailed(
            f"unknown fusion {fusion!r}; choose from {', '.join(FUSION_METHODS)}"
        )
    if k < 1 or depth < 1:
        raise ValidationFailed("k and depth must be at least 1")
    rs = ctx.settings.retrieval
    if rs.lexical_exact and not bm25.exact:
        bm25 = replace(bm25, exact=True)
    trace = RetrievalTrace(
        query=query,
        workspace_id=workspace_id,
        source_id=source_id,
        params={
            "k": k,
            "legs": list(legs),
            "depth": depth,
            "fusion": fusion,
            "rrf_k": rs.rrf_k,
            "hnsw_ef_search": rs.hnsw_ef_search,
            "bm25_k1": bm25.k1,
            "bm25_b": bm25.b,
            "bm25_exact": bm25.exact,
        },
    )

    t_embed = time.perf_counter()
    if query_vector is None and (VECTOR in legs or CONCEPT in legs):
        query_vector = await ctx.embedder.embed_query(query)
    trace.timings_ms["query_embedding_ms"] = (time.perf_counter() - t_embed) * 1000

    t0 = time.perf_counter()
    tasks: dict[str, Any] = {}
    if VECTOR in legs:
        assert query_vector is not None
        tasks[VECTOR] = vector_leg(
            ctx.db,
            workspace_id=workspace_id,
            query_vector=query_vector,
            source_id=source_id,
            depth=depth,
            ef_search=rs.hnsw_ef_search,
            trace_depth=trace_depth,
        )
    if LEXICAL in legs:
        tasks[LEXICAL] = lexical_leg(
            ctx.db,
            workspace_id=workspace_id,
            query=query,
            source_id=source_id,
            depth=depth,
            params=bm25,
            trace_depth=trace_depth,
        )
    if CONCEPT in legs:
        tasks[CONCEPT] = concept_leg(
            ctx.db,
            ctx.embedder,
            workspace_id=workspace_id,
            query=query,
            query_vector=query_vector,
            source_id=source_id,
            depth=depth,
            ef_search=rs.hnsw_ef_search,
            trace_depth=trace_depth,
        )
    results = await asyncio.gather(*tasks.values(), return_exceptions=True)
    outcomes: dict[str, LegOutcome] = {}
    concept_embed_ms = 0.0
    for name, res in zip(tasks, results, strict=True):
        if isinstance(res, BaseException):
            if not isinstance(res, Exception):
                raise res
            log.exception("retrieval leg %s failed", name, exc_info=res)
            trace.legs[name] = LegTrace(
                name=name, status="error", note=f"{type(res).__name__}: {res}"
            )
            trace.notes.append(f"{name} leg failed: {res}")
            continue
        outcomes[name] = res
        trace.legs[name] = res.trace
        concept_embed_ms += res.embed_ms
        if res.trace.note:
            trace.notes.append(f"{name} leg: {res.trace.note}")
    for name in ALL_LEGS:
        if name not in legs:
            trace.legs[name] = LegTrace(name=name, status="skipped", note="not requested")
    if not outcomes:
        raise next(r for r in results if isinstance(r, Exception))
    t_legs = time.perf_counter()

    fused = fuse_legs(outcomes, method=fusion, rrf_k=rs.rrf_k)
    if rs.prf_docs > 0 and VECTOR in outcomes and query_vector is not None and fused:
        prf = await _feedback_leg(
            ctx,
            workspace_id=workspace_id,
            query_vector=query_vector,
            top=[f.key for f in fused[: rs.prf_docs]],
            source_id=source_id,
            depth=depth,
            trace_depth=trace_depth,
        )
        if prf is not None:
            if rs.prf_mode == "add":
                outcomes[PRF] = prf
            else:
                outcomes[VECTOR] = prf
            trace.legs[PRF] = prf.trace
            fused = fuse_legs(outcomes, method=fusion, rrf_k=rs.rrf_k)
    source_of = {h.chunk_id: h.source_id for o in outcomes.values() for h in o.hits}
    trace.fused = [
        FusedEntry(f.key, rank, f.score, f.ranks)
        for rank, f in enumerate(fused[: max(trace_depth, k)], start=1)
    ]
    t_fused = time.perf_counter()

    order: list[tuple[int, float]] = [(f.key, f.score) for f in fused]
    ranks_of = {f.key: f.ranks for f in fused}
    rerank_ms = 0.0
    reranker = _resolve_reranker(ctx, rerank)
    async with ctx.db.session() as session:
        if reranker is not None and order:
            t_rr = time.perf_counter()
            head = [cid for cid, _ in order[:rerank_depth]]
            rows = await repo.chunk_rows(
                session, head, workspace_id=workspace_id, source_id=source_id
            )
            head = [cid for cid in head if cid in rows]
            scores = await asyncio.to_thread(reranker.score, query, [rows[c].text for c in head])
            reranked = sorted(zip(head, scores, strict=True), key=lambda p: -p[1])
            order = [(c, float(s)) for c, s in reranked] + order[rerank_depth:]
            rerank_ms = (time.perf_counter() - t_rr) * 1000
            trace.rerank = LegTrace(
                name="rerank",
                status="ok",
                ms=rerank_ms,
                hits=[RankedEntry(c, r, float(s)) for r, (c, s) in enumerate(reranked, start=1)],
                total=len(reranked),
                details={"model": reranker.name, "depth": rerank_depth},
            )
        t_h = time.perf_counter()
        top = order[:k]
        rows = await repo.chunk_rows(
            session, [c for c, _ in top], workspace_id=workspace_id, source_id=source_id
        )
        hydrate_ms = (time.perf_counter() - t_h) * 1000
    if reranker is None and rerank is not False:
        trace.notes.append("rerank: off (no rerank_model_dir configured)")

    hits: list[Hit] = []
    for chunk_id, score in top:
        row = rows.get(chunk_id)
        if row is None:  # deleted meanwhile, or (never) outside the scope
            continue
        assert source_id is None or row.source_id == source_id
        assert source_of.get(chunk_id, row.source_id) == row.source_id
        hits.append(
            Hit(
                chunk_id=row.chunk_id,
                source_id=row.source_id,
                text=row.text,
                section_type=row.section_type,
                section_title=row.section_title,
                page_start=row.page_start,
                page_end=row.page_end,
                char_start=row.char_start,
                char_end=row.char_end,
                score=score,
                rank=len(hits) + 1,
                leg_ranks=dict(ranks_of.get(chunk_id, {})),
            )
        )
    end = time.perf_counter()
    trace.timings_ms.update(
        {
            "concept_embedding_ms": concept_embed_ms,
            "legs_ms": (t_legs - t0) * 1000 - concept_embed_ms,
            "fusion_ms": (t_fused - t_legs) * 1000,
            "rerank_ms": rerank_ms,
            "hydrate_ms": hydrate_ms,
            # Everything after the query embedding, minus model time (embedding, rerank).
            "retrieval_ms": (end - t0) * 1000 - concept_embed_ms - rerank_ms,
        }
    )
    return RetrievalResult(hits=hits, trace=trace)


#: The pseudo-relevance feedback search's name in the trace (and in the fusion, mode "add").
PRF = "vector_prf"


def feedback_vector(
    query_vector: np.ndarray, feedback: Sequence[np.ndarray], weight: float
) -> np.ndarray:
    """Unit(unit(q) + weight · unit(mean(feedback))); the query itself without feedback."""
    q = np.asarray(query_vector, dtype=np.float32)
    q = q / (float(np.linalg.norm(q)) or 1.0)
    if not feedback:
        return q
    mean = np.mean(np.stack([np.asarray(v, dtype=np.float32) for v in feedback]), axis=0)
    mean = mean / (float(np.linalg.norm(mean)) or 1.0)
    moved = q + weight * mean
    return moved / (float(np.linalg.norm(moved)) or 1.0)


async def _feedback_leg(
    ctx: RetrievalContext,
    *,
    workspace_id: uuid.UUID,
    query_vector: np.ndarray,
    top: Sequence[int],
    source_id: uuid.UUID | None,
    depth: int,
    trace_depth: int,
) -> LegOutcome | None:
    """Rocchio-style feedback on the vector leg: the unit query vector plus
    ``prf_weight`` × the unit mean of the first-pass top chunks' embeddings, searched again.
    Paraphrased questions share few words with the passage that answers them; the top
    fused chunks usually sit in the right section, and their mean pulls the query towards
    its vocabulary. None when no top chunk has an embedding."""
    rs = ctx.settings.retrieval
    async with ctx.db.session() as session:
        vectors = await repo.chunk_embeddings(session, top, workspace_id=workspace_id)
    if not vectors:
        return None
    moved = feedback_vector(query_vector, [vectors[c] for c in top if c in vectors], rs.prf_weight)
    out = await vector_leg(
        ctx.db,
        workspace_id=workspace_id,
        query_vector=moved,
        source_id=source_id,
        depth=depth,
        ef_search=rs.hnsw_ef_search,
        trace_depth=trace_depth,
    )
    out.trace.name = PRF
    out.trace.details = {
        **(out.trace.details or {}),
        "feedback_chunks": list(vectors),
        "weight": rs.prf_weight,
        "mode": rs.prf_mode,
    }
    return out


def fuse_legs(
    outcomes: dict[str, LegOutcome], *, method: str = DEFAULT_FUSION, rrf_k: int = 60
) -> list[Fused[int]]:
    """The legs' chunk lists fused by ``method`` ("score" or "rrf")."""
    if method == RRF:
        return rrf_fuse({n: [h.chunk_id for h in o.hits] for n, o in outcomes.items()}, k=rrf_k)
    return score_fuse({n: [(h.chunk_id, h.score) for h in o.hits] for n, o in outcomes.items()})


def _resolve_reranker(ctx: RetrievalContext, rerank: bool | Reranker) -> Reranker | None:
    if rerank is False:
        return None
    if rerank is True:
        return ctx.reranker
    return rerank
