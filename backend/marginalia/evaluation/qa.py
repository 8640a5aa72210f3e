"""``marginalia eval qa``: the keyed QA eval.

A QA set is JSON Lines, one item a line::

    {"id": "a01", "question": "...", "answerable": true, "doc": "specter-acl2020.pdf",
     "gold_quotes": ["a verbatim span of the parsed PDF text", ...]}

Unanswerable items have ``"answerable": false`` and ``"gold_quotes": []`` (``doc`` may
name the paper the question pretends to be about, or be null).

The eval ingests every PDF of ``--docs`` into a throwaway workspace (plus the knowledge
update, when it runs), answers every item workspace-wide through
:func:`marginalia.answer.service.answer_question`, and scores (every rate with its
denominator and Wilson 95% interval, invariant 8):

- ``recall@8`` (answerable items): one of the first 8 passages of the answer's numbered
  context contains a gold quote — ``normalize_text(gold) in normalize_text(passage)``.
- ``answer_rate`` (answerable items): not refused and at least one claim kept.
- ``refusal_rate`` (unanswerable items): refused, or no claim kept.
- ``citation_precision`` (every kept claim of every item): the claim cites only numbers
  of the context and its quote is, normalised, a substring of a passage it cites.
- ``faithfulness`` (every kept claim of an answerable item): the claim's quote overlaps a
  gold quote — see :func:`quotes_overlap`.

Each item that is not a success gets its earliest failing stage (:func:`classify_stage`):
``retrieval`` → ``refusal`` → ``citation`` → ``faithfulness``.
"""

from __future__ import annotations

import asyncio
import math
import statistics
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from marginalia.evaluation.qa_scoring import (
    DEFINITIONS,
    AnswerView,
    QAItem,
    QASetError,
    Split,
    aggregate,
    load_qa_set,
    score_item,
    set_name,
    split_items,
    view_of,
)
from marginalia.evaluation.qa_signal import signal_report
from marginalia.evaluation.reports import REPORTS_DIR, git_commit, write_report

if TYPE_CHECKING:
    from marginalia.runtime import Runtime


# ----------------------------------------------------------------------------- the set


# ----------------------------------------------------------------------------- matching


# ----------------------------------------------------------------------------- answers


# ----------------------------------------------------------------------------- the run

Progress = Callable[[str], None]


def _quiet(_: str) -> None:
    return None


@dataclass
class PreparedWorkspace:
    workspace_id: uuid.UUID
    sources: dict[str, uuid.UUID]  # file name -> source id
    ingest: list[dict[str, Any]] = field(default_factory=list)
    knowledge: dict[str, Any] = field(default_factory=dict)
    ingest_s: float = 0.0
    knowledge_s: float = 0.0
    created: bool = True


#: The document files of ``--docs`` an eval ingests (the shared PDFs; rendered Markdown).
DOC_SUFFIXES = (".pdf", ".md")


def pdf_files(docs_dir: Path) -> list[Path]:
    """The PDF and Markdown files of ``docs_dir`` (sorted by name)."""
    if not docs_dir.is_dir():
        raise QASetError(f"--docs {docs_dir} is not a folder")
    files = sorted(
        p for p in docs_dir.iterdir() if p.is_file() and p.suffix.lower() in DOC_SUFFIXES
    )
    if not files:
        raise QASetError(f"no PDF or Markdown files in {docs_dir}")
    return files


def check_docs(items: Sequence[QAItem], files: Sequence[Path]) -> None:
    names = {p.name for p in files}
    missing = sorted({it.doc for it in items if it.doc and it.doc not in names})
    if missing:
        raise QASetError(f"the set names documents that are not in --docs: {', '.join(missing)}")


