"""``marginalia eval table``: the keyed evidence-table eval.

The gold (``eval/tables/gold.jsonl``, written blind by an independent annotator; format
and rules in ``eval/tables/README.md``) names, per source and column, the answer, accept
variants, gold quotes with their page, and whether the paper reports it at all. The eval
ingests every document of ``--docs`` (the shared PDFs and the unarXive papers rendered to
``<id>.md`` by ``eval/qa/render_unarxive.py``) into a throwaway workspace — whatever the
split, so that the workspace's term statistics are the same for both —, makes ONE table
through the product's own flow — :func:`marginalia.usecases.tables.create_table` over the
gold's sources and columns, filled by the ``tables.fill`` job — and scores every cell by
the rules of :mod:`marginalia.evaluation.tables_scoring` (fixed before any tuning), each
rate with its denominator and a Wilson 95% interval, for the ``dev`` split (what the
offline engine's weights were set on), the ``heldout`` split (nothing was tuned on it)
and both. Every quote shown is checked verbatim against the stored text of the pages it
names, independently of the product's own check.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from marginalia.evaluation.qa import fmt_rate, open_eval_runtime, pdf_files
from marginalia.evaluation.reports import REPORTS_DIR, git_commit, write_report
from marginalia.evaluation.tables_scoring import (
    DEFINITIONS,
    GoldCell,
    GoldError,
    ScoredCell,
    ShownQuote,
    aggregate,
    load_gold,
    score_cell,
)

if TYPE_CHECKING:
    from marginalia.runtime import Runtime

SplitChoice = Literal["all", "dev", "heldout"]
Progress = Callable[[str], None]


def _quiet(_: str) -> None:
    return None


def _columns(cells: Sequence[GoldCell]) -> list[str]:
    return list(dict.fromkeys(c.column for c in cells))


async def _workspace(
    rt: Runtime, files: Sequence[Path], progress: Progress
) -> tuple[uuid.UUID, dict[str, uuid.UUID], float]:
    from marginalia.ingest.pipeline import ingest_document
    from marginalia.usecases import workspaces as ws_usecase

    ws = await ws_usecase.create_workspace(
        rt, name=f"eval-table-{uuid.uuid4().hex[:8]}", description="`marginalia eval table`"
    )
    started = time.perf_counter()
    sources: dict[str, uuid.UUID] = {}
    try:
        for path in files:
            progress(f"ingesting {path.name}")
            outcome = await ingest_document(rt, ws.id, data=path.read_bytes(), filename=path.name)
            sources[path.name] = outcome.source_id
    except BaseException:
        await ws_usecase.delete_workspace(rt, ws.id)
        raise
    return ws.id, sources, time.perf_counter() - started


async def _verbatim(rt: Runtime, source_id: uuid.UUID, quotes: Sequence[Any]) -> list[ShownQuote]:
    """Each quote, checked against the stored text of the pages it names."""
    from marginalia.answer.quotes import normalize
    from marginalia.tables import repository as tables_repo

    async with rt.db.session() as session:
        pages = dict(await tables_repo.source_pages(session, source_id))
    out = []
    for q in quotes:
        first, last = q.page, q.page_end or q.page
        text = "\n".join(pages.get(p, "") for p in range(first, last + 1)) if first else ""
        out.append(
            ShownQuote(
                q.text, q.page, q.page_end, bool(text) and normalize(q.text) in normalize(text)
            )
        )
    return out


async def evaluate(
    rt: Runtime,
    cells: Sequence[GoldCell],
    docs_dir: Path,
    *,
    keep: bool = False,
    workspace: str | None = None,
    progress: Progress = _quiet,
) -> dict[str, Any]:
    """Ingest (or reuse a kept workspace), fill one table, score every cell."""
    from marginalia.usecases import tables as tables_usecase
    from marginalia.usecases import workspaces as ws_usecase

    wanted = sorted({c.file_name for c in cells})
    # Every document of --docs is ingested, whatever the split: the workspace's term
    # statistics (the offline engine's idf) are then the same for dev and heldout runs.
    files = pdf_files(docs_dir)
    missing = sorted(set(wanted) - {p.name for p in files})
    if missing:
        raise GoldError(f"the gold names documents that are not in --docs: {', '.join(missing)}")
    ingest_s = 0.0
    if workspace is not None:
        ws = await ws_usecase.find_workspace(rt, workspace)
        workspace_id, sources = ws.id, await ws_usecase.source_files(rt, ws.id)
    else:
        workspace_id, sources, ingest_s = await _workspace(rt, files, progress)
    try:
        columns = _columns(cells)
        await tables_usecase.forget_cells(rt, workspace_id)  # measure the engine as it is now
        started = time.perf_counter()
        made = await tables_usecase.create_table(
            rt,
            workspace_id,
            columns=columns,
            name="eval table",
            source_ids=[sources[name] for name in wanted],
        )
        progress(f"filling {len(wanted)} sources x {len(columns)} columns")
        job = await tables_usecase.wait_for(rt, made.job_id) if made.job_id else None
        fill_s = time.perf_counter() - started
        if job is not None and job.status != "succeeded":
            raise GoldError(f"the fill job {job.id} ended {job.status}: {job.error}")
        table = await tables_usecase.get_table(rt, workspace_id, made.table.id)
        name_of = {sid: name for name, sid in sources.items()}
        by_key = {}
        for row in table.rows:
            for column, cell in zip(table.columns, row.cells, strict=True):
                by_key[(name_of[row.source_id], column.question)] = (row.source_id, cell)
        scored: list[ScoredCell] = []
        for g in cells:
            source_id, cell = by_key[(g.file_name, g.column)]
            quotes = await _verbatim(rt, source_id, cell.quotes)
            scored.append(
                score_cell(
                    g,
                    answer=cell.answer,
                    not_reported=cell.not_reported,
                    quotes=quotes,
                    confidence=cell.confidence,
                    note=cell.note,
                )
            )
        if not keep and workspace is None:
            await tables_usecase.delete_table(rt, workspace_id, made.table.id)
    finally:
        if not keep and workspace is None:
            await ws_usecase.delete_workspace(rt, workspace_id)
    splits: dict[str, Any] = {}
    for split in ("dev", "heldout"):
        part = [c for c in scored if c.gold.split == split]
        if part:
            splits[split] = aggregate(part)
    return {
        "run": {
            "at": datetime.now(UTC).isoformat(timespec="seconds"),
            "commit": git_commit(),
            "engine": table.engine,
            "workspace_id": str(workspace_id) if keep or workspace else None,
            "sources": len(wanted),
            "columns": len(columns),
            "cells": len(scored),
            "ingest_s": round(ingest_s, 2),
            "fill_s": round(fill_s, 2),
            "fill_job": str(job.id) if job else None,
        },
        "definitions": DEFINITIONS,
        "splits": splits,
        "all": aggregate(scored),
        "confidence": _confidence(scored),
        "cells": [c.as_dict() for c in scored],
    }


def _confidence(scored: Sequence[ScoredCell]) -> dict[str, Any]:
    """Mean shown confidence of right and wrong answered cells (is it worth showing?)."""

    def mean(values: list[float]) -> float | None:
        return round(sum(values) / len(values), 3) if values else None

    answered = [c for c in scored if not c.not_reported and c.confidence is not None]
    return {
        "right": mean([c.confidence for c in answered if c.correct and c.confidence is not None]),
        "wrong": mean(
            [c.confidence for c in answered if not c.correct and c.confidence is not None]
        ),
        "n_right": sum(c.correct for c in answered),
        "n_wrong": sum(not c.correct for c in answered),
    }


RATES = (
    ("accuracy_number_name", "accuracy, number/name cells with a gold answer (floor 0.6)"),
    ("accuracy_number_name_with_not_reported", "accuracy, number/name cells incl. not reported"),
    ("accuracy_number", "accuracy, number cells"),
    ("accuracy_name", "accuracy, name cells"),
    ("accuracy_text", "accuracy, text cells with a gold answer"),
    ("accuracy", "accuracy, all cells"),
    ("not_reported_precision", "not reported: precision (floor 0.9)"),
    ("not_reported_recall", "not reported: recall"),
    ("quote_verbatim", "quotes verbatim on their page (must be 1.0)"),
    ("quote_supports", "answered cells whose quote overlaps a gold quote"),
    ("quote_page", "overlapping quotes on the gold quote's page"),
)


def render_markdown(report: Mapping[str, Any]) -> str:
    run = report["run"]
    lines = [
        "# Evidence-table eval",
        "",
        f"{run['sources']} sources x {run['columns']} columns = {run['cells']} cells, engine "
        f"`{run['engine']}`, commit {run['commit']}, {run['at']}; filled in {run['fill_s']} s "
        f"(ingest {run['ingest_s']} s).",
        "",
        "| rate | " + " | ".join(["dev", "heldout", "all"]) + " |",
        "| --- | --- | --- | --- |",
    ]
    parts = [report["splits"].get("dev"), report["splits"].get("heldout"), report["all"]]
    for key, label in RATES:
        lines.append(
            f"| {label} | " + " | ".join(fmt_rate(p[key]) if p else "-" for p in parts) + " |"
        )
    conf = report["confidence"]
    lines += [
        "",
        f"Mean shown confidence: right cells {conf['right']} (n={conf['n_right']}), wrong "
        f"cells {conf['wrong']} (n={conf['n_wrong']}).",
        "",
        "Matching rules:",
        "",
        *[f"- **{k}**: {v}" for k, v in report["definitions"].items()],
        "",
    ]
    return "\n".join(lines)


def run_table_eval(
    gold_path: Path,
    docs_dir: Path,
    *,
    split: SplitChoice = "all",
    keep: bool = False,
    workspace: str | None = None,
    out_dir: Path | None = REPORTS_DIR,
    progress: Progress = _quiet,
) -> dict[str, Any]:
    """Load the gold, run :func:`evaluate`, write ``eval/reports/tables-<split>.{json,md}``."""
    if split not in ("all", "dev", "heldout"):
        raise GoldError(f"unknown split {split!r}: use all, dev or heldout")
    cells = [c for c in load_gold(gold_path) if split == "all" or c.split == split]
    if not cells:
        raise GoldError(f"no gold cell in split {split}")

    async def go() -> dict[str, Any]:
        rt = await open_eval_runtime()
        try:
            return await evaluate(
                rt, cells, docs_dir, keep=keep, workspace=workspace, progress=progress
            )
        finally:
            await rt.close()

    report = asyncio.run(go())
    report["gold"] = {"path": str(gold_path), "split": split}
    if out_dir is not None:
        json_path, md_path = write_report(
            report, stem=f"tables-{split}", markdown=render_markdown(report), out_dir=out_dir
        )
        report["report_files"] = [str(json_path), str(md_path)]
    return report
