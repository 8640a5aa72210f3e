"""The update side, concepts, bounded: what adding one source changes in the concept graph.

:func:`sync_source_concepts` matches the new source's extracted concepts against the
stored concepts that share a merge key with them (same key, same compact key, an acronym
pair of the extraction, or the initials rule — the rules of
:func:`~marginalia.knowledge.concepts.merge_concepts`, applied to those rows only), then
writes only:

* the new concepts (centrality 0 and no embedding until the refresh);
* name variants, level and description of the matched concepts when they change;
* the new source's concept links;
* concept edges among the new source's concepts (co-occurrence counts, containment,
  relations its extraction stated) — added or re-weighted, never removed.

Everything graph-wide — PageRank centrality, levels as the workspace grows, merges of two
stored concepts a new acronym reveals, edges that no longer hold, redundancy clusters and
the central wiki pages — is the job of the per-workspace refresh
(:mod:`marginalia.knowledge.refresh`), which re-merges the whole workspace.

The work is bounded by the new source's concepts and the sources linked to them: the
stored rows that share a key are found through the GIN-indexed ``concepts.match_keys``
(:mod:`marginalia.knowledge.match_keys`), and the slugs a new concept may take are looked
up by value, so no read covers every concept of the workspace.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from marginalia.db.models import Concept
from marginalia.embed.base import Embedder
from marginalia.knowledge import repository as repo
from marginalia.knowledge.concept_graph import CanonicalConcept, GraphAnalysis
from marginalia.knowledge.concept_graph import ConceptEdge as PureConceptEdge
from marginalia.knowledge.concept_store import ConceptState, reconstructed_acronyms
from marginalia.knowledge.concepts import (
    _join_ids,
    compact_key,
    key_initials,
    merge_concepts,
    workspace_level,
)
from marginalia.knowledge.extraction import combined_acronyms
from marginalia.knowledge.match_keys import probe_keys
from marginalia.knowledge.match_keys import surface as _surface
from marginalia.knowledge.schemas import ExtractedConcept, Extraction

NEW = "~new"
"""The new source's id in the local merge (stored rows are ``row:<id>``)."""


@dataclass
class _Stored:
    id: uuid.UUID
    slug: str
    name: str
    aliases: list[str]
    level: int
    description: str | None
    centrality: float | None


@dataclass
class LocalConcepts:
    """What :func:`sync_source_concepts` did, and the part of the graph it saw."""

    state: ConceptState
    """The new source's concepts only: their rows, links (every source linked to one of
    them), edges among them and stored centrality — enough for the source edges (shared
    concepts are among these) and the LLM wiki step."""
    total_concepts: int
    added: int
    rows_written: dict[str, int] = field(default_factory=dict)
    rows_read: dict[str, int] = field(default_factory=dict)
    """Stored concepts the key look-up returned (bounded by the new source's keys)."""


def _candidate_sets(extraction: Extraction) -> tuple[set[str], set[str], set[str], set[str]]:
    keys: set[str] = set()
    letters: set[str] = set()
    names: list[str] = []
    for c in extraction.concepts:
        names += [c.name, *([c.parent] if c.parent else []), *c.related]
    for short, long in extraction.acronyms.items():
        names += [short, long]
    for name in names:
        s = _surface(name)
        if s.key:
            keys.add(s.key)
        if s.letters:
            letters.add(s.letters)
    initials = {i for k in keys if len(k.split()) >= 2 and (i := key_initials(k))}
    return keys, {compact_key(k) for k in keys}, letters, initials


def _matching_rows(stored: Sequence[_Stored], extraction: Extraction) -> list[_Stored]:
    keys, compacts, letters, initials = _candidate_sets(extraction)
    out: list[_Stored] = []
    for row in stored:
        for name in (row.name, *row.aliases):
            s = _surface(name)
            if (
                s.key in keys
                or s.compact in compacts
                or (s.initials is not None and s.initials in letters)
                or (s.letters is not None and s.letters in initials)
            ):
                out.append(row)
                break
    return out


def _as_extracted(row: _Stored) -> list[ExtractedConcept]:
    items = [ExtractedConcept(name=row.name, level=row.level)]
    items += [ExtractedConcept(name=a, level=row.level) for a in row.aliases if a.strip()]
    return items


def _aliases(name: str, forms: Sequence[str]) -> list[str]:
    return sorted(
        {a for a in forms if a.strip() and a.casefold() != name.casefold()},
        key=lambda a: (a.casefold(), a),
    )