async def prepare_workspace(
    rt: Runtime,
    files: Sequence[Path],
    *,
    name: str,
    knowledge: bool = True,
    progress: Progress = _quiet,
) -> PreparedWorkspace:
    """A new workspace with every file ingested and the knowledge update run — through
    :func:`marginalia.usecases.sources.add_documents`, as every new source goes (with
    ``knowledge=False`` the eval ingests only, to measure without the wiki)."""
    from marginalia.ingest.pipeline import ingest_document
    from marginalia.usecases import sources as sources_usecase
    from marginalia.usecases import workspaces as ws_usecase

    ws = await ws_usecase.create_workspace(
        rt, name=name, description="Throwaway workspace of `marginalia eval qa`"
    )
    prepared = PreparedWorkspace(workspace_id=ws.id, sources={})
    try:
        if knowledge:
            added = await sources_usecase.add_documents(
                rt, ws.id, [(p.name, p.read_bytes) for p in files], progress=progress
            )
            outcomes = added.outcomes
            prepared.ingest_s, prepared.knowledge_s = added.ingest_s, added.knowledge_s
            prepared.knowledge = added.knowledge
        else:
            started = time.perf_counter()
            outcomes = []
            for path in files:
                progress(f"ingesting {path.name}")
                outcomes.append(
                    await ingest_document(rt, ws.id, data=path.read_bytes(), filename=path.name)
                )
            prepared.ingest_s = time.perf_counter() - started
            prepared.knowledge = {"status": "skipped"}
        for path, outcome in zip(files, outcomes, strict=True):
            prepared.sources[path.name] = outcome.source_id
            prepared.ingest.append(outcome.as_dict())
    except BaseException:
        await ws_usecase.delete_workspace(rt, ws.id)
        raise
    return prepared


async def reuse_workspace(rt: Runtime, ref: str) -> PreparedWorkspace:
    """A workspace kept by an earlier run (``--keep``), by id or name."""
    from marginalia.usecases import workspaces as ws_usecase

    ws = await ws_usecase.find_workspace(rt, ref)
    sources = await ws_usecase.source_files(rt, ws.id)
    return PreparedWorkspace(
        workspace_id=ws.id, sources=sources, knowledge={"status": "reused"}, created=False
    )


def _percentile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    idx = max(0, math.ceil(q * len(ordered)) - 1)
    return ordered[idx]


def _sum_usage(usages: Iterable[Mapping[str, Any]]) -> dict[str, float]:
    total: dict[str, float] = {}
    for usage in usages:
        for key, value in usage.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                continue
            total[key] = total.get(key, 0) + value
    return total


async def answer_items(
    rt: Runtime,
    workspace_id: uuid.UUID,
    items: Sequence[QAItem],
    *,
    progress: Progress = _quiet,
    score_only: bool = False,
    calibration: Any = None,
    parents: Mapping[str, QAItem] | None = None,
) -> list[tuple[QAItem, AnswerView, float]]:
    """Answer every item workspace-wide, one at a time; (item, answer, seconds).

    A follow-up (``follow_up_of``) is asked after its parent in one conversation: the
    history is the parent's question and the text of the answer it got, and the parent's
    answered papers resolve it as a stored conversation would (the parent is answered
    first if ``items`` does not hold it; ``parents`` maps ids to items).
    ``score_only``: evidence scores only (no calibration read, no claims). ``calibration``:
    a :class:`marginalia.answer.calibration.Calibration` to answer with instead of the
    configured file (None reads the file, as the product does)."""
    from marginalia.answer import followup
    from marginalia.llm import ChatMessage
    from marginalia.usecases import ask

    by_id = {**{it.id: it for it in items}, **(parents or {})}
    replies: dict[str, str] = {}
    turns: dict[str, followup.PreviousTurn] = {}

    async def one(item: QAItem, history: list[ChatMessage] | None) -> Any:
        answer = await ask.answer(
            rt,
            workspace_id=workspace_id,
            question=item.question,
            history=history,
            calibration=calibration,
            score_only=score_only,
            previous_turn=turns.get(item.follow_up_of or ""),
        )
        replies[item.id] = (answer.refusal or "") if answer.refused else answer.text
        turns[item.id] = followup.turn_of(answer)
        return answer

    out: list[tuple[QAItem, AnswerView, float]] = []
    for i, item in enumerate(items, 1):
        progress(f"[{i}/{len(items)}] {item.id}: {item.question[:70]}")
        history: list[ChatMessage] | None = None
        if item.follow_up_of is not None:
            parent = by_id.get(item.follow_up_of)
            if parent is None:
                raise QASetError(f"{item.id}: its parent {item.follow_up_of!r} is not in the set")
            if parent.id not in replies:
                await one(parent, None)
            history = [
                ChatMessage(role="user", content=parent.question),
                ChatMessage(role="assistant", content=replies[parent.id]),
            ]
        t = time.perf_counter()
        answer = await one(item, history)
        out.append((item, view_of(answer), time.perf_counter() - t))
    return out


