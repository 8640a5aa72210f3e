"""Orchestration of the "understand" stage: the pure knowledge functions, the LLM paths and
the database, per source and per workspace.

Public API:

* :func:`update_for_source` — after a source is ingested: unified extraction, concept graph,
  claims and evidence, source edges, redundancy clusters, quality, wiki;
* :func:`remove_source` — delete a source and update what depended on it;
* :func:`rebuild_workspace` — recompute everything from the sources (a job);
* :func:`refresh_relevance` — after the workspace description changed;
* :func:`generate_learning_path` and the read functions behind the API and CLI
  (:func:`graph_view`, :func:`list_concepts`, :func:`list_claims`, :func:`list_wiki_pages`,
  :func:`get_wiki_page`, :func:`latest_learning_path`).

What "incremental" means when a source is added:

* **concepts** — the workspace's concepts are re-merged in memory
  (:func:`~marginalia.knowledge.concepts.merge_concepts`) from the stored concepts of the
  other sources (their names, aliases, acronym pairs and the parent/related relations their
  extractions stated, rebuilt from the database) plus the new source's fresh extraction; only
  the difference is written: new concepts (embedded), merged or orphaned concepts deleted,
  changed levels/centrality/aliases, added/removed links and edges. Existing concepts keep
  their slug and name, so ``[[slug]]`` links stay valid;
* **source edges** — only between the new source and the others (DESIGN §6 rules); pairs of
  older sources keep the edges computed when the later of them was added, until
  :func:`rebuild_workspace`;
* **redundancy clusters** — re-clustered over the whole workspace (average linkage, O(n²)
  similarities: a few ms at a few hundred sources, so not worth an incremental variant);
* **quality** — the new source only (every source when the workspace description embedding
  was missing and is computed now; :func:`refresh_relevance` after a description change);
* **claims** — the new source's claims and their evidence in the other sources, plus the new
  source's passages as evidence for the other sources' claims;
* **wiki** — offline: pages of central concepts the source touches (or that lack a page)
  are (re)written; LLM: the source and its 10 most similar pages go to the model, which
  creates or updates 2–5 pages. Broken ``[[links]]`` are unlinked in a new revision.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

import numpy as np
from sqlalchemy.ext.asyncio import AsyncSession

from marginalia.config import Settings
from marginalia.db import Database
from marginalia.db.models import Chunk, Concept, ConceptEdge
from marginalia.embed.base import Embedder
from marginalia.errors import NotFoundError
from marginalia.knowledge import llm_extraction as llmx
from marginalia.knowledge import repository as repo
from marginalia.knowledge.clusters import redundancy_clusters
from marginalia.knowledge.concepts import (
    ConceptEdge as PureConceptEdge,
)
from marginalia.knowledge.concepts import (
    GraphAnalysis,
    acronym_letters,
    analyze,
    is_acronym,
    key_initials,
    merge_concepts,
    normalize_concept,
)
from marginalia.knowledge.edges import (
    SourceEdge as PureSourceEdge,
)
from marginalia.knowledge.edges import (
    SourceForEdges,
    all_edges,
    concept_frequencies,
    edges_for_new_source,
)
from marginalia.knowledge.extraction import CLAIM_CHUNK_LIMIT, ChunkText, combined_acronyms
from marginalia.knowledge.paths import PathSource, plan_learning_path
from marginalia.knowledge.quality import quality_score
from marginalia.knowledge.schemas import ExtractedConcept, Extraction
from marginalia.knowledge.text import normalize_whitespace, sentence_spans, slugify
from marginalia.knowledge.views import (
    ClaimView,
    ConceptView,
    EdgeType,
    EvidenceView,
    GraphEdge,
    GraphNode,
    GraphView,
    LearningPathView,
    PathStepView,
    WikiPageSummary,
    WikiPageView,
)
from marginalia.knowledge.wiki import (
    CitedSentence,
    WikiConcept,
    extract_citations,
    extract_links,
    write_concept_pages,
)
from marginalia.llm import make_provider
from marginalia.llm.base import LLMProvider

log = logging.getLogger(__name__)

EVIDENCE_MIN_SIMILARITY = 0.55
"""Cosine (claim vs passage) at which another source's passage is recorded as evidence."""
EVIDENCE_PER_CLAIM = 3
"""At most this many other sources (best passage each) per claim from the forward search."""
MAX_LLM_EVIDENCE_CALLS = 40
"""Classification calls per update; candidates beyond it stay "related" with their score."""
LLM_CONCURRENCY = 4
WIKI_CENTRAL_PAGES = 50
"""The offline wiki keeps a page for (at most) this many most central concepts."""
WIKI_SOURCES_PER_PAGE = 20
WIKI_RELATED_LINKS = 8
WIKI_SIMILAR_PAGES = 10
MIN_WIKI_SENTENCE_CHARS = 40
MAX_WIKI_SENTENCE_CHARS = 600

_PARENT_EVIDENCE = re.compile(r"^parent stated by the extraction of (\S+)$")
_RELATED_EVIDENCE = re.compile(r"^related per the extraction of (\S+)$")
_RELATED_LINE = re.compile(r"^Related: .*$", re.MULTILINE)
_LINK_WITH_LABEL = re.compile(r"\[\[([^\[\]|]+?)(?:\|([^\[\]]*))?\]\]")
_CITATION_MARK = re.compile(r"\[source:[^\]]+\]")

Progress = Callable[[str, str, float], Awaitable[None]]
"""``(message, stage, progress 0..1)``."""


class KnowledgeServices(Protocol):
    """What the knowledge layer needs from :class:`marginalia.services.container.Services`."""

    @property
    def db(self) -> Database: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def embedder(self) -> Embedder: ...


@dataclass(frozen=True)
class KnowledgeUpdate:
    """What :func:`update_for_source` did."""

    workspace_id: uuid.UUID
    source_id: uuid.UUID
    engine: str
    extraction_ms: float
    total_ms: float
    concepts: int
    concepts_added: int
    concepts_removed: int
    claims: int
    evidence: int
    source_edges: int
    clusters: int
    wiki_pages: tuple[str, ...]
    quality: float | None
    timings_ms: dict[str, float] = field(default_factory=dict)
    fallback_reason: str | None = None


