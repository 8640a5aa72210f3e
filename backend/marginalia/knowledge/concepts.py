"""Workspace-level concept normalisation, merging, levels and edges (DESIGN §1 "understand").

Per-source concepts (from an LLM or the offline engine) are merged into canonical concepts:

* **keys** — :func:`normalize_concept`: case-folded, hyphens/underscores/slashes read as
  spaces, punctuation dropped, every word singularised by simple rules with an exceptions
  list (``analysis``, ``bias``, ``corpus``, ``process`` … stay as they are). Two keys that
  differ only by spaces (``pre-training`` / ``pretraining``) are the same concept.
* **acronyms** — a short form and its long form are one concept when the acronym map says
  so (``BERT`` ↔ ``bidirectional encoder representations from transformers``) or, failing
  that, when exactly one multi-word concept named by the same source has the acronym's
  initials (``LLM`` ↔ ``large language model``). Ambiguous initials merge nothing.
* **levels** — each source's level for the concept (the offline engine's from generality,
  :mod:`~marginalia.knowledge.concept_levels`; an LLM's as stated), combined with the
  concept's spread over the workspace (:func:`~marginalia.knowledge.concept_levels.workspace_level`).
* **edges** — ``specialization`` (token containment, general → specific), ``prerequisite``
  (lower-level → higher-level concept co-occurring in ≥ 2 sources, or an extraction's stated
  parent), ``related`` (co-occurrence in ≥ 2 sources otherwise, or stated by an extraction).
  Every edge says what made it in ``evidence``.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

import networkx as nx

from marginalia.knowledge.concept_graph import (
    CanonicalConcept,
    ConceptEdge,
    ConceptGraphData,
    SourceId,
)
from marginalia.knowledge.schemas import ExtractedConcept
from marginalia.knowledge.text import STOP_WORDS, slugify, wordset

# ---------------------------------------------------------------------------------------------
# Normalisation
# ---------------------------------------------------------------------------------------------

_INVARIANT: frozenset[str] = wordset(
    """
    analysis basis bias corpus process class news series species means physics mathematics
    linguistics semantics pragmatics economics robotics genomics proteomics dynamics analytics
    ethics statistics informatics electronics phonetics genetics graphics optics politics
    logistics acoustics mechanics kinetics aesthetics diagnostics lens gas bus plus chaos ethos
    atlas canvas alias diabetes measles herpes rabies thesis hypothesis synthesis diagnosis
    prognosis axis emphasis crisis status focus consensus virus census campus apparatus nexus
    stimulus radius syllabus calculus modulus locus genus octopus bonus sinus thus yes
    perhaps always whereas various previous numerous continuous ambiguous analogous
    heterogeneous homogeneous autonomous anonymous simultaneous spontaneous obvious serious
    famous nervous
    """
)
"""Words that end in ``s`` but are not plurals (or whose plural is the same word)."""

_IRREGULAR: dict[str, str] = {
    "corpora": "corpus",
    "criteria": "criterion",
    "phenomena": "phenomenon",
    "indices": "index",
    "matrices": "matrix",
    "vertices": "vertex",
    "appendices": "appendix",
    "analyses": "analysis",
    "hypotheses": "hypothesis",
    "theses": "thesis",
    "syntheses": "synthesis",
    "diagnoses": "diagnosis",
    "axes": "axis",
    "biases": "bias",
    "aliases": "alias",
    "gases": "gas",
    "canvases": "canvas",
    "atlases": "atlas",
    "statuses": "status",
    "viruses": "virus",
    "focuses": "focus",
    "consensuses": "consensus",
    "campuses": "campus",
    "buses": "bus",
    "processes": "process",
    "classes": "class",
    "caches": "cache",
    "niches": "niche",
    "children": "child",
    "men": "man",
    "women": "woman",
    "mice": "mouse",
    "feet": "foot",
    "teeth": "tooth",
    "geese": "goose",
    "leaves": "leaf",
    "lives": "life",
    "halves": "half",
    "selves": "self",
    "wolves": "wolf",
    "knives": "knife",
    "shelves": "shelf",
    "movies": "movie",
    "cookies": "cookie",
    "calories": "calorie",
    "zombies": "zombie",
    "rookies": "rookie",
    "heroes": "hero",
}

_ES_PLURAL_RE = re.compile(r"(?:ss|sh|ch|x|zz)es$")
_ACRONYM_RE = re.compile(r"^[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*$")
_ACRONYM_PLURAL_RE = re.compile(r"^([A-Z0-9]{2,})s$")
_TOKEN_RE = re.compile(r"[^\W_]+", re.UNICODE)


def singularize(word: str) -> str:
    """Singular form of one lower-case word by simple suffix rules.

    Words of three letters or fewer, words in the invariant list (``analysis``, ``bias``,
    ``corpus``, ``process``, ``series`` …) and words ending in ``ss``/``us``/``is``/``ous``
    are returned unchanged.
    """
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) <= 3 or word in _INVARIANT or not word.isalpha():
        return word
    if word.endswith(("ss", "us", "is", "ous")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if _ES_PLURAL_RE.search(word):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word


def _surface_tokens(name: str) -> list[str]:
    """Raw tokens of a concept name; acronym plurals (``LLMs``) lose their ``s`` here."""
    out: list[str] = []
    for tok in _TOKEN_RE.findall(name):
        m = _ACRONYM_PLURAL_RE.match(tok)
        out.append(m.group(1) if m else tok)
    return out


def normalize_concept(name: str) -> str:
    """Merge key of a concept name.

    ``"Multi-Head Attentions"`` → ``"multi head attention"``; ``"LLMs"`` → ``"llm"``;
    ``"Corpus Analysis"`` → ``"corpus analysis"``.
    """
    return " ".join(singularize(t.casefold()) for t in _surface_tokens(name))


def compact_key(key: str) -> str:
    """Spaces removed: ``"pre training"`` and ``"pretraining"`` share a compact key."""
    return key.replace(" ", "")


def key_tokens(key: str) -> frozenset[str]:
    """Content tokens of a key (stop words removed), for containment tests."""
    return frozenset(t for t in key.split() if t not in STOP_WORDS)


def is_plain_word(name: str) -> bool:
    """One word (hyphenated or not) without digits and with at most one capital letter:
    "quark", "thromboprophylaxis", "self-management" — not "SciBERT", "S2ORC" or "GJ 486b"."""
    return (
        len(name.split()) == 1
        and not any(ch.isdigit() for ch in name)
        and sum(ch.isupper() for ch in name) <= 1
    )


def is_acronym(surface: str) -> bool:
    """``BERT``, ``LLMs``, ``RoBERTa``-like tokens: one word with at least two capitals."""
    s = surface.strip()
    m = _ACRONYM_PLURAL_RE.match(s)
    if m:
        s = m.group(1)
    return (
        " " not in s
        and 2 <= len(s) <= 12
        and _ACRONYM_RE.match(s) is not None
        and sum(c.isupper() for c in s) >= 2
    )


def acronym_letters(surface: str) -> str:
    """Lower-case letters of an acronym (``"LLMs"`` → ``"llm"``)."""
    s = surface.strip()
    m = _ACRONYM_PLURAL_RE.match(s)
    if m:
        s = m.group(1)
    return "".join(c for c in s if c.isalpha()).casefold()


def key_initials(key: str) -> str:
    """Initials of a key's non-stop-word tokens (``"large language model"`` → ``"llm"``)."""
    return "".join(t[0] for t in key.split() if t not in STOP_WORDS and t[0].isalpha())


