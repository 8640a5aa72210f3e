"""Learning paths: a reading order constrained by the concept graph (DESIGN §1 "show").

1. **Source dependencies.** Source Y needs concept ``c`` when Y covers ``d``, the concept
   graph has a ``prerequisite`` or ``specialization`` edge ``c → d`` and Y does not cover
   ``c`` itself. Y then depends on the *easiest* other source(s) covering ``c`` (lowest mean
   concept level; all tied ones), so an advanced paper that merely mentions a basic concept
   is not made a prerequisite of everything built on it. A dependency's weight is the sum of
   the concept edges' weights that produce it.
2. **Cycles.** Dependencies are accepted heaviest first (ties: lexicographic ``(X, Y)``); one
   that would close a cycle with dependencies already accepted is dropped and reported in
   ``broken_cycles``. So within every cycle the lightest (then lexicographically last) edge is
   the one removed, and an edge on no cycle is never removed.
3. **Order.** Topological (Kahn) with ties broken by difficulty (mean concept level; a source
   without concepts counts as 1.0), then year (older first; unknown last), then title, then id.

Per step: difficulty from the mean level of its concepts, relative to the workspace: with at
least three sources whose means differ (by ≥ 0.15 overall), the share of sources with a lower
mean puts it in a tercile (< 1/3 beginner, < 2/3 intermediate, else advanced; tied means
share a class); otherwise absolute (< 0.8 beginner, < 1.5 intermediate, else advanced); no
concepts → intermediate. Prerequisites = its immediate predecessors (transitive reduction of
the accepted dependencies), each with the concepts that made it one; key takeaways as passed
in, concepts covered (foundational first) and reading time ``max(1, round(total_chars / 5 /
250))`` minutes (~5 characters per word, 250 words per minute).
"""

from __future__ import annotations

import heapq
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import networkx as nx

from marginalia.knowledge.concept_graph import ConceptEdge

Difficulty = Literal["beginner", "intermediate", "advanced"]

BEGINNER_BELOW = 0.8
INTERMEDIATE_BELOW = 1.5
MAX_TAKEAWAYS = 3
ORDERING_EDGE_TYPES = frozenset({"prerequisite", "specialization"})


@dataclass(frozen=True)
class PathSource:
    """A source as the planner sees it. ``concepts``: slug → level."""

    id: str
    title: str
    summary: str = ""
    total_chars: int = 0
    concepts: Mapping[str, int] = field(default_factory=dict)
    takeaways: Sequence[str] = ()
    year: int | None = None
    citations: int = 0


@dataclass(frozen=True)
class PathStep:
    position: int
    source_id: str
    title: str
    difficulty: Difficulty
    prerequisites: tuple[str, ...]
    key_takeaways: tuple[str, ...]
    concepts_covered: tuple[str, ...]
    new_concepts: tuple[str, ...]
    reading_minutes: int
    prerequisite_concepts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """prerequisite source id → the concepts it explains that this step needs."""


@dataclass(frozen=True)
class LearningPathPlan:
    steps: tuple[PathStep, ...]
    broken_cycles: tuple[str, ...]
    notes: tuple[str, ...]


def reading_minutes(total_chars: int) -> int:
    """``max(1, round(total_chars / 5 / 250))``."""
    return max(1, round(max(0, total_chars) / 5 / 250))


def _mean_level(source: PathSource) -> float | None:
    if not source.concepts:
        return None
    return sum(source.concepts.values()) / len(source.concepts)


def difficulty_of(source: PathSource) -> Difficulty:
    """Absolute difficulty from the mean concept level (no concepts: intermediate)."""
    mean = _mean_level(source)
    if mean is None:
        return "intermediate"
    if mean < BEGINNER_BELOW:
        return "beginner"
    if mean < INTERMEDIATE_BELOW:
        return "intermediate"
    return "advanced"


RELATIVE_MIN_SOURCES = 3
RELATIVE_MIN_SPREAD = 0.15


def difficulties(sources: Sequence[PathSource]) -> dict[str, Difficulty]:
    """Each source's difficulty, relative to the others where they differ (module docs)."""
    means = {s.id: m for s in sources if (m := _mean_level(s)) is not None}
    out: dict[str, Difficulty] = {s.id: difficulty_of(s) for s in sources}
    values = sorted(means.values())
    if len(values) < RELATIVE_MIN_SOURCES or values[-1] - values[0] < RELATIVE_MIN_SPREAD:
        return out
    n = len(values)
    for sid, mean in means.items():
        share = sum(v < mean - 1e-9 for v in values) / n
        out[sid] = "beginner" if share < 1 / 3 else "intermediate" if share < 2 / 3 else "advanced"
    return out


