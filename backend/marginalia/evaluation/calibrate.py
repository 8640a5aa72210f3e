"""``marginalia eval calibrate``: fit the refusal threshold (invariant 4).

Every item of a keyed QA set is answered with ``score_only=True`` — the same routing,
retrieval and ``evidence_score`` as a real answer, with no calibration read, no claims
and no model call. The threshold is then fitted on the scores (:func:`fit_threshold`)
and written to ``eval/calibration.json``, which the answer layer reads.

Method: an item is answered when ``evidence_score >= threshold``. Among all thresholds,
keep those whose refusal rate on the unanswerable items is at least ``min_refusal``
(0.9); among those, take the one with the highest answer rate on the answerable items
(ties: the highest refusal rate). Every threshold strictly between two neighbouring
distinct scores makes the same decisions, so the value written is the midpoint between
those two neighbouring scores (below the lowest score: the lowest score itself; above the
highest: the next float above it, i.e. refuse everything).
"""

from __future__ import annotations

import asyncio
import json
import math
import statistics
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from marginalia.evaluation.qa import (
    Progress,
    _quiet,
    answer_items,
    check_docs,
    open_eval_runtime,
    pdf_files,
    prepare_workspace,
    reuse_workspace,
)
from marginalia.evaluation.qa_scoring import (
    AnswerView,
    QAItem,
    Split,
    load_qa_set,
    set_name,
    split_items,
)
from marginalia.evaluation.reports import REPO_ROOT, git_commit
from marginalia.evaluation.stats import rate

if TYPE_CHECKING:
    from marginalia.runtime import Runtime

DEFAULT_MIN_REFUSAL = 0.9
#: The other targets reported next to the fitted one (not written as the threshold).
SWEEP_TARGETS = (0.8, 0.9, 1.0)

METHOD = (
    "max answer rate on answerable items subject to refusal rate on unanswerable items "
    ">= {target} (answered when evidence_score >= threshold; ties -> higher refusal); the "
    "threshold is the midpoint between the two neighbouring distinct scores"
)


@dataclass(frozen=True)
class ThresholdFit:
    threshold: float
    min_refusal: float
    answered: int  # answerable items with score >= threshold
    n_answerable: int
    refused: int  # unanswerable items with score < threshold
    n_unanswerable: int
    below: float | None  # the neighbouring score under the threshold
    above: float | None  # the neighbouring score at/over it

    def as_dict(self) -> dict[str, Any]:
        return {
            "threshold": self.threshold,
            "min_refusal": self.min_refusal,
            "answer_rate": rate(self.answered, self.n_answerable),
            "refusal_rate": rate(self.refused, self.n_unanswerable),
            "neighbours": [self.below, self.above],
        }


def fit_threshold(
    answerable: Sequence[float],
    unanswerable: Sequence[float],
    *,
    min_refusal: float = DEFAULT_MIN_REFUSAL,
) -> ThresholdFit:
    """The threshold maximising the answer rate subject to refusal ≥ ``min_refusal``."""
    if not unanswerable:
        raise ValueError("fitting a refusal threshold needs unanswerable items")
    if not 0.0 <= min_refusal <= 1.0:
        raise ValueError(f"min_refusal must be in [0, 1], got {min_refusal}")
    values = [float(v) for v in (*answerable, *unanswerable)]
    if any(not math.isfinite(v) for v in values):
        raise ValueError("evidence scores must be finite")
    distinct = sorted(set(values))
    n_pos, n_neg = len(answerable), len(unanswerable)
    best: tuple[int, int, int] | None = None  # (answered, refused, cut)
    # Cut i answers every score >= distinct[i]; cut len(distinct) answers nothing.
    for cut in range(len(distinct) + 1):
        lowest_answered = distinct[cut] if cut < len(distinct) else math.inf
        refused = sum(1 for v in unanswerable if v < lowest_answered)
        if refused < min_refusal * n_neg - 1e-12:
            continue
        answered = sum(1 for v in answerable if v >= lowest_answered)
        key = (answered, refused, cut)
        if best is None or (answered, refused) > (best[0], best[1]):
            best = key
    assert best is not None  # the last cut refuses everything, which meets any target
    answered, refused, cut = best
    below = distinct[cut - 1] if cut > 0 else None
    above = distinct[cut] if cut < len(distinct) else None
    if below is None:
        threshold = distinct[0]
    elif above is None:
        threshold = math.nextafter(below, math.inf)
    else:
        threshold = (below + above) / 2.0
    return ThresholdFit(threshold, min_refusal, answered, n_pos, refused, n_neg, below, above)


