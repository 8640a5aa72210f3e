"""Hybrid retrieval (DESIGN §1 "answer"): vector + BM25 + concept expansion, fused
by relative-score fusion (or RRF).

Public interface: :func:`hybrid_search` (with :class:`RetrievalResult`, :class:`Hit`,
:class:`RetrievalTrace`), the single legs (:func:`vector_leg`, :func:`lexical_leg`,
:func:`concept_leg`), :func:`score_fuse` / :func:`rrf_fuse`, and the rerank protocol.
"""

from marginalia.retrieval.bm25 import K1, B, BM25Params
from marginalia.retrieval.fusion import DEFAULT_FUSION, FUSION_METHODS, Fused, rrf_fuse, score_fuse
from marginalia.retrieval.hybrid import Hit, RetrievalContext, RetrievalResult, hybrid_search
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
from marginalia.retrieval.rerank import OnnxCrossEncoder, Reranker, reranker_from_settings
from marginalia.retrieval.trace import FusedEntry, LegTrace, RankedEntry, RetrievalTrace

__all__ = [
    "ALL_LEGS",
    "CONCEPT",
    "DEFAULT_FUSION",
    "FUSION_METHODS",
    "K1",
    "LEXICAL",
    "VECTOR",
    "B",
    "BM25Params",
    "Fused",
    "FusedEntry",
    "Hit",
    "LegOutcome",
    "LegTrace",
    "OnnxCrossEncoder",
    "RankedEntry",
    "Reranker",
    "RetrievalContext",
    "RetrievalResult",
    "RetrievalTrace",
    "concept_leg",
    "hybrid_search",
    "lexical_leg",
    "reranker_from_settings",
    "rrf_fuse",
    "score_fuse",
    "vector_leg",
]
