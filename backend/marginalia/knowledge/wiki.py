"""Offline wiki writing: concept pages assembled from cited sentences.

Without a model the wiki is extractive: a page for each central concept lists sentences
from the sources that discuss it, each followed by a citation marker
``[source:<id>#<chunk_index>]`` (``[source:<id>]`` when the sentence is not from a chunk, e.g.
an abstract). A "Related" line links ``[[slug]]`` only to pages written in the same set, so
every link resolves.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from marginalia.knowledge.text import normalize_whitespace

MAX_PAGES = 50
MAX_SENTENCES_PER_PAGE = 8
MAX_SENTENCES_PER_SOURCE = 2
MIN_PAGE_SENTENCES = 3
"""A concept without a definition needs this many distinct sentences naming it for a page."""

_LINK_RE = re.compile(r"\[\[([^\[\]|]+?)(?:\|[^\[\]]*)?\]\]")
_CITATION_RE = re.compile(r"\[source:([^\]#\s]+)(?:#(\d+))?\]")


@dataclass(frozen=True)
class WikiConcept:
    name: str
    slug: str
    description: str | None
    source_ids: tuple[str, ...]
    related: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class CitedSentence:
    text: str
    source_id: str
    chunk_index: int | None


@dataclass(frozen=True)
class WikiPageDraft:
    slug: str
    title: str
    body_markdown: str
    links: tuple[str, ...]
    cited: tuple[tuple[str, int | None], ...]


def citation_marker(source_id: str, chunk_index: int | None) -> str:
    return f"[source:{source_id}]" if chunk_index is None else f"[source:{source_id}#{chunk_index}]"


def extract_links(body: str) -> list[str]:
    """``[[slug]]`` / ``[[slug|label]]`` targets in order of first appearance."""
    out: list[str] = []
    for m in _LINK_RE.finditer(body):
        slug = m.group(1).strip()
        if slug and slug not in out:
            out.append(slug)
    return out


def resolve_links(body: str, known_slugs: Iterable[str]) -> list[str]:
    """The link targets of ``body`` that name a known page (order of first appearance)."""
    known = set(known_slugs)
    return [s for s in extract_links(body) if s in known]


def broken_links(body: str, known_slugs: Iterable[str]) -> list[str]:
    """The link targets of ``body`` that name no known page."""
    known = set(known_slugs)
    return [s for s in extract_links(body) if s not in known]


def extract_citations(body: str) -> list[tuple[str, int | None]]:
    """``(source_id, chunk_index)`` of every citation marker, in order (duplicates kept)."""
    return [
        (m.group(1), int(m.group(2)) if m.group(2) else None) for m in _CITATION_RE.finditer(body)
    ]


@lru_cache(maxsize=4096)
def _mention_pattern(concept: WikiConcept) -> re.Pattern[str]:
    forms = sorted(
        {f for f in (concept.name, *concept.aliases) if f.strip()}, key=lambda f: (-len(f), f)
    )
    alts = []
    for form in forms:
        words = [re.escape(w) for w in re.split(r"[\s\-_]+", form.strip()) if w]
        if words:
            alts.append(r"[\s\-_]+".join(words) + r"(?:s|es)?")
    return re.compile(r"(?<![\w-])(?:" + "|".join(alts) + r")(?![\w-])", re.IGNORECASE)


def _clean(text: str) -> str:
    """One line of prose that cannot inject links or fake citations."""
    text = normalize_whitespace(text)
    return text.replace("[[", "[ [").replace("]]", "] ]").replace("[source:", "[source :")


def page_title(name: str) -> str:
    """Capitalise a lower-case name ("citation graph" → "Citation graph"); a name with any
    capital ("arXiv", "SciBERT") is kept as written."""
    if any(c.isupper() for c in name):
        return name
    return name[:1].upper() + name[1:]


def write_concept_pages(
    concepts: Sequence[WikiConcept],
    sentences_by_source: Mapping[str, Sequence[CitedSentence]],
    *,
    centrality: Mapping[str, float] | None = None,
    max_pages: int = MAX_PAGES,
    max_sentences: int = MAX_SENTENCES_PER_PAGE,
    per_source: int = MAX_SENTENCES_PER_SOURCE,
) -> list[WikiPageDraft]:
    """One page per central concept that at least one cited sentence mentions.

    Concepts are ranked by ``centrality`` (e.g. PageRank from
    :func:`marginalia.knowledge.concepts.analyze`), then by the number of sources, then slug;
    the top ``max_pages`` with evidence get a page. Pages are returned sorted by slug.
    """
    centrality = centrality or {}
    evidence: dict[str, list[CitedSentence]] = {}
    mentions: dict[str, int] = {}  # distinct sentences that name the concept
    named: dict[str, list[CitedSentence]] = defaultdict(list)
    for concept in concepts:
        pattern = _mention_pattern(concept)
        picked: list[CitedSentence] = []
        seen: set[str] = set()
        for sid in sorted(set(concept.source_ids)):
            taken = 0
            for sent in sentences_by_source.get(sid, ()):
                key = normalize_whitespace(sent.text).casefold()
                if key in seen or not pattern.search(sent.text):
                    continue
                seen.add(key)
                named[concept.slug].append(sent)
                if taken < per_source and len(picked) < max_sentences:
                    picked.append(sent)
                    taken += 1
        mentions[concept.slug] = len(seen)
        if picked:
            evidence[concept.slug] = picked

    # Only a concept with substance gets a page: a definition, or at least
    # MIN_PAGE_SENTENCES distinct sentences across its sources (issue 35).
    ranked = sorted(
        (
            c
            for c in concepts
            if c.slug in evidence and (c.description or mentions[c.slug] >= MIN_PAGE_SENTENCES)
        ),
        key=lambda c: (-centrality.get(c.slug, 0.0), -len(set(c.source_ids)), c.slug),
    )
    chosen = {c.slug: c for c in ranked[: max(0, max_pages)]}

    pages: list[WikiPageDraft] = []
    for slug in sorted(chosen):
        concept = chosen[slug]
        lead, lead_sentence, bullets = _lead_and_bullets(concept, evidence[slug], named[slug])
        lines = [f"# {page_title(concept.name)}", ""]
        if concept.aliases:
            lines += ["Also known as: " + ", ".join(_clean(a) for a in concept.aliases), ""]
        cited: list[tuple[str, int | None]] = []
        if lead_sentence is not None:
            lead += " " + citation_marker(lead_sentence.source_id, lead_sentence.chunk_index)
            cited.append((lead_sentence.source_id, lead_sentence.chunk_index))
        lines += [lead, ""]
        if bullets:
            lines += ["## What the sources say", ""]
        for sent in bullets:
            lines.append(
                f"- {_clean(sent.text)} {citation_marker(sent.source_id, sent.chunk_index)}"
            )
            cited.append((sent.source_id, sent.chunk_index))
        across = _across_sources(concept, named[slug], concepts, chosen)
        lines += across
        cited += extract_citations("\n".join(across))
        related = sorted({r for r in concept.related if r in chosen and r != slug})
        if related:
            shown = ", ".join(f"[[{r}|{_clean(page_title(chosen[r].name))}]]" for r in related)
            lines += ["", "Related: " + shown]
        body = "\n".join(lines).rstrip() + "\n"
        pages.append(
            WikiPageDraft(
                slug=slug,
                title=page_title(concept.name),
                body_markdown=body,
                links=tuple(related),
                cited=tuple(cited),
            )
        )
    return pages


MAX_ADDED_TERMS = 3


def _across_sources(
    concept: WikiConcept,
    named: Sequence[CitedSentence],
    concepts: Sequence[WikiConcept],
    chosen: Mapping[str, WikiConcept],
) -> list[str]:
    """How the sources treat the concept, for a page with several: which sources name it,
    how often, and which other concepts each one alone brings to it. Offline nothing
    judges whether they agree, and the section says so rather than invent a contrast."""
    by_source: dict[str, list[CitedSentence]] = defaultdict(list)
    for sent in named:
        by_source[sent.source_id].append(sent)
    if len(by_source) < 2:
        return []
    others = [
        c for c in concepts if c.slug != concept.slug and set(c.source_ids) & by_source.keys()
    ]
    seen_with: dict[str, set[str]] = {}
    for sid, sents in by_source.items():
        text = " ".join(s.text for s in sents)
        seen_with[sid] = {c.slug for c in others if _mention_pattern(c).search(text)}
    lines = [
        "",
        "## Across the sources",
        "",
        f"Named in {len(by_source)} sources. No model compared them here: each source's own "
        "sentences are quoted above, and whether they agree is for the reader to judge.",
        "",
    ]
    names = {c.slug: c for c in others}
    for sid in sorted(by_source, key=lambda s: (-len(by_source[s]), s)):
        n = len(by_source[sid])
        verb = "sentence names" if n == 1 else "sentences name"
        first = by_source[sid][0]  # cited at its first passage naming the concept
        line = f"- {citation_marker(sid, first.chunk_index)}: {n} {verb} it"
        alone = set(seen_with[sid]).difference(*(v for k, v in seen_with.items() if k != sid))
        added = sorted(alone, key=lambda s: (s not in chosen, names[s].name.casefold()))
        if added:
            shown = [
                f"[[{s}|{_clean(page_title(names[s].name))}]]"
                if s in chosen
                else _clean(names[s].name)
                for s in added[:MAX_ADDED_TERMS]
            ]
            line += "; only this source relates it to " + ", ".join(shown)
        lines.append(line + ".")
    return lines


_DEFINING = re.compile(
    r"\b(?:is|are|was|refers to|stands for|denotes|(?:is|are) defined as|we (?:call|define))\b",
    re.IGNORECASE,
)


def _lead_and_bullets(
    concept: WikiConcept, evidence: Sequence[CitedSentence], named: Sequence[CitedSentence]
) -> tuple[str, CitedSentence | None, list[CitedSentence]]:
    """The page's lead — the concept's definition, else the first sentence that says
    what it is (returned too, to be cited) — and the cited sentences that are not the
    lead (each said once)."""
    defining: CitedSentence | None = None
    if concept.description:
        lead = _clean(concept.description)
    else:
        pattern = _mention_pattern(concept)
        defining = next(
            (
                s
                for s in named
                if (m := pattern.search(s.text))
                and _DEFINING.search(s.text[m.end() : m.end() + 40])
            ),
            evidence[0],
        )
        lead = _clean(defining.text)
    key = _same(lead)
    bullets = [s for s in evidence if _same(s.text) not in key and key not in _same(s.text)]
    return lead, defining, bullets


def _same(text: str) -> str:
    return re.sub(r"\W+", " ", normalize_whitespace(text).casefold()).strip()


@dataclass(frozen=True)
class CitationTarget:
    """What a citation marker points at, as a reader sees it."""

    source_id: str
    chunk_index: int | None
    title: str
    page: int | None


def reader_href(workspace_id: str, target: CitationTarget) -> str:
    """The web app's reader URL of a cited passage (``/w/<ws>/read/<source>?page=N&chunk=I``)."""
    query = []
    if target.page is not None:
        query.append(f"page={target.page}")
    if target.chunk_index is not None:
        query.append(f"chunk={target.chunk_index}")
    return f"/w/{workspace_id}/read/{target.source_id}" + ("?" + "&".join(query) if query else "")


