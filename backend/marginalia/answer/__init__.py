"""Answers (DESIGN §1 "answer"): wiki-first routing, numbered passages, claims whose
quotes are checked verbatim against the cited passage (invariant 3), a refusal threshold
read from ``eval/calibration.json`` (invariant 4), NDJSON streaming and conversations
that keep only the cited sources (invariant 7).

The stage's halves are :func:`marginalia.answer.service.retrieve` and
:func:`marginalia.answer.service.answer_from_context`; the flow that runs them is
:func:`marginalia.usecases.ask.ask`. Re-exported here: :class:`Answer`,
:func:`load_calibration`, :func:`validate_claims` / :func:`quote_in_passage`.
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

__all__ = [
    "SIGNAL",
    "Answer",
    "AnswerClaim",
    "Calibration",
    "CalibrationError",
    "DroppedClaim",
    "Passage",
    "calibration_path",
    "load_calibration",
    "normalize",
    "quote_in_passage",
    "validate_claims",
]
