"""The canvas graph (read side): sources, concepts and saved answers with typed edges,
paged for large workspaces.

Paging: the nodes are ordered by importance within their type — sources by citations here,
then citation count, then quality; concepts by the number of sources that discuss them;
saved answers newest first; ties by id — and the three orders are interleaved in proportion
to their sizes, so every page is a representative slice of the map. A page carries the
edges whose two ends are on this page or an earlier one and one end is on this page: pages
never repeat a node or an edge, and all pages together are the whole graph.

The cursor is a keyset, not an offset: opaque (base64url JSON), it holds the time of the
first page (the snapshot) and, per node type, the key (importance, id) of the last node
delivered and how many were. The next page is each type's nodes after that key. Sources,
concepts and answers created after the snapshot are left out of the later pages (the
canvas refetches from the first page when a job adds some), and the importance counts only
what the snapshot's sources contribute, so a source arriving while a client pages neither
shifts a page nor changes the order of what is still to come: every node of the snapshot
comes exactly once. (What the snapshot cannot hold still: a source's own citation count or
quality changed by enrichment between two pages, and which concepts ``max_concepts`` keeps
when their centrality is recomputed meanwhile.)
"""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from pydantic import ValidationError

from marginalia.db.models import Concept
from marginalia.errors import ValidationFailed
from marginalia.knowledge import repository as repo
from marginalia.knowledge.context import KnowledgeContext, require_workspace
from marginalia.knowledge.repository import citations as cite_repo
from marginalia.knowledge.text import normalize_whitespace
from marginalia.knowledge.topic_read import topics_of
from marginalia.knowledge.views import (
    EdgeType,
    GraphEdge,
    GraphNode,
    GraphView,
    SynthesisAnswer,
    SynthesisClaim,
    SynthesisPassage,
    TopicView,
)

TYPES = ("source", "concept", "synthesis")
MAX_CURSOR_CHARS = 2048
NodeKey = tuple[tuple[float, ...], str]


@dataclass
class Cursor:
    """Where the next page starts: the snapshot's time, and per node type the key of the
    last node delivered and how many of that type were."""

    as_of: datetime
    last: dict[str, NodeKey] = field(default_factory=dict)
    delivered: dict[str, int] = field(default_factory=dict)

    def encode(self) -> str:
        body = {
            "v": 1,
            "t": self.as_of.isoformat(),
            "k": {t: [list(k[0]), k[1]] for t, k in self.last.items()},
            "n": self.delivered,
        }
        raw = json.dumps(body, separators=(",", ":")).encode()
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def parse_cursor(cursor: str | None) -> Cursor | None:
    """The position a cursor names (None: the first page); a cursor that is not one of
    this endpoint's ``next_cursor`` is the caller's error."""
    if cursor is None or cursor == "":
        return None
    bad = ValidationFailed(f"cursor {cursor[:40]!r} is not a next_cursor of this graph")
    if len(cursor) > MAX_CURSOR_CHARS:
        raise bad
    try:
        body = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        if not isinstance(body, dict) or body.get("v") != 1:
            raise bad
        as_of = datetime.fromisoformat(body["t"])
        if as_of.tzinfo is None:
            raise bad
        last: dict[str, NodeKey] = {}
        for t, k in dict(body["k"]).items():
            values, node_id = k
            if t not in TYPES or not isinstance(node_id, str) or not isinstance(values, list):
                raise bad
            if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
                raise bad
            last[t] = (tuple(float(v) for v in values), node_id)
        delivered = {str(t): int(n) for t, n in dict(body["n"]).items()}
        if any(t not in TYPES or n < 0 for t, n in delivered.items()):
            raise bad
    except (ValueError, TypeError, KeyError, RecursionError, binascii.Error) as exc:
        raise bad from exc
    return Cursor(as_of=as_of, last=last, delivered=delivered)


def node_key(node: GraphNode, importance: Mapping[str, tuple[float, ...]]) -> NodeKey:
    """A node's place in its type's order: most important first, ties by id."""
    return (tuple(-v for v in importance.get(node.id, ())), node.id)