# ---------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# Levels
# ---------------------------------------------------------------------------------------------

WORKSPACE_FOUNDATIONAL_SHARE = 0.5
"""Share of the workspace's sources that makes a concept foundational (level 0)…"""
WORKSPACE_FOUNDATIONAL_MIN_SOURCES = 3
"""…when at least this many sources discuss it."""


def workspace_level(levels: Sequence[int], df: int, n_sources: int) -> int:
    """The workspace level of a concept from its sources' levels (each source's from
    generality, :mod:`marginalia.knowledge.concept_levels`) and its spread: 0 when at least
    half of the sources (three or more) discuss it; otherwise the most general of the
    sources' levels, and at most 1 when several sources discuss it (it is no longer one
    paper's own)."""
    if df >= WORKSPACE_FOUNDATIONAL_MIN_SOURCES and df >= WORKSPACE_FOUNDATIONAL_SHARE * n_sources:
        return 0
    level = min(levels) if levels else 1
    return min(level, 1) if df >= 2 else level


# ---------------------------------------------------------------------------------------------
# Merge
# ---------------------------------------------------------------------------------------------


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def add(self, x: str) -> None:
        self.parent.setdefault(x, x)

    def find(self, x: str) -> str:
        root = x
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[x] != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            # deterministic: the lexicographically smaller key is the root
            lo, hi = sorted((ra, rb))
            self.parent[hi] = lo


