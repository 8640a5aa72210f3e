"""Concept candidates: generic words never become concepts, acronyms merge with their long
forms, the background statistics are the shipped ones, and LLM concepts pass the same
filters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from marginalia.knowledge.acronyms import colon_definition, detect_acronyms
from marginalia.knowledge.background import is_everyday_english, load_background
from marginalia.knowledge.concept_filter import (
    concept_allowed,
    filter_concepts,
    is_named_token,
    mmr_order,
    token_similarity,
)
from marginalia.knowledge.concepts import is_plain_word, merge_concepts, normalize_concept
from marginalia.knowledge.extraction import combined_acronyms, extract_offline
from marginalia.knowledge.schemas import ExtractedConcept
from marginalia.knowledge.sentences import ChunkText, matter_of

REPO = Path(__file__).resolve().parents[2]

# What the knowledge layer used to put on the canvas (issue 13) and the single-word junk of
# the concept gold set: none of them may ever be a concept, however often it occurs.
JUNK = [
    "document", "texts", "sentence", "scientific", "domains", "pilot", "train", "full",
    "open", "files", "function", "families", "edges", "source", "Department",
    "construction", "experiences", "token", "Table", "English", "nodes", "research",
    "papers", "Figure", "pilots", "units", "time", "Institute", "binding", "Results",
    "staff", "Centre", "participants", "Methods", "Surgery", "Correspondence", "Canada",
    "patients", "Phase", "document-level", "large-scale", "long-form",
]  # fmt: skip


def gold_single_word_junk() -> list[str]:
    out: list[str] = []
    for name in ("gold.jsonl",):
        for line in (REPO / "eval" / "concepts" / name).read_text(encoding="utf-8").splitlines():
            out += [j for j in json.loads(line)["junk"] if len(j.split()) == 1]
    return out


def test_shipped_background_statistics() -> None:
    bg = load_background()
    assert bg.n_docs == 5183 + 2105
    assert bg.doc_freq("language model") > 100  # ACL abstracts
    assert bg.doc_freq("patient") > 500  # SciFact abstracts
    assert bg.doc_freq("enoxaparin") == 0
    assert bg.is_general_word("Department") and bg.is_general_word("files")
    assert not bg.is_general_word("thromboprophylaxis")


@pytest.mark.parametrize("word", JUNK + gold_single_word_junk())
def test_generic_words_are_never_concepts(word: str) -> None:
    assert not concept_allowed(word, normalize_concept(word), load_background(), heads=50, count=50)


def test_specific_single_words_and_names_pass() -> None:
    bg = load_background()
    for word in ("thromboprophylaxis", "enoxaparin", "Ensembl"):
        assert concept_allowed(word, normalize_concept(word), bg, heads=5, count=5), word
    for word in ("SciBERT", "S2ORC", "33RE", "nDCG", "codeML", "GROBID"):
        assert is_named_token(word), word
        assert concept_allowed(word, normalize_concept(word), bg, heads=0, count=2), word
    # a residue is a named token but no concept (issue 35)
    assert not concept_allowed("Tyr369", "tyr369", bg, heads=0, count=2)
    # a specific word seen once or twice is not yet a concept of the source
    assert not concept_allowed("enoxaparin", "enoxaparin", bg, heads=2, count=2)


def test_everyday_words_outside_the_background_s_fields_are_not_concepts() -> None:
    # SciFact and ACL never use them and the WordPiece vocabulary does not list them, so
    # only general English at large (wordfreq) says they are everyday words
    bg = load_background()
    for word in ("quark", "contours", "uniqueness", "Hamiltonian", "qubits", "shallower"):
        assert bg.doc_freq(normalize_concept(word)) == 0 and not bg.is_general_word(word), word
        assert is_everyday_english(word), word
        assert not concept_allowed(word, normalize_concept(word), bg, heads=9, count=9), word
    for word in ("retrosynthesis", "hadronization", "Chemformer", "tetrazole"):
        assert not is_everyday_english(word), word
        assert concept_allowed(word, normalize_concept(word), bg, heads=9, count=9), word


def test_phrases_modifiers_names_and_boilerplate() -> None:
    bg = load_background()
    assert concept_allowed("triplet loss", "triplet loss", bg, heads=4, count=5)
    assert concept_allowed("heart failure", "heart failure", bg, heads=30, count=70)
    # always before another noun: a modifier, not a concept
    assert not concept_allowed(
        "structured heart failure", "structured heart failure", bg, heads=0, count=6
    )
    assert not concept_allowed("molecular evolutionary", "molecular evolutionary", bg)
    assert not concept_allowed("Helen M", "helen m", bg)
    assert not concept_allowed("Creative Commons Attribution Licence", "x", bg)
    assert not concept_allowed("experimental results", "experimental result", bg)


JUNK_HEAVY = (
    "Department of Surgery, University Hospital. Correspondence: the Institute.\n\n"
    "The document describes the files and the source of the full text. "
    "Low molecular weight heparin (LMWH) prevents deep venous thrombosis (DVT) in trauma patients. "
    "The document lists files, families, function and edges of the source. "
    "Enoxaparin is a low molecular weight heparin; enoxaparin dosing was adjusted. "
    "Thromboprophylaxis with LMWH reduced DVT; thromboprophylaxis was safe. "
    "Patients received enoxaparin and thromboprophylaxis; deep venous thrombosis was rare. "
    "The document and its files are the source; the full function of the families. "
    "Compound 33RE binds the N-domain; 33RE was more selective than RXP407. "
    "LMWH and DVT were recorded in every document of the source files."
)


def test_junk_never_becomes_a_concept_of_a_document() -> None:
    chunks = [ChunkText(i, JUNK_HEAVY, "other") for i in range(3)]
    ex = extract_offline("Thromboprophylaxis after trauma", None, chunks)
    names = {c.name for c in ex.concepts}
    keys = {normalize_concept(n) for n in names}
    for junk in JUNK:
        assert normalize_concept(junk) not in keys, junk
    assert "RE" not in names  # a fragment of "33RE", which is one token
    assert {"LMWH", "DVT", "33RE", "thromboprophylaxis"} <= names | {n.lower() for n in names}


def test_an_acronym_and_its_long_form_merge() -> None:
    text = (
        "Low molecular weight heparin (LMWH) is given after surgery. Patients on LMWH bled "
        "less. Low molecular weight heparin was cheaper. LMWH dosing was weight based."
    )
    a = extract_offline("LMWH after surgery", None, [ChunkText(0, text, "other")])
    lmwh = [
        c
        for c in a.concepts
        if normalize_concept(c.name) in {"lmwh", "low molecular weight heparin"}
    ]
    assert [c.name for c in lmwh] == ["LMWH"]  # one concept, not two
    assert a.acronyms["LMWH"].lower() == "low molecular weight heparin"
    # across sources: one source writes the long form, the other the short form
    b = [ExtractedConcept(name="low molecular weight heparins")]
    graph = merge_concepts({"a": a.concepts, "b": b}, combined_acronyms([a]))
    (merged,) = [
        c for c in graph.concepts if "lmwh" in {normalize_concept(x) for x in (c.name, *c.aliases)}
    ]
    assert set(merged.source_ids) == {"a", "b"}
    assert any(
        x.lower().startswith("low molecular weight heparin") for x in (merged.name, *merged.aliases)
    )


def test_llm_concepts_pass_the_same_filters() -> None:
    text = (
        "Enoxaparin was given. Enoxaparin dosing. Enoxaparin again. The document of the patients."
    )
    concepts = [
        ExtractedConcept(name="document"),
        ExtractedConcept(name="patients"),
        ExtractedConcept(name="enoxaparin"),
        ExtractedConcept(name="Enoxaparin"),  # the same key twice: kept once
        ExtractedConcept(name="deep venous thrombosis"),
        ExtractedConcept(name="Department"),
    ]
    kept = [c.name for c in filter_concepts(concepts, text)]
    assert kept == ["enoxaparin", "deep venous thrombosis"]


def test_mmr_keeps_near_duplicates_apart() -> None:
    keys = [
        "quality improvement",
        "quality improvement process",
        "healthcare quality improvement",
        "patient flow",
        "situational analysis",
    ]
    assert token_similarity(keys[0], keys[1]) == 1.0
    order = mmr_order(
        keys, [10, 9, 8, 7, 6], lambda i, j: token_similarity(keys[i], keys[j]), limit=3
    )
    assert order == ["quality improvement", "patient flow", "situational analysis"]
    assert mmr_order(keys, [1] * 5, lambda i, j: 0.0, limit=2) == keys[:2]


def test_cited_authors_urls_and_broken_long_forms() -> None:
    text = (
        "SciBERT (Beltagy et al., 2019) is used. Beltagy et al. trained SciBERT on papers. "
        "As Cohan et al. show, SciBERT helps; see https://github.com/allenai/specter and "
        "doi:10.18653/v1/2020.acl-main.207 for Beltagy and Lo's code. Papers are tagged with "
        "Medi- cal Subject Headings (MeSH). MeSH terms and MeSH labels are used. "
        "Medical Subject Headings cover biomedicine."
    )
    ex = extract_offline("SciBERT for papers", None, [ChunkText(0, text, "other")] * 2)
    names = {c.name for c in ex.concepts}
    assert ex.acronyms["MeSH"] == "Medical Subject Headings"  # joined across the line break
    assert "SciBERT" in names and "MeSH" in names
    assert not {"Beltagy", "Cohan", "github", "allenai"} & {n.split()[0] for n in names}


def test_title_and_footnote_colon_definitions() -> None:
    assert colon_definition("S2ORC: The Semantic Scholar Open Research Corpus") == (
        "S2ORC",
        "Semantic Scholar Open Research Corpus",
    )
    assert colon_definition(
        "VESPA: Very large-scale Evolutionary and Selective Pressure Analyses"
    ) == ("VESPA", "Very large-scale Evolutionary and Selective Pressure Analyses")
    # a footnote broken over lines, with its number and a page number after it
    found = detect_acronyms(
        "They outperform the state-\n2 SPECTER: Scientific Paper Embeddings using Citation-\n"
        "informed TransformERs\n2271\nof-the-art."
    )
    assert found["SPECTER"] == "Scientific Paper Embeddings using Citationinformed TransformERs"
    for text in (
        "LONGEVAL: Guidelines for Human Evaluation of Faithfulness",  # letters not spelled
        "Abstract: we show that it works",
        "Note: the results hold",
    ):
        assert colon_definition(text) is None, text
    ex = extract_offline(
        "S2ORC: The Semantic Scholar Open Research Corpus",
        None,
        [ChunkText(0, "We release S2ORC. S2ORC has papers. S2ORC is large.", "introduction")],
    )
    assert ex.acronyms["S2ORC"] == "Semantic Scholar Open Research Corpus"
    # a piece of the long form is that concept, not another one
    assert "open research corpus" not in {normalize_concept(c.name) for c in ex.concepts}


FRONT = (
    "Proceedings of the Conference, pages 1-10\n"
    "Deep Venous Thrombosis Prophylaxis in Trauma\n"
    "Jane Roe, John Doe\n"
    "Department of Surgery, University of Cape Town, Cape Town, South Africa\n"
    "Lilongwe Lilongwe Lilongwe Cape Town"
)
HEAD = "\nSmith et al. Journal of Trauma Management 2010, 4:1 Page 2 of 9\n"
BODY = [
    f"Thromboprophylaxis with enoxaparin prevents deep venous{HEAD}thrombosis.",
    f"Enoxaparin was given to multisystem trauma patients; enoxaparin{HEAD}is safe.",
    f"Thromboprophylaxis was started early, and IVC filters were placed{HEAD}when "
    "enoxaparin was contraindicated.",
    f"The IVC filter was retrieved; inferior vena cava (IVC) filters{HEAD}migrate. An IVC "
    "filter and IVC filters again, IVC filter placement.",
]


def test_front_and_back_matter_and_running_heads_are_not_concepts() -> None:
    chunks = [
        ChunkText(0, FRONT, "other", None),
        ChunkText(1, "We review thromboprophylaxis after trauma.", "abstract", "Abstract"),
        *(ChunkText(i, text, "methods", "Methods") for i, text in enumerate(BODY, 2)),
        ChunkText(6, "Funded by the Lilongwe Trust, Cape Town.", "other", "Funding"),
        ChunkText(7, "Cape Town and Lilongwe: the authors thank Cape Town.", "other", "Competing interests"),
    ]  # fmt: skip
    assert matter_of(chunks) == ["front", "body", "body", "body", "body", "body", "back", "back"]
    # a document without structure is all body
    assert matter_of([ChunkText(0, FRONT), ChunkText(1, BODY[0])]) == ["body", "body"]
    ex = extract_offline("Thromboprophylaxis in trauma", None, chunks)
    keys = {normalize_concept(c.name) for c in ex.concepts}
    # one plain single word per source: the best-ranked one (the title's)
    assert "thromboprophylaxis" in keys and "enoxaparin" not in keys
    assert [c.name for c in ex.concepts if is_plain_word(c.name)] == ["thromboprophylaxis"]
    for junk in (
        "cape town",
        "lilongwe",
        "journal of trauma management",
        "trauma management",
        "multisystem trauma patient",
        "trauma patient",
        "south africa",
        "jane roe",
    ):
        assert junk not in keys, junk  # fmt: skip
    # "IVC" is used before "filter": the concept is the IVC filter, not the IVC
    assert "ivc" not in keys and "ivc filter" in keys


def test_generic_heads_people_and_generic_short_forms() -> None:
    bg = load_background()
    for phrase in (
        "scientific documents",
        "summary files",
        "research challenges",
        "medical staff",
        "multisystem trauma patients",
        "crowd workers",
    ):
        assert not concept_allowed(phrase, normalize_concept(phrase), bg, heads=5, count=5), phrase
    for phrase in ("citation graph", "triplet loss", "situational analysis", "focus groups"):
        assert concept_allowed(phrase, normalize_concept(phrase), bg, heads=5, count=5), phrase  # fmt: skip
    text = (
        "Language models (LMs) are trained on text. LMs predict words. We fine-tune LMs. "
        "The LMs and the LM are large. SciBERT (Beltagy et al., 2019) is an LM. SciBERT is "
        "used. SciBERT again."
    )
    ex = extract_offline("Fine-tuning SciBERT", None, [ChunkText(0, text, "introduction")] * 2)
    names = {c.name for c in ex.concepts}
    assert "SciBERT" in names and "LM" not in names  # as generic as "language models"


def test_a_name_before_the_word_for_its_kind_is_the_name() -> None:
    text = (
        "We run the ScienceParse system on every PDF. The ScienceParse system extracts "
        "titles; the ScienceParse system also extracts authors. Later, the ScienceParse "
        "system was retrained. NLP models and NLP models again; NLP models, NLP models."
    )
    ex = extract_offline("Metadata extraction", None, [ChunkText(0, text, "methods")] * 2)
    keys = {normalize_concept(c.name) for c in ex.concepts}
    assert "scienceparse" in keys and "scienceparse system" not in keys
    assert "nlp" not in keys  # "NLP models" are models of a field, not the thing NLP
