"""Wilson intervals, the rate shape (invariant 8) and the eval's quote normalisation."""

from __future__ import annotations

import pytest

from marginalia.evaluation.stats import normalize_text, rate, wilson


@pytest.mark.parametrize(
    ("k", "n", "lo", "hi"),
    [
        # Published values (the earlier system's keyed eval report, rounded to 0.1%).
        (18, 24, 0.551, 0.880),
        (15, 24, 0.427, 0.788),
        (6, 6, 0.610, 1.000),
        (13, 15, 0.621, 0.963),
        (12, 15, 0.548, 0.930),
        # Textbook: 0/10 -> [0, 0.278], 5/10 -> [0.237, 0.763].
        (0, 10, 0.0, 0.278),
        (5, 10, 0.237, 0.763),
    ],
)
def test_wilson_known_values(k: int, n: int, lo: float, hi: float) -> None:
    got_lo, got_hi = wilson(k, n)
    assert got_lo == pytest.approx(lo, abs=6e-4)
    assert got_hi == pytest.approx(hi, abs=6e-4)


def test_wilson_bounds_are_exact_at_the_extremes() -> None:
    assert wilson(0, 7)[0] == 0.0
    assert wilson(7, 7)[1] == 1.0
    lo, hi = wilson(1, 1_000_000)
    assert 0.0 < lo < 1e-6 < hi < 1e-5


def test_wilson_is_symmetric_and_contains_the_estimate() -> None:
    for n in (1, 5, 30):
        for k in range(n + 1):
            lo, hi = wilson(k, n)
            assert 0.0 <= lo <= k / n <= hi <= 1.0
            mlo, mhi = wilson(n - k, n)
            assert lo == pytest.approx(1 - mhi, abs=1e-12)
            assert hi == pytest.approx(1 - mlo, abs=1e-12)


def test_wilson_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError):
        wilson(3, 2)
    with pytest.raises(ValueError):
        wilson(-1, 2)


def test_rate_carries_denominator_and_interval() -> None:
    r = rate(18, 24)
    assert r["value"] == pytest.approx(0.75)
    assert (r["k"], r["n"]) == (18, 24)
    assert r["ci95"] == pytest.approx(list(wilson(18, 24)))


def test_rate_with_empty_denominator_is_undefined_and_says_so() -> None:
    r = rate(0, 0)
    assert r["value"] is None
    assert r["n"] == 0
    assert r["ci95"] is None
    assert "undefined" in r["note"]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "Representation learning is a critical ingre-\ndient",
            "representation learning is a critical ingredient",
        ),
        ("the state-of-the-\nart model", "the state-of-the-art model"),
        ("the state-of-the-art model", "the stateoftheart model"),
        ("Kendall’s τ using 50% judgments).", "kendall's τ using 50 judgments"),
        ("the ﬁrst  line\n\tand   the next", "The first line and the next"),
        ("rated ‘very good’, 40% as ‘good’", 'rated "very good" 40 as "good"'),
        ("a rate of 15-20$ per hour", "a rate of 15–20 $ per hour"),
    ],
)
def test_normalisation_equates_layout_variants(a: str, b: str) -> None:
    assert normalize_text(a) == normalize_text(b)


def test_normalisation_keeps_words_apart() -> None:
    assert normalize_text("A.B") == "a b"
    assert normalize_text("citation graph") != normalize_text("citationgraph")
    assert normalize_text("  ") == ""
