"""The known-terms filter (encyclopedia titles as a Bloom filter) and its ranker
features."""

from __future__ import annotations

from pathlib import Path

import pytest

from marginalia.knowledge.concept_features import known_term_features
from marginalia.knowledge.concepts import normalize_concept
from marginalia.knowledge.field_terms import (
    DATA,
    build_filter,
    from_bytes,
    load_field_terms,
    to_bytes,
)


def test_filter_round_trip_and_false_positive_rate() -> None:
    keys = [f"term {i}" for i in range(5000)]
    terms = from_bytes(to_bytes(build_filter(keys, len(keys), 0.02)))
    assert all(k in terms for k in keys)
    others = [f"other {i}" for i in range(5000)]
    false_positives = sum(k in terms for k in others)
    assert false_positives < 5000 * 0.04  # 2% asked; twice that is a broken hash
    assert "" not in terms


@pytest.mark.parametrize("data", [b"", b"XXXX" + bytes(12), b"MFT1" + bytes(12)])
def test_a_broken_file_is_refused(data: bytes) -> None:
    with pytest.raises(ValueError):
        from_bytes(data)


def test_missing_file_knows_nothing(tmp_path: Path) -> None:
    terms = load_field_terms.__wrapped__(tmp_path / "absent.bloom")
    assert normalize_concept("laser cooling") not in terms


@pytest.mark.skipif(not DATA.is_file(), reason="the shipped filter is absent")
def test_shipped_filter_knows_field_terms() -> None:
    terms = load_field_terms()
    for name in (
        "laser cooling",
        "spin waves",
        "deep vein thrombosis",
        "low-molecular-weight heparin",
        "Navier-Stokes equations",
        "triplet loss",
        "central limit theorem",
    ):
        assert normalize_concept(name) in terms, name
    features = known_term_features(["theoretical underpinnings"], general_share=1.0)
    assert features == {"known_phrase": 0.0, "known_word": 0.0, "everyday_unknown": 1.0}
    features = known_term_features(["laser cooling"], general_share=1.0)
    assert features["known_phrase"] == 1.0 and features["everyday_unknown"] == 0.0
    assert known_term_features(["magnet"], general_share=1.0)["known_word"] == 1.0
