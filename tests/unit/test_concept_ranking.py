"""The offline concept ranker (issue 13, second held-out round): the shipped model is what
orders a source's concepts, a malformed model file is refused, and the candidate rules
that papers outside NLP and biomedicine needed (units, symbols, cited authors, -ing
compounds, labels after named results) hold."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from marginalia.knowledge import keyphrases
from marginalia.knowledge.acronyms import detect_acronyms
from marginalia.knowledge.background import load_background
from marginalia.knowledge.concept_filter import concept_allowed
from marginalia.knowledge.concept_ranking import (
    DATA,
    FEATURES,
    ConceptRanker,
    load_ranker,
    ranker_from_json,
)
from marginalia.knowledge.concepts import normalize_concept
from marginalia.knowledge.extraction import extract_offline
from marginalia.knowledge.sentences import ChunkText

ROOT = Path(__file__).resolve().parents[2]


def _fit_ranker_script() -> ModuleType:
    path = ROOT / "eval" / "concepts" / "fit_ranker.py"
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location("evalscript_fit_ranker", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


PAPER = (
    "We study laser cooling of trapped ions in a hybrid trap. Laser cooling needs a "
    "hopping matrix element model; the hopping matrix element is small, as Kabluchko [4] "
    "and Byun [5] showed. Kabluchko's bound and the hybrid trap agree at 40 MeV and 2 GHz. "
    "The heat equation (REF) gives the right-hand side of (REF). Laser cooling in the "
    "hybrid trap beats the heat equation; the hopping matrix element with n_1 and n_1 "
    "again, MeV and GHz again, MeV."
)


def _concepts(ranker: ConceptRanker | None = None) -> list[str]:
    chunks = [ChunkText(i, PAPER, "methods") for i in range(4)]
    if ranker is None:
        return [c.name for c in extract_offline("Cooling trapped ions", None, chunks).concepts]
    original = keyphrases.load_ranker
    keyphrases.load_ranker = lambda *a, **k: ranker  # type: ignore[assignment]
    try:
        return [c.name for c in extract_offline("Cooling trapped ions", None, chunks).concepts]
    finally:
        keyphrases.load_ranker = original  # type: ignore[assignment]


def test_units_subscripted_symbols_and_cited_authors_are_not_concepts() -> None:
    keys = {normalize_concept(n) for n in _concepts()}
    for junk in ("MeV", "GHz", "n_1", "Kabluchko", "Byun", "REF", "right-hand side of"):
        assert normalize_concept(junk) not in keys, junk
    bg = load_background()
    for unit in ("MeV", "GHz", "kDa", "nm", "mW"):
        assert not concept_allowed(unit, normalize_concept(unit), bg, heads=9, count=9), unit
    for name in ("ML", "MC", "PCA", "GAN", "HOMO"):  # short forms that look like units
        assert concept_allowed(name, normalize_concept(name), bg, heads=9, count=9), name


def test_ing_compounds_and_named_results_before_a_label_are_concepts() -> None:
    keys = {normalize_concept(n) for n in _concepts()}
    for name in ("laser cooling", "hopping matrix element", "heat equation", "hybrid trap"):
        assert normalize_concept(name) in keys, (name, keys)


def test_a_label_after_a_phrase_ending_in_a_stop_word_is_not_an_acronym() -> None:
    assert "REF" not in detect_acronyms("It gives the right-hand side of (REF) again.")
    assert detect_acronyms("We use low molecular weight heparin (LMWH).") == {
        "LMWH": "low molecular weight heparin"
    }


def test_the_shipped_ranker_orders_the_concepts_and_a_different_model_changes_the_order() -> None:
    shipped = load_ranker()
    assert shipped is not None, f"{DATA} should ship with the package"
    data = json.loads(DATA.read_text(encoding="utf-8"))
    assert "heldout2.jsonl" not in data["fitted_on"]  # the set it is reported on
    assert _concepts() == _concepts(shipped)
    # a model that prefers single words and reverses the old order reorders them
    flipped = dataclasses.replace(
        shipped,
        coef=tuple({"heuristic": -2.0, "one_word": 3.0}.get(name, 0.0) for name in FEATURES),
    )
    assert _concepts(flipped) != _concepts(shipped)


def test_a_malformed_ranker_file_is_refused(tmp_path: Path) -> None:
    good = json.loads(DATA.read_text(encoding="utf-8"))
    ranker_from_json(good)
    with pytest.raises(ValueError, match="features"):
        ranker_from_json({**good, "features": list(FEATURES[:-1])})
    with pytest.raises(ValueError, match="values"):
        ranker_from_json({**good, "coef": good["coef"][:-1]})
    with pytest.raises(ValueError, match="positive"):
        ranker_from_json({**good, "scale": [0.0] * len(FEATURES)})
    assert load_ranker.__wrapped__(tmp_path / "absent.json") is None  # the heuristic order


def test_the_fitter_learns_an_informative_feature_and_refuses_the_reported_set() -> None:
    fit_ranker = _fit_ranker_script()
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, len(FEATURES)))
    y = (x[:, FEATURES.index("heading")] + 0.3 * rng.normal(size=400) > 0).astype(float)
    model = fit_ranker.fit(x, y, l2=1.0)
    coef = dict(zip(FEATURES, model.coef, strict=True))
    assert coef["heading"] > 1.0
    assert all(abs(c) < 0.5 for name, c in coef.items() if name != "heading")
    assert fit_ranker.main(["--set", "eval/concepts/heldout2.jsonl=/nonexistent"]) == 2