async def sync_source_concepts(
    session: AsyncSession,
    embedder: Embedder,
    workspace_id: uuid.UUID,
    source_id: uuid.UUID,
    extraction: Extraction,
    n_sources: int,
) -> LocalConcepts:
    """Link ``source_id`` to its concepts (new or matched), writing only what it changes
    (see the module doc). Idempotent for the same extraction."""
    stored = [
        _Stored(*r)
        for r in await repo.concept_forms(
            session, workspace_id, probe_keys(*_candidate_sets(extraction))
        )
    ]
    by_id = {r.id: r for r in stored}
    # the index returns the rows having one of the probe keys; the rules decide (the same)
    matched = _matching_rows(stored, extraction)
    per_source: dict[str, list[ExtractedConcept]] = {NEW: list(extraction.concepts)}
    for row in matched:
        per_source[f"row:{row.id}"] = _as_extracted(row)
    acronyms = reconstructed_acronyms(matched)
    acronyms.update(combined_acronyms([extraction]))
    graph = merge_concepts(per_source, acronyms)
    mine = [c for c in graph.concepts if NEW in c.source_ids]

    candidate_ids = [uuid.UUID(s[4:]) for c in mine for s in c.source_ids if s.startswith("row:")]
    links = await repo.links_of_concepts(session, candidate_ids)
    linked_sources: dict[uuid.UUID, set[uuid.UUID]] = defaultdict(set)
    for sid, cid, _ in links:
        if sid != source_id:
            linked_sources[cid].add(sid)

    fresh_levels: dict[str, list[int]] = defaultdict(list)
    for item in extraction.concepts:
        fresh_levels[_surface(item.name).key].append(item.level)
    fresh = [c.slug for c in mine if not any(s.startswith("row:") for s in c.source_ids)]
    checked = set(_slug_probe(fresh))
    used_slugs = await repo.taken_slugs(session, workspace_id, sorted(checked))
    new_rows: list[dict[str, Any]] = []
    updates: list[dict[str, Any]] = []
    concept_of: dict[str, _Stored] = {}  # canonical slug -> the stored (or new) row
    for c in mine:
        levels = [lv for k in c.member_keys for lv in fresh_levels.get(k, [])]
        rows = [by_id[uuid.UUID(s[4:])] for s in c.source_ids if s.startswith("row:")]
        if not rows:
            slug, n = c.slug, 2
            while True:
                if slug not in checked:  # past the first suffixes looked up at once
                    checked.add(slug)
                    used_slugs |= await repo.taken_slugs(session, workspace_id, [slug])
                if slug not in used_slugs:
                    break
                slug, n = f"{c.slug}-{n}", n + 1
            used_slugs.add(slug)
            row = _Stored(
                uuid.uuid4(),
                slug,
                c.name,
                _aliases(c.name, c.aliases),
                workspace_level(levels, 1, n_sources),
                c.description,
                0.0,
            )
            new_rows.append(
                {
                    "id": row.id,
                    "workspace_id": workspace_id,
                    "name": row.name,
                    "slug": row.slug,
                    "level": row.level,
                    "description": row.description,
                    "aliases": row.aliases,
                    "centrality": 0.0,
                }
            )
            concept_of[c.slug] = row
            continue
        keep = sorted(rows, key=lambda r: (-len(linked_sources[r.id]), r.slug))[0]
        df = len(linked_sources[keep.id]) + 1
        level = workspace_level([keep.level, *levels], df, n_sources)
        aliases = _aliases(keep.name, [*keep.aliases, c.name, *c.aliases])
        description = keep.description or c.description
        if (level, aliases, description) != (keep.level, keep.aliases, keep.description):
            keep.level, keep.aliases, keep.description = level, aliases, description
            updates.append(
                {
                    "id": keep.id,
                    "name": keep.name,
                    "level": level,
                    "aliases": aliases,
                    "description": description,
                }
            )
        concept_of[c.slug] = keep
    # New concepts are embedded by the refresh (one batch for every update since the last).
    await repo.insert_concepts(session, new_rows)
    await repo.update_concept_forms(session, updates)

    # the new source's links, weighted by rank (1, 1/2, 1/3 …) as in the full sync
    slug_of_key = {k: c.slug for c in mine for k in c.member_keys}
    weights: dict[uuid.UUID, float] = {}
    for item in extraction.concepts:
        canonical = slug_of_key.get(_surface(item.name).key)
        if canonical is not None and concept_of[canonical].id not in weights:
            weights[concept_of[canonical].id] = round(1.0 / (1 + len(weights)), 6)
    old = dict(await repo.links_of_source(session, source_id))
    await repo.change_source_links(
        session,
        [(source_id, cid, w) for cid, w in sorted(weights.items()) if cid not in old],
        [(source_id, cid) for cid in sorted(old) if cid not in weights],
        reweigh=[
            (source_id, cid, w)
            for cid, w in sorted(weights.items())
            if cid in old and abs(old[cid] - w) > 1e-9
        ],
    )

    final = {r.id: r for r in concept_of.values()}
    for cid in weights:
        linked_sources[cid].add(source_id)
    n_edges = await _sync_edges(
        session, workspace_id, source_id, extraction, graph.concepts, concept_of, linked_sources
    )
    state = await _local_state(session, final, linked_sources)
    return LocalConcepts(
        state=state,
        total_concepts=await repo.count_concepts(session, workspace_id),
        added=len(new_rows),
        rows_written={
            "concepts": len(new_rows) + len(updates),
            "links": len(weights) + len(old),
            "edges": n_edges,
        },
        rows_read={"concepts": len(stored)},
    )


