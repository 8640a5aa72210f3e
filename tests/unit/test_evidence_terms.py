"""Offline evidence links need a shared salient term, not only a shared topic (issue 35)."""

from __future__ import annotations

import uuid

from marginalia.knowledge.evidence_terms import salient_terms, shared_salient_terms
from marginalia.knowledge.linking import related_row, shared_terms
from marginalia.knowledge.repository import EvidenceCandidate

# The example: an S2ORC claim was "related" to a passage about SQuALITY.
S2ORC_CLAIM = (
    "We introduce S2ORC, a large corpus of 81.1M English-language academic papers "
    "spanning many academic disciplines."
)
SQUALITY_PASSAGE = (
    "SQuALITY is a question-focused summarization dataset of public-domain science fiction "
    "stories; its reference summaries were written by crowdworkers who read the papers."
)
S2ORC_PASSAGE = (
    "We use the S2ORC corpus, which provides full text and citation links for millions of "
    "academic papers, to pretrain our model."
)


def _candidate(claim: str, passage: str) -> EvidenceCandidate:
    return EvidenceCandidate(uuid.uuid4(), claim, uuid.uuid4(), 3, uuid.uuid4(), passage, 0.62)


def test_topic_words_alone_link_nothing() -> None:
    assert shared_salient_terms(S2ORC_CLAIM, SQUALITY_PASSAGE) == []
    assert (
        shared_terms(_candidate(S2ORC_CLAIM, SQUALITY_PASSAGE), ["S2ORC", "academic papers"]) == []
    )


def test_a_shared_name_or_rare_term_links() -> None:
    assert shared_salient_terms(S2ORC_CLAIM, S2ORC_PASSAGE) == ["s2orc"]
    cand = _candidate(S2ORC_CLAIM, S2ORC_PASSAGE)
    row = related_row(cand, shared_terms(cand))
    assert row["relation"] == "related"
    assert row["rationale"].startswith("shares “s2orc”; cosine similarity 0.620")
    claim = "Enoxaparin lowered the rate of deep venous thrombosis."
    passage = "Patients received enoxaparin twice daily after the injury."
    assert shared_salient_terms(claim, passage) == ["enoxaparin"]


def test_salient_terms() -> None:
    terms = salient_terms("SciBERT and 81.1M papers on thromboprophylaxis after trauma.")
    assert {"scibert", "thromboprophylaxis"} <= terms
    assert not {"papers", "trauma", "1m", "81"} & terms
    # authors of a citation are not what a sentence is about
    cited = salient_terms(
        "We start from SciBERT (Beltagy et al., 2019) as Cohan and Zhuang [3] did."
    )
    assert cited == {"scibert"}


def test_a_concept_of_the_workspace_shared_beyond_its_topics_links() -> None:
    claim = "The citation graph gives the triplets the loss is trained on."
    passage = "We build a citation graph over 80M papers and count its edges."
    assert shared_salient_terms(claim, passage) == []  # everyday words alone
    assert shared_salient_terms(claim, passage, ["citation graph"]) == ["citation graph"]
    assert shared_salient_terms(claim, passage, ["citation graphs", "loss"]) == []
