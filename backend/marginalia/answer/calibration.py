"""The refusal threshold, read from ``eval/calibration.json`` (invariant 4).

The eval fits it (``marginalia eval calibrate``) by scanning the ``evidence_score`` of
answerable and unanswerable dev questions and writes::

    {"threshold": 0.52, "signal": "max_sentence_support_v3", "fitted_on": "...",
     "method": "...", "created_at": "..."}

There is no default: without the file an answer is refused with an error that says how
to make it, never with a guessed number. The file is read at each answer (it is tiny),
so a re-calibration takes effect without a restart.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from marginalia.answer import gate
from marginalia.config import Settings
from marginalia.errors import ServiceUnavailable

#: The name of the signal :class:`marginalia.answer.schemas.Answer.evidence_score` holds.
#: ``_v2`` (2026-11-29): workspace BM25 idf and neighbour-window coverage; ``_v3`` (the
#: same day): plus the coverage of the question by the whole context (see
#: :mod:`marginalia.answer.offline`). A file fitted on an older signal is rejected, since
#: its threshold was fitted on another scale.
SIGNAL = "max_sentence_support_v3"
#: The learned answerability gate (:mod:`marginalia.answer.gate`): the file carries the
#: model (``"model": {"kind": "logistic_regression", "features", "mean", "scale", "coef",
#: "intercept"}``) and the threshold applies to its probability. What the shipped
#: ``eval/calibration.json`` uses since 2026-12-01.
GATE_SIGNAL = gate.SIGNAL
SIGNALS = (SIGNAL, GATE_SIGNAL)

REPO_ROOT = Path(__file__).resolve().parents[3]
DEFAULT_PATH = REPO_ROOT / "eval" / "calibration.json"


class CalibrationError(ServiceUnavailable):
    """The calibration file is missing, unreadable or fitted on another signal."""

    code = "calibration_missing"


class Calibration(BaseModel):
    model_config = ConfigDict(extra="allow")

    threshold: float
    signal: str
    fitted_on: Any = None
    method: Any = None
    created_at: Any = None
    path: str | None = None
    model: dict[str, Any] | None = None

    def gate_model(self) -> gate.GateModel | None:
        """The answerability model of a gate calibration (None for the support signal)."""
        if self.signal != GATE_SIGNAL or self.model is None:
            return None
        return gate.GateModel.from_dict(self.model)


def calibration_path(settings: Settings | None = None) -> Path:
    """``settings.retrieval.calibration_path`` when set, else ``<repo>/eval/calibration.json``."""
    if settings is not None and settings.retrieval.calibration_path is not None:
        return Path(settings.retrieval.calibration_path)
    return DEFAULT_PATH


def load_calibration(
    path: Path | str | None = None, *, settings: Settings | None = None
) -> Calibration:
    """The calibration at ``path`` (or :func:`calibration_path`); raises CalibrationError."""
    target = Path(path) if path is not None else calibration_path(settings)
    how = "run `marginalia eval calibrate` to fit the refusal threshold"
    if not target.is_file():
        raise CalibrationError(
            f"no calibration file at {target}: answers need the refusal threshold the eval "
            f"fits (invariant 4); {how} (or point MARGINALIA_RETRIEVAL__CALIBRATION_PATH at one)"
        )
    try:
        data = json.loads(target.read_text(encoding="utf-8"))
        calibration = Calibration.model_validate({**data, "path": str(target)})
    except (OSError, ValueError, ValidationError) as exc:
        raise CalibrationError(
            f"the calibration file {target} is not valid ({exc}); {how}"
        ) from exc
    if not math.isfinite(calibration.threshold):
        raise CalibrationError(f"the calibration file {target} has a non-finite threshold; {how}")
    if calibration.signal not in SIGNALS:
        raise CalibrationError(
            f"the calibration file {target} was fitted on signal {calibration.signal!r}, but "
            f"answers compute {' or '.join(repr(s) for s in SIGNALS)}; {how}"
        )
    if calibration.signal == GATE_SIGNAL:
        try:
            if calibration.model is None:
                raise ValueError("it has no 'model'")
            calibration.gate_model()
        except (KeyError, TypeError, ValueError) as exc:
            raise CalibrationError(
                f"the calibration file {target} names the gate signal but its model is not "
                f"valid ({exc}); {how}"
            ) from exc
    return calibration
