"""Invariant 3 without a database: normalisation, the verbatim check, claim validation."""

from __future__ import annotations

from marginalia.answer.quotes import (
    normalize,
    quote_in_passage,
    render_answer_text,
    validate_claims,
)
from marginalia.answer.schemas import Answer, AnswerClaim, Passage

P1 = (
    "SPECTER learns document-level embeddings by pretraining a Transformer\n"
    "on a citation-informed signal; the ingre-\ndient that matters is the\n"
    "citation graph. It uses “hard negatives”\u2014papers cited by a cited paper."
)
P2 = "Trauma patients with a pelvic fracture are at the highest risk of bleeding."
P3 = "The ﬁnal model was evaluated on SCIDOCS, a new benchmark."


def passages() -> list[Passage]:
    return [
        Passage(n=i, chunk_id=i, document=f"doc {i}", text=t, score=1.0 / i)
        for i, t in enumerate((P1, P2, P3), start=1)
    ]


def test_normalize_collapses_whitespace_and_dehyphenates_line_breaks() -> None:
    assert normalize("a  b\n\tc ") == "a b c"
    assert normalize("the ingre-\ndient") == "the ingredient"
    assert normalize("the ingre- \r\n  dient") == "the ingredient"
    # a hyphen that is not at a line break stays
    assert normalize("citation-informed signal") == "citation-informed signal"


def test_normalize_preserves_case_and_unifies_typography() -> None:
    assert normalize("SPECTER Learns") == "SPECTER Learns"
    assert normalize("“hard negatives”\u2014papers") == '"hard negatives"-papers'
    assert normalize("it\u2019s") == "it's"
    assert normalize("ﬁnal\u00a0model") == "final model"  # ligature, no-break space


def test_quote_in_passage() -> None:
    assert quote_in_passage("the ingredient that matters is the citation graph", P1)
    assert quote_in_passage('It uses "hard negatives"-papers cited', P1)
    assert quote_in_passage("final model was evaluated", P3)
    assert not quote_in_passage("specter learns document-level embeddings", P1)  # case
    assert not quote_in_passage("SPECTER learns sentence-level embeddings", P1)
    assert not quote_in_passage("   ", P1)


def test_a_fabricated_quote_is_dropped_never_repaired() -> None:
    honest = AnswerClaim(
        text="SPECTER is trained with a citation signal.",
        citations=[1],
        quote="pretraining a Transformer on a citation-informed signal",
    )
    fabricated = AnswerClaim(
        text="SPECTER beats every model.",
        citations=[1],
        quote="SPECTER outperforms all baselines on every task",
    )
    kept, dropped = validate_claims([honest, fabricated], passages())
    assert kept == [honest]
    assert [d.claim for d in dropped] == [fabricated]
    assert "not a verbatim substring" in dropped[0].reason
    # the dropped claim is reported exactly as it was proposed
    assert dropped[0].claim.quote == "SPECTER outperforms all baselines on every task"


def test_a_citation_outside_the_context_is_dropped() -> None:
    outside = AnswerClaim(
        text="Pelvic fractures bleed.",
        citations=[9],
        quote="with a pelvic fracture are at the highest risk",
    )
    mixed = AnswerClaim(
        text="Pelvic fractures bleed.",
        citations=[2, 9],
        quote="with a pelvic fracture are at the highest risk",
    )
    kept, dropped = validate_claims([outside, mixed], passages())
    assert kept == []
    assert all("[9], which is not in the retrieved context" in d.reason for d in dropped)


def test_the_quote_must_be_in_a_cited_passage() -> None:
    # the quote exists in passage 2, but the claim cites passage 3 only
    wrong_passage = AnswerClaim(
        text="Bleeding risk.", citations=[3], quote="pelvic fracture are at the highest risk"
    )
    two_cited = AnswerClaim(
        text="Bleeding risk.", citations=[3, 2], quote="pelvic fracture are at the highest risk"
    )
    kept, dropped = validate_claims([wrong_passage, two_cited], passages())
    assert kept == [two_cited]
    assert dropped[0].claim is wrong_passage


def test_claims_without_citation_or_quote_are_dropped() -> None:
    no_cite = AnswerClaim(text="x", citations=[], quote="pelvic fracture are at")
    no_quote = AnswerClaim(text="x", citations=[2], quote=None)
    empty_quote = AnswerClaim(text="x", citations=[2], quote="  ")
    short_quote = AnswerClaim(text="x", citations=[2], quote="Trauma patients")
    kept, dropped = validate_claims([no_cite, no_quote, empty_quote, short_quote], passages())
    assert kept == []
    reasons = [d.reason for d in dropped]
    assert "cites no passage" in reasons[0]
    assert "no quote" in reasons[1] and "no quote" in reasons[2]
    assert "shorter than" in reasons[3]


def test_answer_text_and_cited_numbers() -> None:
    claims = [
        AnswerClaim(text="A.", citations=[2], quote="q q q"),
        AnswerClaim(text="B.", citations=[1, 2, 1], quote="q q q"),
    ]
    assert render_answer_text(claims) == "A. [2] B. [1][2]"
    answer = Answer(question="q", query="q", claims=claims, passages=passages())
    assert answer.cited_numbers() == [2, 1]
    assert [p.n for p in answer.cited_passages()] == [2, 1]
