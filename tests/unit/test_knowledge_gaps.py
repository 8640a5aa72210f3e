"""Knowledge gaps: deterministic, each kind found where it is and only there."""

from __future__ import annotations

import random

from marginalia.knowledge.gaps import (
    GapClaim,
    GapConcept,
    GapEvidence,
    claim_topic,
    find_gaps,
)

TITLES = {"s1": "SPECTER", "s2": "S2ORC", "s3": "Literature Graph"}


def _concepts() -> list[GapConcept]:
    return [
        GapConcept("citation-graph", "citation graph", 0, ("s1", "s2", "s3"), 0.3, "A graph."),
        GapConcept("specter", "SPECTER", 2, ("s1",), 0.2),
        GapConcept("triplet-loss", "triplet loss", 1, ("s1",), 0.1),
        GapConcept("scibert", "SciBERT", 1, ("s1", "s2"), 0.15),
        GapConcept("entity-linking", "entity linking", 1, ("s3",), 0.05, "Linking mentions."),
    ]


EDGES = [
    ("triplet-loss", "specter", "prerequisite", 1.0),  # triplet loss: one source, no definition
    ("citation-graph", "specter", "prerequisite", 2.0),  # defined, several sources: explained
    ("specter", "scibert", "related", 0.5),
]


def test_each_kind_of_gap() -> None:
    claims_llm = [
        GapClaim(
            "c1",
            "s1",
            "SPECTER outperforms SciBERT on citation prediction [3].",
            (GapEvidence("s2", "supports"), GapEvidence("s3", "contradicts")),
        ),
        GapClaim(
            "c2", "s1", "Hard negatives improve the embeddings.", (GapEvidence("s2", "related"),)
        ),
        GapClaim("c3", "s2", "S2ORC has 81.1M papers.", (GapEvidence("s1", "supports"),)),
    ]
    gaps = find_gaps(_concepts(), claims_llm, EDGES, TITLES)
    kinds = {g.id: g.kind for g in gaps}
    assert kinds == {
        "contested_claim:c1": "contested_claim",
        "unsupported_claim:c2": "unsupported_claim",
        "unexplained_prerequisite:triplet-loss": "unexplained_prerequisite",
        "single_source_concept:specter": "single_source_concept",
        "single_source_concept:entity-linking": "single_source_concept",
    }
    assert [g.kind for g in gaps][:2] == ["contested_claim", "unsupported_claim"]
    contested = gaps[0]
    assert contested.evidence == {"contradicts": 1, "supports": 1}
    assert contested.source_ids == ("s1", "s2", "s3")
    assert contested.suggested_topic == "SPECTER outperforms SciBERT citation prediction"
    prereq = next(g for g in gaps if g.kind == "unexplained_prerequisite")
    assert prereq.concepts == ("triplet-loss", "specter") and "SPECTER" in prereq.detail
    single = next(g for g in gaps if g.id == "single_source_concept:specter")
    assert single.suggested_topic == "SPECTER citation graph"  # with its heaviest neighbour
    assert "Only SPECTER discusses" in single.detail
    assert all(g.queries and g.suggested_topic in g.queries for g in gaps)


def test_offline_evidence_counts_as_related_only() -> None:
    claims = [
        GapClaim("c1", "s1", "SPECTER outperforms SciBERT.", (GapEvidence("s2", "related"),)),
        GapClaim("c2", "s2", "SciBERT embeddings need hard negatives.", ()),
        GapClaim(
            "c3",
            "s1",
            "Same-source passages on SPECTER are not evidence.",
            (GapEvidence("s1", "related"),),
        ),
    ]
    gaps = [g for g in find_gaps(_concepts(), claims, [], TITLES) if g.kind == "unsupported_claim"]
    assert sorted(g.id for g in gaps) == ["unsupported_claim:c2", "unsupported_claim:c3"]
    assert all("offline" in g.detail for g in gaps)
    assert "it is about SciBERT" in next(g.detail for g in gaps if g.id.endswith("c2"))


def test_offline_lists_only_claims_central_to_their_source_one_per_source() -> None:
    """Issue 35: offline, the gap list shows the few claims that matter — central to a
    source (naming one of its best concepts) and related to no passage elsewhere — not
    every claim."""
    claims = [
        GapClaim("c1", "s1", "The model is trained for three days.", ()),  # names nothing
        GapClaim("c2", "s1", "SPECTER uses a triplet loss over citations.", ()),
        GapClaim("c3", "s1", "SPECTER beats the baselines.", ()),
        GapClaim("c4", "s3", "Entity linking is hard in papers.", ()),
        GapClaim("c5", "s2", "The corpus is large.", ()),
    ]
    gaps = [g for g in find_gaps(_concepts(), claims, [], TITLES) if g.kind == "unsupported_claim"]
    # one per source: s1's claim naming two of its central concepts, s3's; s2's names none
    assert [g.id for g in gaps] == ["unsupported_claim:c2", "unsupported_claim:c4"]
    many = [GapClaim(f"c{i}", f"s{i}", f"SPECTER, case {i}.", ()) for i in range(12)]
    concepts = [GapConcept("specter", "SPECTER", 2, tuple(f"s{i}" for i in range(12)), 0.2)]
    found = [g for g in find_gaps(concepts, many, [], TITLES) if g.kind == "unsupported_claim"]
    assert len(found) == 5  # a few, whatever the number of sources


def test_deterministic_whatever_the_input_order() -> None:
    concepts = _concepts()
    claims = [
        GapClaim(f"c{i}", "s1", f"Claim number {i} about SPECTER embeddings.", ())
        for i in range(30)
    ]
    claims[0] = GapClaim("c0", "s1", "Claim 0 on SPECTER.", (GapEvidence("s2", "supports"),))
    first = find_gaps(concepts, claims, EDGES, TITLES)  # judged evidence: every claim counts
    rng = random.Random(7)
    for _ in range(3):
        rng.shuffle(concepts)
        rng.shuffle(claims)
        edges = list(EDGES)
        rng.shuffle(edges)
        assert find_gaps(concepts, claims, edges, TITLES) == first
    assert sum(g.kind == "unsupported_claim" for g in first) == 20  # capped


def test_claim_topic() -> None:
    # negations stay: the topic must not say the opposite of the claim
    assert claim_topic("We find that most papers do not perform human evaluation.") == (
        "papers not perform human evaluation"
    )
    assert claim_topic("We show that X (Smith et al., 2019) beats Y [12] by 3 points.") == (
        "X beats Y points"
    )


def test_a_sentence_extracted_twice_is_one_gap() -> None:
    claims = [
        GapClaim("c1", "s1", "Hard negatives improve the embeddings.", ()),
        GapClaim("c2", "s1", "Hard  negatives improve the embeddings.", ()),
    ]
    claims = [GapClaim(c.id, c.source_id, f"SPECTER: {c.text}", ()) for c in claims]
    gaps = find_gaps(_concepts(), claims, [], TITLES)
    assert [g.id for g in gaps if g.kind == "unsupported_claim"] == ["unsupported_claim:c1"]
