"""Deterministic source quality scores (DESIGN §6).

``total = 0.40·authority + 0.25·recency + 0.35·relevance``, every part on 0–100.

**Authority** (log-scale citations). ``authority(c) = 10 + 40·log₉₉(1 + 0.98·c)``, clamped to
[10, 100]. It hits the three anchors exactly: ``c = 0 → 1 → 10``; ``c = 100 → 1 + 98 = 99 →
10 + 40 = 50``; ``c = 10 000 → 1 + 9 800 = 9 801 = 99² → 10 + 80 = 90``. (It is the unique
curve ``a + b·log(c + d)`` through the anchors: equal steps of 40 need
``(100 + d)/d = (10000 + d)/(100 + d)``, i.e. ``d = 1/0.98``.) 100 is reached near 31 000
citations. Unknown citation counts (arXiv, web pages) score :data:`AUTHORITY_UNKNOWN`, the
value of about eight citations, rather than being ranked with uncited work.

**Recency** (linear). ``recency = max(20, 95 − 3.8·age)`` with ``age = current_year − year``
(a future year counts as age 0): this year → 95, 10 years ago → 57, floor 20 from 20 years
on. Unknown year → :data:`RECENCY_UNKNOWN` = 57.5, the midpoint of 95 and 20.

**Relevance**. The cosine ``s`` of the source summary's embedding and the workspace
description's embedding, mapped linearly from [:data:`RELEVANCE_COS_FLOOR`,
:data:`RELEVANCE_COS_CEIL`] = [0.0, 0.8] to [0, 100] and clamped: an unrelated text (cosine
≤ 0) scores 0, a summary squarely on the topic (MiniLM cosines rarely exceed 0.8 between a
summary and a one-line description) scores 100. Missing embeddings → :data:`RELEVANCE_UNKNOWN`
= 50.

``current_year`` is always a parameter: no hidden clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

AUTHORITY_WEIGHT = 0.40
RECENCY_WEIGHT = 0.25
RELEVANCE_WEIGHT = 0.35

AUTHORITY_MIN = 10.0
AUTHORITY_MAX = 100.0
AUTHORITY_UNKNOWN = 30.0

RECENCY_TOP = 95.0
RECENCY_PER_YEAR = 3.8
RECENCY_FLOOR = 20.0
RECENCY_UNKNOWN = 57.5

RELEVANCE_COS_FLOOR = 0.0
RELEVANCE_COS_CEIL = 0.8
RELEVANCE_UNKNOWN = 50.0


@dataclass(frozen=True)
class QualityScore:
    total: float
    authority: float
    recency: float
    relevance: float


def _clamp(x: float, lo: float, hi: float) -> float:
    return max(lo, min(hi, x))


def authority_score(citations: int | None) -> float:
    """``10 + 40·log₉₉(1 + 0.98·c)`` clamped to [10, 100]; None → :data:`AUTHORITY_UNKNOWN`."""
    if citations is None:
        return AUTHORITY_UNKNOWN
    c = max(0, int(citations))
    value = 10.0 + 40.0 * math.log(1.0 + 0.98 * c) / math.log(99.0)
    return _clamp(value, AUTHORITY_MIN, AUTHORITY_MAX)


def recency_score(year: int | None, current_year: int) -> float:
    """``max(20, 95 − 3.8·age)``; None → :data:`RECENCY_UNKNOWN`."""
    if year is None:
        return RECENCY_UNKNOWN
    age = max(0, current_year - int(year))
    return max(RECENCY_FLOOR, RECENCY_TOP - RECENCY_PER_YEAR * age)


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity (0.0 if either vector is zero)."""
    va = np.asarray(a, dtype=np.float64).ravel()
    vb = np.asarray(b, dtype=np.float64).ravel()
    na, nb = float(np.linalg.norm(va)), float(np.linalg.norm(vb))
    if na == 0.0 or nb == 0.0 or va.shape != vb.shape:
        return 0.0
    return float(va @ vb) / (na * nb)


def relevance_from_cosine(cos: float) -> float:
    """Linear map of [0.0, 0.8] to [0, 100], clamped."""
    span = RELEVANCE_COS_CEIL - RELEVANCE_COS_FLOOR
    return _clamp(100.0 * (cos - RELEVANCE_COS_FLOOR) / span, 0.0, 100.0)


def relevance_score(
    summary_embedding: np.ndarray | None, workspace_embedding: np.ndarray | None
) -> float:
    if summary_embedding is None or workspace_embedding is None:
        return RELEVANCE_UNKNOWN
    return relevance_from_cosine(cosine(summary_embedding, workspace_embedding))


def quality_score(
    *,
    citations: int | None,
    year: int | None,
    summary_embedding: np.ndarray | None,
    workspace_embedding: np.ndarray | None,
    current_year: int,
) -> QualityScore:
    """The weighted blend; parts and total rounded to 2 decimals."""
    authority = authority_score(citations)
    recency = recency_score(year, current_year)
    relevance = relevance_score(summary_embedding, workspace_embedding)
    total = AUTHORITY_WEIGHT * authority + RECENCY_WEIGHT * recency + RELEVANCE_WEIGHT * relevance
    return QualityScore(
        total=round(total, 2),
        authority=round(authority, 2),
        recency=round(recency, 2),
        relevance=round(relevance, 2),
    )