async def evaluate(
    rt: Runtime,
    items: Sequence[QAItem],
    files: Sequence[Path],
    *,
    set_path: Path,
    docs_dir: Path,
    split: Split = "all",
    keep: bool = False,
    workspace: str | None = None,
    knowledge: bool = True,
    calibration: Any = None,
    parents: Mapping[str, QAItem] | None = None,
    progress: Progress = _quiet,
) -> dict[str, Any]:
    """Ingest (or reuse), answer every item, score; the report as a dict."""
    from marginalia.usecases import workspaces as ws_usecase

    started = time.perf_counter()
    if workspace is not None:
        prepared = await reuse_workspace(rt, workspace)
    else:
        prepared = await prepare_workspace(
            rt,
            files,
            name=f"eval-qa-{set_name(set_path, split)}-{uuid.uuid4().hex[:8]}",
            knowledge=knowledge,
            progress=progress,
        )
    try:
        t = time.perf_counter()
        answered = await answer_items(
            rt,
            prepared.workspace_id,
            items,
            progress=progress,
            calibration=calibration,
            parents=parents if parents is not None else {it.id: it for it in items},
        )
        answer_s = time.perf_counter() - t
    finally:
        if prepared.created and not keep:
            progress("deleting the throwaway workspace")
            await ws_usecase.delete_workspace(rt, prepared.workspace_id)
    outcomes: list[dict[str, Any]] = []
    for item, view, seconds in answered:
        sid = prepared.sources.get(item.doc) if item.doc else None
        outcome = score_item(item, view, gold_source_id=None if sid is None else str(sid))
        outcome["ms"] = round(seconds * 1000, 1)
        outcome["usage"] = dict(view.usage)
        outcomes.append(outcome)
    metrics = aggregate(outcomes)
    usage = _sum_usage(o["usage"] for o in outcomes)
    latencies = [o["ms"] for o in outcomes]
    thresholds = sorted({v.threshold for _, v, _ in answered if v.threshold is not None})
    engines = sorted({v.engine for _, v, _ in answered if v.engine})
    routes: dict[str, int] = {}
    for _, v, _ in answered:
        routes[str(v.route)] = routes.get(str(v.route), 0) + 1
    return {
        "set": {
            "path": str(set_path),
            "name": set_name(set_path, split),
            "split": split,
            "n_items": len(items),
            "n_answerable": sum(1 for it in items if it.answerable),
            "n_unanswerable": sum(1 for it in items if not it.answerable),
        },
        "docs": {"dir": str(docs_dir), "files": [p.name for p in files]},
        **{k: metrics[k] for k in ("recall@8", "answer_rate", "refusal_rate")},
        "citation_precision": metrics["citation_precision"],
        "faithfulness": metrics["faithfulness"],
        "faithful_answers": metrics["faithful_answers"],
        "end_to_end": metrics["end_to_end"],
        **{
            k: metrics[k]
            for k in (
                "evidence@3",
                "nothing_unanswerable",
                "nothing_answerable",
                "answered_with_gold",
                "outcomes",
            )
        },
        "stages": metrics["stages"],
        "dropped_claims": metrics["dropped_claims"],
        "by_kind": metrics["by_kind"],
        "evidence_signal": signal_report(outcomes),
        "refusal_threshold": {
            "thresholds": thresholds,
            "calibration_path": (
                getattr(calibration, "path", None) or "(explicit)"
                if calibration is not None
                else _calibration_path(rt)
            ),
        },
        "engines": engines,
        "routes": routes,
        "items": outcomes,
        "cost": {
            "total_s": round(time.perf_counter() - started, 2),
            "ingest_s": round(prepared.ingest_s, 2),
            "knowledge_s": round(prepared.knowledge_s, 2),
            "answer_s": round(answer_s, 2),
            "per_question_ms": {
                "p50": statistics.median(latencies) if latencies else None,
                "p95": _percentile(latencies, 0.95),
                "max": max(latencies) if latencies else None,
            },
            "model_calls": int(usage.get("calls", 0)),
            "retries": int(usage.get("retries", 0)),
            "failed_calls": int(usage.get("failed_calls", 0)),
            "usage": usage,
        },
        "run": {
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "git_commit": git_commit(),
            "workspace_id": str(prepared.workspace_id) if (keep or not prepared.created) else None,
            "ingest": prepared.ingest,
            "knowledge": prepared.knowledge,
            "definitions": DEFINITIONS,
        },
    }


