"""The QA eval's set and its scoring: parse and split a keyed QA set (JSON Lines), view an
answer as the eval reads it, score an item (recall@8, answered, citations, faithfulness,
the earliest failing stage) and aggregate rates with Wilson intervals (invariant 8)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from marginalia.evaluation.stats import normalize_text, rate

if TYPE_CHECKING:
    pass


#: Passages of the numbered context that count for retrieval recall.
RECALL_K = 8
#: Best-evidence sentences that count for evidence@3.
EVIDENCE_AT = 3


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
    "evidence@3": (
        "answerable items one of whose first 3 best-evidence sentences overlaps a gold quote "
        "(the faithfulness overlap)"
    ),
    "nothing_unanswerable": "unanswerable items whose outcome is nothing",
    "nothing_answerable": "answerable items whose outcome is nothing",
    "answered_with_gold": (
        "answerable items with outcome answered that keep a claim overlapping a gold quote"
    ),
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


@dataclass(frozen=True)
class QAItem:
    id: str
    question: str
    answerable: bool
    doc: str | None
    gold_quotes: tuple[str, ...] = ()
    #: The id of the answerable first question this item follows in one conversation.
    follow_up_of: str | None = None


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
    parent = data.get("follow_up_of")
    if parent is not None and (not isinstance(parent, str) or not parent):
        raise QASetError(f"{where} ({item_id}): 'follow_up_of' must be an item id")
    if parent is not None and not answerable:
        raise QASetError(f"{where} ({item_id}): a follow-up must be answerable")
    return QAItem(item_id, question.strip(), answerable, doc, tuple(quotes), parent)


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
    by_id = {it.id: it for it in items}
    for it in items:
        if it.follow_up_of is None:
            continue
        parent = by_id.get(it.follow_up_of)
        if parent is None or not parent.answerable or parent.follow_up_of is not None:
            raise QASetError(
                f"{target.name} ({it.id}): follow_up_of {it.follow_up_of!r} is not an "
                "answerable first question of the set"
            )
    return items


def split_items(items: Sequence[QAItem], split: Split) -> list[QAItem]:
    """A deterministic, stratified half of the set: within the answerable first questions
    and within the unanswerable ones (each in file order), even positions are ``fit`` and
    odd ones ``eval``; a follow-up goes with its parent's half; ``all`` is everything."""
    if split == "all":
        return list(items)
    if split not in ("fit", "eval"):
        raise ValueError(f"unknown split {split!r}: use all, fit or eval")
    want = 0 if split == "fit" else 1
    out: list[QAItem] = []
    for group in (True, False):
        members = [it for it in items if it.answerable is group and it.follow_up_of is None]
        out.extend(it for i, it in enumerate(members) if i % 2 == want)
    chosen = {it.id for it in out}
    out.extend(it for it in items if it.follow_up_of is not None and it.follow_up_of in chosen)
    order = {it.id: i for i, it in enumerate(items)}
    return sorted(out, key=lambda it: order[it.id])


def set_name(path: Path | str, split: Split = "all") -> str:
    stem = Path(path).stem
    return stem if split == "all" else f"{stem}-{split}"


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
    #: The answerability gate's feature values (:func:`marginalia.answer.gate.features`).
    features: Mapping[str, float] = field(default_factory=dict)
    #: "answered", "closest" or "nothing" (None: derived from ``refused``).
    outcome: str | None = None
    #: The best-evidence sentences' texts, best first.
    evidence: tuple[str, ...] = ()
    #: What the outcome rules read (``trace["evidence"]["outcome_signals"]``).
    signals: Mapping[str, float] = field(default_factory=dict)

    def outcome_label(self) -> str:
        if self.outcome is not None:
            return self.outcome
        return "closest" if self.refused else "answered"


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
    evidence = (getattr(answer, "trace", None) or {}).get("evidence") or {}
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
        features=dict(evidence.get("gate_features") or {}),
        outcome=getattr(answer, "outcome", None),
        evidence=tuple(str(e.text) for e in (getattr(answer, "evidence", None) or [])),
        signals=dict(evidence.get("outcome_signals") or {}),
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
    evidence_ranks = [
        rank
        for rank, text in enumerate(view.evidence, 1)
        if item.answerable and any(quotes_overlap(text, g) for g in item.gold_quotes)
    ]
    return {
        "id": item.id,
        "question": item.question,
        "answerable": item.answerable,
        "follow_up_of": item.follow_up_of,
        "doc": item.doc,
        "outcome": view.outcome_label(),
        "evidence": list(view.evidence),
        "evidence_gold_ranks": evidence_ranks,
        "outcome_signals": dict(view.signals),
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
    """The five headline rates (plus two item-level ones), the stage counts, and the
    answer-side rates of first questions and follow-ups separately."""
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
        **outcome_rates(outcomes),
        "stages": stages,
        "dropped_claims": sum(len(o["dropped"]) for o in outcomes),
        "by_kind": {
            "first_questions": _answer_side([o for o in ans if not o.get("follow_up_of")]),
            "follow_ups": _answer_side([o for o in ans if o.get("follow_up_of")]),
        },
    }


def _answer_side(ans: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    answered = [o for o in ans if o["answered"]]
    return {
        "recall@8": rate(sum(1 for o in ans if o["retrieval_hit"]), len(ans)),
        "answer_rate": rate(len(answered), len(ans)),
        "faithful_answers": rate(
            sum(1 for o in answered if (o["faithful_claims"] or 0) > 0), len(answered)
        ),
        "end_to_end": rate(sum(1 for o in ans if o["success"]), len(ans)),
    }


def outcome_rates(outcomes: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Issue 32's rates: evidence@3 (answerable items with a top-3 evidence sentence that
    overlaps a gold quote), *nothing* on unanswerable and on answerable items, and the
    answered answerable items with a claim whose quote overlaps a gold quote."""
    ans = [o for o in outcomes if o["answerable"]]
    una = [o for o in outcomes if not o["answerable"]]
    answered = [o for o in ans if o.get("outcome", "answered") == "answered" and o["answered"]]
    counts: dict[str, dict[str, int]] = {}
    for o in outcomes:
        side = counts.setdefault("answerable" if o["answerable"] else "unanswerable", {})
        label = str(o.get("outcome"))
        side[label] = side.get(label, 0) + 1
    return {
        "evidence@3": rate(
            sum(1 for o in ans if any(r <= EVIDENCE_AT for r in o.get("evidence_gold_ranks", []))),
            len(ans),
        ),
        "nothing_unanswerable": rate(
            sum(1 for o in una if o.get("outcome") == "nothing"), len(una)
        ),
        "nothing_answerable": rate(sum(1 for o in ans if o.get("outcome") == "nothing"), len(ans)),
        "answered_with_gold": rate(
            sum(1 for o in answered if (o["faithful_claims"] or 0) > 0), len(answered)
        ),
        "outcomes": counts,
    }
