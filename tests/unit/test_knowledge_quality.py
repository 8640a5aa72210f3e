import numpy as np
import pytest

from marginalia.knowledge.quality import (
    AUTHORITY_UNKNOWN,
    RECENCY_UNKNOWN,
    authority_score,
    quality_score,
    recency_score,
    relevance_from_cosine,
)


@pytest.mark.parametrize(("citations", "expected"), [(0, 10.0), (100, 50.0), (10_000, 90.0)])
def test_authority_anchors_are_exact(citations: int, expected: float) -> None:
    assert authority_score(citations) == pytest.approx(expected, abs=1e-9)


def test_authority_is_monotone_and_clamped() -> None:
    values = [authority_score(c) for c in (0, 1, 10, 100, 1000, 10_000, 100_000, 10**9)]
    assert values == sorted(values)
    assert values[-1] == 100.0
    assert authority_score(-5) == 10.0
    assert authority_score(None) == AUTHORITY_UNKNOWN


def test_recency_anchors() -> None:
    assert recency_score(2026, 2026) == 95.0
    assert recency_score(2016, 2026) == pytest.approx(57.0)
    assert recency_score(2006, 2026) == 20.0
    assert recency_score(1950, 2026) == 20.0
    assert recency_score(2030, 2026) == 95.0
    assert recency_score(None, 2026) == RECENCY_UNKNOWN


def test_relevance_mapping_and_total() -> None:
    assert relevance_from_cosine(-0.3) == 0.0
    assert relevance_from_cosine(0.4) == pytest.approx(50.0)
    assert relevance_from_cosine(0.95) == 100.0
    v = np.array([1.0, 0.0])
    q = quality_score(
        citations=100, year=2016, summary_embedding=v, workspace_embedding=v, current_year=2026
    )
    assert (q.authority, q.recency, q.relevance) == (50.0, 57.0, 100.0)
    assert q.total == pytest.approx(0.40 * 50 + 0.25 * 57 + 0.35 * 100)
    unknown = quality_score(
        citations=None, year=None, summary_embedding=None, workspace_embedding=v, current_year=2026
    )
    assert unknown.relevance == 50.0
