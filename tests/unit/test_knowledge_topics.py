"""Topic clusters (issue 33): two fields that share no concept stay apart, a cluster's label
is what is frequent in it and rare elsewhere, unlinked sources form one cluster."""

from __future__ import annotations

from marginalia.knowledge.topics import UNLINKED, cluster_of, topic_clusters

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
    names = {"scientific-document": "Scientific documents"}
    first = topic_clusters(list(concepts), concepts, concept_names=names)
    again = topic_clusters(list(reversed(list(concepts))), concepts, concept_names=names)
    assert first == again
    assert first[-1].id == UNLINKED
    assert set(first[-1].members) == {"alone", "other"}
    assert any("Scientific documents" in c.label for c in first)


def test_similarity_alone_links_sources() -> None:
    clusters = topic_clusters(
        ["a", "b", "c", "d"], {}, similar=[("a", "b", "strong"), ("c", "d", "weak")]
    )
    of = cluster_of(clusters)
    assert of["a"] == of["b"] != of["c"] == of["d"]
    assert all(c.id != UNLINKED for c in clusters)
