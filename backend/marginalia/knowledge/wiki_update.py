"""The update side, wiki: offline concept pages (re)written with citations, the LLM
wiki step, links to deleted pages unlinked, pages that cite nothing left deleted."""

from __future__ import annotations

import re
import uuid
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from sqlalchemy.ext.asyncio import AsyncSession

from marginalia.config import KnowledgeSettings
from marginalia.db.models import Chunk
from marginalia.embed.base import Embedder
from marginalia.knowledge import llm_extraction as llmx
from marginalia.knowledge import repository as repo
from marginalia.knowledge.concept_store import ConceptState
from marginalia.knowledge.sentences import SKIP_SECTIONS, shown
from marginalia.knowledge.text import (
    display_text,
    normalize_whitespace,
    sentence_spans,
    slugify,
    vocabulary,
)
from marginalia.knowledge.vectors import embed_leads, lead_piece
from marginalia.knowledge.wiki import (
    CitedSentence,
    WikiConcept,
    extract_citations,
    extract_links,
    is_named_entity,
    link_mentions,
    looks_like_refusal,
    page_title,
    write_concept_pages,
)
from marginalia.llm.base import LLMProvider

WIKI_SOURCES_PER_PAGE = 20


WIKI_RELATED_LINKS = 8


WIKI_NAMED_PAGES = 50
"""Named systems and datasets that get a page beyond the central concepts, at most."""


WIKI_SIMILAR_PAGES = 10


MIN_WIKI_SENTENCE_CHARS = 40


MAX_WIKI_SENTENCE_CHARS = 600


_RELATED_LINE = re.compile(r"^Related: .*$", re.MULTILINE)


_LINK_WITH_LABEL = re.compile(r"\[\[([^\[\]|]+?)(?:\|([^\[\]]*))?\]\]")


_CITATION_MARK = re.compile(r"\[source:[^\]]+\]")


def _wiki_sentences(
    chunks: Sequence[Chunk], abstract: str | None, sid: str, claim_chunk_limit: int
) -> list[CitedSentence]:
    """Prose sentences of the source's first chunks (its abstract when they have none),
    shown with line-break hyphenation undone."""
    out: list[CitedSentence] = []
    vocab = vocabulary([*(c.text for c in chunks), abstract or ""])

    def keep(sentence: str) -> bool:
        return MIN_WIKI_SENTENCE_CHARS <= len(sentence) <= MAX_WIKI_SENTENCE_CHARS and shown(
            sentence
        )

    for chunk in chunks:
        if chunk.chunk_index >= claim_chunk_limit or chunk.section_type in SKIP_SECTIONS:
            continue
        for s, e in sentence_spans(chunk.text):
            sentence = chunk.text[s:e]
            if keep(sentence):
                out.append(CitedSentence(display_text(sentence, vocab), sid, chunk.chunk_index))
    if not out and abstract:
        for s, e in sentence_spans(abstract):
            sentence = abstract[s:e]
            if keep(sentence):
                out.append(CitedSentence(display_text(sentence, vocab), sid, None))
    return out


def _plain(body: str) -> str:
    text = _CITATION_MARK.sub("", body)
    text = _LINK_WITH_LABEL.sub(lambda m: m.group(2) or m.group(1).replace("-", " "), text)
    return normalize_whitespace(text.replace("#", " "))


def _with_related(body: str, related: Sequence[tuple[str, str]]) -> str:
    """``body`` with its Related line naming ``(slug, concept name)`` pages by title."""
    body = _RELATED_LINE.sub("", body).rstrip()
    if related:
        body += "\n\nRelated: " + ", ".join(f"[[{r}|{page_title(name)}]]" for r, name in related)
    return body + "\n"


def central_slugs(state: ConceptState, limit: int) -> list[str]:
    """The concepts that get a wiki page: the ``limit`` most central ones
    (``knowledge.wiki_central_pages``), then every named system or dataset
    (:func:`~marginalia.knowledge.wiki.is_named_entity`, at most :data:`WIKI_NAMED_PAGES`
    more, most central first)."""
    pr = state.analysis.pagerank
    slugs = [s for s in state.concept_sources if state.concept_sources[s]]
    ranked = sorted(slugs, key=lambda s: (-pr.get(s, 0.0), -len(state.concept_sources[s]), s))
    chosen = ranked[:limit]
    by_slug = state.by_slug()
    named = [
        s
        for s in ranked[limit:]
        if s in by_slug and is_named_entity(by_slug[s].name, list(by_slug[s].aliases))
    ]
    return chosen + named[:WIKI_NAMED_PAGES]


