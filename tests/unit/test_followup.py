"""Follow-up detection and resolution (marginalia.answer.followup), without a database."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from marginalia.answer import followup
from marginalia.answer.schemas import Answer, AnswerClaim, Passage
from marginalia.evaluation.qa_scoring import load_qa_set
from marginalia.llm import ChatMessage
from marginalia.llm.errors import LLMDeadlineError
from tests.support.scripted_llm import ScriptedLLM

FIRST = "What does SPECTER use as training signal?"
HISTORY = [
    ChatMessage(role="user", content=FIRST),
    ChatMessage(role="assistant", content="Citations between papers [1]."),
]


@pytest.mark.parametrize(
    "question",
    [
        "And how many triplets did they train on?",
        "What about SciBERT?",
        "How about the test set?",
        "Why might that be?",
        "How abstractive are its reference summaries?",
        "Does it need citations at test time?",
        "How do those figures compare with earlier published rates?",
        "Would they rather have their family doctor run the programme?",
        "How much better is that?",
        "Which one is faster?",
        "And the batch size?",
        "Is it better than SciBERT?",
        "What explains that?",
        "Is that the largest dataset among the baselines?",
    ],
)
def test_follow_ups_are_detected(question: str) -> None:
    assert followup.followup_reason(question) is not None


@pytest.mark.parametrize(
    "question",
    [
        "How many training triplets does SPECTER use?",
        "Which checkpoint is SPECTER initialised from before the citation training?",
        "What is SPECTER?",
        "Does SciBERT outperform BioBERT on the NER benchmarks?",
        "Which trauma patients are at the highest risk of venous thromboembolism?",
        "Is the model trained on more documents than SciBERT?",
        "What evidence shows that citation-informed pretraining improves document embeddings?",
        "Which methods that use graphs perform best on document classification?",
    ],
)
def test_self_contained_questions_are_not_follow_ups(question: str) -> None:
    assert followup.followup_reason(question) is None


def test_a_follow_up_carries_the_previous_subject_and_papers() -> None:
    paper = uuid.uuid4()
    previous = followup.PreviousTurn(FIRST, (paper,))
    resolved = followup.resolve_followup(
        "And how many triplets did they train on?", HISTORY, previous
    )
    assert resolved.is_followup and resolved.method == "offline"
    assert resolved.text.startswith("And how many triplets did they train on? specter")
    assert "training" in resolved.terms and "signal" in resolved.terms
    # a term the follow-up already has is not repeated
    assert "triplets" not in resolved.terms
    assert resolved.paper_ids == (paper,)
    assert resolved.resolved_question == resolved.text
    assert "and" in resolved.why


def test_without_stored_turn_the_history_gives_the_previous_question() -> None:
    resolved = followup.resolve_followup("And the batch size?", HISTORY)
    assert resolved.is_followup and "specter" in resolved.terms
    assert resolved.paper_ids == ()


def test_self_contained_question_and_first_question_are_untouched() -> None:
    q = "Which trauma patients are at the highest risk of venous thromboembolism?"
    for history in (HISTORY, [], None):
        resolved = followup.resolve_followup(q, history)
        assert not resolved.is_followup and resolved.text == q
        assert resolved.resolved_question is None and resolved.paper_ids == ()
    first = followup.resolve_followup("And how many?", None)
    assert not first.is_followup and first.text == "And how many?"


@dataclass
class Stored:
    role: str
    content: str
    cited_sources: list[Any] = field(default_factory=list)
    answer: dict[str, Any] | None = None


def test_previous_turn_reads_cited_papers_then_the_best_evidence_paper() -> None:
    a, b = uuid.uuid4(), uuid.uuid4()
    cited = [
        Stored("user", "old question"),
        Stored("assistant", "old"),
        Stored("user", FIRST),
        Stored(
            "assistant",
            "Citations [2].",
            cited_sources=[{"source_id": str(b)}, {"source_id": str(a)}, {"source_id": str(b)}],
            answer={"resolved_question": None},
        ),
    ]
    turn = followup.previous_turn(cited)
    assert turn == followup.PreviousTurn(FIRST, (b, a))
    # no claim cited: the paper of the best evidence sentence; a follow-up's own
    # resolved question is what the next follow-up builds on
    uncited = [
        Stored("user", "And how many?"),
        Stored(
            "assistant",
            "No evidence.",
            answer={
                "resolved_question": "And how many? specter triplets",
                "passages": [{"n": 1, "source_id": str(a)}, {"n": 2, "source_id": str(b)}],
                "trace": {"evidence": {"top_sentences": [{"n": 2}, {"n": 1}]}},
            },
        ),
    ]
    assert followup.previous_turn(uncited) == followup.PreviousTurn(
        "And how many? specter triplets", (b,)
    )
    assert followup.previous_turn([]) is None


async def test_the_model_rewrites_and_falls_back_offline_on_error() -> None:
    paper = uuid.uuid4()
    previous = followup.PreviousTurn(FIRST, (paper,))
    q = "And how many triplets did they train on?"
    provider = ScriptedLLM(
        {
            followup.StandaloneQuestion: {
                "question": "How many triplets was SPECTER trained on?",
                "followup": True,
            }
        }
    )
    resolved = await followup.resolve(provider, q, HISTORY, previous)
    assert resolved.method == "model" and resolved.paper_ids == (paper,)
    assert resolved.text == "How many triplets was SPECTER trained on?"
    assert FIRST in provider.prompts[0] and q in provider.prompts[0]
    assert provider.deadlines[0] is not None  # the rewrite is bounded

    same = ScriptedLLM({followup.StandaloneQuestion: {"question": "Anything", "followup": False}})
    assert not (await followup.resolve(same, "What is SciBERT?", HISTORY)).is_followup

    failing = ScriptedLLM(
        {followup.StandaloneQuestion: LLMDeadlineError("the deadline of 8 s passed")}
    )
    fallback = await followup.resolve(failing, q, HISTORY, previous)
    assert fallback.method == "offline" and "specter" in fallback.terms
    assert fallback.notes and "resolved offline" in fallback.notes[0]


def test_the_dev_sets_follow_ups_are_detected_and_first_questions_are_not() -> None:
    """Measured on the dev sets (docs/EVAL.md, issue 32): dev.jsonl 87/87 items classified
    right; followups-dev.jsonl's follow-ups 26/27 (fu18's "they" follows two nouns)."""
    root = Path(__file__).resolve().parents[2] / "eval" / "qa"
    dev = load_qa_set(root / "dev.jsonl")
    assert all(
        (followup.followup_reason(it.question) is not None) == bool(it.follow_up_of) for it in dev
    )
    pairs = load_qa_set(root / "followups-dev.jsonl")
    firsts = [it for it in pairs if not it.follow_up_of]
    follows = [it for it in pairs if it.follow_up_of]
    assert len(firsts) == len(follows) == 27
    assert not any(followup.followup_reason(it.question) for it in firsts)
    missed = [it.id for it in follows if followup.followup_reason(it.question) is None]
    assert missed == ["fu18"]
    by_id = {it.id: it for it in pairs}
    assert all(by_id[it.follow_up_of or ""].doc == it.doc for it in follows)


def test_turn_of_an_answer_is_what_the_stored_message_gives() -> None:
    a, b = uuid.uuid4(), uuid.uuid4()
    passages = [
        Passage(n=1, source_id=a, document="A", text="one", score=1.0),
        Passage(n=2, source_id=b, document="B", text="two", score=0.5),
    ]
    answer = Answer(
        question="And how many?",
        query="And how many?",
        resolved_question="And how many? specter triplets",
        passages=passages,
        claims=[AnswerClaim(text="two", citations=[2], quote="two")],
    )
    assert followup.turn_of(answer) == followup.PreviousTurn("And how many? specter triplets", (b,))
    uncited = Answer(
        question=FIRST,
        query=FIRST,
        passages=passages,
        refused=True,
        trace={"evidence": {"top_sentences": [{"n": 1}]}},
    )
    assert followup.turn_of(uncited) == followup.PreviousTurn(FIRST, (a,))
