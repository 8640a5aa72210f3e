"""What a workspace does not settle yet: its knowledge gaps, computed deterministically.

Four kinds, each with a suggested research topic (and the search queries a research run
would use) so the web app can start a run from it:

* ``single_source_concept`` — a central concept only one source discusses (the
  :data:`MAX_SINGLE_SOURCE` most central, by centrality, then name);
* ``unsupported_claim`` — a claim no other source supports: no ``supports``/``extends``
  evidence; where every piece of evidence is the offline engine's ``related`` (no model
  judged it), a claim central to its source (it names one of the source's
  :data:`CENTRAL_PER_SOURCE` best concepts) with no related passage in another source at
  all — one per source, :data:`MAX_UNSUPPORTED_OFFLINE` in all;
* ``contested_claim`` — a claim with both supporting and contradicting evidence;
* ``unexplained_prerequisite`` — a concept that is a prerequisite of another
  (a ``prerequisite`` edge) but that no source defines (no definition sentence was found
  for it) and at most one source mentions.

Pure functions over plain data (no database, no model). Gaps are ordered by kind
(contested first, then unsupported claims, prerequisites, single-source concepts) and
within a kind by their ``score`` (higher first), then id, so the same knowledge always
gives the same list.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from marginalia.knowledge.text import STOP_WORDS, normalize_whitespace, wordset

GapKind = Literal[
    "contested_claim", "unsupported_claim", "unexplained_prerequisite", "single_source_concept"
]

KIND_ORDER: tuple[GapKind, ...] = (
    "contested_claim",
    "unsupported_claim",
    "unexplained_prerequisite",
    "single_source_concept",
)
MAX_SINGLE_SOURCE = 20
MAX_UNSUPPORTED = 20
MAX_UNSUPPORTED_OFFLINE = 5
"""Offline, unsupported claims are listed only when central to their source: at most one
per source and this many in all."""
CENTRAL_PER_SOURCE = 5
"""A source's concepts that make a claim central to it when the claim names one."""
MAX_PREREQUISITES = 15
TOPIC_WORDS = 12
SUPPORTING = frozenset({"supports", "extends"})
OFFLINE_RELATION = "related"


@dataclass(frozen=True)
class GapConcept:
    slug: str
    name: str
    level: int
    source_ids: tuple[str, ...]
    centrality: float = 0.0
    description: str | None = None
    weight: float = 0.0
    """its standing in the source(s) that discuss it (the heaviest link)."""


@dataclass(frozen=True)
class GapEvidence:
    source_id: str
    relation: str
    score: float = 0.0


@dataclass(frozen=True)
class GapClaim:
    id: str
    source_id: str
    text: str
    evidence: tuple[GapEvidence, ...] = ()


@dataclass(frozen=True)
class Gap:
    id: str
    kind: GapKind
    title: str
    detail: str
    suggested_topic: str
    queries: tuple[str, ...]
    score: float
    concepts: tuple[str, ...] = ()
    claim_id: str | None = None
    source_ids: tuple[str, ...] = ()
    evidence: Mapping[str, int] = field(default_factory=dict)


_CUE_WORDS = wordset(
    """show shows showed find finds found demonstrate demonstrates observe observed report
    reports results result overall experiments propose present introduce section"""
)


_NEGATIONS = wordset("not no never nor without cannot none")


def claim_topic(text: str, words: int = TOPIC_WORDS) -> str:
    """A search topic from a claim: its first content words (stop words other than
    negations, finding cues such as "we show", citations, section references and bare
    numbers dropped)."""
    text = re.sub(r"\[[^\]]*\]|\([^)]*\d{4}[^)]*\)|\(§[^)]*\)|§\s*\d+", " ", text)
    tokens = re.findall(r"[^\W_][\w\-']*", text)
    kept = [
        t
        for t in tokens
        if (t.casefold() not in STOP_WORDS or t.casefold() in _NEGATIONS)
        and t.casefold() not in _CUE_WORDS
        and not t.isdigit()
    ]
    return " ".join(kept[:words])