def _calibration_path(rt: Runtime) -> str | None:
    try:
        from marginalia.answer.calibration import calibration_path
    except ImportError:
        return None
    return str(calibration_path(rt.settings))


def fmt_rate(r: Mapping[str, Any]) -> str:
    if r.get("value") is None:
        return f"n/a ({r.get('k', 0)}/{r.get('n', 0)})"
    lo, hi = r["ci95"]
    return f"{r['k']}/{r['n']} ({r['value']:.1%}), Wilson 95% [{lo:.1%}, {hi:.1%}]"


def render_markdown(report: Mapping[str, Any]) -> str:
    s = report["set"]
    lines = [
        f"# QA eval: {s['name']}",
        "",
        f"Set `{s['path']}` (split {s['split']}): {s['n_items']} items, "
        f"{s['n_answerable']} answerable, {s['n_unanswerable']} unanswerable; "
        f"{len(report['docs']['files'])} documents from `{report['docs']['dir']}`.",
        f"Engine(s): {', '.join(report.get('engines') or ['?'])}; refusal threshold(s): "
        f"{report['refusal_threshold']['thresholds']} from "
        f"`{report['refusal_threshold']['calibration_path']}`; routes: {report.get('routes')}.",
        "",
        "| metric | value |",
        "|---|---|",
    ]
    for key in (
        "recall@8",
        "answer_rate",
        "refusal_rate",
        "citation_precision",
        "faithfulness",
        "faithful_answers",
        "end_to_end",
        "evidence@3",
        "nothing_unanswerable",
        "nothing_answerable",
        "answered_with_gold",
    ):
        if key in report:
            lines.append(f"| {key} | {fmt_rate(report[key])} |")
    if report.get("outcomes"):
        lines += ["", f"Outcomes: {report['outcomes']}."]
    lines += ["", "| kind | recall@8 | answer_rate | faithful_answers | end_to_end |"]
    lines.append("|---|---|---|---|---|")
    for kind, m in report.get("by_kind", {}).items():
        cells = " | ".join(
            fmt_rate(m[k]) for k in ("recall@8", "answer_rate", "faithful_answers", "end_to_end")
        )
        lines.append(f"| {kind} | {cells} |")
    lines += render_signal(report.get("evidence_signal"))
    lines += [
        "",
        "Earliest failing stage: " + ", ".join(f"{k} {v}" for k, v in report["stages"].items()),
    ]
    lines.append(f"Claims dropped by the answer layer: {report['dropped_claims']}.")
    c = report["cost"]
    pq = c["per_question_ms"]
    lines += [
        "",
        f"Cost: {c['total_s']} s in all (ingest {c['ingest_s']} s, knowledge {c['knowledge_s']} s, "
        f"answers {c['answer_s']} s; per question p50 {pq['p50']} ms, p95 {pq['p95']} ms); "
        f"{c['model_calls']} model calls, {c['retries']} retries.",
        "",
        "## Missed items",
        "",
        "| id | stage | answered | evidence | gold ranks (partial) | question |",
        "|---|---|---|---|---|---|",
    ]
    for o in report["items"]:
        if o["success"]:
            continue
        ev = "" if o["evidence_score"] is None else f"{o['evidence_score']:.3f}"
        ranks = f"{o['gold_ranks']} ({o['partial_gold_ranks']})" if o["answerable"] else "-"
        lines.append(
            f"| {o['id']} | {o['stage']} | {o['answered']} | {ev} | {ranks} | {o['question']} |"
        )
    lines += ["", "## Definitions", ""]
    for key, text_ in report["run"]["definitions"].items():
        lines.append(f"- **{key}**: {text_}")
    return "\n".join(lines) + "\n"


