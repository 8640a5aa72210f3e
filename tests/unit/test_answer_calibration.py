"""Invariant 4: the refusal threshold comes from the calibration file, never a literal."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from marginalia.answer.calibration import (
    DEFAULT_PATH,
    SIGNAL,
    CalibrationError,
    calibration_path,
    load_calibration,
)
from marginalia.config import Settings

ANSWER_PKG = Path(__file__).resolve().parents[2] / "backend" / "marginalia" / "answer"


def write(path: Path, **data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_loads_the_file(tmp_path: Path) -> None:
    path = write(
        tmp_path / "c.json",
        threshold=0.42,
        signal=SIGNAL,
        fitted_on="qa-dev (40 items)",
        method="max balanced accuracy",
        created_at="2025-01-01T00:00:00Z",
    )
    cal = load_calibration(path)
    assert cal.threshold == 0.42 and cal.signal == SIGNAL
    assert cal.fitted_on == "qa-dev (40 items)" and cal.path == str(path)


def test_settings_path_wins_over_the_repo_default(tmp_path: Path) -> None:
    path = write(tmp_path / "c.json", threshold=0.3, signal=SIGNAL)
    settings = Settings()
    settings.retrieval.calibration_path = path
    assert calibration_path(settings) == path
    assert load_calibration(settings=settings).threshold == 0.3
    assert calibration_path(Settings()) == DEFAULT_PATH
    assert DEFAULT_PATH.parts[-2:] == ("eval", "calibration.json")


def test_missing_file_refuses_to_guess(tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match="marginalia eval calibrate") as info:
        load_calibration(tmp_path / "nope.json")
    assert info.value.status_code == 503


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        json.dumps({"signal": SIGNAL}),
        json.dumps({"threshold": "high", "signal": SIGNAL}),
        json.dumps({"threshold": float("nan"), "signal": SIGNAL}),
        json.dumps({"threshold": 0.4, "signal": "top_retrieval_cosine"}),
    ],
)
def test_invalid_files_are_errors(tmp_path: Path, content: str) -> None:
    path = tmp_path / "c.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CalibrationError, match="marginalia eval calibrate"):
        load_calibration(path)


def _is_number(node: ast.AST | None) -> bool:
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    )


def test_no_threshold_literal_in_the_answer_path() -> None:
    """The refusal compares with ``calibration.threshold`` only: no code in the answer
    package assigns a number to anything named like a refusal threshold."""
    offenders = []
    for path in ANSWER_PKG.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign | ast.AnnAssign) and _is_number(node.value):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    name = getattr(t, "id", getattr(t, "attr", "")).lower()
                    if "threshold" in name or "refus" in name:
                        offenders.append(f"{path.name}:{node.lineno} {name}")
            if isinstance(node, ast.keyword) and node.arg == "threshold" and _is_number(node.value):
                offenders.append(f"{path.name}:{node.lineno} threshold=")
    assert offenders == []
