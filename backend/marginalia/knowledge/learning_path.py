"""Learning paths: planned from the concept graph (with the model's annotations when
one is configured), stored, read back (stale once the knowledge changed), steps marked read."""

from __future__ import annotations

import re
import uuid
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from marginalia.errors import NotFoundError
from marginalia.knowledge import llm_extraction as llmx
from marginalia.knowledge import repository as repo
from marginalia.knowledge.concept_graph import ConceptEdge as PureConceptEdge
from marginalia.knowledge.context import KnowledgeContext, require_workspace, resolve_llm
from marginalia.knowledge.paths import PathSource
from marginalia.knowledge.sentences import shown
from marginalia.knowledge.text import display_text
from marginalia.knowledge.topic_paths import plan_topic_paths
from marginalia.knowledge.topic_read import load_topics
from marginalia.knowledge.views import (
    LearningPathView,
    PathConceptView,
    PathPrerequisiteView,
    PathStepView,
)
from marginalia.llm.base import LLMProvider

MIN_TAKEAWAY_WORDS = 8
_OTHERS_WORK_RE = re.compile(
    r"^(?:[A-Z][\w'’-]+(?: and [A-Z][\w'’-]+| et al\.)?\s*(?:\(\d{4}[a-z]?\)|\[\d+\]))"
    r"|\blimitations?\b|\bfuture work\b",
)


def takeaways_of(candidates: Sequence[str | None]) -> list[str]:
    """What a reader should take from a source: prose sentences (heading or "Results:" label
    dropped) of at least :data:`MIN_TAKEAWAY_WORDS` words that state the source's own point —
    not another paper's ("Smith et al. (2018) report …") and not a limitation — in order,
    unique."""
    out: list[str] = []
    for raw in candidates:
        if not raw or len(raw.split()) < MIN_TAKEAWAY_WORDS or not shown(raw):
            continue
        text = display_text(raw)
        if _OTHERS_WORK_RE.search(text) or text in out:
            continue
        out.append(text)
    return out