def render_signal(sig: Mapping[str, Any] | None) -> list[str]:
    """The evidence-signal section: AUC with its bootstrap interval, the curve."""
    if not sig:
        return []
    lines = ["", f"Evidence signal against the {sig['n_unanswerable']} unanswerable items:"]
    for kind in ("first_questions", "follow_ups", "all_answerable"):
        g = sig[kind]
        if g["auc"] is None:
            lines.append(f"- {kind}: AUC n/a ({g['n_answerable']} answerable)")
            continue
        lo, hi = g["auc_ci95"]
        lines.append(
            f"- {kind} (n={g['n_answerable']}): ROC AUC {g['auc']:.3f}, "
            f"bootstrap 95% [{lo:.3f}, {hi:.3f}]"
        )
    best = sig.get("best_at_refusal_0.9")
    if best:
        lines.append(
            f"- best answer rate any threshold reaches on these items with refusal >= 0.9 "
            f"(oracle, not a fit): {fmt_rate(best['answer_rate'])} at refusal "
            f"{fmt_rate(best['refusal_rate'])}"
        )
    lines += ["", "| threshold | answer_rate | refusal_rate |", "|---|---|---|"]
    for p in sig.get("curve", []):
        lines.append(
            f"| {p['threshold']:.3f} | {fmt_rate(p['answer_rate'])} | "
            f"{fmt_rate(p['refusal_rate'])} |"
        )
    return lines


def write_reports(report: Mapping[str, Any], out_dir: Path = REPORTS_DIR) -> tuple[Path, Path]:
    stem = f"qa-{report['set']['name']}"
    return write_report(report, stem=stem, markdown=render_markdown(report), out_dir=out_dir)


async def open_eval_runtime() -> Runtime:
    """The runtime from the environment's settings (as the CLI opens it)."""
    from marginalia.config import get_settings
    from marginalia.runtime import open_runtime

    return await open_runtime(get_settings())


def load_threshold(calibration: Path | None, threshold: float | None) -> Any:
    """The Calibration to answer with: an explicit threshold, another calibration file, or
    None (the configured ``eval/calibration.json``)."""
    if calibration is None and threshold is None:
        return None
    from marginalia.answer.calibration import SIGNAL, Calibration, load_calibration

    if threshold is not None:
        # The configured file's signal and model, at another threshold.
        try:
            base = load_calibration(calibration)
        except Exception:
            return Calibration(threshold=threshold, signal=SIGNAL, method="explicit --threshold")
        return base.model_copy(update={"threshold": threshold, "method": "explicit --threshold"})
    return load_calibration(calibration)


def run_qa_eval(
    set_path: Path,
    docs_dir: Path,
    *,
    split: Split = "all",
    keep: bool = False,
    workspace: str | None = None,
    knowledge: bool = True,
    calibration: Path | None = None,
    threshold: float | None = None,
    out_dir: Path | None = REPORTS_DIR,
    progress: Progress = _quiet,
) -> dict[str, Any]:
    """Load the set, run :func:`evaluate`, write ``eval/reports/qa-<set>.{json,md}``.

    The refusal threshold is the configured calibration file's, unless ``calibration``
    (another file, e.g. one fitted on the ``fit`` split) or ``threshold`` is given."""
    every = load_qa_set(set_path)
    items = split_items(every, split)
    files = pdf_files(docs_dir)
    check_docs(items, files)
    chosen = load_threshold(calibration, threshold)

    async def go() -> dict[str, Any]:
        rt = await open_eval_runtime()
        try:
            return await evaluate(
                rt,
                items,
                files,
                set_path=set_path,
                docs_dir=docs_dir,
                split=split,
                keep=keep,
                workspace=workspace,
                knowledge=knowledge,
                calibration=chosen,
                parents={it.id: it for it in every},
                progress=progress,
            )
        finally:
            await rt.close()

    report = asyncio.run(go())
    if out_dir is not None:
        json_path, md_path = write_reports(report, out_dir)
        report["report_files"] = [str(json_path), str(md_path)]
    return report
