"""The update side, concepts: the workspace's concept graph re-merged in memory from
the stored concepts plus fresh extractions, and only the difference written."""

from __future__ import annotations

import re
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlalchemy.ext.asyncio import AsyncSession

from marginalia.db.models import Concept
from marginalia.embed.base import Embedder
from marginalia.knowledge import repository as repo
from marginalia.knowledge.concept_graph import ConceptEdge as PureConceptEdge
from marginalia.knowledge.concept_graph import GraphAnalysis, analyze
from marginalia.knowledge.concepts import (
    acronym_letters,
    is_acronym,
    key_initials,
    merge_concepts,
    normalize_concept,
)
from marginalia.knowledge.extraction import combined_acronyms
from marginalia.knowledge.match_keys import concept_match_keys
from marginalia.knowledge.schemas import ExtractedConcept, Extraction
from marginalia.knowledge.vectors import embed_texts

_PARENT_EVIDENCE = re.compile(r"^parent stated by the extraction of (\S+)$")


_RELATED_EVIDENCE = re.compile(r"^related per the extraction of (\S+)$")


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


class NamedConcept(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def aliases(self) -> list[str]: ...


def reconstructed_acronyms(rows: Iterable[NamedConcept]) -> dict[str, str]:
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


async def sync_concepts(
    session: AsyncSession,
    embedder: Embedder,
    workspace_id: uuid.UUID,
    source_ids: Sequence[uuid.UUID],
    fresh: Mapping[uuid.UUID, Extraction],
) -> ConceptState:
    rows = await repo.list_concepts(session, workspace_id, detached=True)
    by_id = {r.id: r for r in rows}
    weighted = await repo.source_concept_weights(session, workspace_id)
    links = [(sid, cid) for sid, cid, _ in weighted]
    old_weight = {(sid, cid): w for sid, cid, w in weighted}
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
        for cid in sorted(
            linked.get(sid, []),
            key=lambda c: (-old_weight.get((sid, c), 0.0), by_id[c].slug if c in by_id else ""),
        ):
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

    acronyms = reconstructed_acronyms(rows)
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
            # stored before these keys existed, or under other key rules: rewrite them
            or list(row.match_keys or []) != concept_match_keys(row.name, aliases)
        ):
            updates.append(
                {
                    "id": row.id,
                    "name": row.name,
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

    # source links, weighted by the concept's rank in its source (1, 1/2, 1/3 …)
    desired_links = {
        (uuid.UUID(sid), id_of[slug_map[cs]])
        for sid, slugs in graph.source_concepts.items()
        for cs in slugs
    }
    slug_of_key = {k: c.slug for c in graph.concepts for k in c.member_keys}
    weights: dict[tuple[uuid.UUID, uuid.UUID], float] = {}
    for source_key, items in per_source.items():
        rank = 0
        for item in items:
            canonical = slug_of_key.get(normalize_concept(item.name))
            if canonical is None:
                continue
            link = (uuid.UUID(source_key), id_of[slug_map[canonical]])
            if link in desired_links and link not in weights:
                weights[link] = round(1.0 / (1 + rank), 6)
                rank += 1
    existing_links = {(s, c) for s, c in links if c in kept_ids and s in present}
    add_links = desired_links - existing_links
    remove_links = existing_links - desired_links
    reweigh = sorted(
        (link, weights.get(link, 1.0))
        for link in desired_links & existing_links
        if abs(old_weight.get(link, 1.0) - weights.get(link, 1.0)) > 1e-9
    )
    await repo.change_source_links(
        session,
        [(s, c, weights.get((s, c), 1.0)) for s, c in sorted(add_links)],
        sorted(remove_links),
        reweigh=[(s, c, w) for (s, c), w in reweigh],
    )

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
