"""The concept ranker's features of one candidate (:data:`~marginalia.knowledge.
concept_ranking.FEATURES`): how often and where the source uses it, how specific it is
against the background, what kind of name it is, and whether it is a known term
(:mod:`marginalia.knowledge.field_terms`)."""

from __future__ import annotations

import math
import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Protocol

from marginalia.knowledge.background import Background
from marginalia.knowledge.concept_filter import is_named_token, specificity
from marginalia.knowledge.concepts import is_acronym, normalize_concept
from marginalia.knowledge.field_terms import load_field_terms


class CandidateStats(Protocol):
    """What the features read of a candidate (``keyphrases._Candidate``)."""

    key: str
    n_tokens: int
    count: int
    in_title: bool
    in_abstract: bool
    first: int
    heads: int
    chunks: set[int]
    surfaces: dict[str, int]


@dataclass(frozen=True)
class SourceShape:
    sentences: int
    chunks: int
    headings: str
    """The section titles' merge keys, joined by " | "."""


def known_term_features(forms: Collection[str], general_share: float) -> dict[str, float]:
    """``known_phrase``: a multi-word form is an article title; ``known_word``: a one-word
    form is one; ``everyday_unknown``: a multi-word phrase of everyday words that no form
    of is a title ("theoretical underpinnings")."""
    terms = load_field_terms()
    keys = {normalize_concept(f) for f in forms} - {""}
    multi = [k for k in keys if " " in k]
    known_phrase = terms.any_known(multi)
    return {
        "known_phrase": float(known_phrase),
        "known_word": float(terms.any_known(k for k in keys if " " not in k)),
        "everyday_unknown": float(bool(multi) and general_share == 1.0 and not known_phrase),
    }


def candidate_features(
    c: CandidateStats,
    name: str,
    long_form: str | None,
    shape: SourceShape,
    background: Background,
    heuristic: float,
) -> dict[str, float]:
    """The ranker's features; ``heuristic`` is the frequency × position × length ×
    specificity score."""
    words = name.split()
    n_words = c.n_tokens if long_form is None else max(c.n_tokens, len(long_form.split()))
    general_share = sum(background.is_general_word(w) for w in words) / max(1, len(words))
    forms = [name, *([long_form] if long_form else []), *c.surfaces]
    return {
        "heuristic": math.log(max(heuristic, 1e-6)),
        "log_count": math.log1p(c.count),
        "title": float(c.in_title),
        "abstract": float(c.in_abstract),
        "early": 1.0 - min(c.first, shape.sentences) / shape.sentences,
        "chunk_share": len(c.chunks) / shape.chunks,
        "one_word": float(n_words == 1),
        "two_words": float(n_words == 2),
        "long": float(n_words >= 3),
        "specificity": specificity(c.key, background),
        "head_share": min(1.0, c.heads / c.count) if c.count else 0.0,
        "named": float(any(len(w) >= 3 and is_named_token(w) for w in words)),
        "short_form": float(is_acronym(name)),
        "defined": float(long_form is not None),
        "plain_word": float(len(words) == 1 and name.isalpha() and not is_named_token(name)),
        "heading": float(
            bool(c.key) and re.search(rf"\b{re.escape(c.key)}\b", shape.headings) is not None
        ),
        "capitalised": float(all(w[:1].isupper() for w in words) and not is_acronym(name)),
        "general_share": general_share,
        "unseen": float(background.doc_freq(c.key) == 0),
        **known_term_features(forms, general_share),
    }