def _join_ids(ids: Sequence[str], limit: int = 5) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f", … (+{len(ids) - limit})" if len(ids) > limit else "")


def merge_concepts(
    per_source: Mapping[SourceId, Sequence[ExtractedConcept]],
    acronyms: Mapping[str, str] | None = None,
) -> ConceptGraphData:
    """Merge per-source concepts into the workspace concept graph (deterministic)."""
    acronyms = dict(acronyms or {})
    uf = _UnionFind()
    key_sources: dict[str, set[SourceId]] = defaultdict(set)
    surface_sources: dict[str, dict[str, set[SourceId]]] = defaultdict(lambda: defaultdict(set))
    descriptions: dict[str, list[tuple[SourceId, str]]] = defaultdict(list)
    parents: list[tuple[SourceId, str, str]] = []  # (source, child key, parent key)
    stated_related: list[tuple[SourceId, str, str]] = []
    acronym_surface_keys: dict[str, str] = {}  # key -> acronym letters
    key_levels: dict[str, list[int]] = defaultdict(list)  # the sources' levels

    source_ids = sorted(per_source)
    for sid in source_ids:
        for concept in per_source[sid]:
            key = normalize_concept(concept.name)
            if not key:
                continue
            uf.add(key)
            key_sources[key].add(sid)
            key_levels[key].append(concept.level)
            surface = " ".join(concept.name.split())
            surface_sources[key][surface].add(sid)
            if is_acronym(surface):
                acronym_surface_keys[key] = acronym_letters(surface)
            if concept.description and concept.description.strip():
                descriptions[key].append((sid, concept.description.strip()))
            if concept.parent and normalize_concept(concept.parent):
                parents.append((sid, key, normalize_concept(concept.parent)))
            for rel in concept.related:
                rk = normalize_concept(rel)
                if rk and rk != key:
                    stated_related.append((sid, key, rk))

    present = set(key_sources)
    merge_evidence: dict[str, list[str]] = defaultdict(list)

    # 1. spelling variants (spaces vs no spaces)
    by_compact: dict[str, list[str]] = defaultdict(list)
    for key in sorted(present):
        by_compact[compact_key(key)].append(key)
    for keys in by_compact.values():
        for other in keys[1:]:
            uf.union(keys[0], other)

    # 2. the explicit acronym map
    alias_strings: dict[str, set[str]] = defaultdict(set)
    long_names: dict[str, str] = {}  # short form's key -> its long form, the title
    mapped_acronym_keys: set[str] = set()
    for short, long in sorted(acronyms.items()):
        ks, kl = normalize_concept(short), normalize_concept(long)
        if not ks or not kl or ks == kl:
            continue
        if ks not in present and kl not in present:
            continue
        uf.add(ks)
        uf.add(kl)
        uf.union(ks, kl)
        mapped_acronym_keys.add(ks)
        long_names.setdefault(ks, " ".join(long.split()))
        alias_strings[ks].update({short.strip(), " ".join(long.split())})
        merge_evidence[ks].append(f"acronym: {short.strip()} = {' '.join(long.split())}")

    # 3. the initials heuristic, only when unambiguous and only between concepts one source
    # names together: initials alone are weak evidence across papers (SPECTER's [CLS] token
    # is not another paper's "COVID-19 literature search").
    by_initials: dict[str, list[str]] = defaultdict(list)
    for key in sorted(present):
        if len(key.split()) >= 2:
            by_initials[key_initials(key)].append(key)
    for key, letters in sorted(acronym_surface_keys.items()):
        if key in mapped_acronym_keys or len(letters) < 2:
            continue
        own = uf.find(key)
        together = [k for k in by_initials.get(letters, []) if key_sources[k] & key_sources[key]]
        roots = sorted({uf.find(k) for k in together} - {own})
        if len(roots) == 1:
            target = sorted(k for k in together if uf.find(k) == roots[0])[0]
            uf.union(key, target)
            merge_evidence[key].append(f"acronym initials: {letters.upper()} = {target}")

    # 4. near-duplicates: a capitalised word and its hyphenated compound in one source
    # ("FINE" and "FINE-grained") are one concept
    _merge_compounds(uf, surface_sources, key_sources)

    # groups
    groups: dict[str, list[str]] = defaultdict(list)
    for key in sorted(uf.parent):
        groups[uf.find(key)].append(key)

    n_sources = sum(1 for sid in source_ids if per_source[sid])
    group_sources: dict[str, tuple[SourceId, ...]] = {}
    for root, keys in groups.items():
        srcs: set[SourceId] = set()
        for k in keys:
            srcs |= key_sources.get(k, set())
        group_sources[root] = tuple(sorted(srcs))

    concepts_by_root: dict[str, CanonicalConcept] = {}
    used_slugs: set[str] = set()
    for root in sorted(groups, key=lambda r: (-len(group_sources[r]), r)):
        keys = groups[root]
        if not group_sources[root]:
            continue
        surfaces: dict[str, int] = defaultdict(int)
        for k in keys:
            for surf, sids in surface_sources.get(k, {}).items():
                surfaces[surf] += len(sids)
        # on a tie a phrase beats a plain word ("band gap" over "bandgap"): a source that
        # says "band gap" keeps a phrase, and its one plain word (keyphrases) stays one
        name = sorted(
            surfaces.items(), key=lambda kv: (-kv[1], is_plain_word(kv[0]), len(kv[0]), kv[0])
        )[0][0]
        # an acronym is named by what it stands for ("deep venous thrombosis", alias DVT)
        expansions = sorted(long_names[k] for k in keys if k in long_names)
        if expansions and _initialism(name) and len(expansions[0].split()) <= 4:
            name = expansions[0]
        compounds = sorted(a for a in surfaces if a.startswith(f"{name}-"))
        if compounds and name.isupper():
            name = compounds[0]  # "FINE-grained", not "FINE"
        aliases: set[str] = set(surfaces)
        for k in keys:
            aliases |= alias_strings.get(k, set())
        aliases = {a for a in aliases if a.casefold() != name.casefold()}
        desc_candidates: list[tuple[SourceId, str]] = []
        for k in keys:
            desc_candidates.extend(descriptions.get(k, []))
        description = sorted(desc_candidates)[0][1] if desc_candidates else None
        levels = [lv for k in keys for lv in key_levels.get(k, [])]
        level = workspace_level(levels, len(group_sources[root]), n_sources)
        base = slugify(name)
        slug, i = base, 2
        while slug in used_slugs:
            slug, i = f"{base}-{i}", i + 1
        used_slugs.add(slug)
        concepts_by_root[root] = CanonicalConcept(
            key=normalize_concept(name),
            name=name,
            slug=slug,
            description=description,
            source_ids=group_sources[root],
            aliases=tuple(sorted(aliases, key=lambda a: (a.casefold(), a))),
            level=level,
            member_keys=tuple(sorted(keys)),
        )

    root_of = {k: uf.find(k) for k in uf.parent}
    edges = _build_edges(concepts_by_root, root_of, parents, stated_related)
    source_concepts: dict[SourceId, tuple[str, ...]] = {}
    for sid in source_ids:
        slugs = {
            concepts_by_root[root_of[normalize_concept(c.name)]].slug
            for c in per_source[sid]
            if normalize_concept(c.name) and root_of[normalize_concept(c.name)] in concepts_by_root
        }
        source_concepts[sid] = tuple(sorted(slugs))
    concepts = tuple(sorted(concepts_by_root.values(), key=lambda c: c.slug))
    return ConceptGraphData(concepts=concepts, edges=edges, source_concepts=source_concepts)


