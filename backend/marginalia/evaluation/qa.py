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
import json
import math
import statistics
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from marginalia.evaluation.reports import REPORTS_DIR, git_commit, write_report
from marginalia.evaluation.stats import normalize_text, rate

if TYPE_CHECKING:
    from marginalia.runtime import Runtime


#: Passages of the numbered context that count for retrieval recall.
RECALL_K = 8
#: Two quotes overlap when they share a run of this many consecutive normalised words
#: (or when the shorter one, if shorter than this, lies whole inside the other).
OVERLAP_WORDS = 8

Split = Literal["all", "fit", "eval"]
Stage = Literal["retrieval", "refusal", "citation", "faithfulness"]
STAGES: tuple[Stage, ...] = ("retrieval", "refusal", "citation", "faithfulness")

DEFINITIONS: dict[str, str] = {
    "normalisation": (
        "NFKC; line-break hyphenation joined; hyphens between letters removed; other "
        "punctuation and symbols become spaces; whitespace collapsed; case folded"
    ),
    "recall@8": (
        f"answerable items for which one of the first {RECALL_K} passages of the answer's "
        "numbered context contains a gold quote (normalised substring)"
    ),
    "answer_rate": "answerable items answered: not refused and at least one claim kept",
    "refusal_rate": "unanswerable items refused (or left with no kept claim)",
    "citation_precision": (
        "kept claims (all items) that cite only passages of the context and whose quote is "
        "a normalised substring of a passage they cite"
    ),
    "faithfulness": (
        f"kept claims of answerable items whose quote overlaps a gold quote: the normalised "
        f"quotes share a run of >= {OVERLAP_WORDS} consecutive words, or the shorter one "
        f"(when under {OVERLAP_WORDS} words) lies whole inside the other"
    ),
    "faithful_answers": "answered answerable items with at least one faithful claim",
    "end_to_end": "answerable items answered with at least one valid, faithful claim",
    "stage": (
        "earliest failing stage of an item that is not a success: retrieval (no gold quote "
        f"in the top {RECALL_K} passages) -> refusal (answerable but refused; or unanswerable "
        "but answered) -> citation (claims dropped, or none passes the citation check) -> "
        "faithfulness (no claim overlaps a gold quote)"
    ),
}


class QASetError(ValueError):
    """The QA set file is malformed."""


# ----------------------------------------------------------------------------- the set


@dataclass(frozen=True)
class QAItem:
    id: str
    question: str
    answerable: bool
    doc: str | None
    gold_quotes: tuple[str, ...] = ()


def parse_item(data: Mapping[str, Any], where: str = "item") -> QAItem:
    """One validated item; raises QASetError saying what is wrong."""
    try:
        item_id = data["id"]
        question = data["question"]
        answerable = data["answerable"]
    except KeyError as exc:
        raise QASetError(f"{where}: missing field {exc.args[0]!r}") from None
    doc = data.get("doc")
    quotes = data.get("gold_quotes", [])
    if not isinstance(item_id, str) or not item_id:
        raise QASetError(f"{where}: 'id' must be a non-empty string")
    if not isinstance(question, str) or not question.strip():
        raise QASetError(f"{where} ({item_id}): 'question' must be a non-empty string")
    if not isinstance(answerable, bool):
        raise QASetError(f"{where} ({item_id}): 'answerable' must be true or false")
    if doc is not None and not isinstance(doc, str):
        raise QASetError(f"{where} ({item_id}): 'doc' must be a file name or null")
    if not isinstance(quotes, list) or not all(isinstance(q, str) and q.strip() for q in quotes):
        raise QASetError(f"{where} ({item_id}): 'gold_quotes' must be a list of strings")
    if answerable and not quotes:
        raise QASetError(f"{where} ({item_id}): an answerable item needs gold quotes")
    if not answerable and quotes:
        raise QASetError(f"{where} ({item_id}): an unanswerable item has no gold quotes")
    if answerable and doc is None:
        raise QASetError(f"{where} ({item_id}): an answerable item names its 'doc'")
    return QAItem(item_id, question.strip(), answerable, doc, tuple(quotes))


