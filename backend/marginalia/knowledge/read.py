"""The read side: the canvas graph, concepts, claims with evidence and wiki pages as
the API and CLI show them."""

from __future__ import annotations

import uuid
from collections import Counter, defaultdict

from sqlalchemy.ext.asyncio import AsyncSession

from marginalia.db.models import Concept, ConceptEdge
from marginalia.errors import NotFoundError
from marginalia.knowledge import repository as repo
from marginalia.knowledge.canvas_graph import graph_view as graph_view
from marginalia.knowledge.context import KnowledgeContext, require_workspace
from marginalia.knowledge.gaps import GapClaim, GapConcept, GapEvidence, find_gaps
from marginalia.knowledge.repository import citations as cite_repo
from marginalia.knowledge.views import (
    CitationView,
    ClaimView,
    ConceptView,
    EvidenceView,
    GapResearch,
    GapsView,
    GapView,
    SourceCitationsView,
    WikiBacklinkView,
    WikiCitationView,
    WikiPageSummary,
    WikiPageView,
    WikiRevisionSummary,
    WikiRevisionView,
)
from marginalia.knowledge.wiki import (
    CitationTarget,
    broken_links,
    extract_citations,
    reader_href,
    render_citations,
)


async def list_concepts(ctx: KnowledgeContext, workspace_id: uuid.UUID) -> list[ConceptView]:
    async with ctx.db.session() as session:
        await require_workspace(session, workspace_id)
        concepts = await repo.list_concepts(session, workspace_id)
        links = await repo.source_concept_links(session, workspace_id)
    sources: dict[uuid.UUID, list[uuid.UUID]] = defaultdict(list)
    for sid, cid in links:
        sources[cid].append(sid)
    return [
        ConceptView(
            id=c.id,
            slug=c.slug,
            name=c.name,
            level=c.level,
            description=c.description,
            aliases=list(c.aliases),
            centrality=c.centrality,
            source_ids=sorted(sources.get(c.id, []), key=str),
        )
        for c in sorted(concepts, key=lambda c: (-(c.centrality or 0.0), c.slug))
    ]


async def list_claims(
    ctx: KnowledgeContext, workspace_id: uuid.UUID, *, source_id: uuid.UUID | None = None
) -> list[ClaimView]:
    async with ctx.db.session() as session:
        await require_workspace(session, workspace_id)
        items = await repo.claims_with_evidence(session, workspace_id, source_id=source_id)
        titles = {s.id: s.title for s in await repo.workspace_sources(session, workspace_id)}
    return [
        ClaimView(
            id=c.id,
            source_id=c.source_id,
            text=c.text,
            quote=c.quote,
            chunk_id=c.chunk_id,
            evidence=[
                EvidenceView(
                    source_id=e.source_id,
                    source_title=titles.get(e.source_id),
                    chunk_id=e.chunk_id,
                    relation=e.relation,
                    score=e.score,
                    rationale=e.rationale,
                    engine=e.engine,
                )
                for e in evidence
            ],
        )
        for c, evidence in items
    ]


async def list_wiki_pages(ctx: KnowledgeContext, workspace_id: uuid.UUID) -> list[WikiPageSummary]:
    async with ctx.db.session() as session:
        await require_workspace(session, workspace_id)
        pages = await repo.list_wiki_pages(session, workspace_id)
    return [
        WikiPageSummary(
            slug=p.slug,
            title=p.title,
            revision=p.revision,
            links=list(p.links),
            updated_at=p.updated_at,
        )
        for p in pages
    ]


async def _citations(
    session: AsyncSession, workspace_id: uuid.UUID, body: str
) -> tuple[str, list[WikiCitationView]]:
    """``body`` with its citations rendered, and the citations (:func:`render_citations`)."""
    titles = {s.id: s.title for s in await repo.workspace_sources(session, workspace_id)}
    markers = extract_citations(body)
    ids: list[uuid.UUID] = []
    for sid_text, _ in markers:
        try:
            ids.append(uuid.UUID(sid_text))
        except ValueError:
            continue
    pages = await repo.cited_chunk_pages(
        session, sorted(set(ids), key=str), [i for _, i in markers if i is not None]
    )
    targets: dict[tuple[str, int | None], CitationTarget] = {}
    citations: list[WikiCitationView] = []
    for sid_text, index in markers:
        try:
            sid = uuid.UUID(sid_text)
        except ValueError:
            continue
        if sid not in titles:
            continue
        target = CitationTarget(
            str(sid), index, titles[sid], pages.get((sid, index)) if index is not None else None
        )
        targets[(sid_text, index)] = target
        citations.append(
            WikiCitationView(
                source_id=sid,
                chunk_index=index,
                title=target.title,
                page=target.page,
                href=reader_href(str(workspace_id), target),
            )
        )
    return render_citations(body, targets, str(workspace_id)), citations


