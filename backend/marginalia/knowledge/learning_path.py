"""Learning paths: planned from the concept graph (with the model's annotations when
one is configured), stored, and read back."""

from __future__ import annotations

import uuid
from collections import defaultdict

from marginalia.knowledge import llm_extraction as llmx
from marginalia.knowledge import repository as repo
from marginalia.knowledge.concept_graph import ConceptEdge as PureConceptEdge
from marginalia.knowledge.context import KnowledgeContext, require_workspace, resolve_llm
from marginalia.knowledge.paths import PathSource, plan_learning_path
from marginalia.knowledge.views import (
    LearningPathView,
    PathStepView,
)
from marginalia.llm.base import LLMProvider


async def generate_learning_path(
    ctx: KnowledgeContext, workspace_id: uuid.UUID, *, llm: LLMProvider | None = None
) -> LearningPathView:
    """Plan, annotate (LLM when available) and store a learning path; returns it."""
    provider = resolve_llm(ctx, llm)
    async with ctx.db.session() as session:
        workspace = await require_workspace(session, workspace_id)
        sources = await repo.workspace_sources(session, workspace_id)
        concepts = await repo.list_concepts(session, workspace_id)
        links = await repo.source_concept_links(session, workspace_id)
        edges = await repo.list_concept_edges(session, workspace_id)
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
            takeaways=tuple(s.key_results or s.contributions),
        )
        for s in sources
    ]
    plan = plan_learning_path(path_sources, pure_edges)
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
        path_id = await repo.insert_learning_path(
            session,
            workspace_id,
            title=f"Reading path: {workspace.name}",
            broken_cycles=list(plan.broken_cycles),
            notes="\n".join(notes) or None,
            engine=engine,
            steps=[
                {
                    "position": st.position,
                    "source_id": uuid.UUID(st.source_id),
                    "difficulty": st.difficulty,
                    "prerequisites": list(st.prerequisites),
                    "takeaways": takeaways.get(st.source_id, []),
                    "concepts": list(st.concepts_covered),
                    "reading_minutes": st.reading_minutes,
                }
                for st in plan.steps
            ],
        )
    view = await latest_learning_path(ctx, workspace_id)
    assert view is not None and view.id == path_id
    return view


async def latest_learning_path(
    ctx: KnowledgeContext, workspace_id: uuid.UUID
) -> LearningPathView | None:
    async with ctx.db.session() as session:
        await require_workspace(session, workspace_id)
        found = await repo.latest_learning_path(session, workspace_id)
        if found is None:
            return None
        path, steps = found
        titles = {s.id: s.title for s in await repo.workspace_sources(session, workspace_id)}
    return LearningPathView(
        id=path.id,
        title=path.title,
        engine=path.engine,
        notes=path.notes,
        broken_cycles=list(path.broken_cycles),
        created_at=path.created_at,
        steps=[
            PathStepView(
                position=st.position,
                source_id=st.source_id,
                title=titles.get(st.source_id, ""),
                difficulty=st.difficulty,
                prerequisites=[str(p) for p in st.prerequisites],
                key_takeaways=list(st.takeaways),
                concepts_covered=list(st.concepts),
                reading_minutes=st.reading_minutes,
            )
            for st in steps
        ],
    )