@dataclass(frozen=True)
class KnowledgeRemoval:
    workspace_id: uuid.UUID
    source_id: uuid.UUID
    deleted: bool
    concepts: int
    concepts_removed: int
    clusters: int
    wiki_pages_updated: tuple[str, ...]
    wiki_pages_deleted: tuple[str, ...]
    total_ms: float


@dataclass(frozen=True)
class RebuildResult:
    workspace_id: uuid.UUID
    sources: int
    concepts: int
    concept_edges: int
    claims: int
    evidence: int
    source_edges: int
    clusters: int
    wiki_pages: int
    engine: str
    total_ms: float
    timings_ms: dict[str, float] = field(default_factory=dict)


# ---------------------------------------------------------------------------- embedding


def _window_pieces(embedder: Embedder, text: str) -> list[str]:
    """``text`` cut at sentence (then word) boundaries into pieces that fit the window."""
    text = text.strip() or "(empty)"
    limit = embedder.max_tokens
    if embedder.count_tokens(text) <= limit:
        return [text]
    pieces: list[str] = []
    current = ""
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        candidate = f"{current} {sentence}".strip()
        if embedder.count_tokens(candidate) <= limit:
            current = candidate
            continue
        if current:
            pieces.append(current)
        if embedder.count_tokens(sentence) <= limit:
            current = sentence
        else:
            pieces.extend(_split_words(embedder, sentence))
            current = ""
    if current:
        pieces.append(current)
    return pieces


