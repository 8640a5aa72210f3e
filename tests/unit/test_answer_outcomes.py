"""The outcome rules' pure parts (issue 32): the answer-type and named-entity checks."""

from __future__ import annotations

import uuid

from marginalia.answer.outcomes import check_sentence, closest_reason, closest_text, confirm
from marginalia.answer.schemas import AnswerClaim, Passage

S2ORC = uuid.uuid4()
OTHER = uuid.uuid4()


def passage(n: int, text: str, source: uuid.UUID = S2ORC, document: str = "S2ORC") -> Passage:
    return Passage(n=n, source_id=source, document=document, text=text, score=1.0)


P1 = passage(1, "The resulting corpus consists of 81.1M papers. Full text is parsed by GROBID.")
P2 = passage(2, "We release the corpus under a permissive licence for research use.")
P3 = passage(3, "SciBERT is pretrained on papers.", OTHER, "SciBERT paper")


def test_how_many_needs_a_number_in_the_answering_sentence() -> None:
    q = "How many papers are in S2ORC?"
    assert check_sentence(q, "The resulting corpus consists of 81.1M papers.", P1, [P1, P2]) is None
    why = check_sentence(q, "We release the corpus under a permissive licence.", P2, [P1, P2])
    assert why == "the question asks for a number and the best sentence states none"
    # a figure the question itself states is not an answer
    q2 = "Of the 81.1M papers, how many have full text?"
    assert check_sentence(q2, "The resulting corpus consists of 81.1M papers.", P1, [P1]) == why


def test_which_model_needs_a_named_thing() -> None:
    q = "Which tool parses the full text?"
    assert check_sentence(q, "Full text is parsed by GROBID.", P1, [P1]) is None
    why = check_sentence(q, "the full text is parsed by a tool.", P1, [P1])
    assert why == "the question asks which thing and the best sentence names none"


def test_named_entities_must_be_in_the_sentence_or_its_paper() -> None:
    q = "Why is S2ORC released under a permissive licence?"
    # S2ORC is not in the sentence, but in another passage of the same paper: fine
    assert check_sentence(q, P2.text, P2, [P1, P2]) is None
    # SPECTER is in no passage of the paper the sentence comes from
    q2 = "Why does SPECTER use a permissive licence?"
    assert check_sentence(q2, P2.text, P2, [P1, P2, P3]) == (
        "the best sentence's paper does not mention specter"
    )
    # a compound built on a name the paper has ("S2ORC-based") counts as that name
    q3 = "Why is the S2ORC-based corpus released under a permissive licence?"
    assert check_sentence(q3, P2.text, P2, [P1, P2]) is None


def test_confirm_passes_when_some_claim_answers() -> None:
    q = "How many papers are in S2ORC?"
    wordy = AnswerClaim(text="x", citations=[2], quote=P2.text)
    figure = AnswerClaim(text="y", citations=[1], quote="The resulting corpus consists of 81.1M")
    assert confirm(q, [wordy, figure], [P1, P2]) is None
    assert confirm(q, [wordy], [P1, P2]) == (
        "the question asks for a number and the best sentence states none"
    )
    assert confirm(q, [AnswerClaim(text="z", citations=[9], quote="a")], [P1]) == (
        "no claim cites a passage of the context"
    )
    reason = closest_reason("why")
    assert reason == "not confirmed as an answer: why"
    assert closest_text(reason) == "Closest evidence — not confirmed as an answer: why."
