"""The keyed QA eval and the refusal-threshold calibration.

- :mod:`marginalia.evaluation.stats`: ``wilson``, ``rate`` and the quote normalisation.
- :mod:`marginalia.evaluation.qa`: load a keyed QA set, answer every item in a throwaway
  workspace and score retrieval recall@8, answer/refusal rates, citation precision and
  faithfulness, with the earliest failing stage per missed item (``marginalia eval qa``).
- :mod:`marginalia.evaluation.calibrate`: fit the refusal threshold on ``evidence_score``
  and write ``eval/calibration.json`` (``marginalia eval calibrate``).
"""

from marginalia.evaluation.stats import normalize_text, rate, wilson

__all__ = ["normalize_text", "rate", "wilson"]
