"""``marginalia eval concepts``: how good the concepts of each source are, against a gold
set (``eval/concepts/gold.jsonl``, ``eval/concepts/heldout.jsonl``).

Every document the set names is ingested from ``--docs`` into one throwaway workspace,
with the knowledge update, exactly as an upload goes
(:func:`marginalia.usecases.sources.add_documents`). Each source's concepts are then read
ranked as the product ranks them for that source
(:func:`marginalia.usecases.knowledge.source_concepts`) and scored, per source and
overall (pooled over the sources), as rates with their denominators and a Wilson 95%
interval (``{"value", "k", "n", "ci95"}``):

* ``precision@10`` — of the source's first 10 concepts (fewer when it has fewer), those
  that match a gold concept of that document not matched by a higher-ranked one;
* ``recall`` — gold concepts matched by any of the source's concepts;
* ``generic_rate`` — extracted concepts that are single generic words: one plain word (no
  digit, at most one capital letter, so not an acronym, a CamelCase name or a formula)
  that matches no gold concept of the document. This is an upper bound: a specific
  unlisted single word ("heparin") counts too;
* ``level_agreement`` — matched gold concepts whose product level equals the gold level.

A concept matches a gold concept when its name or one of its aliases equals the gold
name or one of its aliases after :func:`match_key` (case, whitespace, hyphen and plural
insensitive). ``junk_hits`` lists extracted concepts that equal one of the document's
junk strings.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from marginalia.errors import ValidationFailed
from marginalia.evaluation.reports import REPORTS_DIR, git_commit, write_report
from marginalia.evaluation.stats import normalize_text, rate
from marginalia.knowledge.concepts import singularize

if TYPE_CHECKING:
    from marginalia.runtime import Runtime

Progress = Callable[[str], None]
TOP_K = 10
METRICS = ("precision@10", "recall", "generic_rate", "level_agreement")
_DIGIT = re.compile(r"\d")
_ACRONYM_PLURAL = re.compile(r"\b([A-Z][A-Z0-9]+)s\b")


def _quiet(_: str) -> None:
    return None


# --------------------------------------------------------------------------- gold


@dataclass(frozen=True)
class GoldConcept:
    name: str
    level: int
    aliases: tuple[str, ...]

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(k for k in (match_key(s) for s in (self.name, *self.aliases)) if k)


@dataclass(frozen=True)
class GoldDoc:
    doc: str
    concepts: tuple[GoldConcept, ...]
    junk: tuple[str, ...]


def load_gold(path: Path) -> list[GoldDoc]:
    """The gold set: one JSON object per line (``doc``, ``concepts``, ``junk``)."""
    if not path.is_file():
        raise ValidationFailed(f"no concept gold set at {path}")
    docs: list[GoldDoc] = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            concepts = tuple(
                GoldConcept(str(c["name"]), int(c["level"]), tuple(c.get("aliases") or ()))
                for c in row["concepts"]
            )
            docs.append(GoldDoc(str(row["doc"]), concepts, tuple(row.get("junk") or ())))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise ValidationFailed(f"{path}:{lineno}: not a gold row ({exc})") from None
    if not docs:
        raise ValidationFailed(f"{path} names no documents")
    return docs


# --------------------------------------------------------------------------- matching


def match_key(name: str) -> str:
    """Case, whitespace, hyphen and plural-insensitive form of a concept name:
    ``"Pre-trained Language Models"`` and ``"pretrained language model"`` share one."""
    name = _ACRONYM_PLURAL.sub(r"\1", name)  # "LMs" -> "LM"
    return "".join(singularize(t) for t in normalize_text(name).split())


def is_generic_word(name: str) -> bool:
    """One plain word: no digit, at most one capital letter (so not ``BERT``, ``SciBERT``,
    ``S2ORC`` or ``Tyr369``)."""
    words = normalize_text(name).split()
    if len(words) != 1 or _DIGIT.search(name):
        return False
    return sum(ch.isupper() for ch in name) <= 1


@dataclass(frozen=True)
class Predicted:
    """A source's concept as the product shows it."""

    name: str
    level: int
    aliases: tuple[str, ...] = ()

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(k for k in (match_key(s) for s in (self.name, *self.aliases)) if k)


