"""Strings that recur but are no concept (issue 35), and acronyms named by their
expansion, near-duplicates merged."""

from __future__ import annotations

import pytest

from marginalia.knowledge.background import load_background
from marginalia.knowledge.concept_filter import concept_allowed
from marginalia.knowledge.concepts import merge_concepts, normalize_concept
from marginalia.knowledge.non_concepts import (
    non_concept_kind,
    undefined_short_form,
    upper_compounds,
)
from marginalia.knowledge.schemas import ExtractedConcept

# The examples from the 9 PDFs, each with its kind.
NOT_CONCEPTS = {
    "PDF": "file format",
    "RQ1": "label",
    "Table 3": "label",
    "30K": "number-word",
    "8.1M": "number-word",
    "CC-BY": "licence",
    "CDCl3": "chemical formula",
    "CLS": "tokenizer symbol",
    "Arg381": "residue or mutation",
    "His388": "residue or mutation",
    "Thr496": "residue or mutation",
    "Tyr369": "residue or mutation",
    "N-acetyl-Ser": "residue or mutation",
    "Y369F": "residue or mutation",
    "N-domain-specific Tyr369": "residue or mutation",
    "Professor Kelly Chibale": "person",
}
CONCEPTS = ["SciBERT", "S2ORC", "33RE", "RXP407", "Ac-SDKP", "LongT5", "T5", "SPECTER", "MeSH"]


@pytest.mark.parametrize("surface", sorted(NOT_CONCEPTS))
def test_not_a_concept(surface: str) -> None:
    assert non_concept_kind(surface) == NOT_CONCEPTS[surface]
    bg = load_background()
    assert not concept_allowed(surface, normalize_concept(surface), bg, heads=5, count=5)


@pytest.mark.parametrize("surface", CONCEPTS)
def test_names_stay_concepts(surface: str) -> None:
    assert non_concept_kind(surface) is None


def _concept(name: str) -> ExtractedConcept:
    return ExtractedConcept(name=name, level=1, description=None, parent=None, related=[])


def test_acronym_titled_by_its_expansion_and_compounds_merge() -> None:
    merged = merge_concepts(
        {
            "s1": [_concept("DVT"), _concept("LMWH"), _concept("SPECTER")],
            "s2": [_concept("FINE"), _concept("FINE-grained")],
        },
        {
            "DVT": "deep venous thrombosis",
            "LMWH": "low molecular weight heparin",
            "SPECTER": "Scientific Paper Embeddings using Citation-informed TransformERs",
        },
    ).concepts
    by_name = {c.name: c for c in merged}
    assert "DVT" in by_name["deep venous thrombosis"].aliases
    assert "LMWH" in by_name["low molecular weight heparin"].aliases
    assert "SPECTER" in by_name  # a system's name stays its name
    fine = [c for c in merged if "FINE" in (c.name, *c.aliases)]
    assert len(fine) == 1 and fine[0].name == "FINE-grained"


def test_undefined_short_forms() -> None:
    compounds = upper_compounds(["We compare FINE-grained and COARSE-grained annotation."])
    assert compounds == {"FINE", "COARSE"}
    for form in ("CS", "GP", "GPs", "KB", "COARSE", "FINE"):
        assert undefined_short_form(form, compounds), form
    # longer initialisms, names and upper-case words without a compound stay candidates
    for form in ("DVT", "LMWH", "SPECTER", "CITE", "SciBERT", "Pb", "LSTM"):
        assert not undefined_short_form(form, compounds), form