def _neighbours(state: ConceptState) -> dict[str, dict[str, float]]:
    """Concept slug → {neighbour slug: heaviest edge weight}."""
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for e in state.edges:
        for a, b in ((e.source, e.target), (e.target, e.source)):
            out[a][b] = max(out[a].get(b, 0.0), e.weight)
    return out


async def write_offline_pages(
    session: AsyncSession,
    embedder: Embedder,
    workspace_id: uuid.UUID,
    state: ConceptState,
    targets: Sequence[str],
    *,
    prefer: uuid.UUID | None,
    abstracts: Mapping[uuid.UUID, str | None],
    reason: str,
    settings: KnowledgeSettings,
) -> list[str]:
    """(Re)write the offline concept pages named by ``targets``; returns the slugs written."""
    if not targets:
        return []
    by_slug = state.by_slug()
    chosen_sources: dict[str, list[uuid.UUID]] = {}
    for slug in targets:
        sids = sorted(state.concept_sources.get(slug, []), key=str)
        if prefer is not None and prefer in sids:
            sids = [prefer, *[s for s in sids if s != prefer]]
        chosen_sources[slug] = sids[:WIKI_SOURCES_PER_PAGE]
    needed = sorted({s for v in chosen_sources.values() for s in v}, key=str)
    limit = settings.claim_chunk_limit
    chunks = await repo.chunk_rows(session, needed, max_index=limit)
    by_source: dict[uuid.UUID, list[Chunk]] = defaultdict(list)
    for c in chunks:
        by_source[c.source_id].append(c)
    sentences = {
        str(sid): _wiki_sentences(by_source.get(sid, []), abstracts.get(sid), str(sid), limit)
        for sid in needed
    }
    neighbours = _neighbours(state)
    concepts = [
        WikiConcept(
            name=by_slug[slug].name,
            slug=slug,
            description=by_slug[slug].description,
            source_ids=tuple(str(s) for s in chosen_sources[slug]),
            related=(),
            aliases=tuple(by_slug[slug].aliases),
        )
        for slug in targets
        if slug in by_slug
    ]
    drafts = write_concept_pages(
        concepts, sentences, centrality=state.analysis.pagerank, max_pages=len(concepts)
    )
    existing = {p.slug for p in await repo.list_wiki_pages(session, workspace_id)}
    known = existing | {d.slug for d in drafts}
    linkable = [
        WikiConcept(
            name=by_slug[s].name,
            slug=s,
            description=None,
            source_ids=(),
            aliases=tuple(by_slug[s].aliases),
        )
        for s in sorted(known)
        if s in by_slug
    ]
    bodies: list[tuple[str, str, str, list[str], list[dict[str, Any]]]] = []
    for d in drafts:
        near = neighbours.get(d.slug, {})
        # heaviest edges first: stable as sources are added, unlike PageRank
        related = sorted(
            (n for n in near if n in known and n != d.slug), key=lambda n: (-near[n], n)
        )[:WIKI_RELATED_LINKS]
        related = sorted(related)
        titled = [(r, by_slug[r].name if r in by_slug else r.replace("-", " ")) for r in related]
        body = link_mentions(_with_related(d.body_markdown, titled), linkable, d.slug)
        cited = [{"source_id": s, "chunk_index": i} for s, i in d.cited]
        bodies.append((d.slug, d.title, body, extract_links(body), cited))
    current = {p.slug: p for p in await repo.list_wiki_pages(session, workspace_id)}
    bodies = [
        b
        for b in bodies
        if b[0] not in current or (current[b[0]].title, current[b[0]].body) != (b[1], b[2])
    ]
    vectors = await _page_vectors(
        embedder,
        [
            (t, b, current[s].title, current[s].body) if s in current else (t, b, None, None)
            for s, t, b, _, _ in bodies
        ],
    )
    written: list[str] = []
    for (slug, title, body, related, cited), vec in zip(bodies, vectors, strict=True):
        _, changed = await repo.write_wiki_page(
            session,
            workspace_id,
            slug=slug,
            title=title,
            body=body,
            links=related,
            cited=cited,
            embedding=vec,
            reason=reason,
        )
        if changed:
            written.append(slug)
    return written


