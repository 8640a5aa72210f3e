"""A reading order per topic (issue 33): the learning path is planned inside each topic
cluster (``topics.py``) and the clusters follow one another, so unrelated fields are never
interleaved. Inside a cluster the order is :func:`paths.plan_learning_path`'s: concept
prerequisites first, else foundational → specialised (mean concept level, then citations).
A cluster whose sources no concept prerequisite links says so in the notes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from marginalia.knowledge.concept_graph import ConceptEdge
from marginalia.knowledge.paths import (
    LearningPathPlan,
    PathSource,
    PathStep,
    plan_learning_path,
    source_dependencies,
)
from marginalia.knowledge.topics import TopicCluster


@dataclass(frozen=True)
class TopicStep:
    """A planned step and the topic cluster it is read in."""

    step: PathStep
    topic_id: str | None
    topic_label: str | None


def no_prerequisite_note(labels: Sequence[str]) -> str:
    """One note for every topic whose sources no concept prerequisite links (one line per
    topic read as a wall of repeated text in the path view)."""
    named = "; ".join(f"“{label}”" for label in labels)
    where = "topic" if len(labels) == 1 else "topics"
    return (
        f"the concept graph has no prerequisite between the sources of the {where} {named}: "
        "ordered foundational → specialised (concept level, then citations)"
    )


def plan_topic_paths(
    sources: Sequence[PathSource],
    concept_edges: Sequence[ConceptEdge],
    topics: Sequence[TopicCluster],
) -> tuple[LearningPathPlan, list[TopicStep]]:
    """One plan per topic, concatenated in the topics' order (sources in no topic last);
    positions run 1…n over the whole path."""
    by_id = {s.id: s for s in sources}
    groups: list[tuple[TopicCluster | None, list[PathSource]]] = []
    placed: set[str] = set()
    for t in topics:
        members = [by_id[m] for m in t.members if m in by_id and m not in placed]
        placed.update(s.id for s in members)
        if members:
            groups.append((t, members))
    rest = [s for s in sources if s.id not in placed]
    if rest:
        groups.append((None, rest))
    steps: list[TopicStep] = []
    broken: list[str] = []
    notes: list[str] = []
    unlinked: list[str] = []
    for topic, members in groups:
        plan = plan_learning_path(members, concept_edges)
        label = topic.label if topic else "Other sources"
        for st in plan.steps:
            steps.append(
                TopicStep(
                    replace(st, position=len(steps) + 1),
                    topic.id if topic else None,
                    topic.label if topic else None,
                )
            )
        broken.extend(plan.broken_cycles)
        notes.extend(n for n in plan.notes if not n.startswith("no concept prerequisites"))
        if len(members) > 1 and not source_dependencies(members, concept_edges):
            unlinked.append(label)
    if unlinked:
        notes.append(no_prerequisite_note(unlinked))
    if len(groups) > 1:
        notes.insert(
            0,
            f"read by topic ({len(groups)} topics, never interleaved): "
            + "; ".join(f"“{t.label if t else 'Other sources'}” ({len(m)})" for t, m in groups),
        )
    plan = LearningPathPlan(
        steps=tuple(s.step for s in steps), broken_cycles=tuple(broken), notes=tuple(notes)
    )
    return plan, steps
