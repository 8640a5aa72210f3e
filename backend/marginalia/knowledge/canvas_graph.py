"""The canvas graph (read side): sources, concepts and saved answers with typed edges,
paged for large workspaces.

Paging: the nodes are ordered by importance within their type — sources by citations here,
then citation count, then quality; concepts by the number of sources that discuss them,
then centrality; saved answers newest first — and the three orders are interleaved in
proportion to their sizes, so every page is a representative slice of the map. A page
carries the edges whose two ends are on this page or an earlier one and one end is on this
page: pages never repeat a node or an edge, and all pages together are the whole graph.
The cursor is the offset of the next page's first node in that order (a number as text),
so a graph that changes between two requests may shift by the nodes added meanwhile.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Mapping, Sequence

from pydantic import ValidationError

from marginalia.db.models import Concept
from marginalia.errors import ValidationFailed
from marginalia.knowledge import repository as repo
from marginalia.knowledge.context import KnowledgeContext, require_workspace
from marginalia.knowledge.repository import citations as cite_repo
from marginalia.knowledge.text import normalize_whitespace
from marginalia.knowledge.views import (
    EdgeType,
    GraphEdge,
    GraphNode,
    GraphView,
    SynthesisAnswer,
    SynthesisClaim,
    SynthesisPassage,
)

MAX_CURSOR = 10_000_000


def parse_cursor(cursor: str | None) -> int:
    """The offset a cursor names; a cursor that is not one is the caller's error."""
    if cursor is None or cursor == "":
        return 0
    if not cursor.isdigit() or len(cursor) > 8 or int(cursor) > MAX_CURSOR:
        raise ValidationFailed(f"cursor {cursor[:40]!r} is not a next_cursor of this graph")
    return int(cursor)


def importance_order(
    nodes: Sequence[GraphNode], importance: Mapping[str, tuple[float, ...]]
) -> list[GraphNode]:
    """Each type's nodes most important first (ties by id), interleaved by type in
    proportion to each type's size: the k-th node of a type of n stands at about k/n, so
    the first page opens with the most important node of every type."""
    by_type: dict[str, list[GraphNode]] = {}
    for n in nodes:
        by_type.setdefault(n.type, []).append(n)
    for group in by_type.values():
        group.sort(key=lambda n: (tuple(-v for v in importance.get(n.id, ())), n.id))
    ordered: list[GraphNode] = []
    taken = dict.fromkeys(by_type, 0)
    types = sorted(by_type, key=["source", "concept", "synthesis"].index)
    while len(ordered) < len(nodes):
        # The type furthest behind its share goes next.
        t = min(
            (t for t in types if taken[t] < len(by_type[t])),
            key=lambda t: (taken[t] / len(by_type[t]), types.index(t)),
        )
        ordered.append(by_type[t][taken[t]])
        taken[t] += 1
    return ordered


def page_graph(
    nodes: Sequence[GraphNode],
    edges: Sequence[GraphEdge],
    importance: Mapping[str, tuple[float, ...]],
    *,
    limit: int | None,
    offset: int = 0,
) -> GraphView:
    """One page of the graph (see the module's docstring); ``limit`` None: all of it."""
    ordered = importance_order(nodes, importance)
    total = len(ordered)
    end = total if limit is None else min(total, offset + limit)
    position = {n.id: i for i, n in enumerate(ordered)}
    page_edges = []
    for e in edges:
        a, b = position.get(e.source), position.get(e.target)
        if a is None or b is None:
            continue
        last = max(a, b)
        if offset <= last < end:
            page_edges.append(e)
    return GraphView(
        nodes=list(ordered[offset:end]),
        edges=page_edges,
        total_nodes=total,
        next_cursor=str(end) if end < total else None,
        remaining=total - end,
    )