async def generate_learning_path(
    ctx: KnowledgeContext, workspace_id: uuid.UUID, *, llm: LLMProvider | None = None
) -> LearningPathView:
    """Plan, annotate (LLM when available) and store a learning path; returns it.

    Steps of sources that were marked read in the previous path stay read."""
    provider = resolve_llm(ctx, llm)
    async with ctx.db.session() as session:
        workspace = await require_workspace(session, workspace_id)
        sources = await repo.workspace_sources(session, workspace_id)
        concepts = await repo.list_concepts(session, workspace_id)
        links = await repo.source_concept_links(session, workspace_id)
        edges = await repo.list_concept_edges(session, workspace_id)
        version = await repo.knowledge_version(session, workspace_id)
        topics = await load_topics(session, workspace_id, sources, concepts, links)
    by_id = {c.id: c for c in concepts}
    covered: dict[uuid.UUID, dict[str, int]] = defaultdict(dict)
    for sid, cid in links:
        if cid in by_id:
            covered[sid][by_id[cid].slug] = by_id[cid].level
    pure_edges = [
        PureConceptEdge(
            by_id[e.source_concept_id].slug,
            by_id[e.target_concept_id].slug,
            e.edge_type,  # type: ignore[arg-type]
            e.weight,
            e.evidence or "",
        )
        for e in edges
        if e.source_concept_id in by_id and e.target_concept_id in by_id
    ]
    path_sources = [
        PathSource(
            id=str(s.id),
            title=s.title,
            summary=s.summary or "",
            total_chars=s.total_chars,
            concepts=covered.get(s.id, {}),
            takeaways=tuple(
                takeaways_of([*s.key_results, *s.contributions, s.tldr])
                or takeaways_of([s.summary])
            ),
            year=s.year,
            citations=s.citation_count or 0,
        )
        for s in sources
    ]
    plan, _ = plan_topic_paths(path_sources, pure_edges, topics)
    takeaways = {st.source_id: list(st.key_takeaways) for st in plan.steps}
    notes = list(plan.notes)
    if plan.broken_cycles:
        notes.append(
            "cycles in the concept prerequisites were broken by dropping the lightest "
            "dependency (ties: lexicographically last): " + "; ".join(plan.broken_cycles)
        )
    engine = llmx.OFFLINE_ENGINE
    if llmx.is_generative(provider) and plan.steps:
        summaries = {s.id: s.summary or "" for s in path_sources}
        annotation = await llmx.annotate_path(
            provider,
            llmx.path_prompt(
                [
                    (st.source_id, st.title, summaries[st.source_id], st.concepts_covered)
                    for st in plan.steps
                ]
            ),
        )
        if annotation is not None:
            engine = llmx.engine_name(provider)
            for ann in annotation.steps:
                if ann.source_id in takeaways and ann.takeaways:
                    takeaways[ann.source_id] = [t for t in ann.takeaways if t.strip()][:3]
            if annotation.overview.strip():
                notes.insert(0, annotation.overview.strip())
    async with ctx.db.transaction() as session:
        read = await repo.read_marks(session, workspace_id)
        path_id = await repo.insert_learning_path(
            session,
            workspace_id,
            title=f"Reading path: {workspace.name}",
            broken_cycles=list(plan.broken_cycles),
            notes="\n".join(notes) or None,
            engine=engine,
            knowledge_version=version,
            source_ids=[s.id for s in sources],
            steps=[
                {
                    "position": st.position,
                    "source_id": uuid.UUID(st.source_id),
                    "difficulty": st.difficulty,
                    "prerequisites": [
                        {"source_id": p, "concepts": list(st.prerequisite_concepts.get(p, ()))}
                        for p in st.prerequisites
                    ],
                    "takeaways": takeaways.get(st.source_id, []),
                    "concepts": list(st.concepts_covered),
                    "reading_minutes": st.reading_minutes,
                    "read_at": read.get(uuid.UUID(st.source_id)),
                }
                for st in plan.steps
            ],
        )
    view = await latest_learning_path(ctx, workspace_id)
    assert view is not None and view.id == path_id
    return view


def _prerequisite(item: Any) -> tuple[str, list[str]]:
    """A stored prerequisite: ``{"source_id", "concepts"}`` (older paths: the id alone)."""
    if isinstance(item, dict):
        return str(item.get("source_id")), [str(c) for c in item.get("concepts") or []]
    return str(item), []