def summarize(values: Sequence[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0}
    ordered = sorted(values)

    def q(p: float) -> float:
        return ordered[min(len(ordered) - 1, max(0, math.ceil(p * len(ordered)) - 1))]

    return {
        "n": len(ordered),
        "min": ordered[0],
        "p25": q(0.25),
        "median": statistics.median(ordered),
        "p75": q(0.75),
        "max": ordered[-1],
        "mean": statistics.fmean(ordered),
    }


def build_calibration(
    scored: Sequence[tuple[QAItem, float]],
    *,
    set_path: Path,
    split: Split,
    docs_dir: Path,
    files: Sequence[str],
    min_refusal: float = DEFAULT_MIN_REFUSAL,
    signal: str,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``eval/calibration.json`` document for these scores."""
    pos = [s for it, s in scored if it.answerable]
    neg = [s for it, s in scored if not it.answerable]
    fit = fit_threshold(pos, neg, min_refusal=min_refusal)
    sweep = [fit_threshold(pos, neg, min_refusal=t).as_dict() for t in SWEEP_TARGETS]
    return {
        "threshold": fit.threshold,
        "signal": signal,
        "method": METHOD.format(target=min_refusal),
        "fitted_on": {
            "set": _display_path(set_path),
            "split": split,
            "n_answerable": len(pos),
            "n_unanswerable": len(neg),
            "docs": _display_path(docs_dir),
            "files": list(files),
        },
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "expected_on_fit_set": fit.as_dict(),
        "sweep": sweep,
        "scores": {
            "answerable": summarize(pos),
            "unanswerable": summarize(neg),
            "items": [
                {"id": it.id, "answerable": it.answerable, "evidence_score": s} for it, s in scored
            ],
        },
        "warning": (
            "fitted on a development set; evaluating on the same items overstates the "
            "refusal and answer rates (use --split fit here and --split eval for `eval qa`)"
        ),
        **(extra or {}),
    }


def _display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


async def collect_scores(
    rt: Runtime,
    items: Sequence[QAItem],
    files: Sequence[Path],
    *,
    set_path: Path,
    split: Split,
    keep: bool = False,
    workspace: str | None = None,
    knowledge: bool = True,
    progress: Progress = _quiet,
) -> tuple[list[tuple[QAItem, float]], dict[str, Any]]:
    """``(item, evidence_score)`` for every item, and the run's facts."""
    views, run = await collect_views(
        rt,
        items,
        files,
        set_path=set_path,
        split=split,
        keep=keep,
        workspace=workspace,
        knowledge=knowledge,
        progress=progress,
    )
    return [(item, float(view.evidence_score or 0.0)) for item, view in views], run


async def collect_views(
    rt: Runtime,
    items: Sequence[QAItem],
    files: Sequence[Path],
    *,
    set_path: Path,
    split: Split,
    keep: bool = False,
    workspace: str | None = None,
    knowledge: bool = True,
    parents: Mapping[str, QAItem] | None = None,
    progress: Progress = _quiet,
) -> tuple[list[tuple[QAItem, AnswerView]], dict[str, Any]]:
    """Every item answered with ``score_only`` (its support score and gate features),
    and the run's facts."""
    from marginalia.usecases import workspaces as ws_usecase

    started = time.perf_counter()
    if workspace is not None:
        prepared = await reuse_workspace(rt, workspace)
    else:
        prepared = await prepare_workspace(
            rt,
            files,
            name=f"eval-calibrate-{set_name(set_path, split)}-{uuid.uuid4().hex[:8]}",
            knowledge=knowledge,
            progress=progress,
        )
    try:
        answered = await answer_items(
            rt, prepared.workspace_id, items, progress=progress, score_only=True, parents=parents
        )
    finally:
        if prepared.created and not keep:
            progress("deleting the throwaway workspace")
            await ws_usecase.delete_workspace(rt, prepared.workspace_id)
    views = [(item, view) for item, view, _ in answered]
    run = {
        "total_s": round(time.perf_counter() - started, 2),
        "ingest_s": round(prepared.ingest_s, 2),
        "knowledge": prepared.knowledge.get("status"),
        "knowledge_s": round(prepared.knowledge_s, 2),
        "git_commit": git_commit(),
        "workspace_id": str(prepared.workspace_id) if (keep or not prepared.created) else None,
    }
    return views, run


def default_output(settings: Any = None) -> Path:
    """Where the answer layer reads the calibration (``eval/calibration.json``)."""
    from marginalia.answer.calibration import calibration_path

    return calibration_path(settings)


def run_calibration(
    set_path: Path,
    docs_dir: Path,
    *,
    split: Split = "all",
    out: Path | None = None,
    min_refusal: float = DEFAULT_MIN_REFUSAL,
    keep: bool = False,
    workspace: str | None = None,
    knowledge: bool = True,
    gate: bool = True,
    progress: Progress = _quiet,
) -> dict[str, Any]:
    """Score the set, fit the gate (or, with ``gate=False``, a threshold on the support
    signal), write the calibration file; returns its content (with ``"path"`` set to
    where it was written)."""
    from marginalia.answer.calibration import SIGNAL
    from marginalia.config import get_settings
    from marginalia.evaluation.calibrate_gate import build_gate_calibration

    every = load_qa_set(set_path)
    items = split_items(every, split)
    files = pdf_files(docs_dir)
    check_docs(items, files)
    if not any(not it.answerable for it in items):
        raise ValueError("the set has no unanswerable items to fit a refusal threshold on")

    async def go() -> tuple[list[tuple[QAItem, AnswerView]], dict[str, Any]]:
        rt = await open_eval_runtime()
        try:
            return await collect_views(
                rt,
                items,
                files,
                set_path=set_path,
                split=split,
                keep=keep,
                workspace=workspace,
                knowledge=knowledge,
                parents={it.id: it for it in every},
                progress=progress,
            )
        finally:
            await rt.close()

    views, run = asyncio.run(go())
    if gate:
        calibration = build_gate_calibration(
            views,
            set_path=set_path,
            split=split,
            docs_dir=docs_dir,
            files=[p.name for p in files],
            min_refusal=min_refusal,
            extra={"run": run},
        )
    else:
        calibration = build_calibration(
            [(item, float(view.evidence_score or 0.0)) for item, view in views],
            set_path=set_path,
            split=split,
            docs_dir=docs_dir,
            files=[p.name for p in files],
            min_refusal=min_refusal,
            signal=SIGNAL,
            extra={"run": run},
        )
    target = out if out is not None else default_output(get_settings())
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(calibration, indent=2) + "\n", encoding="utf-8")
    return {**calibration, "path": str(target)}