async def _page_vectors(
    embedder: Embedder, pages: Sequence[tuple[str, str, str | None, str | None]]
) -> list[np.ndarray | None]:
    """Embeddings for ``(title, body, old title, old body)``; None where the lead (the part
    that is embedded) did not change, so the stored vector is kept."""
    leads = [lead_piece(embedder, f"{t}\n{_plain(b)}") for t, b, _, _ in pages]
    old = [
        lead_piece(embedder, f"{ot}\n{_plain(ob)}") if ot is not None and ob is not None else None
        for _, _, ot, ob in pages
    ]
    todo = [i for i, (new, prev) in enumerate(zip(leads, old, strict=True)) if new != prev]
    out: list[np.ndarray | None] = [None] * len(pages)
    if todo:
        vectors = await embedder.embed_documents([leads[i] for i in todo])
        for i, vec in zip(todo, vectors, strict=True):
            out[i] = np.asarray(vec, dtype=np.float32)
    return out


async def repair_links(
    session: AsyncSession, embedder: Embedder, workspace_id: uuid.UUID
) -> list[str]:
    """Unlink ``[[slug]]`` targets that name no page (a new revision says so)."""
    pages = await repo.list_wiki_pages(session, workspace_id)
    known = {p.slug for p in pages}
    repaired: list[str] = []
    for page in pages:
        broken = [s for s in extract_links(page.body) if s not in known]
        if not broken:
            if list(page.links) != [s for s in extract_links(page.body)]:
                page.links = extract_links(page.body)
            continue

        def unlink(m: re.Match[str]) -> str:
            target = m.group(1).strip()
            if target in known:
                return m.group(0)
            return m.group(2) or target.replace("-", " ")

        body = _LINK_WITH_LABEL.sub(unlink, page.body)
        body = re.sub(r"^Related: \s*$\n?", "", body, flags=re.MULTILINE)
        (vec,) = await _page_vectors(embedder, [(page.title, body, page.title, page.body)])
        await repo.write_wiki_page(
            session,
            workspace_id,
            slug=page.slug,
            title=page.title,
            body=body,
            links=extract_links(body),
            cited=list(page.cited),
            embedding=vec,
            reason="unlinked pages that no longer exist: " + ", ".join(broken),
        )
        repaired.append(page.slug)
    await session.flush()
    return repaired


async def llm_wiki(
    session: AsyncSession,
    embedder: Embedder,
    provider: LLMProvider,
    workspace_id: uuid.UUID,
    source: repo.SourceRow,
    state: ConceptState,
    settings: KnowledgeSettings,
) -> list[str] | None:
    """The LLM wiki step for one added source; None when the model gave nothing usable."""
    similar = (
        await repo.similar_wiki_pages(
            session, workspace_id, source.mean_embedding, limit=WIKI_SIMILAR_PAGES
        )
        if source.mean_embedding is not None
        else []
    )
    chunks = await repo.chunk_rows(session, [source.id], max_index=settings.claim_chunk_limit)
    concepts = sorted(
        state.source_concepts.get(source.id, {}),
        key=lambda s: -state.analysis.pagerank.get(s, 0.0),
    )
    prompt = llmx.wiki_prompt(
        source_id=str(source.id),
        title=source.title,
        summary=source.summary or source.abstract or "",
        concepts=concepts,
        passages=[(c.chunk_index, c.text) for c in chunks],
        pages=[(p.slug, p.title, p.body) for p in similar],
    )
    plan = await llmx.plan_wiki_edits(provider, prompt)
    if plan is None or not plan.pages:
        return None
    edits = [(slugify(p.slug), p) for p in plan.pages if not looks_like_refusal(p.body_markdown)]
    if not edits:
        return None
    vectors = await embed_leads(
        embedder, [f"{p.title}\n{_plain(p.body_markdown)}" for _, p in edits]
    )
    written: list[str] = []
    for (slug, page), vec in zip(edits, vectors, strict=True):
        body = page.body_markdown.rstrip() + "\n"
        cited = [{"source_id": s, "chunk_index": i} for s, i in extract_citations(body)]
        _, changed = await repo.write_wiki_page(
            session,
            workspace_id,
            slug=slug,
            title=page.title.strip(),
            body=body,
            links=extract_links(body),
            cited=cited,
            embedding=vec,
            reason=page.reason or f"source added: {source.title}",
        )
        if changed:
            written.append(slug)
    return written


async def delete_uncited_pages(
    session: AsyncSession, workspace_id: uuid.UUID, present: set[str]
) -> list[str]:
    """Pages whose every citation points at a source no longer in the workspace."""
    doomed = []
    for page in await repo.list_wiki_pages(session, workspace_id):
        cited = {str(c.get("source_id")) for c in page.cited if isinstance(c, dict)}
        if cited and not (cited & present):
            doomed.append(page)
    await repo.delete_wiki_pages(session, [p.id for p in doomed])
    return [p.slug for p in doomed]