async def latest_learning_path(
    ctx: KnowledgeContext, workspace_id: uuid.UUID
) -> LearningPathView | None:
    async with ctx.db.session() as session:
        await require_workspace(session, workspace_id)
        found = await repo.latest_learning_path(session, workspace_id)
        if found is None:
            return None
        path, steps = found
        sources = await repo.workspace_sources(session, workspace_id)
        concepts = {c.slug: c for c in await repo.list_concepts(session, workspace_id)}
        version = await repo.knowledge_version(session, workspace_id)
        links = await repo.source_concept_links(session, workspace_id)
        topics = await load_topics(session, workspace_id, sources, list(concepts.values()), links)
    topic_of = {m: t for t in topics for m in t.members}
    titles = {str(s.id): s.title for s in sources}
    position = {str(st.source_id): st.position for st in steps}
    stale = path.knowledge_version != version
    reason = None
    if stale:
        in_path = {str(s) for s in path.source_ids} or {str(st.source_id) for st in steps}
        added = len(set(titles) - in_path)
        removed = len(in_path - set(titles))
        # Shown to the researcher as it is (the web app, the CLI): plain words, no API hint.
        parts = [_count(added, "source") + " added"] if added else []
        parts += [_count(removed, "source") + " removed"] if removed else []
        reason = "the workspace's knowledge changed since this path was made" + (
            f" ({', '.join(parts)})" if parts else " (its concepts were recomputed)"
        )

    def name(slug: str) -> str:
        return concepts[slug].name if slug in concepts else slug.replace("-", " ")

    out_steps: list[PathStepView] = []
    seen: dict[str | None, set[str]] = {}
    for st in steps:
        topic = topic_of.get(str(st.source_id))
        earlier = seen.setdefault(topic.id if topic else None, set())
        prereqs = []
        for item in st.prerequisites:
            sid, slugs = _prerequisite(item)
            try:
                pid = uuid.UUID(sid)
            except ValueError:
                continue
            prereqs.append(
                PathPrerequisiteView(
                    source_id=pid,
                    title=titles.get(sid, "(removed source)"),
                    position=position.get(sid),
                    concepts=[name(c) for c in slugs],
                )
            )
        introduced = [c for c in st.concepts if c not in earlier]
        earlier.update(st.concepts)
        out_steps.append(
            PathStepView(
                id=st.id,
                position=st.position,
                source_id=st.source_id,
                title=titles.get(str(st.source_id), "(removed source)"),
                difficulty=st.difficulty,
                prerequisites=prereqs,
                key_takeaways=list(st.takeaways),
                concepts_covered=list(st.concepts),
                concepts=[
                    PathConceptView(
                        slug=c,
                        name=name(c),
                        level=concepts[c].level if c in concepts else None,
                    )
                    for c in st.concepts
                ],
                reading_minutes=st.reading_minutes,
                read=st.read_at is not None,
                read_at=st.read_at,
                topic_id=topic.id if topic else None,
                topic=topic.label if topic else None,
                why=step_reason(
                    prereqs,
                    [name(c) for c in introduced],
                    first=not out_steps or out_steps[-1].topic_id != (topic.id if topic else None),
                ),
            )
        )
    return LearningPathView(
        id=path.id,
        title=path.title,
        engine=path.engine,
        notes=path.notes,
        broken_cycles=list(path.broken_cycles),
        created_at=path.created_at,
        stale=stale,
        stale_reason=reason,
        steps_read=sum(s.read for s in out_steps),
        steps=out_steps,
    )


async def mark_step_read(
    ctx: KnowledgeContext, workspace_id: uuid.UUID, step_id: uuid.UUID, *, read: bool
) -> LearningPathView:
    """Mark a step read (or unread) on the server; returns the path the step belongs to
    when it is the latest (the usual case)."""
    async with ctx.db.transaction() as session:
        await require_workspace(session, workspace_id)
        step = await repo.set_step_read(session, workspace_id, step_id, read=read)
        if step is None:
            raise NotFoundError(f"no learning path step {step_id} in workspace {workspace_id}")
    view = await latest_learning_path(ctx, workspace_id)
    assert view is not None
    return view


MAX_REASON_CONCEPTS = 4


def step_reason(
    prereqs: Sequence[PathPrerequisiteView], introduced: list[str], *, first: bool
) -> str:
    """Why a step stands where it does: the steps (and concepts) it needs, the concepts it
    introduces to its topic."""
    parts: list[str] = []
    needs = [p for p in prereqs if p.position is not None]
    if needs:
        parts.append(
            "Needs "
            + "; ".join(
                f"{', '.join(p.concepts[:MAX_REASON_CONCEPTS]) or 'its groundwork'} "
                f"(step {p.position})"
                for p in needs
            )
            + "."
        )
    elif first:
        parts.append("Starts this topic: the most foundational of its sources.")
    else:
        parts.append("No concept prerequisite; more specialised than the steps before it.")
    if introduced:
        shown_names = ", ".join(introduced[:MAX_REASON_CONCEPTS])
        more = len(introduced) - MAX_REASON_CONCEPTS
        parts.append(f"Introduces {shown_names}" + (f" and {more} more." if more > 0 else "."))
    return " ".join(parts)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")