async def graph_view(
    ctx: KnowledgeContext,
    workspace_id: uuid.UUID,
    *,
    max_concepts: int | None = None,
    include_syntheses: bool = True,
    limit: int | None = None,
    cursor: str | None = None,
) -> GraphView:
    """Nodes (sources, concepts, syntheses) and typed, labelled edges for the canvas.

    ``max_concepts`` keeps the most central concepts only (None: all). ``limit`` pages the
    nodes in order of importance (see :func:`page_graph`); ``cursor`` is the previous
    page's ``next_cursor``. None: the whole graph in one page.
    """
    offset = parse_cursor(cursor)
    async with ctx.db.session() as session:
        await require_workspace(session, workspace_id)
        sources = await repo.workspace_sources(session, workspace_id)
        concepts = await repo.list_concepts(session, workspace_id)
        links = await repo.source_concept_links(session, workspace_id)
        concept_edges = await repo.list_concept_edges(session, workspace_id)
        source_edges = await repo.list_source_edges(session, workspace_id)
        clusters = await repo.list_clusters(session, workspace_id)
        syntheses = await repo.syntheses(session, workspace_id) if include_syntheses else []
        citations = await cite_repo.citation_edges(session, workspace_id)
    cited_by = Counter(c.cited for c in citations)
    cluster_of = {sid: c.id for c, members in clusters for sid in members}
    if max_concepts is not None:
        keep = sorted(concepts, key=lambda c: (-(c.centrality or 0.0), c.slug))[:max_concepts]
        concepts = sorted(keep, key=lambda c: c.slug)
    by_id: dict[uuid.UUID, Concept] = {c.id: c for c in concepts}
    df = Counter(cid for _, cid in links)
    source_ids = {s.id for s in sources}
    nodes: list[GraphNode] = []
    for s in sources:
        nodes.append(
            GraphNode(
                id=f"source:{s.id}",
                type="source",
                label=s.title,
                cluster_id=cluster_of.get(s.id),
                data={
                    "year": s.year,
                    "quality": s.quality_score,
                    "tldr": s.tldr,
                    "cited_by_here": cited_by.get(s.id, 0),
                },
            )
        )
    for c in concepts:
        nodes.append(
            GraphNode(
                id=f"concept:{c.slug}",
                type="concept",
                label=c.name,
                level=c.level,
                data={"centrality": c.centrality, "sources": df.get(c.id, 0)},
            )
        )
    edges: list[GraphEdge] = []
    for e in source_edges:
        edges.append(
            GraphEdge(
                id=f"similar:{e.source_a_id}:{e.source_b_id}",
                source=f"source:{e.source_a_id}",
                target=f"source:{e.source_b_id}",
                type="similar",
                label=e.label,
                weight=1.0 if e.strength == "strong" else 0.5,
                data={"strength": e.strength, **e.signals},
            )
        )
    for cite in citations:
        if cite.citing in source_ids and cite.cited in source_ids:
            # Paper -> paper: the citing source's reference list names the cited one.
            edges.append(
                GraphEdge(
                    id=f"cites:{cite.citing}:{cite.cited}",
                    source=f"source:{cite.citing}",
                    target=f"source:{cite.cited}",
                    type="cites",
                    label="cites",
                    weight=cite.score,
                    data={"match": cite.how, "reference": cite.reference},
                )
            )
    for sid, cid in sorted(links, key=lambda x: (str(x[0]), str(x[1]))):
        if cid in by_id and sid in source_ids:
            edges.append(
                GraphEdge(
                    id=f"discusses:{sid}:{by_id[cid].slug}",
                    source=f"source:{sid}",
                    target=f"concept:{by_id[cid].slug}",
                    type="discusses",
                )
            )
    for ce in sorted(
        concept_edges, key=lambda e: (str(e.source_concept_id), str(e.target_concept_id))
    ):
        a, b = by_id.get(ce.source_concept_id), by_id.get(ce.target_concept_id)
        if a is None or b is None:
            continue
        edge_type: EdgeType = (
            "prerequisite"
            if ce.edge_type == "prerequisite"
            else "specialization"
            if ce.edge_type == "specialization"
            else "related"
        )
        edges.append(
            GraphEdge(
                id=f"{edge_type}:{a.slug}:{b.slug}",
                source=f"concept:{a.slug}",
                target=f"concept:{b.slug}",
                type=edge_type,
                label=edge_type,
                weight=ce.weight,
                data={"evidence": ce.evidence},
            )
        )
    for syn in syntheses:
        mid = syn.message_id
        nodes.append(
            GraphNode(
                id=f"synthesis:{mid}",
                type="synthesis",
                label=normalize_whitespace(syn.question or syn.content)[:80],
                data={
                    "question": syn.question,
                    "claims": syn.claim_count,
                    "conversation_id": str(syn.conversation_id),
                    "message_id": str(mid),
                },
                answer=_synthesis_answer(syn),
            )
        )
        for item in syn.cited:
            sid_text = item.get("source_id") if isinstance(item, dict) else item
            try:
                sid = uuid.UUID(str(sid_text))
            except ValueError:
                continue
            if sid in source_ids:
                edges.append(
                    GraphEdge(
                        id=f"cites:{mid}:{sid}",
                        source=f"synthesis:{mid}",
                        target=f"source:{sid}",
                        type="cites",
                    )
                )
    importance: dict[str, tuple[float, ...]] = {
        f"source:{s.id}": (
            float(cited_by.get(s.id, 0)),
            float(s.citation_count or 0),
            float(s.quality_score or 0.0),
        )
        for s in sources
    }
    for c in concepts:
        importance[f"concept:{c.slug}"] = (float(df.get(c.id, 0)), float(c.centrality or 0.0))
    for rank, syn in enumerate(syntheses):  # newest first
        importance[f"synthesis:{syn.message_id}"] = (float(-rank),)
    return page_graph(nodes, edges, importance, limit=limit, offset=offset)


def _synthesis_answer(syn: repo.SynthesisRow) -> SynthesisAnswer:
    """The stored answer's claims and the passages they cite; malformed parts of an
    older stored answer are skipped, not fatal."""
    claims: list[SynthesisClaim] = []
    for c in syn.claims:
        try:
            claims.append(SynthesisClaim.model_validate(c))
        except ValidationError:
            continue
    cited = {n for c in claims for n in c.citations}
    passages: list[SynthesisPassage] = []
    for p in syn.passages:
        try:
            passage = SynthesisPassage.model_validate(p)
        except ValidationError:
            continue
        if passage.n in cited:
            passages.append(passage)
    return SynthesisAnswer(
        conversation_id=syn.conversation_id,
        message_id=syn.message_id,
        claims=claims,
        passages=sorted(passages, key=lambda p: p.n),
    )