def source_dependencies(
    sources: Sequence[PathSource],
    concept_edges: Sequence[ConceptEdge],
    via: dict[tuple[str, str], set[str]] | None = None,
) -> dict[tuple[str, str], float]:
    """``(X, Y) → weight`` for every "read X before Y" dependency (see module docs);
    ``via`` (when given) collects the prerequisite concepts behind each."""
    covers: dict[str, list[PathSource]] = defaultdict(list)  # concept -> sources covering it
    for s in sources:
        for slug in s.concepts:
            covers[slug].append(s)
    deps: dict[tuple[str, str], float] = defaultdict(float)
    for e in concept_edges:
        if e.type not in ORDERING_EDGE_TYPES or e.source == e.target:
            continue
        for y in covers.get(e.target, ()):
            if e.source in y.concepts:
                continue  # Y explains the prerequisite itself
            providers = [x for x in covers.get(e.source, ()) if x.id != y.id]
            if not providers:
                continue
            easiest = min(_difficulty_key(x) for x in providers)
            for x in providers:
                if _difficulty_key(x) == easiest:
                    deps[(x.id, y.id)] += e.weight
                    if via is not None:
                        via.setdefault((x.id, y.id), set()).add(e.source)
    return dict(deps)


def _difficulty_key(source: PathSource) -> float:
    mean = _mean_level(source)
    return 1.0 if mean is None else round(mean, 9)


def _reaches(graph: Mapping[str, set[str]], start: str, goal: str) -> bool:
    stack, seen = [start], {start}
    while stack:
        node = stack.pop()
        if node == goal:
            return True
        for nxt in graph.get(node, ()):
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False


def plan_learning_path(
    sources: Sequence[PathSource], concept_edges: Sequence[ConceptEdge]
) -> LearningPathPlan:
    """Order ``sources`` so prerequisites come first; report any dependency dropped."""
    by_id: dict[str, PathSource] = {}
    for s in sorted(sources, key=lambda s: s.id):
        if s.id in by_id:
            raise ValueError(f"duplicate source id {s.id!r}")
        by_id[s.id] = s
    via: dict[tuple[str, str], set[str]] = {}
    deps = source_dependencies(list(by_id.values()), concept_edges, via)
    levels = difficulties(list(by_id.values()))

    accepted: dict[str, set[str]] = defaultdict(set)
    broken: list[str] = []
    for (x, y), w in sorted(deps.items(), key=lambda kv: (-kv[1], kv[0])):
        if _reaches(accepted, y, x):
            broken.append(f"{x} -> {y} (weight {w:g})")
            continue
        accepted[x].add(y)

    dag = nx.DiGraph()
    dag.add_nodes_from(by_id)
    dag.add_edges_from((x, y) for x, ys in accepted.items() for y in ys)
    reduced = nx.transitive_reduction(dag)

    def priority(sid: str) -> tuple[float, int, int, str, str]:
        # Foundational first (lowest mean level), then the most cited (a reference work
        # before the papers built on it), then older first.
        s = by_id[sid]
        mean = _mean_level(s)
        year = s.year if s.year is not None else 9999
        level = 1.0 if mean is None else round(mean, 9)
        return (level, -s.citations, year, s.title.casefold(), sid)

    indegree = {sid: dag.in_degree(sid) for sid in by_id}
    heap = [(priority(sid), sid) for sid, d in indegree.items() if d == 0]
    heapq.heapify(heap)
    order: list[str] = []
    while heap:
        _, sid = heapq.heappop(heap)
        order.append(sid)
        for nxt in sorted(dag.successors(sid)):
            indegree[nxt] -= 1
            if indegree[nxt] == 0:
                heapq.heappush(heap, (priority(nxt), nxt))

    position = {sid: i for i, sid in enumerate(order)}
    seen_concepts: set[str] = set()
    steps: list[PathStep] = []
    for i, sid in enumerate(order):
        s = by_id[sid]
        covered = tuple(sorted(s.concepts, key=lambda c: (s.concepts[c], c)))
        new = tuple(c for c in covered if c not in seen_concepts)
        seen_concepts.update(covered)
        prereqs = tuple(sorted(reduced.predecessors(sid), key=lambda p: position[p]))
        steps.append(
            PathStep(
                position=i + 1,
                source_id=sid,
                title=s.title,
                difficulty=levels[sid],
                prerequisites=prereqs,
                key_takeaways=tuple(t for t in s.takeaways if t.strip())[:MAX_TAKEAWAYS],
                concepts_covered=covered,
                new_concepts=new,
                reading_minutes=reading_minutes(s.total_chars),
                prerequisite_concepts={
                    p: tuple(
                        sorted(via.get((p, sid), ()), key=lambda c, p=p: (by_id[p].concepts[c], c))
                    )
                    for p in prereqs
                },
            )
        )

    notes: list[str] = []
    no_concepts = sorted(sid for sid, s in by_id.items() if not s.concepts)
    if no_concepts:
        notes.append(
            f"{len(no_concepts)} source(s) have no concepts and are placed as intermediate: "
            + ", ".join(no_concepts)
        )
    if broken:
        notes.append(f"{len(broken)} dependency edge(s) dropped to break cycles")
    if not deps and len(by_id) > 1:
        notes.append("no concept prerequisites link these sources; ordered by difficulty")
    return LearningPathPlan(steps=tuple(steps), broken_cycles=tuple(broken), notes=tuple(notes))
