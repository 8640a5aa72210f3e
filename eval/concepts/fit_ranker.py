"""Fit the offline concept ranker (``knowledge/data/concept_ranker.json``) on development
gold sets, and check it on each set with the others fitted (leave one set out).

    uv run --frozen python eval/concepts/fit_ranker.py \
        --set eval/concepts/gold.jsonl=/tmp/gold.inputs.pickle \
        --set eval/concepts/heldout.jsonl=/tmp/heldout.inputs.pickle \
        --set eval/concepts/dev2.jsonl=/tmp/dev2.inputs.pickle [--l2 1.0] [--write]

Each ``--set`` pairs a gold file with the extractor inputs ``replay.py record`` kept for
it. A training row is one candidate concept of one document (every candidate that passes
the filters, :func:`marginalia.knowledge.keyphrases.concept_candidates`), labelled 1 when
one of its forms matches a gold concept of the document as the eval matches them. The
model is an L2-regularised logistic regression over standardised features, fitted by
Newton's method (numpy only). ``--write`` fits on every set given and writes the model;
``eval/concepts/heldout2.jsonl`` and ``heldout3.jsonl`` are the sets it is reported on and
must never be given here.
"""

from __future__ import annotations

import argparse
import io
import json
import pickle
import sys
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import replay

from marginalia.evaluation.concepts import load_gold, match_key
from marginalia.knowledge import concept_ranking
from marginalia.knowledge import keyphrases as kp
from marginalia.knowledge.concept_ranking import FEATURES, ConceptRanker
from marginalia.knowledge.extraction import source_acronyms, source_sentences

REPORTED_ON = frozenset({"heldout2.jsonl", "heldout3.jsonl"})


@dataclass
class LabelledSet:
    gold_path: Path
    inputs: replay.Inputs
    x: np.ndarray
    y: np.ndarray


def rows_of(gold_path: Path, inputs: replay.Inputs) -> LabelledSet:
    xs: list[list[float]] = []
    ys: list[float] = []
    for g in load_gold(gold_path):
        title, abstract, chunks = inputs[g.doc]
        ordered = sorted(chunks, key=lambda c: c.index)
        sentences, _, _ = source_sentences(title, abstract, ordered)
        gold_keys = frozenset().union(*(c.keys for c in g.concepts))
        for cand in kp.concept_candidates(sentences, source_acronyms(sentences)):
            xs.append([cand.features[f] for f in FEATURES])
            ys.append(float(any(match_key(f) in gold_keys for f in cand.forms)))
    return LabelledSet(gold_path, inputs, np.array(xs), np.array(ys))


def fit(x: np.ndarray, y: np.ndarray, l2: float) -> ConceptRanker:
    """Logistic regression, L2 on the coefficients (not the intercept), Newton steps."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / scale])
    w = np.zeros(z.shape[1])
    penalty = np.full(z.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(z @ w)))
        grad = z.T @ (p - y) + penalty * w
        hess = (z * (p * (1 - p))[:, None]).T @ z + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return ConceptRanker(
        mean=tuple(float(v) for v in mean),
        scale=tuple(float(v) for v in scale),
        coef=tuple(float(v) for v in w[1:]),
        intercept=float(w[0]),
    )


def scored(gold_path: Path, inputs: replay.Inputs, ranker: ConceptRanker | None) -> dict[str, Any]:
    """The replay's figures for one set with ``ranker`` in place of the shipped model."""
    original = kp.load_ranker
    kp.load_ranker = lambda *a, **k: ranker  # type: ignore[assignment]
    try:
        with redirect_stdout(io.StringIO()):
            return replay.score(gold_path, inputs, show=False)
    finally:
        kp.load_ranker = original  # type: ignore[assignment]


def _fmt(m: dict[str, Any]) -> str:
    return "  ".join(
        f"{k} {m[k]['value']:.3f} ({m[k]['k']}/{m[k]['n']})"
        for k in ("precision@10", "recall", "generic_rate")
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", action="append", required=True, dest="sets", metavar="GOLD=INPUTS")
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--write", action="store_true", help="fit on every set and ship it")
    parser.add_argument("--out", type=Path, default=concept_ranking.DATA)
    args = parser.parse_args(argv)
    sets: list[LabelledSet] = []
    for spec in args.sets:
        gold, _, inputs = spec.partition("=")
        if Path(gold).name in REPORTED_ON:
            print(f"{gold} is the set the ranker is reported on; never fit on it", file=sys.stderr)
            return 2
        sets.append(rows_of(Path(gold), pickle.loads(Path(inputs).read_bytes())))
    for held in sets:
        others = [s for s in sets if s is not held]
        if not others:
            break
        ranker = fit(
            np.vstack([s.x for s in others]), np.concatenate([s.y for s in others]), args.l2
        )
        print(f"{held.gold_path.name}  (fitted on the {len(others)} other sets, l2 {args.l2})")
        print(f"  heuristic  {_fmt(scored(held.gold_path, held.inputs, None))}")
        print(f"  model      {_fmt(scored(held.gold_path, held.inputs, ranker))}")
    if args.write:
        ranker = fit(np.vstack([s.x for s in sets]), np.concatenate([s.y for s in sets]), args.l2)
        doc = {
            "features": list(FEATURES),
            "mean": ranker.mean,
            "scale": ranker.scale,
            "coef": ranker.coef,
            "intercept": ranker.intercept,
            "l2": args.l2,
            "fitted_on": [s.gold_path.name for s in sets],
            "rows": int(sum(len(s.y) for s in sets)),
            "positives": int(sum(s.y.sum() for s in sets)),
            "written_by": "eval/concepts/fit_ranker.py",
        }
        args.out.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {args.out} ({doc['rows']} rows, {doc['positives']} positive)")
        for name, c in sorted(zip(FEATURES, ranker.coef, strict=True), key=lambda t: -abs(t[1])):
            print(f"  {name:12s} {c:+.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