@dataclass
class DocScore:
    doc: str
    concepts: int
    top: list[str]
    hits_at_k: int
    k_shown: int
    recalled: list[str]
    gold: int
    generic: list[str]
    level_pairs: list[tuple[str, int, int]]  # (gold name, gold level, product level)
    junk_hits: list[str] = field(default_factory=list)

    def metrics(self) -> dict[str, dict[str, Any]]:
        agree = sum(1 for _, g, p in self.level_pairs if g == p)
        return {
            "precision@10": rate(self.hits_at_k, self.k_shown),
            "recall": rate(len(self.recalled), self.gold),
            "generic_rate": rate(len(self.generic), self.concepts),
            "level_agreement": rate(agree, len(self.level_pairs)),
        }


def _first_match(pred: Predicted, gold: Sequence[GoldConcept], taken: set[int]) -> int | None:
    keys = pred.keys
    for i, g in enumerate(gold):
        if i not in taken and keys & g.keys:
            return i
    return None


def score_doc(gold: GoldDoc, predicted: Sequence[Predicted], k: int = TOP_K) -> DocScore:
    """Score one source's ranked concepts against its gold row."""
    gold_keys = [g.keys for g in gold.concepts]
    taken: set[int] = set()
    hits = 0
    for pred in predicted[:k]:
        i = _first_match(pred, gold.concepts, taken)
        if i is not None:
            taken.add(i)
            hits += 1
    product_level: dict[int, int] = {}
    for pred in predicted:
        for i, keys in enumerate(gold_keys):
            if i not in product_level and pred.keys & keys:
                product_level[i] = pred.level
    all_gold = frozenset().union(*gold_keys) if gold_keys else frozenset()
    generic = [p.name for p in predicted if is_generic_word(p.name) and not p.keys & all_gold]
    junk = {match_key(j) for j in gold.junk}
    return DocScore(
        doc=gold.doc,
        concepts=len(predicted),
        top=[p.name for p in predicted[:k]],
        hits_at_k=hits,
        k_shown=min(k, len(predicted)),
        recalled=[gold.concepts[i].name for i in sorted(product_level)],
        gold=len(gold.concepts),
        generic=generic,
        level_pairs=[
            (gold.concepts[i].name, gold.concepts[i].level, lvl)
            for i, lvl in sorted(product_level.items())
        ],
        junk_hits=[p.name for p in predicted if p.keys & junk],
    )


def aggregate(scores: Sequence[DocScore]) -> dict[str, dict[str, Any]]:
    """The four rates pooled over every source (k and n summed)."""
    pooled = DocScore(
        doc="overall",
        concepts=sum(s.concepts for s in scores),
        top=[],
        hits_at_k=sum(s.hits_at_k for s in scores),
        k_shown=sum(s.k_shown for s in scores),
        recalled=[r for s in scores for r in s.recalled],
        gold=sum(s.gold for s in scores),
        generic=[g for s in scores for g in s.generic],
        level_pairs=[p for s in scores for p in s.level_pairs],
    )
    return pooled.metrics()


def level_mix(scores: Iterable[DocScore], predicted: Mapping[str, Sequence[Predicted]]) -> dict:
    counts = {0: 0, 1: 0, 2: 0}
    for s in scores:
        for p in predicted.get(s.doc, []):
            counts[p.level] = counts.get(p.level, 0) + 1
    return {str(level): n for level, n in sorted(counts.items())}


# --------------------------------------------------------------------------- running


def doc_files(gold: Sequence[GoldDoc], docs_dir: Path) -> list[Path]:
    if not docs_dir.is_dir():
        raise ValidationFailed(f"--docs {docs_dir} is not a folder")
    missing = [g.doc for g in gold if not (docs_dir / g.doc).is_file()]
    if missing:
        raise ValidationFailed(
            f"the gold set names documents that are not in {docs_dir}: {', '.join(missing)}"
        )
    return [docs_dir / g.doc for g in gold]


async def predicted_concepts(
    rt: Runtime, files: Sequence[Path], *, progress: Progress = _quiet
) -> tuple[dict[str, list[Predicted]], dict[str, Any]]:
    """Ingest ``files`` into a throwaway workspace (knowledge update included) and read each
    source's ranked concepts; the workspace is deleted afterwards."""
    from marginalia.usecases import knowledge as knowledge_usecase
    from marginalia.usecases import sources as sources_usecase
    from marginalia.usecases import workspaces as ws_usecase

    ws = await ws_usecase.create_workspace(
        rt, name=f"eval-concepts-{uuid.uuid4().hex[:8]}", description="marginalia eval concepts"
    )
    try:
        added = await sources_usecase.add_documents(
            rt, ws.id, [(p.name, p.read_bytes) for p in files], progress=progress
        )
        ranked = await knowledge_usecase.source_concepts(rt, ws.id)
    finally:
        await ws_usecase.delete_workspace(rt, ws.id)
    out: dict[str, list[Predicted]] = {}
    for path, outcome in zip(files, added.outcomes, strict=True):
        out[path.name] = [
            Predicted(c.name, c.level, tuple(c.aliases)) for c in ranked.get(outcome.source_id, [])
        ]
    cost = {
        "ingest_s": round(added.ingest_s, 2),
        "knowledge_s": round(added.knowledge_s, 2),
        "knowledge_per_source_s": round(added.knowledge_s / max(1, len(files)), 3),
        "knowledge": added.knowledge,
    }
    return out, cost