def _central_concepts(concepts: Sequence[GapConcept]) -> dict[str, list[GapConcept]]:
    """Each source's most central concepts (by their standing in it, then centrality)."""
    by_source: dict[str, list[GapConcept]] = {}
    for c in concepts:
        for sid in set(c.source_ids):
            by_source.setdefault(sid, []).append(c)
    return {
        sid: sorted(cs, key=lambda c: (-c.weight, -c.centrality, c.slug))[:CENTRAL_PER_SOURCE]
        for sid, cs in by_source.items()
    }


def _names(name: str, text: str) -> bool:
    words = [re.escape(w) for w in re.split(r"[\s\-]+", name.strip()) if w]
    if not words:
        return False
    pattern = r"(?<![\w-])" + r"[\s\-]+".join(words) + r"(?:s|es)?(?![\w-])"
    return re.search(pattern, text, re.IGNORECASE) is not None


def _neighbours(
    edges: Sequence[tuple[str, str, str, float]],
) -> dict[str, list[tuple[float, str]]]:
    out: dict[str, list[tuple[float, str]]] = {}
    for a, b, _, w in edges:
        out.setdefault(a, []).append((w, b))
        out.setdefault(b, []).append((w, a))
    return out


def find_gaps(
    concepts: Sequence[GapConcept],
    claims: Sequence[GapClaim],
    concept_edges: Sequence[tuple[str, str, str, float]],
    source_titles: Mapping[str, str],
    *,
    max_single_source: int = MAX_SINGLE_SOURCE,
    max_unsupported: int = MAX_UNSUPPORTED,
    max_prerequisites: int = MAX_PREREQUISITES,
) -> list[Gap]:
    """The workspace's gaps (module docs). ``concept_edges``: ``(source slug, target slug,
    type, weight)``; ``source_titles``: source id → title."""
    by_slug = {c.slug: c for c in concepts}
    near = _neighbours([e for e in concept_edges if e[0] in by_slug and e[1] in by_slug])
    gaps: list[Gap] = []

    def context(slug: str) -> str | None:
        options = sorted(near.get(slug, []), key=lambda wb: (-wb[0], wb[1]))
        return by_slug[options[0][1]].name if options else None

    # claims: contested and unsupported
    offline_only = all(e.relation == OFFLINE_RELATION for c in claims for e in c.evidence)
    central = _central_concepts(concepts)
    unsupported: list[Gap] = []
    seen_texts: set[str] = set()
    for claim in sorted(claims, key=lambda c: c.id):
        key = normalize_whitespace(claim.text).casefold()
        if key in seen_texts:
            continue  # the same sentence extracted twice (abstract and body)
        seen_texts.add(key)
        others = [e for e in claim.evidence if e.source_id != claim.source_id]
        counts: dict[str, int] = {}
        for e in others:
            counts[e.relation] = counts.get(e.relation, 0) + 1
        supporting = sum(counts.get(r, 0) for r in SUPPORTING)
        contradicting = counts.get("contradicts", 0)
        text = normalize_whitespace(claim.text)
        topic = claim_topic(text)
        source = source_titles.get(claim.source_id, "a source")
        if supporting and contradicting:
            gaps.append(
                Gap(
                    id=f"contested_claim:{claim.id}",
                    kind="contested_claim",
                    title=f"Contested: {text}",
                    detail=f"{supporting} passage(s) support and {contradicting} contradict this "
                    f"claim of {source}.",
                    suggested_topic=topic,
                    queries=(topic, f"{topic} replication"),
                    score=float(min(supporting, contradicting)),
                    claim_id=claim.id,
                    source_ids=tuple(sorted({claim.source_id, *(e.source_id for e in others)})),
                    evidence=dict(sorted(counts.items())),
                )
            )
            continue
        names: list[str] = []
        if offline_only:
            # only a claim about what its source is about is worth a gap (issue 35)
            names = [c.name for c in central.get(claim.source_id, ()) if _names(c.name, text)]
            lacking = not others and bool(names)
            why = (
                f"it is about {', '.join(names[:3])}, central to that source, and no passage "
                "of another source shares a name or a rare term with it (offline engine: "
                "evidence unjudged)"
            )
        else:
            lacking = supporting == 0
            why = (
                "no other source supports it"
                + (f" ({contradicting} contradict it)" if contradicting else "")
                + (
                    f"; {counts.get('related', 0)} related passage(s)"
                    if counts.get("related")
                    else ""
                )
            )
        if lacking:
            unsupported.append(
                Gap(
                    id=f"unsupported_claim:{claim.id}",
                    kind="unsupported_claim",
                    title=f"Unsupported: {text}",
                    detail=f"A claim of {source}: {why}.",
                    suggested_topic=topic,
                    queries=(topic,),
                    score=float(contradicting) + len(names) + min(len(text), 300) / 1000,
                    claim_id=claim.id,
                    source_ids=(claim.source_id,),
                    evidence=dict(sorted(counts.items())),
                )
            )
    unsupported.sort(key=lambda g: (-g.score, g.id))
    if offline_only:  # the few that matter: a source's most central claim, five at most
        first: dict[str, Gap] = {}
        for g in unsupported:
            first.setdefault(g.source_ids[0], g)
        unsupported = sorted(first.values(), key=lambda g: (-g.score, g.id))
        max_unsupported = min(max_unsupported, MAX_UNSUPPORTED_OFFLINE)
    gaps += unsupported[:max_unsupported]

    # prerequisites no source explains
    prereq_of: dict[str, set[str]] = {}
    for a, b, kind, _ in concept_edges:
        if kind == "prerequisite" and a in by_slug and b in by_slug and a != b:
            prereq_of.setdefault(a, set()).add(b)
    unexplained: list[Gap] = []
    for slug, dependants in prereq_of.items():
        c = by_slug[slug]
        if (c.description or "").strip() or len(set(c.source_ids)) > 1:
            continue
        names = sorted(by_slug[d].name for d in dependants)
        topic = f"{c.name} introduction"
        unexplained.append(
            Gap(
                id=f"unexplained_prerequisite:{slug}",
                kind="unexplained_prerequisite",
                title=f"Not explained: {c.name}",
                detail=f"{c.name} is a prerequisite of {', '.join(names[:5])}"
                + (f" and {len(names) - 5} more" if len(names) > 5 else "")
                + f", but no source defines it ({len(set(c.source_ids))} mention it).",
                suggested_topic=topic,
                queries=(topic, f"{c.name} tutorial", f"{c.name} survey"),
                score=float(len(dependants)) + c.centrality,
                concepts=(slug, *sorted(dependants)),
                source_ids=tuple(sorted(set(c.source_ids))),
            )
        )
    unexplained.sort(key=lambda g: (-g.score, g.id))
    gaps += unexplained[:max_prerequisites]
    reported = {g.concepts[0] for g in unexplained[:max_prerequisites]}

    # central concepts only one source discusses
    single = [c for c in concepts if len(set(c.source_ids)) == 1 and c.slug not in reported]
    single.sort(key=lambda c: (-c.centrality, -c.weight, c.name.casefold(), c.slug))
    for c in single[:max_single_source]:
        sid = c.source_ids[0]
        extra = context(c.slug)
        topic = (
            f"{c.name} {extra}" if extra and extra.casefold() not in c.name.casefold() else c.name
        )
        gaps.append(
            Gap(
                id=f"single_source_concept:{c.slug}",
                kind="single_source_concept",
                title=f"One source only: {c.name}",
                detail=f"Only {source_titles.get(sid, 'one source')} discusses {c.name}.",
                suggested_topic=topic,
                queries=(topic,),
                score=c.centrality + c.weight / 1000,
                concepts=(c.slug,),
                source_ids=(sid,),
            )
        )

    rank = {k: i for i, k in enumerate(KIND_ORDER)}
    return sorted(gaps, key=lambda g: (rank[g.kind], -g.score, g.id))
