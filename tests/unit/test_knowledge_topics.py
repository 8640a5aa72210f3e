"""Topic clusters (issue 33): two fields that share no concept stay apart, a cluster's label
is what is frequent in it and rare elsewhere, unlinked sources form one cluster."""

from __future__ import annotations

from collections import Counter

from marginalia.knowledge.topics import (
    UNLINKED,
    characteristic_concepts,
    cluster_of,
    is_name,
    topic_clusters,
)

NLP = {
    "specter": ["citation", "embedding", "transformer", "scientific-document"],
    "s2orc": ["corpus", "citation", "scientific-document", "parsing"],
    "litgraph": ["entity-linking", "citation", "scientific-document", "corpus"],
    "longeval": ["summarization", "human-evaluation", "transformer", "scientific-document"],
}
MED = {
    "trauma": ["trauma", "thrombosis", "prophylaxis", "patient"],
    "rehab": ["rehabilitation", "trauma", "patient", "hospital"],
    "shortstay": ["hospital", "patient", "patient-flow", "admission"],
    "heart": ["heart-failure", "patient", "hospital", "ace-inhibitor"],
}


def test_two_fields_are_two_clusters_labelled_by_their_own_concepts() -> None:
    concepts = {**NLP, **MED}
    clusters = topic_clusters(list(concepts), concepts, citations=[("specter", "litgraph")])
    of = cluster_of(clusters)
    assert len({of[s] for s in NLP}) == 1
    assert len({of[s] for s in MED}) == 1
    assert of["specter"] != of["trauma"]
    nlp = next(c for c in clusters if c.id == of["specter"])
    med = next(c for c in clusters if c.id == of["trauma"])
    # In every NLP paper and in no medical one: the NLP cluster's first label concept.
    assert nlp.concepts[0] == "scientific-document"
    assert med.concepts[0] == "patient"
    assert not set(nlp.concepts) & {c for cs in MED.values() for c in cs}
    assert nlp.label.startswith("scientific-document")


def test_names_deterministic_and_unlinked_last() -> None:
    concepts = {**NLP, "alone": ["volcano"], "other": ["glacier"]}
    # "corpus": in two sources, both in one topic (characteristic); "scientific-document"
    # is in all four NLP sources, so it tells neither of their two topics apart.
    names = {"corpus": "Text corpora"}
    first = topic_clusters(list(concepts), concepts, concept_names=names)
    again = topic_clusters(list(reversed(list(concepts))), concepts, concept_names=names)
    assert first == again
    assert first[-1].id == UNLINKED
    assert set(first[-1].members) == {"alone", "other"}
    assert any(c.label.startswith("Text corpora") for c in first)


def test_similarity_alone_links_sources() -> None:
    clusters = topic_clusters(
        ["a", "b", "c", "d"], {}, similar=[("a", "b", "strong"), ("c", "d", "weak")]
    )
    of = cluster_of(clusters)
    assert of["a"] == of["b"] != of["c"] == of["d"]
    assert all(c.id != UNLINKED for c in clusters)


def test_label_is_descriptive_terms_by_weight_not_names_or_generic_phrases() -> None:
    """The 9 shared PDFs' medical topic as ingested (each source's top concepts, link weight
    1/rank): the old label was "deep venous thrombosis · demographic data · Central Region"
    (a generic phrase and a place); c-TF-IDF with names of things discounted gives each
    paper's own subject, strongest first."""
    links = {
        "trauma": [
            "deep venous thrombosis",
            "low molecular weight heparins",
            "thromboprophylaxis",
            "deep venous thrombosis prophylaxis",
        ],
        "rehab": ["heart failure", "focus groups", "self-management", "demographic data"],
        "health": [
            "Kamuzu Central Hospital",
            "medical short stay",
            "quality improvement",
            "OPD II",
            "Central Region",
            "demographic data",
        ],
        "specter": ["SPECTER", "SCIBERT", "SCIDOCS", "document-level representation"],
        "s2orc": ["S2ORC", "GROBID", "Semantic Scholar", "SCIBERT", "PubMed Central"],
        "litgraph": ["literature graph", "entity extraction", "PubMed Central"],
    }
    concepts = {s: set(cs) for s, cs in links.items()}
    weights = {(s, c): 1 / (i + 1) for s, cs in links.items() for i, c in enumerate(cs)}
    med = ["health", "rehab", "trauma"]
    df = Counter(c for cs in concepts.values() for c in cs)
    keys = characteristic_concepts(med, concepts, df, len(links), weights=weights)
    assert keys == ("deep venous thrombosis", "heart failure", "medical short stay")
    # Without weights every concept counts 1: still no generic phrase, no place, and no
    # two picks that contain one another ("deep venous thrombosis [prophylaxis]").
    plain = characteristic_concepts(med, concepts, df, len(links))
    assert not {"demographic data", "Central Region", "Kamuzu Central Hospital"} & set(plain)
    assert sum("deep venous thrombosis" in k for k in plain) <= 1
    # The one descriptive term first, then names (a paper with nothing else is named by them).
    nlp = characteristic_concepts(["specter", "s2orc"], concepts, df, len(links), weights=weights)
    assert nlp[0] == "document-level representation"
    assert "S2ORC" in nlp


def test_names_of_things() -> None:
    for name in [
        "33RE",
        "RXP407",
        "SCIBERT",
        "codeML",
        "PubMed Central",
        "Central Region",
        "S2ORC",
    ]:
        assert is_name(name), name
    for name in ["deep venous thrombosis", "angiotensin-1-converting enzyme", "heart failure"]:
        assert not is_name(name), name
    assert not is_name("Heart failure rehabilitation")  # a capital first word only
