"""How the offline concept extractor orders a source's candidate concepts: a logistic model
over field-independent features of each candidate (how often and where the source uses
it, how specific it is against the background, what kind of name it is, whether it is a
known term: ``concept_features``).

The coefficients are ``data/concept_ranker.json``, written by
``eval/concepts/fit_ranker.py`` from the development gold sets (never the held-out one)
and read once. Without that file the order is the frequency × position × length ×
specificity heuristic, which is also the model's first feature.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "concept_ranker.json"

FEATURES: tuple[str, ...] = (
    "heuristic",  # log of frequency × position × length × specificity (the old order)
    "log_count",  # log(1 + uses)
    "title",  # used in the title
    "abstract",  # used in the abstract
    "early",  # 1 − first use / sentences (1 = the first sentence)
    "chunk_share",  # share of the source's chunks that use it
    "one_word",
    "two_words",
    "long",  # three words or more
    "specificity",  # 1 = never in the background, → 0 = in every background document
    "head_share",  # share of uses that end a noun phrase (not a modifier)
    "named",  # a CamelCase, letter-digit or capitalised-acronym token of ≥ 3 characters
    "short_form",  # an acronym
    "defined",  # an acronym defined in the source, or its long form
    "plain_word",  # one lower-case dictionary-like word
    "heading",  # in a section title
    "capitalised",  # every word capitalised ("Monte Carlo"), not an acronym
    "general_share",  # share of its words that are everyday English
    "unseen",  # in no background document
    "known_phrase",  # a multi-word form is an encyclopedia title (``field_terms``)
    "known_word",  # a one-word form is one
    "everyday_unknown",  # a phrase of everyday words that is no title
)


@dataclass(frozen=True)
class ConceptRanker:
    """``logit = intercept + Σ coef · (x − mean) / scale`` over :data:`FEATURES`."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float

    def score(self, features: Mapping[str, float]) -> float:
        """The probability that a researcher would put the candidate on the map."""
        z = self.intercept
        for name, m, s, c in zip(FEATURES, self.mean, self.scale, self.coef, strict=True):
            z += c * (features[name] - m) / s
        return 1.0 / (1.0 + math.exp(-z))


def ranker_from_json(data: Mapping[str, object]) -> ConceptRanker:
    """The model of a ``concept_ranker.json`` document; ValueError when it does not fit
    :data:`FEATURES`."""
    if tuple(data.get("features", ())) != FEATURES:  # type: ignore[arg-type]
        raise ValueError("concept ranker features do not match this version's FEATURES")

    def floats(key: str) -> tuple[float, ...]:
        values = tuple(float(v) for v in data[key])  # type: ignore[attr-defined]
        if len(values) != len(FEATURES):
            raise ValueError(f"concept ranker {key!r} has {len(values)} values")
        return values

    scale = floats("scale")
    if any(s <= 0 for s in scale):
        raise ValueError("concept ranker scales must be positive")
    return ConceptRanker(floats("mean"), scale, floats("coef"), float(data["intercept"]))  # type: ignore[arg-type]


@lru_cache(maxsize=1)
def load_ranker(path: Path = DATA) -> ConceptRanker | None:
    """The shipped model, or None (the heuristic order) when the file is absent."""
    if not path.is_file():
        return None
    return ranker_from_json(json.loads(path.read_text(encoding="utf-8")))
