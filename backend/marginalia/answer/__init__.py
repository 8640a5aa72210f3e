"""Answers (DESIGN §1 "answer"): wiki-first routing, numbered passages, claims whose
quotes are checked verbatim against the cited passage (invariant 3), a refusal threshold
read from ``eval/calibration.json`` (invariant 4), NDJSON streaming and conversations
that keep only the cited sources (invariant 7).

Public interface: :func:`answer_question` → :class:`Answer`; :func:`load_calibration`;
:func:`validate_claims` / :func:`quote_in_passage`.
"""

from marginalia.answer.calibration import (
    SIGNAL,
    Calibration,
    CalibrationError,
    calibration_path,
    load_calibration,
)
from marginalia.answer.quotes import normalize, quote_in_passage, validate_claims
from marginalia.answer.schemas import Answer, AnswerClaim, DroppedClaim, Passage
from marginalia.answer.service import answer_question, answer_with_threshold

__all__ = [
    "SIGNAL",
    "Answer",
    "AnswerClaim",
    "Calibration",
    "CalibrationError",
    "DroppedClaim",
    "Passage",
    "answer_question",
    "answer_with_threshold",
    "calibration_path",
    "load_calibration",
    "normalize",
    "quote_in_passage",
    "validate_claims",
]