_SLUG_PROBE = 8
"""Suffixed slugs (``slug-2`` …) looked up at once for each new concept."""


def _slug_probe(bases: Sequence[str]) -> list[str]:
    """``bases`` and their first suffixed forms: the slugs a new concept will most likely
    choose among (the first free one; :func:`sync_source_concepts` looks further ones up one
    by one)."""
    return [*bases, *(f"{b}-{n}" for b in bases for n in range(2, 2 + _SLUG_PROBE))]


def _pair(a: uuid.UUID, b: uuid.UUID) -> tuple[uuid.UUID, uuid.UUID]:
    return (a, b) if str(a) < str(b) else (b, a)


async def _sync_edges(
    session: AsyncSession,
    workspace_id: uuid.UUID,
    source_id: uuid.UUID,
    extraction: Extraction,
    canon: Sequence[CanonicalConcept],
    concept_of: dict[str, _Stored],
    linked: dict[uuid.UUID, set[uuid.UUID]],
) -> int:
    """Edges among the new source's concepts, by the rules of the full merge restricted to
    them: containment (``a kind of``), parents and relations the extraction stated,
    co-occurrence in ≥ 2 sources. Pairs that already have an edge keep it (a co-occurrence
    edge gets its new count); returns the rows written."""
    ids = sorted({r.id for r in concept_of.values()}, key=str)
    row = {r.id: r for r in concept_of.values()}
    keys = {
        r.id: sorted({tuple(_surface(f).key.split()) for f in (r.name, *r.aliases)} - {()})
        for r in row.values()
    }
    by_key: dict[str, uuid.UUID] = {}
    for c in canon:
        if c.slug in concept_of:
            for k in c.member_keys:
                by_key[k] = concept_of[c.slug].id
    existing = await repo.edges_among(session, ids)
    has_edge = {_pair(e.source_concept_id, e.target_concept_id): e for e in existing}
    add: dict[tuple[uuid.UUID, uuid.UUID], dict[str, Any]] = {}

    def propose(a: uuid.UUID, b: uuid.UUID, kind: str, weight: float, evidence: str) -> None:
        p = _pair(a, b)
        if p in has_edge or p in add or a == b:
            return
        add[p] = {
            "source_concept_id": a,
            "target_concept_id": b,
            "edge_type": kind,
            "weight": weight,
            "evidence": evidence,
        }

    def cooc(a: uuid.UUID, b: uuid.UUID) -> list[str]:
        return sorted(str(s) for s in linked.get(a, set()) & linked.get(b, set()))

    # containment: the general concept's key is the head (suffix) of the specific one's
    spec: set[tuple[uuid.UUID, uuid.UUID]] = set()
    for g in ids:
        for s in ids:
            if g != s and any(
                len(tb) > len(tg) and tb[-len(tg) :] == tg for tg in keys[g] for tb in keys[s]
            ):
                spec.add((g, s))
    spec = {(g, s) for g, s in spec if (s, g) not in spec}
    reduced = {(g, s) for g, s in spec if not any((g, m) in spec and (m, s) in spec for m in ids)}
    for g, s in sorted(reduced, key=lambda x: (str(x[0]), str(x[1]))):
        tg, tb = next(
            (a, b) for a in keys[g] for b in keys[s] if len(b) > len(a) and b[-len(a) :] == a
        )
        evidence = f"a kind of: '{' '.join(tg)}' is the head of '{' '.join(tb)}'"
        propose(g, s, "specialization", float(max(1, len(cooc(g, s)))), evidence)
    closure = {_pair(g, s) for g, s in spec}

    for item in extraction.concepts:
        child = by_key.get(_surface(item.name).key)
        parent = by_key.get(_surface(item.parent).key) if item.parent else None
        if child and parent and _pair(parent, child) not in closure:
            propose(
                parent,
                child,
                "prerequisite",
                float(max(1, len(cooc(parent, child)))),
                f"parent stated by the extraction of {source_id}",
            )

    modify: list[dict[str, Any]] = []
    for i, a in enumerate(ids):
        for b in ids[i + 1 :]:
            sids = cooc(a, b)
            if len(sids) < 2 or _pair(a, b) in closure:
                continue
            evidence = f"co-occur in {len(sids)} sources: {_join_ids(sids)}"
            current = has_edge.get(_pair(a, b))
            if current is not None:
                if (current.evidence or "").startswith("co-occur in") and (
                    current.weight != float(len(sids))
                    or not (current.evidence or "").startswith(evidence)
                ):
                    note = (current.evidence or "").partition("; ")[2]
                    modify.append(
                        {
                            "id": current.id,
                            "weight": float(len(sids)),
                            "evidence": evidence + (f"; {note}" if note else ""),
                        }
                    )
                continue
            ra, rb = row[a], row[b]
            dfa, dfb = len(linked.get(a, ())), len(linked.get(b, ()))
            lo, hi = ((a, ra, dfa), (b, rb, dfb))
            if (rb.level, -dfb) < (ra.level, -dfa):
                lo, hi = hi, lo
            if lo[1].level < hi[1].level and lo[2] >= hi[2]:
                evidence += (
                    f"; '{lo[1].name}' is more general (level {lo[1].level}, {lo[2]} sources) "
                    f"than '{hi[1].name}' (level {hi[1].level}, {hi[2]} sources)"
                )
                propose(lo[0], hi[0], "prerequisite", float(len(sids)), evidence)
            else:
                s, t = sorted((a, b), key=lambda x: row[x].slug)
                propose(s, t, "related", float(len(sids)), evidence)

    for item in extraction.concepts:
        ca = by_key.get(_surface(item.name).key)
        for rel in item.related:
            cb = by_key.get(_surface(rel).key)
            if ca and cb and ca != cb and _pair(ca, cb) not in closure:
                s, t = sorted((ca, cb), key=lambda x: row[x].slug)
                propose(
                    s,
                    t,
                    "related",
                    float(max(1, len(cooc(ca, cb)))),
                    f"related per the extraction of {source_id}",
                )
    rows = sorted(add.values(), key=lambda r: (str(r["source_concept_id"]), r["edge_type"]))
    await repo.change_concept_edges(session, workspace_id, rows, [], modify)
    return len(rows) + len(modify)