def citation_label(target: CitationTarget, *, max_title: int = 60) -> str:
    """``"SPECTER, p. 3"``: the source's title (its name before a colon when it has one,
    else shortened) and page."""
    title = normalize_whitespace(target.title) or "untitled source"
    head = title.split(":", 1)[0].strip()
    if ":" in title and 3 <= len(head) <= 40:
        title = head
    if len(title) > max_title:
        title = title[: max_title - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"
    return f"{title}, p. {target.page}" if target.page is not None else title


def render_citations(
    body: str,
    targets: Mapping[tuple[str, int | None], CitationTarget],
    workspace_id: str,
) -> str:
    """Markdown with every ``[source:<id>#<chunk>]`` marker replaced by a link labelled with
    the source's title and page, pointing at the reader (:func:`reader_href`). A marker whose
    source is gone becomes "(source removed)"."""

    def link(m: re.Match[str]) -> str:
        key = (m.group(1), int(m.group(2)) if m.group(2) else None)
        target = targets.get(key) or targets.get((key[0], None))
        if target is None:
            return "(source removed)"
        if target.chunk_index != key[1]:
            target = CitationTarget(target.source_id, key[1], target.title, target.page)
        label = citation_label(target).replace("[", "(").replace("]", ")")
        return f"([{label}]({reader_href(workspace_id, target)}))"

    return _CITATION_RE.sub(link, body)


_NAMED_TOKEN_RE = re.compile(
    r"^(?=\w*[A-Za-z])(?:[A-Z0-9][\w-]*[A-Z0-9][\w-]*|[A-Z][a-z]+[A-Z]\w*)$"
)


def is_named_entity(name: str, aliases: Sequence[str] = ()) -> bool:
    """A named system, dataset, model or method (``SPECTER``, ``S2ORC``, ``SciBERT``,
    ``GloVe``, ``MeSH``, ``SemEval-2017``): some form is one token with an inner capital or a
    digit beside letters, at least three characters long."""
    for form in (name, *aliases):
        token = form.strip()
        if " " in token or len(token) < 3:
            continue
        if _NAMED_TOKEN_RE.match(token) and sum(c.isupper() or c.isdigit() for c in token) >= 2:
            return True
    return False


def link_mentions(body: str, targets: Sequence[WikiConcept], self_slug: str) -> str:
    """Link the first mention of each other page's concept in the page's sentence lines
    (``- …``) as ``[[slug|mention]]``; text already inside a link or citation is left alone."""
    lines = body.split("\n")
    linked: set[str] = {self_slug}
    ordered = sorted(
        (t for t in targets if t.slug != self_slug),
        key=lambda t: (-max(len(f) for f in (t.name, *t.aliases)), t.slug),
    )
    patterns = [(t.slug, _mention_pattern(t)) for t in ordered]
    protected = re.compile(r"\[\[[^\]]*\]\]|\[source:[^\]]*\]")
    for i, line in enumerate(lines):
        if not line.startswith("- "):
            continue
        for slug, pattern in patterns:
            if slug in linked:
                continue
            spans = [(m.start(), m.end()) for m in protected.finditer(line)]
            for m in pattern.finditer(line, 2):
                if any(a <= m.start() < b or a < m.end() <= b for a, b in spans):
                    continue
                line = f"{line[: m.start()]}[[{slug}|{m.group(0)}]]{line[m.end() :]}"
                linked.add(slug)
                break
        lines[i] = line
    return "\n".join(lines)


_REFUSAL_RE = re.compile(
    r"^\W*(?:i(?:'m| am) sorry|sorry\b|i (?:cannot|can't|can not|am unable|'m unable|do not have|"
    r"don't have)|as an ai\b|unfortunately,? (?:i|there is not|the (?:passages|sources)))|"
    r"\b(?:not enough (?:information|evidence|context)|insufficient (?:information|evidence))\b",
    re.IGNORECASE,
)


def looks_like_refusal(body: str) -> bool:
    """A model's refusal or apology instead of a page: it cites nothing and its text opens
    with (or states) that it cannot answer. Such text is never stored as a page."""
    if extract_citations(body):
        return False
    text = re.sub(r"^#.*$", "", body, flags=re.MULTILINE).strip()
    return bool(_REFUSAL_RE.search(text[:400]))