def importance_order(
    nodes: Sequence[GraphNode],
    importance: Mapping[str, tuple[float, ...]],
    *,
    already: Mapping[str, int] | None = None,
) -> list[GraphNode]:
    """Each type's nodes most important first (ties by id), interleaved by type in
    proportion to each type's size: the k-th node of a type of n stands at about k/n, so
    the first page opens with the most important node of every type. ``already``: how many
    of each type earlier pages delivered (they count towards the type's share)."""
    done = dict(already or {})
    by_type: dict[str, list[GraphNode]] = {}
    for n in nodes:
        by_type.setdefault(n.type, []).append(n)
    for group in by_type.values():
        group.sort(key=lambda n: node_key(n, importance))
    ordered: list[GraphNode] = []
    taken = dict.fromkeys(by_type, 0)
    types = sorted(by_type, key=TYPES.index)
    size = {t: done.get(t, 0) + len(by_type[t]) for t in types}
    while len(ordered) < len(nodes):
        # The type furthest behind its share goes next.
        t = min(
            (t for t in types if taken[t] < len(by_type[t])),
            key=lambda t: ((done.get(t, 0) + taken[t]) / size[t], types.index(t)),
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
    cursor: Cursor,
) -> GraphView:
    """The page after ``cursor`` (see the module's docstring); ``limit`` None: all the rest."""

    def before(n: GraphNode) -> bool:
        last = cursor.last.get(n.type)
        return last is not None and node_key(n, importance) <= last

    earlier = {n.id for n in nodes if before(n)}
    ordered = importance_order(
        [n for n in nodes if n.id not in earlier], importance, already=cursor.delivered
    )
    page = ordered if limit is None else ordered[:limit]
    on_page = {n.id for n in page}
    known = earlier | on_page
    page_edges = [
        e
        for e in edges
        if (e.source in on_page or e.target in on_page) and e.source in known and e.target in known
    ]
    remaining = len(ordered) - len(page)
    next_cursor = None
    if remaining:
        last = dict(cursor.last)
        delivered = dict(cursor.delivered)
        for n in page:
            last[n.type] = node_key(n, importance)
            delivered[n.type] = delivered.get(n.type, 0) + 1
        next_cursor = Cursor(as_of=cursor.as_of, last=last, delivered=delivered).encode()
    return GraphView(
        nodes=list(page),
        edges=page_edges,
        total_nodes=len(nodes),
        next_cursor=next_cursor,
        remaining=remaining,
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
    position = parse_cursor(cursor)
    async with ctx.db.session() as session:
        await require_workspace(session, workspace_id)
        as_of = position.as_of if position else await repo.database_now(session)
        position = position or Cursor(as_of=as_of)
        sources = await repo.workspace_sources(session, workspace_id)
        concepts = await repo.list_concepts(session, workspace_id)
        links = await repo.source_concept_links(session, workspace_id)
        weights = await repo.source_concept_weights(session, workspace_id)
        concept_edges = await repo.list_concept_edges(session, workspace_id)
        source_edges = await repo.list_source_edges(session, workspace_id)
        clusters = await repo.list_clusters(session, workspace_id)
        syntheses = await repo.syntheses(session, workspace_id) if include_syntheses else []
        citations = await cite_repo.citation_edges(session, workspace_id)
    # The snapshot: what existed when the first page was made.
    sources = [s for s in sources if s.created_at is None or s.created_at <= as_of]
    concepts = [c for c in concepts if c.created_at is None or c.created_at <= as_of]
    syntheses = [s for s in syntheses if s.created_at is None or s.created_at <= as_of]
    source_ids = {s.id for s in sources}
    links = [(sid, cid) for sid, cid in links if sid in source_ids]
    citations = [c for c in citations if c.citing in source_ids]
    cited_by = Counter(c.cited for c in citations)
    cluster_of = {sid: c.id for c, members in clusters for sid in members}
    topics = topics_of(sources, concepts, links, source_edges, citations, weights)
    topic_of = {sid: t.id for t in topics for sid in t.members}
    if max_concepts is not None:
        keep = sorted(concepts, key=lambda c: (-(c.centrality or 0.0), c.slug))[:max_concepts]
        concepts = sorted(keep, key=lambda c: c.slug)
    by_id: dict[uuid.UUID, Concept] = {c.id: c for c in concepts}
    df = Counter(cid for _, cid in links)
    nodes: list[GraphNode] = []
    for s in sources:
        nodes.append(
            GraphNode(
                id=f"source:{s.id}",
                type="source",
                label=s.title,
                cluster_id=cluster_of.get(s.id),
                topic_id=topic_of.get(str(s.id)),
                data={
                    "year": s.year,
                    "quality": s.quality_score,
                    "tldr": s.tldr,
                    "cited_by_here": cited_by.get(s.id, 0),
                    "citation_count": s.citation_count,
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
        # Not the centrality: a knowledge update recomputes it while a client pages.
        importance[f"concept:{c.slug}"] = (float(df.get(c.id, 0)),)
    for rank, syn in enumerate(syntheses):  # newest first
        importance[f"synthesis:{syn.message_id}"] = (
            (syn.created_at.timestamp(),) if syn.created_at else (float(-rank),)
        )
    view = page_graph(nodes, edges, importance, limit=limit, cursor=position)
    slugs = {str(c.id): c.slug for c in concepts}
    view.topics = [
        TopicView(
            id=t.id,
            label=t.label,
            concepts=[c.name for c in concepts if str(c.id) in t.concepts],
            # max_concepts may have left some of the topic's concepts out of this view.
            concept_ids=[f"concept:{slugs[k]}" for k in t.concepts if k in slugs],
            source_count=len(t.members),
        )
        for t in topics
    ]
    return view


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