async def _local_state(
    session: AsyncSession, rows: dict[uuid.UUID, _Stored], linked: dict[uuid.UUID, set[uuid.UUID]]
) -> ConceptState:
    concepts = {
        r.id: Concept(
            id=r.id,
            workspace_id=uuid.UUID(int=0),
            name=r.name,
            slug=r.slug,
            level=r.level,
            description=r.description,
            aliases=list(r.aliases),
            centrality=r.centrality,
        )
        for r in rows.values()
    }
    slug_of = {cid: r.slug for cid, r in rows.items()}
    source_concepts: dict[uuid.UUID, dict[str, int]] = defaultdict(dict)
    concept_sources: dict[str, list[uuid.UUID]] = {}
    for cid, r in rows.items():
        sids = sorted(linked.get(cid, set()), key=str)
        concept_sources[r.slug] = sids
        for sid in sids:
            source_concepts[sid][r.slug] = r.level
    edges = [
        PureConceptEdge(
            slug_of[e.source_concept_id],
            slug_of[e.target_concept_id],
            e.edge_type,  # type: ignore[arg-type]
            e.weight,
            e.evidence or "",
        )
        for e in await repo.edges_among(session, list(rows))
    ]
    return ConceptState(
        rows=concepts,
        slug_of=slug_of,
        source_concepts=dict(source_concepts),
        concept_sources=concept_sources,
        edges=edges,
        analysis=GraphAnalysis(
            components=(),
            pagerank={r.slug: float(r.centrality or 0.0) for r in rows.values()},
            degree={},
        ),
        touched=set(slug_of.values()),
    )