def _split_words(embedder: Embedder, text: str) -> list[str]:
    words = text.split()
    if len(words) <= 1 or embedder.count_tokens(text) <= embedder.max_tokens:
        # a single enormous "word": keep a prefix that fits (never silently: it is one
        # of several pieces of a text embedded as a mean, not a stored chunk)
        out = text
        while embedder.count_tokens(out) > embedder.max_tokens and len(out) > 8:
            out = out[: len(out) * 3 // 4]
        return [out]
    mid = len(words) // 2
    return _split_words(embedder, " ".join(words[:mid])) + _split_words(
        embedder, " ".join(words[mid:])
    )


async def embed_texts(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """One unit vector per text; a text longer than the model window is embedded as the
    length-weighted mean of window-sized pieces (split at sentence boundaries)."""
    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    pieces: list[str] = []
    owners: list[int] = []
    for i, t in enumerate(texts):
        for piece in await asyncio.to_thread(_window_pieces, embedder, t):
            pieces.append(piece)
            owners.append(i)
    vectors = await embedder.embed_documents(pieces)
    out = np.zeros((len(texts), vectors.shape[1]), dtype=np.float64)
    for owner, piece, vec in zip(owners, pieces, vectors, strict=True):
        out[owner] += len(piece) * vec.astype(np.float64)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    out = np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)
    return out.astype(np.float32)


def _lead(embedder: Embedder, text: str) -> str:
    """The first window-sized piece of ``text`` (sentence-aligned)."""
    return _window_pieces(embedder, text)[0]


async def embed_leads(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """One unit vector per text from its first window-sized piece only.

    Used for wiki pages, which are rewritten often: a page's title and lead (definition and
    first cited sentences) represent it for wiki-first retrieval at a fraction of the cost of
    embedding the whole body (~160 ms per full window on 2 cores).
    """
    leads = [await asyncio.to_thread(_lead, embedder, t) for t in texts]
    if not leads:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    return np.asarray(await embedder.embed_documents(leads), dtype=np.float32)


# ---------------------------------------------------------------------------- helpers


def _provider(services: KnowledgeServices, llm: LLMProvider | None) -> LLMProvider:
    return llm if llm is not None else make_provider(services.settings.llm)


async def _require_workspace(session: AsyncSession, workspace_id: uuid.UUID) -> Any:
    workspace = await repo.get_workspace(session, workspace_id)
    if workspace is None:
        raise NotFoundError(f"no workspace with id {workspace_id}")
    return workspace


def _chunk_texts(chunks: Iterable[Chunk]) -> list[ChunkText]:
    return [ChunkText(c.chunk_index, c.text, c.section_type) for c in chunks]


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)


def _extraction_fields(ex: Extraction, engine: str) -> dict[str, Any]:
    return {
        "summary": ex.summary,
        "tldr": ex.tldr,
        "thesis": ex.thesis,
        "methodology": ex.methodology,
        "key_results": list(ex.key_results),
        "limitations": list(ex.limitations),
        "datasets": list(ex.datasets),
        "contributions": list(ex.contributions),
        "extraction_engine": engine,
    }


# ---------------------------------------------------------------------------- concepts


@dataclass
class ConceptState:
    """The workspace's concept graph after a sync, in stored slugs."""

    rows: dict[uuid.UUID, Concept]
    slug_of: dict[uuid.UUID, str]
    source_concepts: dict[uuid.UUID, dict[str, int]]
    """source id → {concept slug: level}."""
    concept_sources: dict[str, list[uuid.UUID]]
    edges: list[PureConceptEdge]
    analysis: GraphAnalysis
    added: int = 0
    removed: int = 0
    touched: set[str] = field(default_factory=set)
    """Slugs of concepts linked to the fresh sources or whose links changed."""

    def by_slug(self) -> dict[str, Concept]:
        return {self.slug_of[i]: r for i, r in self.rows.items()}


def _reconstructed_acronyms(rows: Iterable[Concept]) -> dict[str, str]:
    """Acronym → long form pairs recorded in stored concepts' names and aliases."""
    out: dict[str, str] = {}
    for row in rows:
        forms = [row.name, *row.aliases]
        shorts = [f for f in forms if is_acronym(f)]
        longs = [f for f in forms if len(f.split()) >= 2]
        for short in shorts:
            letters = acronym_letters(short)
            match = [lf for lf in longs if key_initials(normalize_concept(lf)) == letters]
            chosen = match or (longs if len(longs) == 1 else [])
            if chosen:
                out.setdefault(short, sorted(chosen)[0])
    return out


async def _sync_concepts(
    session: AsyncSession,
    embedder: Embedder,
    workspace_id: uuid.UUID,
    source_ids: Sequence[uuid.UUID],
    fresh: Mapping[uuid.UUID, Extraction],
) -> ConceptState:
    rows = await repo.list_concepts(session, workspace_id, detached=True)
    by_id = {r.id: r for r in rows}
    links = await repo.source_concept_links(session, workspace_id)
    old_edges = await repo.list_concept_edges(session, workspace_id)
    present = set(source_ids)

    linked: dict[uuid.UUID, list[uuid.UUID]] = defaultdict(list)
    for sid, cid in links:
        linked[sid].append(cid)
    stated_parent: dict[tuple[str, uuid.UUID], uuid.UUID] = {}
    stated_related: dict[tuple[str, uuid.UUID], list[uuid.UUID]] = defaultdict(list)
    for e in old_edges:
        m = _PARENT_EVIDENCE.match(e.evidence or "")
        if m:
            stated_parent[(m.group(1), e.target_concept_id)] = e.source_concept_id
            continue
        m = _RELATED_EVIDENCE.match(e.evidence or "")
        if m:
            stated_related[(m.group(1), e.source_concept_id)].append(e.target_concept_id)

    per_source: dict[str, list[ExtractedConcept]] = {}
    for sid in source_ids:
        if sid in fresh:
            per_source[str(sid)] = list(fresh[sid].concepts)
            continue
        items: list[ExtractedConcept] = []
        for cid in sorted(linked.get(sid, []), key=lambda c: by_id[c].slug if c in by_id else ""):
            row = by_id.get(cid)
            if row is None:
                continue
            parent_id = stated_parent.get((str(sid), cid))
            parent = by_id[parent_id].name if parent_id in by_id else None
            related = [by_id[r].name for r in stated_related.get((str(sid), cid), []) if r in by_id]
            items.append(
                ExtractedConcept(
                    name=row.name,
                    level=row.level,
                    description=row.description,
                    parent=parent,
                    related=related,
                )
            )
            for alias in row.aliases:
                if alias.strip():
                    items.append(ExtractedConcept(name=alias, level=row.level))
        per_source[str(sid)] = items

    acronyms = _reconstructed_acronyms(rows)
    acronyms.update(combined_acronyms(fresh.values()))
    graph = merge_concepts(per_source, acronyms)

    # map canonical concepts onto stored rows: stored concepts keep their slug and name
    link_count = Counter(cid for _, cid in links)
    key_rows: dict[str, list[Concept]] = defaultdict(list)
    for row in rows:
        key_rows[normalize_concept(row.name)].append(row)
    claimed: set[uuid.UUID] = set()
    row_for: dict[str, Concept | None] = {}
    for c in sorted(graph.concepts, key=lambda c: (-c.df, c.slug)):
        candidates = [r for k in c.member_keys for r in key_rows.get(k, []) if r.id not in claimed]
        if candidates:
            keep = sorted(candidates, key=lambda r: (-link_count[r.id], r.slug))[0]
            claimed.update(r.id for r in candidates)
            row_for[c.slug] = keep
        else:
            row_for[c.slug] = None
    kept_ids = {r.id for r in row_for.values() if r is not None}
    deleted_ids = [r.id for r in rows if r.id not in kept_ids]
    await repo.delete_concepts(session, deleted_ids)

    used_slugs = {r.slug for r in rows if r.id in kept_ids}
    slug_map: dict[str, str] = {}  # canonical slug -> stored slug
    new_rows: list[dict[str, Any]] = []
    new_canon = [c for c in graph.concepts if row_for[c.slug] is None]
    vectors = await embed_texts(embedder, [c.name for c in new_canon]) if new_canon else None
    analysis_canon = analyze(graph)
    for i, c in enumerate(new_canon):
        slug, n = c.slug, 2
        while slug in used_slugs:
            slug, n = f"{c.slug}-{n}", n + 1
        used_slugs.add(slug)
        slug_map[c.slug] = slug
        assert vectors is not None
        new_rows.append(
            {
                "id": uuid.uuid4(),
                "workspace_id": workspace_id,
                "name": c.name,
                "slug": slug,
                "level": c.level,
                "description": c.description,
                "aliases": list(c.aliases),
                "centrality": round(analysis_canon.pagerank.get(c.slug, 0.0), 8),
                "embedding": vectors[i],
            }
        )
    await repo.insert_concepts(session, new_rows)

    updates: list[dict[str, Any]] = []
    id_of: dict[str, uuid.UUID] = {}  # stored slug -> id
    final_rows: dict[uuid.UUID, Concept] = {}
    for c in graph.concepts:
        row = row_for[c.slug]
        if row is None:
            continue
        slug_map[c.slug] = row.slug
        aliases = sorted(
            {a for a in (*c.aliases, c.name) if a.casefold() != row.name.casefold()},
            key=lambda a: (a.casefold(), a),
        )
        centrality = round(analysis_canon.pagerank.get(c.slug, 0.0), 8)
        description = row.description or c.description
        if (
            row.level != c.level
            or row.centrality is None
            or abs(row.centrality - centrality) > 1e-8
            or list(row.aliases) != aliases
            or row.description != description
        ):
            updates.append(
                {
                    "id": row.id,
                    "level": c.level,
                    "centrality": centrality,
                    "aliases": aliases,
                    "description": description,
                }
            )
        row.level, row.centrality, row.aliases, row.description = (
            c.level,
            centrality,
            aliases,
            description,
        )
        final_rows[row.id] = row
    await repo.update_concepts(session, updates)
    for r in new_rows:
        final_rows[r["id"]] = Concept(
            **{k: v for k, v in r.items() if k != "embedding"}, embedding=None
        )
    for cid, row in final_rows.items():
        id_of[row.slug] = cid

    # source links
    desired_links = {
        (uuid.UUID(sid), id_of[slug_map[cs]])
        for sid, slugs in graph.source_concepts.items()
        for cs in slugs
    }
    existing_links = {(s, c) for s, c in links if c in kept_ids and s in present}
    add_links = desired_links - existing_links
    remove_links = existing_links - desired_links
    await repo.change_source_links(session, sorted(add_links), sorted(remove_links))

    # concept edges
    desired_edges: dict[tuple[uuid.UUID, uuid.UUID, str], PureConceptEdge] = {}
    stored_edges: list[PureConceptEdge] = []
    for ge in graph.edges:
        s, t = slug_map[ge.source], slug_map[ge.target]
        stored = PureConceptEdge(s, t, ge.type, ge.weight, ge.evidence)
        stored_edges.append(stored)
        desired_edges[(id_of[s], id_of[t], ge.type)] = stored
    current = {
        (e.source_concept_id, e.target_concept_id, e.edge_type): e
        for e in old_edges
        if e.source_concept_id in kept_ids and e.target_concept_id in kept_ids
    }
    add_edges = [
        {
            "source_concept_id": k[0],
            "target_concept_id": k[1],
            "edge_type": k[2],
            "weight": e.weight,
            "evidence": e.evidence,
        }
        for k, e in sorted(
            desired_edges.items(), key=lambda kv: (str(kv[0][0]), str(kv[0][1]), kv[0][2])
        )
        if k not in current
    ]
    remove_edges = [e.id for k, e in current.items() if k not in desired_edges]
    modify_edges = [
        {"id": e.id, "weight": desired_edges[k].weight, "evidence": desired_edges[k].evidence}
        for k, e in current.items()
        if k in desired_edges
        and (e.weight != desired_edges[k].weight or e.evidence != desired_edges[k].evidence)
    ]
    await repo.change_concept_edges(session, workspace_id, add_edges, remove_edges, modify_edges)

    slug_of = {cid: row.slug for cid, row in final_rows.items()}
    level_of = {row.slug: row.level for row in final_rows.values()}
    source_concepts: dict[uuid.UUID, dict[str, int]] = {sid: {} for sid in source_ids}
    concept_sources: dict[str, list[uuid.UUID]] = defaultdict(list)
    for sid, cid in sorted(desired_links, key=lambda x: (str(x[0]), str(x[1]))):
        slug = slug_of[cid]
        source_concepts[sid][slug] = level_of[slug]
        concept_sources[slug].append(sid)
    touched = {slug_of[c] for s, c in desired_links if s in fresh}
    touched |= {slug_of[c] for _, c in add_links | remove_links if c in slug_of}
    analysis = GraphAnalysis(
        components=tuple(
            tuple(sorted(slug_map[s] for s in comp)) for comp in analysis_canon.components
        ),
        pagerank={slug_map[s]: v for s, v in analysis_canon.pagerank.items()},
        degree={slug_map[s]: v for s, v in analysis_canon.degree.items()},
    )
    return ConceptState(
        rows=final_rows,
        slug_of=slug_of,
        source_concepts=source_concepts,
        concept_sources=dict(concept_sources),
        edges=stored_edges,
        analysis=analysis,
        added=len(new_rows),
        removed=len(deleted_ids),
        touched=touched,
    )


# ---------------------------------------------------------------------------- claims


async def _store_claims(
    session: AsyncSession,
    workspace_id: uuid.UUID,
    source_id: uuid.UUID,
    extraction: Extraction,
    chunk_ids: Mapping[int, int],
    vectors: np.ndarray,
) -> list[uuid.UUID]:
    rows = [
        {
            "workspace_id": workspace_id,
            "source_id": source_id,
            "chunk_id": chunk_ids.get(c.chunk_index) if c.chunk_index is not None else None,
            "text": c.text,
            "quote": c.quote,
            "embedding": vectors[i],
        }
        for i, c in enumerate(extraction.claims)
    ]
    return await repo.insert_claims(session, rows)


def _related_row(c: repo.EvidenceCandidate) -> dict[str, Any]:
    return {
        "id": uuid.uuid4(),
        "claim_id": c.claim_id,
        "source_id": c.source_id,
        "chunk_id": c.chunk_id,
        "relation": "related",
        "score": round(c.similarity, 6),
        "rationale": (
            f"cosine similarity {c.similarity:.3f}; no model judged the direction of the evidence"
        ),
        "engine": llmx.OFFLINE_ENGINE,
    }


async def _classify_evidence(
    services: KnowledgeServices,
    provider: LLMProvider,
    rows: Sequence[dict[str, Any]],
    candidates: Sequence[repo.EvidenceCandidate],
) -> int:
    """Ask the LLM about stored "related" evidence rows; update those it judged."""
    if not llmx.is_generative(provider) or not rows:
        return 0
    semaphore = asyncio.Semaphore(LLM_CONCURRENCY)
    engine = llmx.engine_name(provider)

    async def one(row: dict[str, Any], cand: repo.EvidenceCandidate) -> dict[str, Any] | None:
        async with semaphore:
            judgement = await llmx.classify_evidence(provider, cand.claim_text, cand.passage)
        if judgement is None:
            return None
        return {
            "id": row["id"],
            "relation": judgement.relation,
            "rationale": judgement.rationale or None,
            "engine": engine,
        }

    pairs = list(zip(rows, candidates, strict=True))[:MAX_LLM_EVIDENCE_CALLS]
    results = [r for r in await asyncio.gather(*(one(r, c) for r, c in pairs)) if r is not None]
    if results:
        async with services.db.transaction() as session:
            await repo.update_evidence(session, results)
    return len(results)


# ---------------------------------------------------------------------------- edges, clusters


def _edge_row(workspace_id: uuid.UUID, e: PureSourceEdge) -> dict[str, Any]:
    return {
        "workspace_id": workspace_id,
        "source_a_id": uuid.UUID(e.a),
        "source_b_id": uuid.UUID(e.b),
        "strength": e.strength,
        "signals": {
            "shared_concepts": list(e.signals.shared_concepts),
            "title_jaccard": e.signals.title_jaccard,
            "embedding_sim": e.signals.embedding_sim,
        },
        "label": e.label,
    }


async def _update_source_edges(
    session: AsyncSession,
    workspace_id: uuid.UUID,
    sources: Sequence[repo.SourceRow],
    state: ConceptState,
    new_id: uuid.UUID | None,
) -> int:
    items = [
        SourceForEdges(
            id=str(s.id),
            title=s.title,
            concepts=state.source_concepts.get(s.id, {}),
            embedding=s.mean_embedding,
        )
        for s in sources
    ]
    df = concept_frequencies(items)
    if new_id is None:
        await repo.delete_source_edges(session, workspace_id)
        edges = all_edges(items, df)
    else:
        await repo.delete_source_edges(session, workspace_id, new_id)
        new = next(i for i in items if i.id == str(new_id))
        edges = edges_for_new_source(new, [i for i in items if i.id != str(new_id)], df)
    await repo.insert_source_edges(session, [_edge_row(workspace_id, e) for e in edges])
    return len(edges)


async def _recluster(
    session: AsyncSession, workspace_id: uuid.UUID, sources: Sequence[repo.SourceRow]
) -> int:
    with_vec = [s for s in sources if s.mean_embedding is not None]
    titles = {str(s.id): s.title for s in with_vec}
    if len(with_vec) < 2:
        await repo.replace_clusters(session, workspace_id, [])
        return 0
    matrix = np.stack([np.asarray(s.mean_embedding, dtype=np.float64) for s in with_vec])
    clusters = redundancy_clusters([str(s.id) for s in with_vec], matrix)
    await repo.replace_clusters(
        session,
        workspace_id,
        [
            (
                titles.get(c.representative) or None,
                c.mean_similarity,
                [uuid.UUID(m) for m in c.members],
            )
            for c in clusters
        ],
    )
    return len(clusters)


# ---------------------------------------------------------------------------- quality


async def _workspace_vector(
    session: AsyncSession, embedder: Embedder, workspace: Any
) -> tuple[np.ndarray | None, bool]:
    """The description embedding, computed and stored when missing (then ``True``)."""
    if workspace.description_embedding is not None:
        return np.asarray(workspace.description_embedding, dtype=np.float32), False
    if not (workspace.description or "").strip():
        return None, False
    vector = (await embed_texts(embedder, [workspace.description]))[0]
    await repo.set_description_embedding(session, workspace.id, vector)
    workspace.description_embedding = vector
    return vector, True


async def _store_quality(
    session: AsyncSession,
    embedder: Embedder,
    sources: Sequence[repo.SourceRow],
    workspace_vector: np.ndarray | None,
    summary_vectors: Mapping[uuid.UUID, np.ndarray] | None = None,
) -> dict[uuid.UUID, float]:
    summary_vectors = dict(summary_vectors or {})
    missing = [s for s in sources if s.id not in summary_vectors]
    if missing and workspace_vector is not None:
        vecs = await embed_texts(embedder, [s.summary or s.abstract or s.title for s in missing])
        summary_vectors.update({s.id: vecs[i] for i, s in enumerate(missing)})
    year = datetime.now(UTC).year
    scores = {}
    for s in sources:
        q = quality_score(
            citations=s.citation_count,
            year=s.year,
            summary_embedding=summary_vectors.get(s.id),
            workspace_embedding=workspace_vector,
            current_year=year,
        )
        scores[s.id] = (q.total, q.authority, q.recency, q.relevance)
    await repo.store_quality(session, scores)
    return {k: v[0] for k, v in scores.items()}


async def refresh_relevance(services: KnowledgeServices, workspace_id: uuid.UUID) -> int:
    """Re-embed the workspace description and recompute every source's quality.

    Call after the description changed. Returns the number of sources scored.
    """
    async with services.db.transaction() as session:
        await repo.lock_workspace(session, workspace_id)
        workspace = await _require_workspace(session, workspace_id)
        workspace.description_embedding = None
        vector, _ = await _workspace_vector(session, services.embedder, workspace)
        sources = await repo.workspace_sources(session, workspace_id)
        await _store_quality(session, services.embedder, sources, vector)
        return len(sources)


# ---------------------------------------------------------------------------- wiki


def _wiki_sentences(chunks: Sequence[Chunk], abstract: str | None, sid: str) -> list[CitedSentence]:
    out: list[CitedSentence] = []
    for chunk in chunks:
        if chunk.chunk_index >= CLAIM_CHUNK_LIMIT:
            continue
        for s, e in sentence_spans(chunk.text):
            sentence = chunk.text[s:e]
            if MIN_WIKI_SENTENCE_CHARS <= len(sentence) <= MAX_WIKI_SENTENCE_CHARS:
                out.append(CitedSentence(sentence, sid, chunk.chunk_index))
    if not out and abstract:
        for s, e in sentence_spans(abstract):
            sentence = abstract[s:e]
            if MIN_WIKI_SENTENCE_CHARS <= len(sentence) <= MAX_WIKI_SENTENCE_CHARS:
                out.append(CitedSentence(sentence, sid, None))
    return out


def _plain(body: str) -> str:
    text = _CITATION_MARK.sub("", body)
    text = _LINK_WITH_LABEL.sub(lambda m: m.group(2) or m.group(1).replace("-", " "), text)
    return normalize_whitespace(text.replace("#", " "))


def _with_related(body: str, related: Sequence[str]) -> str:
    body = _RELATED_LINE.sub("", body).rstrip()
    if related:
        body += "\n\nRelated: " + ", ".join(f"[[{r}]]" for r in related)
    return body + "\n"


def _central_slugs(state: ConceptState) -> list[str]:
    pr = state.analysis.pagerank
    slugs = [s for s in state.concept_sources if state.concept_sources[s]]
    ranked = sorted(slugs, key=lambda s: (-pr.get(s, 0.0), -len(state.concept_sources[s]), s))
    return ranked[:WIKI_CENTRAL_PAGES]


def _neighbours(state: ConceptState) -> dict[str, dict[str, float]]:
    """Concept slug → {neighbour slug: heaviest edge weight}."""
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for e in state.edges:
        for a, b in ((e.source, e.target), (e.target, e.source)):
            out[a][b] = max(out[a].get(b, 0.0), e.weight)
    return out


async def _write_offline_pages(
    session: AsyncSession,
    embedder: Embedder,
    workspace_id: uuid.UUID,
    state: ConceptState,
    targets: Sequence[str],
    *,
    prefer: uuid.UUID | None,
    abstracts: Mapping[uuid.UUID, str | None],
    reason: str,
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
    chunks = await repo.chunk_rows(session, needed, max_index=CLAIM_CHUNK_LIMIT)
    by_source: dict[uuid.UUID, list[Chunk]] = defaultdict(list)
    for c in chunks:
        by_source[c.source_id].append(c)
    sentences = {
        str(sid): _wiki_sentences(by_source.get(sid, []), abstracts.get(sid), str(sid))
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
    bodies: list[tuple[str, str, str, list[str], list[dict[str, Any]]]] = []
    for d in drafts:
        near = neighbours.get(d.slug, {})
        # heaviest edges first: stable as sources are added, unlike PageRank
        related = sorted(
            (n for n in near if n in known and n != d.slug), key=lambda n: (-near[n], n)
        )[:WIKI_RELATED_LINKS]
        related = sorted(related)
        body = _with_related(d.body_markdown, related)
        cited = [{"source_id": s, "chunk_index": i} for s, i in d.cited]
        bodies.append((d.slug, d.title, body, related, cited))
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
    leads = [_lead(embedder, f"{t}\n{_plain(b)}") for t, b, _, _ in pages]
    old = [
        _lead(embedder, f"{ot}\n{_plain(ob)}") if ot is not None and ob is not None else None
        for _, _, ot, ob in pages
    ]
    todo = [i for i, (new, prev) in enumerate(zip(leads, old, strict=True)) if new != prev]
    out: list[np.ndarray | None] = [None] * len(pages)
    if todo:
        vectors = await embedder.embed_documents([leads[i] for i in todo])
        for i, vec in zip(todo, vectors, strict=True):
            out[i] = np.asarray(vec, dtype=np.float32)
    return out


async def _repair_links(
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


async def _llm_wiki(
    session: AsyncSession,
    embedder: Embedder,
    provider: LLMProvider,
    workspace_id: uuid.UUID,
    source: repo.SourceRow,
    state: ConceptState,
) -> list[str] | None:
    """The LLM wiki step for one added source; None when the model gave nothing usable."""
    similar = (
        await repo.similar_wiki_pages(
            session, workspace_id, source.mean_embedding, limit=WIKI_SIMILAR_PAGES
        )
        if source.mean_embedding is not None
        else []
    )
    chunks = await repo.chunk_rows(session, [source.id], max_index=CLAIM_CHUNK_LIMIT)
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
    edits = [(slugify(p.slug), p) for p in plan.pages]
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


async def _delete_uncited_pages(
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


# ---------------------------------------------------------------------------- public API


async def update_for_source(
    services: KnowledgeServices,
    workspace_id: uuid.UUID,
    source_id: uuid.UUID,
    *,
    llm: LLMProvider | None = None,
) -> KnowledgeUpdate:
    """Bring the workspace's knowledge up to date after ``source_id`` was added (idempotent:
    running it again for the same source replaces what the first run derived from it)."""
    started = time.perf_counter()
    timings: dict[str, float] = {}
    provider = _provider(services, llm)
    embedder = services.embedder

    async with services.db.session() as session:
        await _require_workspace(session, workspace_id)
        source = await repo.get_source(session, source_id)
        if source is None or source.workspace_id != workspace_id:
            raise NotFoundError(f"no source with id {source_id} in workspace {workspace_id}")
        chunks = await repo.chunk_rows(session, [source_id])
    title, abstract = source.title, source.abstract

    t = time.perf_counter()
    result = await llmx.extract_source(provider, title, abstract, _chunk_texts(chunks))
    extraction = result.extraction
    timings["extract"] = extraction_ms = _ms(t)

    t = time.perf_counter()
    vectors = await embed_texts(
        embedder, [*(c.text for c in extraction.claims), extraction.summary or title or ""]
    )
    claim_vectors, summary_vector = vectors[:-1], vectors[-1]
    timings["embed"] = _ms(t)
    chunk_ids = {c.chunk_index: int(c.id) for c in chunks if c.id is not None}

    async with services.db.transaction() as session:
        await repo.lock_workspace(session, workspace_id)
        workspace = await _require_workspace(session, workspace_id)
        fields = _extraction_fields(extraction, result.engine)
        if source.mean_embedding is None:
            mean = await repo.mean_chunk_embedding(session, source_id)
            if mean is not None:
                fields["mean_embedding"] = mean
        await repo.store_extraction(session, source_id, fields)
        sources = await repo.workspace_sources(session, workspace_id)
        if not any(s.id == source_id for s in sources):
            raise NotFoundError(f"source {source_id} is not ready")

        t = time.perf_counter()
        state = await _sync_concepts(
            session, embedder, workspace_id, [s.id for s in sources], {source_id: extraction}
        )
        timings["concepts"] = _ms(t)

        t = time.perf_counter()
        await repo.delete_claims_of_source(session, source_id)
        claim_ids = await _store_claims(
            session, workspace_id, source_id, extraction, chunk_ids, claim_vectors
        )
        forward = await repo.evidence_for_claims(
            session,
            claim_ids,
            min_similarity=EVIDENCE_MIN_SIMILARITY,
            per_claim=EVIDENCE_PER_CLAIM,
        )
        backward = await repo.claims_near_source(
            session, source_id, min_similarity=EVIDENCE_MIN_SIMILARITY
        )
        candidates = [*forward, *backward]
        evidence_rows = [_related_row(c) for c in candidates]
        await repo.insert_evidence(session, evidence_rows)
        timings["claims"] = _ms(t)

        t = time.perf_counter()
        n_edges = await _update_source_edges(session, workspace_id, sources, state, source_id)
        timings["source_edges"] = _ms(t)
        t = time.perf_counter()
        n_clusters = await _recluster(session, workspace_id, sources)
        timings["clusters"] = _ms(t)

        t = time.perf_counter()
        ws_vector, recomputed = await _workspace_vector(session, embedder, workspace)
        targets = sources if recomputed else [s for s in sources if s.id == source_id]
        scores = await _store_quality(
            session, embedder, targets, ws_vector, {source_id: summary_vector}
        )
        timings["quality"] = _ms(t)

    t = time.perf_counter()
    new_row = next(s for s in sources if s.id == source_id)
    wiki: list[str] | None = None
    async with services.db.transaction() as session:
        await repo.lock_workspace(session, workspace_id)
        if llmx.is_generative(provider):
            wiki = await _llm_wiki(session, embedder, provider, workspace_id, new_row, state)
        if wiki is None:
            central = _central_slugs(state)
            existing = {p.slug for p in await repo.list_wiki_pages(session, workspace_id)}
            targets_slugs = [s for s in central if s in state.touched or s not in existing]
            wiki = await _write_offline_pages(
                session,
                embedder,
                workspace_id,
                state,
                targets_slugs,
                prefer=source_id,
                abstracts={s.id: s.abstract for s in sources},
                reason=f"source added: {title or source_id}",
            )
        await _repair_links(session, embedder, workspace_id)
    timings["wiki"] = _ms(t)

    if llmx.is_generative(provider) and candidates:
        t = time.perf_counter()
        await _classify_evidence(services, provider, evidence_rows, candidates)
        timings["evidence_llm"] = _ms(t)

    return KnowledgeUpdate(
        workspace_id=workspace_id,
        source_id=source_id,
        engine=result.engine,
        extraction_ms=extraction_ms,
        total_ms=_ms(started),
        concepts=len(state.rows),
        concepts_added=state.added,
        concepts_removed=state.removed,
        claims=len(claim_ids),
        evidence=len(evidence_rows),
        source_edges=n_edges,
        clusters=n_clusters,
        wiki_pages=tuple(wiki),
        quality=scores.get(source_id),
        timings_ms=timings,
        fallback_reason=result.fallback_reason,
    )


async def remove_source(
    services: KnowledgeServices, workspace_id: uuid.UUID, source_id: uuid.UUID
) -> KnowledgeRemoval:
    """Delete ``source_id`` (if it still exists) and update what depended on it.

    Its chunks, claims, evidence, edges, cluster memberships and concept links go with it
    (cascades); concepts no other source discusses are deleted, levels/edges/centrality are
    recomputed, the workspace is re-clustered, wiki pages it fed are rewritten (or deleted
    when they cite nothing left) and links to deleted pages are unlinked. Quality scores of
    other sources do not depend on it.
    """
    started = time.perf_counter()
    embedder = services.embedder
    async with services.db.transaction() as session:
        await repo.lock_workspace(session, workspace_id)
        await _require_workspace(session, workspace_id)
        source = await repo.get_source(session, source_id)
        if source is not None and source.workspace_id != workspace_id:
            raise NotFoundError(f"no source with id {source_id} in workspace {workspace_id}")
        before = {
            c for s, c in await repo.source_concept_links(session, workspace_id) if s == source_id
        }
        before_slugs = {
            r.slug for r in await repo.list_concepts(session, workspace_id) if r.id in before
        }
        deleted = await repo.delete_source(session, source_id) if source is not None else False
        sources = await repo.workspace_sources(session, workspace_id)
        state = await _sync_concepts(session, embedder, workspace_id, [s.id for s in sources], {})
        n_clusters = await _recluster(session, workspace_id, sources)
        present = {str(s.id) for s in sources}
        gone = await _delete_uncited_pages(session, workspace_id, present)
        existing = {p.slug for p in await repo.list_wiki_pages(session, workspace_id)}
        targets = [
            s
            for s in _central_slugs(state)
            if s in existing and (s in before_slugs or s in state.touched)
        ]
        updated = await _write_offline_pages(
            session,
            embedder,
            workspace_id,
            state,
            targets,
            prefer=None,
            abstracts={s.id: s.abstract for s in sources},
            reason=f"source removed: {source.title if source else source_id}",
        )
        repaired = await _repair_links(session, embedder, workspace_id)
    return KnowledgeRemoval(
        workspace_id=workspace_id,
        source_id=source_id,
        deleted=deleted,
        concepts=len(state.rows),
        concepts_removed=state.removed,
        clusters=n_clusters,
        wiki_pages_updated=tuple(sorted(set(updated) | set(repaired))),
        wiki_pages_deleted=tuple(gone),
        total_ms=_ms(started),
    )


async def rebuild_workspace(
    services: KnowledgeServices,
    workspace_id: uuid.UUID,
    *,
    llm: LLMProvider | None = None,
    progress: Progress | None = None,
) -> RebuildResult:
    """Recompute the whole knowledge layer of a workspace from its sources.

    Every source is extracted again; concepts are merged once over all of them (stored
    concepts keep their slugs), every claim's evidence is searched again, all source edges,
    clusters and quality scores are recomputed, and the wiki is rewritten (revisions kept).
    """
    started = time.perf_counter()
    timings: dict[str, float] = {}
    provider = _provider(services, llm)
    embedder = services.embedder

    async def report(message: str, stage: str, value: float) -> None:
        if progress is not None:
            await progress(message, stage, value)

    async with services.db.session() as session:
        await _require_workspace(session, workspace_id)
        sources = await repo.workspace_sources(session, workspace_id)
    await report(f"{len(sources)} sources", "extract", 0.0)

    t = time.perf_counter()
    extractions: dict[uuid.UUID, Extraction] = {}
    engines: Counter[str] = Counter()
    chunk_ids: dict[uuid.UUID, dict[int, int]] = {}
    for i, s in enumerate(sources):
        async with services.db.session() as session:
            chunks = await repo.chunk_rows(session, [s.id])
        result = await llmx.extract_source(provider, s.title, s.abstract, _chunk_texts(chunks))
        extractions[s.id] = result.extraction
        engines[result.engine] += 1
        chunk_ids[s.id] = {c.chunk_index: int(c.id) for c in chunks if c.id is not None}
        async with services.db.transaction() as session:
            fields = _extraction_fields(result.extraction, result.engine)
            if s.mean_embedding is None:
                mean = await repo.mean_chunk_embedding(session, s.id)
                if mean is not None:
                    fields["mean_embedding"] = mean
            await repo.store_extraction(session, s.id, fields)
        if (i + 1) % 10 == 0 or i + 1 == len(sources):
            await report(
                f"extracted {i + 1}/{len(sources)}", "extract", 0.6 * (i + 1) / len(sources)
            )
    timings["extract"] = _ms(t)

    async with services.db.transaction() as session:
        await repo.lock_workspace(session, workspace_id)
        workspace = await _require_workspace(session, workspace_id)
        sources = await repo.workspace_sources(session, workspace_id)
        ids = [s.id for s in sources]
        fresh = {sid: ex for sid, ex in extractions.items() if sid in set(ids)}
        await report("merging concepts", "concepts", 0.62)
        t = time.perf_counter()
        state = await _sync_concepts(session, embedder, workspace_id, ids, fresh)
        timings["concepts"] = _ms(t)

        await report("claims and evidence", "claims", 0.7)
        t = time.perf_counter()
        await repo.delete_workspace_claims(session, workspace_id)
        all_claims: list[uuid.UUID] = []
        claim_texts = [c.text for ex in fresh.values() for c in ex.claims]
        claim_vecs = await embed_texts(embedder, claim_texts)
        offset = 0
        for sid, ex in fresh.items():
            vecs = claim_vecs[offset : offset + len(ex.claims)]
            offset += len(ex.claims)
            all_claims += await _store_claims(
                session, workspace_id, sid, ex, chunk_ids.get(sid, {}), vecs
            )
        candidates = await repo.evidence_for_claims(
            session,
            all_claims,
            min_similarity=EVIDENCE_MIN_SIMILARITY,
            per_claim=EVIDENCE_PER_CLAIM,
        )
        evidence_rows = [_related_row(c) for c in candidates]
        await repo.insert_evidence(session, evidence_rows)
        timings["claims"] = _ms(t)

        await report("source edges, clusters, quality", "edges", 0.8)
        t = time.perf_counter()
        n_edges = await _update_source_edges(session, workspace_id, sources, state, None)
        n_clusters = await _recluster(session, workspace_id, sources)
        workspace.description_embedding = None
        ws_vector, _ = await _workspace_vector(session, embedder, workspace)
        await _store_quality(session, embedder, sources, ws_vector)
        timings["edges_clusters_quality"] = _ms(t)

    await report("wiki", "wiki", 0.9)
    t = time.perf_counter()
    async with services.db.transaction() as session:
        await repo.lock_workspace(session, workspace_id)
        present = {str(s.id) for s in sources}
        await _delete_uncited_pages(session, workspace_id, present)
        done = False
        if llmx.is_generative(provider):
            for s in sources:
                if await _llm_wiki(session, embedder, provider, workspace_id, s, state) is not None:
                    done = True
        if not done:
            await _write_offline_pages(
                session,
                embedder,
                workspace_id,
                state,
                _central_slugs(state),
                prefer=None,
                abstracts={s.id: s.abstract for s in sources},
                reason="workspace rebuilt",
            )
        await _repair_links(session, embedder, workspace_id)
        n_pages = len(await repo.list_wiki_pages(session, workspace_id))
    timings["wiki"] = _ms(t)

    if llmx.is_generative(provider) and candidates:
        await report("classifying evidence", "evidence", 0.95)
        await _classify_evidence(services, provider, evidence_rows, candidates)

    await report("done", "done", 1.0)
    return RebuildResult(
        workspace_id=workspace_id,
        sources=len(sources),
        concepts=len(state.rows),
        concept_edges=len(state.edges),
        claims=len(all_claims),
        evidence=len(evidence_rows),
        source_edges=n_edges,
        clusters=n_clusters,
        wiki_pages=n_pages,
        engine=", ".join(f"{k} ×{v}" for k, v in sorted(engines.items())) or llmx.OFFLINE_ENGINE,
        total_ms=_ms(started),
        timings_ms=timings,
    )


# ---------------------------------------------------------------------------- learning paths


async def generate_learning_path(
    services: KnowledgeServices, workspace_id: uuid.UUID, *, llm: LLMProvider | None = None
) -> LearningPathView:
    """Plan, annotate (LLM when available) and store a learning path; returns it."""
    provider = _provider(services, llm)
    async with services.db.session() as session:
        workspace = await _require_workspace(session, workspace_id)
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
    async with services.db.transaction() as session:
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
    view = await latest_learning_path(services, workspace_id)
    assert view is not None and view.id == path_id
    return view


async def latest_learning_path(
    services: KnowledgeServices, workspace_id: uuid.UUID
) -> LearningPathView | None:
    async with services.db.session() as session:
        await _require_workspace(session, workspace_id)
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


# ---------------------------------------------------------------------------- read API


async def graph_view(
    services: KnowledgeServices,
    workspace_id: uuid.UUID,
    *,
    max_concepts: int | None = None,
    include_syntheses: bool = True,
) -> GraphView:
    """Nodes (sources, concepts, syntheses) and typed, labelled edges for the canvas.

    ``max_concepts`` keeps the most central concepts only (None: all).
    """
    async with services.db.session() as session:
        await _require_workspace(session, workspace_id)
        sources = await repo.workspace_sources(session, workspace_id)
        concepts = await repo.list_concepts(session, workspace_id)
        links = await repo.source_concept_links(session, workspace_id)
        concept_edges = await repo.list_concept_edges(session, workspace_id)
        source_edges = await repo.list_source_edges(session, workspace_id)
        clusters = await repo.list_clusters(session, workspace_id)
        syntheses = await repo.syntheses(session, workspace_id) if include_syntheses else []
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
                data={"year": s.year, "quality": s.quality_score, "tldr": s.tldr},
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
    for mid, content, cited in syntheses:
        nodes.append(
            GraphNode(
                id=f"synthesis:{mid}", type="synthesis", label=normalize_whitespace(content)[:80]
            )
        )
        for item in cited:
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
    return GraphView(nodes=nodes, edges=edges)


async def list_concepts(services: KnowledgeServices, workspace_id: uuid.UUID) -> list[ConceptView]:
    async with services.db.session() as session:
        await _require_workspace(session, workspace_id)
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
    services: KnowledgeServices, workspace_id: uuid.UUID, *, source_id: uuid.UUID | None = None
) -> list[ClaimView]:
    async with services.db.session() as session:
        await _require_workspace(session, workspace_id)
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


async def list_wiki_pages(
    services: KnowledgeServices, workspace_id: uuid.UUID
) -> list[WikiPageSummary]:
    async with services.db.session() as session:
        await _require_workspace(session, workspace_id)
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


async def get_wiki_page(
    services: KnowledgeServices, workspace_id: uuid.UUID, slug: str
) -> WikiPageView:
    async with services.db.session() as session:
        await _require_workspace(session, workspace_id)
        page = await repo.get_wiki_page(session, workspace_id, slug)
        if page is None:
            raise NotFoundError(f"no wiki page {slug!r} in workspace {workspace_id}")
        revisions = await repo.revision_count(session, page.id)
        backlinks = [s for s in await repo.backlinks(session, workspace_id, slug) if s != slug]
    return WikiPageView(
        slug=page.slug,
        title=page.title,
        revision=page.revision,
        links=list(page.links),
        updated_at=page.updated_at,
        body=page.body,
        cited=list(page.cited),
        revisions=revisions,
        backlinks=backlinks,
    )


async def concept_edges(services: KnowledgeServices, workspace_id: uuid.UUID) -> list[ConceptEdge]:
    """Stored concept edges (for tests and tools)."""
    async with services.db.session() as session:
        await _require_workspace(session, workspace_id)
        return await repo.list_concept_edges(session, workspace_id)