async def get_wiki_page(ctx: KnowledgeContext, workspace_id: uuid.UUID, slug: str) -> WikiPageView:
    async with ctx.db.session() as session:
        await require_workspace(session, workspace_id)
        page = await repo.get_wiki_page(session, workspace_id, slug)
        if page is None:
            raise NotFoundError(f"no wiki page {slug!r} in workspace {workspace_id}")
        revisions = await repo.revision_count(session, page.id)
        backlinks = [s for s in await repo.backlinks(session, workspace_id, slug) if s != slug]
        titles = {p.slug: p.title for p in await repo.list_wiki_pages(session, workspace_id)}
        known = set(titles)
        body, citations = await _citations(session, workspace_id, page.body)
    return WikiPageView(
        slug=page.slug,
        title=page.title,
        revision=page.revision,
        links=list(page.links),
        updated_at=page.updated_at,
        body=body,
        body_raw=page.body,
        cited=list(page.cited),
        citations=citations,
        revisions=revisions,
        backlinks=backlinks,
        backlink_pages=[WikiBacklinkView(slug=s, title=titles.get(s, s)) for s in backlinks],
        broken_links=broken_links(page.body, known),
    )


async def wiki_revisions(
    ctx: KnowledgeContext, workspace_id: uuid.UUID, slug: str
) -> list[WikiRevisionSummary]:
    """A page's revisions, newest first."""
    async with ctx.db.session() as session:
        await require_workspace(session, workspace_id)
        page = await repo.get_wiki_page(session, workspace_id, slug)
        if page is None:
            raise NotFoundError(f"no wiki page {slug!r} in workspace {workspace_id}")
        revisions = await repo.list_revisions(session, page.id)
    return [
        WikiRevisionSummary(
            revision=r.revision, title=r.title, reason=r.reason, created_at=r.created_at
        )
        for r in revisions
    ]


async def wiki_revision(
    ctx: KnowledgeContext, workspace_id: uuid.UUID, slug: str, revision: int
) -> WikiRevisionView:
    async with ctx.db.session() as session:
        await require_workspace(session, workspace_id)
        page = await repo.get_wiki_page(session, workspace_id, slug)
        if page is None:
            raise NotFoundError(f"no wiki page {slug!r} in workspace {workspace_id}")
        found = next(
            (r for r in await repo.list_revisions(session, page.id) if r.revision == revision),
            None,
        )
        if found is None:
            raise NotFoundError(f"wiki page {slug!r} has no revision {revision}")
        body, citations = await _citations(session, workspace_id, found.body)
    return WikiRevisionView(
        slug=slug,
        revision=found.revision,
        title=found.title,
        reason=found.reason,
        created_at=found.created_at,
        body=body,
        body_raw=found.body,
        citations=citations,
    )


async def concept_edges(ctx: KnowledgeContext, workspace_id: uuid.UUID) -> list[ConceptEdge]:
    """Stored concept edges (for tests and tools)."""
    async with ctx.db.session() as session:
        await require_workspace(session, workspace_id)
        return await repo.list_concept_edges(session, workspace_id)


async def source_citations(ctx: KnowledgeContext, source_id: uuid.UUID) -> SourceCitationsView:
    """What ``source_id`` cites in its workspace and what cites it there."""
    async with ctx.db.session() as session:
        source = await repo.get_source(session, source_id)
        if source is None:
            raise NotFoundError(f"no source with id {source_id}")
        edges = await cite_repo.citation_edges(session, source.workspace_id, source_id=source_id)
        titles = {s.id: s.title for s in await repo.workspace_sources(session, source.workspace_id)}

    def view(other: uuid.UUID, e: cite_repo.CitationEdge) -> CitationView:
        return CitationView(
            source_id=other,
            title=titles.get(other),
            match=e.how,
            score=e.score,
            reference=e.reference,
        )

    return SourceCitationsView(
        source_id=source_id,
        cites=[view(e.cited, e) for e in edges if e.citing == source_id],
        cited_by=[view(e.citing, e) for e in edges if e.cited == source_id],
    )