def _initialism(name: str) -> bool:
    """ "DVT", "LMWH", "KBs": letters that stand for words, not a system's name ("SPECTER")."""
    core = name[:-1] if name.endswith("s") else name
    return 2 <= len(core) <= 4 and core.isalpha() and core.isupper()


def _merge_compounds(
    uf: _UnionFind,
    surface_sources: Mapping[str, Mapping[str, set[SourceId]]],
    key_sources: Mapping[str, set[SourceId]],
) -> None:
    prefixes = {
        surf: key
        for key, surfaces in surface_sources.items()
        for surf in surfaces
        if " " not in surf and surf.isupper() and len(surf) >= 3
    }
    for key, surfaces in sorted(surface_sources.items()):
        for surf in surfaces:
            head, dash, _ = surf.partition("-")
            other = prefixes.get(head) if dash else None
            if other and other != key and key_sources[key] & key_sources[other]:
                uf.union(other, key)


def _build_edges(
    concepts_by_root: Mapping[str, CanonicalConcept],
    root_of: Mapping[str, str],
    parents: Iterable[tuple[SourceId, str, str]],
    stated_related: Iterable[tuple[SourceId, str, str]],
) -> tuple[ConceptEdge, ...]:
    roots = sorted(concepts_by_root)
    # co-occurrence
    cooc: dict[tuple[str, str], list[SourceId]] = defaultdict(list)
    by_source: dict[SourceId, set[str]] = defaultdict(set)
    for root in roots:
        for sid in concepts_by_root[root].source_ids:
            by_source[sid].add(root)
    for sid in sorted(by_source):
        present = sorted(by_source[sid])
        for i, a in enumerate(present):
            for b in present[i + 1 :]:
                cooc[(a, b)].append(sid)

    def pair(a: str, b: str) -> tuple[str, str]:
        return (a, b) if a < b else (b, a)

    decided: dict[tuple[str, str], ConceptEdge] = {}

    # specialization: the general concept is the head of the specific one ("heparin" →
    # "low molecular weight heparin": a kind of heparin), not any word it contains ("full"
    # ↛ "full text"); transitively reduced
    token_lists: dict[str, list[tuple[str, ...]]] = {
        r: sorted({tuple(k.split()) for k in concepts_by_root[r].member_keys} - {()}) for r in roots
    }
    by_head: dict[str, set[str]] = defaultdict(set)
    for r in roots:
        for toks in token_lists[r]:
            by_head[toks[-1]].add(r)
    spec = nx.DiGraph()
    spec_evidence: dict[tuple[str, str], str] = {}
    for general in roots:
        for tg in token_lists[general]:
            for specific in sorted(by_head[tg[-1]] - {general}):
                for tb in token_lists[specific]:
                    if len(tb) > len(tg) and tb[-len(tg) :] == tg:
                        if not spec.has_edge(general, specific):
                            spec.add_edge(general, specific)
                            spec_evidence[(general, specific)] = (
                                f"a kind of: '{' '.join(tg)}' is the head of '{' '.join(tb)}'"
                            )
                        break
    for a, b in list(spec.edges()):
        if spec.has_edge(b, a):  # mutual containment via different aliases: ambiguous
            spec.remove_edge(a, b)
            spec.remove_edge(b, a)
    if nx.is_directed_acyclic_graph(spec):
        reduced = nx.transitive_reduction(spec)
        spec_edges = sorted(reduced.edges())
    else:  # pragma: no cover - needs contrived aliases
        spec_edges = sorted(spec.edges())
    for a, b in spec_edges:
        ca, cb = concepts_by_root[a], concepts_by_root[b]
        weight = float(max(1, len(cooc.get(pair(a, b), []))))
        decided[pair(a, b)] = ConceptEdge(
            ca.slug, cb.slug, "specialization", weight, spec_evidence[(a, b)]
        )
    # pairs linked only transitively by containment are not re-linked by co-occurrence
    spec_closure = {pair(a, b) for a, b in spec.edges()}

    # prerequisites stated by an extraction (parent → child)
    for sid, child_key, parent_key in sorted(parents):
        if parent_key not in root_of or child_key not in root_of:
            continue
        pa, ch = root_of[parent_key], root_of[child_key]
        if pa == ch or pa not in concepts_by_root or ch not in concepts_by_root:
            continue
        if pair(pa, ch) in decided or pair(pa, ch) in spec_closure:
            continue
        decided[pair(pa, ch)] = ConceptEdge(
            concepts_by_root[pa].slug,
            concepts_by_root[ch].slug,
            "prerequisite",
            float(max(1, len(cooc.get(pair(pa, ch), [])))),
            f"parent stated by the extraction of {sid}",
        )

    # co-occurrence in ≥ 2 sources
    for (a, b), sids in sorted(cooc.items()):
        if len(sids) < 2 or (a, b) in decided or (a, b) in spec_closure:
            continue
        ca, cb = concepts_by_root[a], concepts_by_root[b]
        evidence = f"co-occur in {len(sids)} sources: {_join_ids(sids)}"
        lo, hi = (ca, cb) if (ca.level, -ca.df) < (cb.level, -cb.df) else (cb, ca)
        if lo.level < hi.level and lo.df >= hi.df:
            # the more general concept (lower level, at least as widespread) comes first
            evidence += (
                f"; '{lo.name}' is more general (level {lo.level}, {lo.df} sources) than "
                f"'{hi.name}' (level {hi.level}, {hi.df} sources)"
            )
            decided[(a, b)] = ConceptEdge(
                lo.slug, hi.slug, "prerequisite", float(len(sids)), evidence
            )
        else:
            s, t = sorted((ca.slug, cb.slug))
            decided[(a, b)] = ConceptEdge(s, t, "related", float(len(sids)), evidence)

    # relations stated by an extraction
    for sid, key_a, key_b in sorted(stated_related):
        if key_a not in root_of or key_b not in root_of:
            continue
        a, b = root_of[key_a], root_of[key_b]
        if a == b or a not in concepts_by_root or b not in concepts_by_root:
            continue
        if pair(a, b) in decided or pair(a, b) in spec_closure:
            continue
        s, t = sorted((concepts_by_root[a].slug, concepts_by_root[b].slug))
        decided[pair(a, b)] = ConceptEdge(
            s,
            t,
            "related",
            float(max(1, len(cooc.get(pair(a, b), [])))),
            f"related per the extraction of {sid}",
        )

    return tuple(sorted(decided.values(), key=lambda e: (e.source, e.target, e.type)))


# ---------------------------------------------------------------------------------------------
# Analysis
# ---------------------------------------------------------------------------------------------
