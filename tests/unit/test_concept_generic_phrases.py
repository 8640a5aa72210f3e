"""Generic multiword phrases, mathematics and cross-reference labels never become
concepts (issue 13: "empirical results" and "sentence boundary" on ACL-catalog canvases;
"mathbf" and "REF" from papers rendered from their LaTeX source)."""

from __future__ import annotations

import pytest

from marginalia.knowledge.background import load_background
from marginalia.knowledge.concept_filter import concept_allowed, filter_concepts
from marginalia.knowledge.concepts import normalize_concept
from marginalia.knowledge.extraction import extract_offline
from marginalia.knowledge.schemas import ExtractedConcept
from marginalia.knowledge.sentences import ChunkText

GENERIC_PHRASES = [
    "empirical results", "sentence boundary", "experimental setup", "proposed approach",
    "automatic approaches", "contemporary research", "full text", "word count",
    "automated process", "quite scarce", "sentence boundaries", "experimental setups",
]  # fmt: skip
SPECIFIC_PHRASES = [
    "sentence boundary detection", "decision boundary", "heart failure", "systematic review",
    "quality improvement", "focus groups", "citation graph", "hard negatives",
]  # fmt: skip

GENERIC_HEAVY = (
    "Our empirical results are strong. The empirical results hold. Empirical results again. "
    "The experimental setup follows prior work; the experimental setup is simple and the "
    "experimental setup is public. The proposed approach uses CRF tagging. The proposed "
    "approach is fast, and the proposed approach beats the baseline. Each sentence boundary "
    "is marked; a sentence boundary ends a span, and the sentence boundary is given. The "
    "full text was read. The full text is long. We read the full text. CRF tagging of "
    "biomedical abstracts uses MEDLINE; MEDLINE abstracts and CRF tagging again."
)


@pytest.mark.parametrize("phrase", GENERIC_PHRASES)
def test_generic_multiword_phrases_are_never_concepts(phrase: str) -> None:
    bg = load_background()
    assert not concept_allowed(phrase, normalize_concept(phrase), bg, heads=20, count=20)


@pytest.mark.parametrize("phrase", SPECIFIC_PHRASES)
def test_specific_everyday_word_phrases_still_pass(phrase: str) -> None:
    bg = load_background()
    assert concept_allowed(phrase, normalize_concept(phrase), bg, heads=5, count=5)


def test_generic_phrases_are_not_concepts_of_a_document_or_of_an_llm() -> None:
    chunks = [ChunkText(i, GENERIC_HEAVY, "methods") for i in range(3)]
    ex = extract_offline("Empirical results of CRF tagging", GENERIC_HEAVY, chunks)
    keys = {normalize_concept(c.name) for c in ex.concepts}
    for phrase in GENERIC_PHRASES:
        assert normalize_concept(phrase) not in keys, phrase
    assert {"crf tagging", "medline"} <= keys
    llm = [ExtractedConcept(name=p) for p in (*GENERIC_PHRASES, "CRF tagging")]
    kept = [c.name for c in filter_concepts(llm, GENERIC_HEAVY)]
    assert kept == ["CRF tagging"]


def test_mathematics_and_cross_reference_labels_are_not_concepts() -> None:
    text = (
        "The wall planes $\\mathbf{x}_{R}$ and ${\\vert \\mathcal{W} \\vert}$ are matched in "
        "Section REF and Fig. REF. The wall planes feed the SLAM back end (see Table REF). "
        "We replace the full expression of equation (REF) by the wall planes. As shown in "
        "Section. REF and Fig. REF the SLAM graph grows; $$\\frac{a}{b} \\mathrm{exp}$$ "
        "holds. SLAM graph and wall planes again, \\hdots"
    )
    chunks = [ChunkText(i, text, "methods") for i in range(4)]
    ex = extract_offline("Wall planes in SLAM", None, chunks)
    keys = {normalize_concept(c.name) for c in ex.concepts}
    for junk in ("mathbf", "vert", "mathcal", "mathrm", "frac", "exp", "hdots", "ref"):
        assert junk not in keys, junk
    assert "REF" not in ex.acronyms
    assert {"wall plane", "slam"} <= keys


def test_the_word_for_a_kind_before_a_name_is_the_name() -> None:
    text = (
        "We test on the datasets CMU-MOSI and CMU-MOSEI. The datasets CMU-MOSI give clips; "
        "results on datasets CMU-MOSI are higher, and the model MulT on CMU-MOSI as well."
    )
    ex = extract_offline("Sentiment fusion", None, [ChunkText(0, text, "experiments")] * 2)
    keys = {normalize_concept(c.name) for c in ex.concepts}
    assert normalize_concept("CMU-MOSI") in keys
    assert not any(k.startswith(("dataset ", "datasets ", "model ")) for k in keys), keys