async def citation_counts(
    ctx: KnowledgeContext, workspace_id: uuid.UUID
) -> dict[uuid.UUID, tuple[int, int]]:
    """``{source: (cited by N sources here, cites N sources here)}``."""
    async with ctx.db.session() as session:
        return await cite_repo.citation_counts(session, workspace_id)


async def source_concepts(
    ctx: KnowledgeContext, workspace_id: uuid.UUID
) -> dict[uuid.UUID, list[Concept]]:
    """Each source's concepts as the product ranks them for that source: the link's weight
    (the concept's standing in the source) first, then workspace centrality, then slug."""
    async with ctx.db.session() as session:
        await require_workspace(session, workspace_id)
        concepts = {c.id: c for c in await repo.list_concepts(session, workspace_id)}
        links = await repo.source_concept_weights(session, workspace_id)
    ranked: dict[uuid.UUID, list[tuple[float, Concept]]] = defaultdict(list)
    for sid, cid, weight in links:
        if cid in concepts:
            ranked[sid].append((weight, concepts[cid]))
    return {
        sid: [
            c
            for _, c in sorted(
                items, key=lambda wc: (-wc[0], -(wc[1].centrality or 0.0), wc[1].slug)
            )
        ]
        for sid, items in ranked.items()
    }


async def workspace_gaps(ctx: KnowledgeContext, workspace_id: uuid.UUID) -> GapsView:
    """What the workspace does not settle yet (:mod:`marginalia.knowledge.gaps`)."""
    async with ctx.db.session() as session:
        await require_workspace(session, workspace_id)
        sources = await repo.workspace_sources(session, workspace_id)
        concepts = await repo.list_concepts(session, workspace_id)
        weighted = await repo.source_concept_weights(session, workspace_id)
        edges = await repo.list_concept_edges(session, workspace_id)
        claims = await repo.claims_with_evidence(session, workspace_id)
    by_id = {c.id: c for c in concepts}
    discussed: dict[uuid.UUID, set[str]] = defaultdict(set)
    weight: dict[uuid.UUID, float] = defaultdict(float)
    for sid, cid, w in weighted:
        discussed[cid].add(str(sid))
        weight[cid] = max(weight[cid], w)
    gap_concepts = [
        GapConcept(
            slug=c.slug,
            name=c.name,
            level=c.level,
            source_ids=tuple(sorted(discussed.get(c.id, set()))),
            centrality=c.centrality or 0.0,
            description=c.description,
            weight=weight.get(c.id, 0.0),
        )
        for c in concepts
        if discussed.get(c.id)
    ]
    gap_edges = [
        (by_id[e.source_concept_id].slug, by_id[e.target_concept_id].slug, e.edge_type, e.weight)
        for e in edges
        if e.source_concept_id in by_id and e.target_concept_id in by_id
    ]
    gap_claims = [
        GapClaim(
            id=str(c.id),
            source_id=str(c.source_id),
            text=c.text,
            evidence=tuple(GapEvidence(str(e.source_id), e.relation, e.score) for e in ev),
        )
        for c, ev in claims
    ]
    titles = {str(s.id): s.title for s in sources}
    found = find_gaps(gap_concepts, gap_claims, gap_edges, titles)
    names = {c.slug: c.name for c in concepts}
    engines = {e.engine for _, ev in claims for e in ev if e.engine}
    counts: Counter[str] = Counter(g.kind for g in found)
    return GapsView(
        engine=", ".join(sorted(engines)) if engines - {"offline"} else "offline",
        counts=dict(sorted(counts.items())),
        gaps=[
            GapView(
                id=g.id,
                kind=g.kind,
                title=g.title,
                detail=g.detail,
                suggested_topic=g.suggested_topic,
                research=GapResearch(queries=list(g.queries)),
                score=round(g.score, 6),
                concepts=list(g.concepts),
                concept_names=[names.get(s, s) for s in g.concepts],
                claim_id=uuid.UUID(g.claim_id) if g.claim_id else None,
                source_ids=[uuid.UUID(s) for s in g.source_ids],
                evidence=dict(g.evidence),
            )
            for g in found
        ],
    )
