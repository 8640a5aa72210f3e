"""The answerability gate: is the retrieved context enough to answer the question?

A small logistic regression over features of the question and its numbered context
(:func:`features`), fitted by ``marginalia eval calibrate`` on a development set and
shipped as coefficients plus a threshold in ``eval/calibration.json`` (invariant 4: the
eval produces it, the answer layer reads it). The answer's ``evidence_score`` is the
model's probability that the question is answerable (:data:`SIGNAL`); an answer is
refused below the threshold.

Features (each a number in a small range; the model standardises them):

- ``max_support`` — the best sentence support of :mod:`marginalia.answer.offline`
  (cosine plus idf-weighted term coverage of the sentence, its neighbours, the context);
- ``max_cosine`` — the best sentence's cosine similarity to the question;
- ``context_coverage`` — the idf-weighted share of the question's terms found anywhere in
  the context;
- ``named_missing`` — the share of the question's *salient* terms (named systems, datasets,
  measures: capitalised words past the first, acronyms, letter-digit tokens such as
  "GJ 486b" or "V100") that no passage of the context contains;
- ``absent_term`` — 1 when a salient term of the question occurs nowhere in the
  workspace (BM25 document frequency 0 for all its stems), else 0;
- ``type_expected`` / ``type_offered`` — the question asks for a number, a date or a named
  thing (:mod:`marginalia.answer.answer_types`), and one of the five best sentences offers
  it;
- ``leg_agreement`` — the share of the lexical leg's top five chunks that the vector leg's
  top five also holds;
- ``max_coverage`` / ``max_window_coverage`` — the best idf-weighted coverage of the
  question by one sentence, and by a sentence with its neighbours;
- ``focus_in_top`` — see :func:`focus_in_top`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from marginalia.answer import answer_types
from marginalia.answer.schemas import Passage
from marginalia.knowledge.text import wordset

#: The name of the signal ``Answer.evidence_score`` holds: P(answerable) from this model.
SIGNAL = "answerability_logit_v1"

FEATURES: tuple[str, ...] = (
    "max_support",
    "max_cosine",
    "context_coverage",
    "named_missing",
    "absent_term",
    "type_expected",
    "type_offered",
    "leg_agreement",
    "max_coverage",
    "max_window_coverage",
    "focus_in_top",
)
#: The question's rarest non-named terms ``focus_in_top`` looks for, and where.
FOCUS_TERMS = 2
FOCUS_TOP = 3

#: Sentences whose answer type counts for ``type_offered``.
TYPE_TOP = 5
#: Chunks of each leg compared for ``leg_agreement``.
AGREEMENT_TOP = 5

_TOKEN = re.compile(r"[^\W_][\w\-./]*[^\W_]|[^\W_]")
_QUESTION_WORDS = wordset(
    "what which who whom whose when where why how does do did is are was were can could "
    "would should will and or but in on at of for to by with from the a an"
)


def salient_terms(question: str) -> list[str]:
    """The question's named things: capitalised words past the first, acronyms and
    letter-digit tokens (case-folded, without question words)."""
    tokens = _TOKEN.findall(question)
    out: list[str] = []
    for i, tok in enumerate(tokens):
        core = tok.strip(".-/")
        if len(core) < 2 or core.casefold() in _QUESTION_WORDS:
            continue
        has_digit = any(c.isdigit() for c in core)
        has_alpha = any(c.isalpha() for c in core)
        upper = sum(c.isupper() for c in core)
        named = (has_digit and has_alpha) or upper >= 2 or (i > 0 and core[0].isupper())
        if named and core.casefold() not in out:
            out.append(core.casefold())
    return out


def _mentions(text: str, term: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(term)}(?![\w])", text) is not None


def named_missing(question: str, passages: Sequence[Passage]) -> float:
    """The share of :func:`salient_terms` that no passage mentions (0 without any)."""
    terms = salient_terms(question)
    if not terms:
        return 0.0
    context = " ".join(p.text for p in passages).casefold()
    return sum(1 for t in terms if not _mentions(context, t)) / len(terms)


def leg_agreement(trace: Mapping[str, Any]) -> float:
    """The share of the lexical leg's top chunks also in the vector leg's top chunks."""
    legs = trace.get("legs") or {}

    def top(name: str) -> set[int]:
        hits = (legs.get(name) or {}).get("hits") or []
        return {int(h["chunk_id"]) for h in hits[:AGREEMENT_TOP]}

    lexical, vector = top("lexical"), top("vector")
    if not lexical or not vector:
        return 0.0
    return len(lexical & vector) / len(lexical)


@dataclass(frozen=True)
class SentenceView:
    """What the gate reads of a scored sentence."""

    text: str
    support: float
    cosine: float
    context_coverage: float
    coverage: float = 0.0
    window_coverage: float = 0.0


def features(
    *,
    question: str,
    sentences: Sequence[SentenceView],
    passages: Sequence[Passage],
    trace: Mapping[str, Any],
    absent_term: bool,
    question_idf: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """The gate's feature values for one question and its context (see the module doc).

    ``sentences``: best support first. ``question_idf``: the question's stemmed terms
    with their workspace idf (for ``focus_in_top``)."""
    best = sentences[0] if sentences else None
    kind = answer_types.expected_type(question)
    offered = any(answer_types.offers(kind, s.text, question) for s in sentences[:TYPE_TOP])
    return {
        "max_support": best.support if best else 0.0,
        "max_cosine": max((s.cosine for s in sentences), default=0.0),
        "context_coverage": best.context_coverage if best else 0.0,
        "named_missing": named_missing(question, passages),
        "absent_term": 1.0 if absent_term else 0.0,
        "type_expected": 0.0 if kind == "none" else 1.0,
        "type_offered": 1.0 if kind != "none" and offered else 0.0,
        "leg_agreement": leg_agreement(trace),
        "max_coverage": max((s.coverage for s in sentences), default=0.0),
        "max_window_coverage": max((s.window_coverage for s in sentences), default=0.0),
        "focus_in_top": focus_in_top(question, question_idf or {}, sentences),
    }


def focus_in_top(
    question: str, idf: Mapping[str, float], sentences: Sequence[SentenceView]
) -> float:
    """The share of the question's :data:`FOCUS_TERMS` rarest terms that are not its named
    things (what it asks *about* them: "licence", "servers", "hourly") found in the
    :data:`FOCUS_TOP` best sentences (stem as a prefix of a word); 1.0 without any."""
    named = set(salient_terms(question))
    candidates = sorted(
        (t for t in idf if t not in named and len(t) >= 3), key=lambda t: (-idf[t], t)
    )[:FOCUS_TERMS]
    if not candidates:
        return 1.0
    text = " ".join(s.text for s in sentences[:FOCUS_TOP]).casefold()
    found = sum(1 for t in candidates if re.search(rf"(?<![\w]){re.escape(t)}", text))
    return found / len(candidates)


@dataclass(frozen=True)
class GateModel:
    """A logistic regression over standardised features."""

    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GateModel:
        names = tuple(str(n) for n in data["features"])
        vals = {k: tuple(float(v) for v in data[k]) for k in ("mean", "scale", "coef")}
        if any(len(v) != len(names) for v in vals.values()):
            raise ValueError("the gate model's features, mean, scale and coef differ in length")
        unknown = [n for n in names if n not in FEATURES]
        if unknown:
            raise ValueError(f"the gate model uses unknown features {unknown}")
        if any(s <= 0 or not math.isfinite(s) for s in vals["scale"]):
            raise ValueError("the gate model's scales must be positive")
        return cls(names, vals["mean"], vals["scale"], vals["coef"], float(data["intercept"]))

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": "logistic_regression",
            "features": list(self.features),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "coef": list(self.coef),
            "intercept": self.intercept,
        }

    def probability(self, values: Mapping[str, float]) -> float:
        z = self.intercept + sum(
            c * (float(values.get(n, 0.0)) - m) / s
            for n, m, s, c in zip(self.features, self.mean, self.scale, self.coef, strict=True)
        )
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def fit_logistic(
    rows: Sequence[Mapping[str, float]],
    labels: Sequence[bool],
    *,
    names: Sequence[str] = FEATURES,
    l2: float = 1.0,
    iterations: int = 50,
) -> GateModel:
    """L2-regularised logistic regression by Newton's method (the intercept is not
    penalised); features standardised on ``rows``."""
    x = np.asarray([[float(r.get(n, 0.0)) for n in names] for r in rows], dtype=np.float64)
    y = np.asarray([1.0 if v else 0.0 for v in labels], dtype=np.float64)
    if len(x) == 0 or y.min() == y.max():
        raise ValueError("fitting the gate needs answerable and unanswerable examples")
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / scale])
    w = np.zeros(z.shape[1])
    penalty = np.eye(z.shape[1]) * l2
    penalty[0, 0] = 0.0
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(z @ w, -50, 50)))
        grad = z.T @ (p - y) + penalty @ w
        hess = z.T @ (z * (p * (1 - p))[:, None]) + penalty + np.eye(len(w)) * 1e-9
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.abs(step).max()) < 1e-10:
            break
    return GateModel(
        tuple(names),
        tuple(float(v) for v in mean),
        tuple(float(v) for v in scale),
        tuple(float(v) for v in w[1:]),
        float(w[0]),
    )