def load_qa_set(path: Path | str) -> list[QAItem]:
    """Read and validate a QA set (JSON Lines); ids must be unique."""
    target = Path(path)
    if not target.is_file():
        raise QASetError(f"no QA set at {target}")
    items: list[QAItem] = []
    seen: set[str] = set()
    for lineno, line in enumerate(target.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise QASetError(f"{target}:{lineno}: not JSON ({exc.msg})") from None
        if not isinstance(data, dict):
            raise QASetError(f"{target}:{lineno}: expected a JSON object")
        item = parse_item(data, f"{target.name}:{lineno}")
        if item.id in seen:
            raise QASetError(f"{target.name}:{lineno}: duplicate id {item.id!r}")
        seen.add(item.id)
        items.append(item)
    if not items:
        raise QASetError(f"{target}: the QA set is empty")
    return items


def split_items(items: Sequence[QAItem], split: Split) -> list[QAItem]:
    """A deterministic, stratified half of the set: within the answerable items and within
    the unanswerable ones (each in file order), even positions are ``fit`` and odd ones
    ``eval``; ``all`` is everything."""
    if split == "all":
        return list(items)
    if split not in ("fit", "eval"):
        raise ValueError(f"unknown split {split!r}: use all, fit or eval")
    want = 0 if split == "fit" else 1
    out: list[QAItem] = []
    for group in (True, False):
        members = [it for it in items if it.answerable is group]
        out.extend(it for i, it in enumerate(members) if i % 2 == want)
    order = {it.id: i for i, it in enumerate(items)}
    return sorted(out, key=lambda it: order[it.id])


def set_name(path: Path | str, split: Split = "all") -> str:
    stem = Path(path).stem
    return stem if split == "all" else f"{stem}-{split}"


# ----------------------------------------------------------------------------- matching


def _words(text: str) -> list[str]:
    return normalize_text(text).split()


def longest_common_run(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest run of consecutive words shared by ``a`` and ``b``."""
    if not a or not b:
        return 0
    best = 0
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0] * (len(b) + 1)
        for j, y in enumerate(b, 1):
            if x == y:
                cur[j] = prev[j - 1] + 1
                if cur[j] > best:
                    best = cur[j]
        prev = cur
    return best


def quotes_overlap(a: str, b: str, min_words: int = OVERLAP_WORDS) -> bool:
    """Do two quotes overlap? After :func:`normalize_text`, they share a run of at least
    ``min_words`` consecutive words — or, when the shorter one has fewer words than that,
    it lies whole inside the other (a run as long as the shorter quote)."""
    wa, wb = _words(a), _words(b)
    if not wa or not wb:
        return False
    need = min(min_words, len(wa), len(wb))
    return longest_common_run(wa, wb) >= need


def contains_quote(passage: str, quote: str) -> bool:
    """Is ``quote`` a substring of ``passage`` after :func:`normalize_text` of both?"""
    q = normalize_text(quote)
    return bool(q) and f" {q} " in f" {normalize_text(passage)} "


# ----------------------------------------------------------------------------- answers


@dataclass(frozen=True)
class PassageView:
    n: int
    text: str
    kind: str = "chunk"
    source_id: str | None = None


@dataclass(frozen=True)
class ClaimView:
    text: str
    citations: tuple[int, ...]
    quote: str | None


@dataclass(frozen=True)
class AnswerView:
    """What the eval reads from an answer (tests build it directly)."""

    refused: bool
    claims: tuple[ClaimView, ...] = ()
    passages: tuple[PassageView, ...] = ()
    evidence_score: float | None = None
    threshold: float | None = None
    refusal: str | None = None
    dropped: tuple[str, ...] = ()
    route: str | None = None
    engine: str | None = None
    usage: Mapping[str, Any] = field(default_factory=dict)


def view_of(answer: Any) -> AnswerView:
    """An :class:`AnswerView` of a :class:`marginalia.answer.schemas.Answer`."""
    passages = tuple(
        PassageView(
            n=int(p.n),
            text=str(p.text),
            kind=str(getattr(p, "kind", "chunk")),
            source_id=None if p.source_id is None else str(p.source_id),
        )
        for p in answer.passages
    )
    claims = tuple(
        ClaimView(text=str(c.text), citations=tuple(int(n) for n in c.citations), quote=c.quote)
        for c in answer.claims
    )
    dropped = tuple(str(getattr(d, "reason", d)) for d in (answer.dropped or []))
    score = getattr(answer, "evidence_score", None)
    return AnswerView(
        refused=bool(answer.refused),
        claims=claims,
        passages=passages,
        evidence_score=None if score is None else float(score),
        threshold=getattr(answer, "threshold", None),
        refusal=getattr(answer, "refusal", None),
        dropped=dropped,
        route=getattr(answer, "route", None),
        engine=getattr(answer, "engine", None),
        usage=dict(getattr(answer, "usage", None) or {}),
    )


def claim_cites_correctly(claim: ClaimView, passages: Sequence[PassageView]) -> bool:
    """The claim cites at least one passage, only passages of the context, and its quote
    is a normalised substring of one of them."""
    by_n = {p.n: p for p in passages}
    if not claim.citations or any(n not in by_n for n in claim.citations):
        return False
    if not claim.quote or not normalize_text(claim.quote):
        return False
    return any(contains_quote(by_n[n].text, claim.quote) for n in set(claim.citations))


def claim_is_faithful(claim: ClaimView, gold_quotes: Iterable[str]) -> bool:
    return bool(claim.quote) and any(quotes_overlap(claim.quote or "", g) for g in gold_quotes)


def classify_stage(
    *,
    answerable: bool,
    retrieval_hit: bool,
    refused: bool,
    kept_claims: int,
    valid_claims: int,
    faithful_claims: int,
    dropped_claims: int = 0,
) -> Stage | None:
    """The earliest failing stage of an item, or None when it is a success.

    Unanswerable: a success when refused or left without claims, else ``refusal``.
    Answerable: a success when it kept a claim that is both correctly cited and faithful;
    otherwise the first of ``retrieval`` (no gold quote in the top passages),
    ``refusal`` (refused on the evidence threshold: refused with no claim dropped),
    ``citation`` (claims produced but every one dropped, or none correctly cited),
    ``faithfulness`` (no valid claim overlaps a gold quote).
    """
    answered = not refused and kept_claims > 0
    if not answerable:
        return "refusal" if answered else None
    if answered and faithful_claims > 0:
        return None
    if not retrieval_hit:
        return "retrieval"
    if kept_claims == 0 and dropped_claims == 0:
        return "refusal"
    if kept_claims == 0 or valid_claims == 0:
        return "citation"
    return "faithfulness"


def score_item(
    item: QAItem,
    view: AnswerView,
    *,
    k: int = RECALL_K,
    gold_source_id: str | None = None,
) -> dict[str, Any]:
    """The per-item outcome the report lists (and :func:`aggregate` counts)."""
    top = sorted(view.passages, key=lambda p: p.n)[:k]
    hit_ranks = [
        rank
        for rank, p in enumerate(top, 1)
        if any(contains_quote(p.text, g) for g in item.gold_quotes)
    ]
    # Diagnostic only: a passage holds part of a gold quote (chunk boundary, layout).
    partial_ranks = [
        rank
        for rank, p in enumerate(top, 1)
        if rank not in hit_ranks and any(quotes_overlap(p.text, g) for g in item.gold_quotes)
    ]
    claims_out: list[dict[str, Any]] = []
    valid = faithful = 0
    for c in view.claims:
        ok = claim_cites_correctly(c, view.passages)
        good = item.answerable and ok and claim_is_faithful(c, item.gold_quotes)
        valid += ok
        faithful += good
        claims_out.append(
            {
                "text": c.text,
                "citations": list(c.citations),
                "quote": c.quote,
                "cited_ok": ok,
                "faithful": good if item.answerable else None,
            }
        )
    answered = not view.refused and len(view.claims) > 0
    stage = classify_stage(
        answerable=item.answerable,
        retrieval_hit=bool(hit_ranks),
        refused=view.refused,
        kept_claims=len(view.claims),
        valid_claims=valid,
        faithful_claims=faithful,
        dropped_claims=len(view.dropped),
    )
    doc_ranks = (
        [rank for rank, p in enumerate(top, 1) if p.source_id == gold_source_id]
        if gold_source_id
        else []
    )
    return {
        "id": item.id,
        "question": item.question,
        "answerable": item.answerable,
        "doc": item.doc,
        "answered": answered,
        "refused": view.refused,
        "refusal": view.refusal,
        "evidence_score": view.evidence_score,
        "threshold": view.threshold,
        "route": view.route,
        "retrieval_hit": bool(hit_ranks) if item.answerable else None,
        "gold_ranks": hit_ranks,
        "partial_gold_ranks": partial_ranks,
        "gold_doc_ranks": doc_ranks,
        "claims": claims_out,
        "kept_claims": len(view.claims),
        "valid_claims": valid,
        "faithful_claims": faithful if item.answerable else None,
        "dropped": list(view.dropped),
        "stage": stage,
        "success": stage is None,
    }


def aggregate(outcomes: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The five headline rates (plus two item-level ones) and the stage counts."""
    ans = [o for o in outcomes if o["answerable"]]
    una = [o for o in outcomes if not o["answerable"]]
    answered_ans = [o for o in ans if o["answered"]]
    all_claims = [c for o in outcomes for c in o["claims"]]
    ans_claims = [c for o in ans for c in o["claims"]]
    stages = {s: sum(1 for o in outcomes if o["stage"] == s) for s in STAGES}
    return {
        "recall@8": rate(sum(1 for o in ans if o["retrieval_hit"]), len(ans)),
        "answer_rate": rate(len(answered_ans), len(ans)),
        "refusal_rate": rate(sum(1 for o in una if not o["answered"]), len(una)),
        "citation_precision": rate(sum(1 for c in all_claims if c["cited_ok"]), len(all_claims)),
        "faithfulness": rate(sum(1 for c in ans_claims if c["faithful"]), len(ans_claims)),
        "faithful_answers": rate(
            sum(1 for o in answered_ans if (o["faithful_claims"] or 0) > 0), len(answered_ans)
        ),
        "end_to_end": rate(sum(1 for o in ans if o["success"]), len(ans)),
        "stages": stages,
        "dropped_claims": sum(len(o["dropped"]) for o in outcomes),
    }


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


def pdf_files(docs_dir: Path) -> list[Path]:
    if not docs_dir.is_dir():
        raise QASetError(f"--docs {docs_dir} is not a folder")
    files = sorted(p for p in docs_dir.iterdir() if p.is_file() and p.suffix.lower() == ".pdf")
    if not files:
        raise QASetError(f"no PDF files in {docs_dir}")
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
) -> list[tuple[QAItem, AnswerView, float]]:
    """Answer every item workspace-wide, one at a time; (item, answer, seconds).

    ``score_only``: evidence scores only (no calibration read, no claims). ``calibration``:
    a :class:`marginalia.answer.calibration.Calibration` to answer with instead of the
    configured file (None reads the file, as the product does)."""
    from marginalia.usecases import ask

    out: list[tuple[QAItem, AnswerView, float]] = []
    for i, item in enumerate(items, 1):
        progress(f"[{i}/{len(items)}] {item.id}: {item.question[:70]}")
        t = time.perf_counter()
        answer = await ask.answer(
            rt,
            workspace_id=workspace_id,
            question=item.question,
            calibration=calibration,
            score_only=score_only,
        )
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
            rt, prepared.workspace_id, items, progress=progress, calibration=calibration
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
        "stages": metrics["stages"],
        "dropped_claims": metrics["dropped_claims"],
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
    ):
        lines.append(f"| {key} | {fmt_rate(report[key])} |")
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
        return Calibration(threshold=threshold, signal=SIGNAL, method="explicit --threshold")
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
    items = split_items(load_qa_set(set_path), split)
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
                progress=progress,
            )
        finally:
            await rt.close()

    report = asyncio.run(go())
    if out_dir is not None:
        json_path, md_path = write_reports(report, out_dir)
        report["report_files"] = [str(json_path), str(md_path)]
    return report