def build_report(
    gold: Sequence[GoldDoc],
    predicted: Mapping[str, Sequence[Predicted]],
    *,
    set_path: Path,
    docs_dir: Path,
    cost: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    scores = [score_doc(g, predicted.get(g.doc, [])) for g in gold]
    return {
        "set": {"path": str(set_path), "name": set_path.stem, "documents": len(gold)},
        "run": {
            "commit": git_commit(),
            "at": datetime.now(UTC).isoformat(timespec="seconds"),
            "docs": str(docs_dir),
            **dict(cost or {}),
        },
        "overall": aggregate(scores),
        "levels": level_mix(scores, predicted),
        "min_concepts_per_source": min((s.concepts for s in scores), default=0),
        "per_source": [
            {
                "doc": s.doc,
                "concepts": s.concepts,
                **s.metrics(),
                "top10": s.top,
                "recalled": s.recalled,
                "missed": [
                    c.name
                    for c in next(g for g in gold if g.doc == s.doc).concepts
                    if c.name not in s.recalled
                ],
                "generic": s.generic,
                "junk_hits": s.junk_hits,
                "levels": [{"gold": n, "level": g, "product": p} for n, g, p in s.level_pairs],
            }
            for s in scores
        ],
    }


def _fmt(r: Mapping[str, Any]) -> str:
    if r.get("value") is None:
        return "n/a"
    lo, hi = r["ci95"]
    return f"{r['value']:.3f} ({r['k']}/{r['n']}, {lo:.2f}–{hi:.2f})"


def render_markdown(report: Mapping[str, Any]) -> str:
    lines = [
        f"# Concept eval — {report['set']['name']}",
        "",
        f"Commit {report['run'].get('commit')}, {report['set']['documents']} documents from "
        f"`{report['run']['docs']}`.",
        "",
        "| metric | overall (k/n, 95% CI) |",
        "|---|---|",
    ]
    lines += [f"| {m} | {_fmt(report['overall'][m])} |" for m in METRICS]
    lines += [
        "",
        f"Levels of the extracted concepts: {report['levels']}; fewest concepts of a source: "
        f"{report['min_concepts_per_source']}.",
        "",
        "| document | concepts | P@10 | recall | generic | level agr. |",
        "|---|---|---|---|---|---|",
    ]
    for s in report["per_source"]:
        cells = " | ".join(
            "n/a" if s[m]["value"] is None else f"{s[m]['value']:.2f}" for m in METRICS
        )
        lines.append(f"| {s['doc']} | {s['concepts']} | {cells} |")
    lines.append("")
    for s in report["per_source"]:
        lines.append(f"- **{s['doc']}** top 10: {', '.join(s['top10']) or '—'}")
        if s["generic"]:
            lines.append(f"  - generic: {', '.join(s['generic'])}")
    return "\n".join(lines) + "\n"


def run_concept_eval(
    gold_path: Path,
    docs_dir: Path,
    *,
    out_dir: Path | None = REPORTS_DIR,
    progress: Progress = _quiet,
) -> dict[str, Any]:
    """Load the set, ingest its documents, score, write ``eval/reports/concepts-<set>.*``."""
    gold = load_gold(gold_path)
    files = doc_files(gold, docs_dir)

    async def go() -> tuple[dict[str, list[Predicted]], dict[str, Any]]:
        from marginalia.evaluation.qa import open_eval_runtime

        rt = await open_eval_runtime()
        try:
            return await predicted_concepts(rt, files, progress=progress)
        finally:
            await rt.close()

    started = time.perf_counter()
    predicted, cost = asyncio.run(go())
    report = build_report(
        gold,
        predicted,
        set_path=gold_path,
        docs_dir=docs_dir,
        cost={**cost, "total_s": round(time.perf_counter() - started, 2)},
    )
    if out_dir is not None:
        paths = write_report(
            report,
            stem=f"concepts-{gold_path.stem}",
            markdown=render_markdown(report),
            out_dir=out_dir,
        )
        report["report_files"] = [str(p) for p in paths]
    return report
