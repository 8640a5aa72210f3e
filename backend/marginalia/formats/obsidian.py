"""An Obsidian-style vault of a workspace: one Markdown note per source (metadata as YAML
front matter, tldr, summary, claims with their quotes and pages, your notes), the wiki
pages with their ``[[links]]`` kept and every ``[source:<id>#<chunk>]`` citation turned
into a link to that source's note, an index, and the bibliography as BibTeX.

Pure: the use case gathers the data, :func:`vault` returns ``{relative path: text}``."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

_CITATION_RE = re.compile(r"\[source:([^\]#\s]+)(?:#(\d+))?\]")
_UNSAFE = re.compile(r'[\\/:*?"<>|#^\[\]\x00-\x1f]+')


@dataclass
class SourceNote:
    id: str
    title: str
    kind: str
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    url: str | None = None
    tldr: str | None = None
    summary: str | None = None
    claims: list[tuple[str, str | None, int | None]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    concepts: list[str] = field(default_factory=list)  # wiki slugs


@dataclass
class WikiNote:
    slug: str
    title: str
    body_raw: str
    pages: Mapping[tuple[str, int], int | None] = field(default_factory=dict)


def note_name(title: str, taken: set[str]) -> str:
    """A file name (no extension) Obsidian accepts, unique within ``taken``."""
    base = " ".join(_UNSAFE.sub(" ", title).split())[:100].strip(" .") or "Untitled"
    name, n = base, 2
    while name.lower() in taken:
        name, n = f"{base} ({n})", n + 1
    taken.add(name.lower())
    return name


def _yaml(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)  # JSON scalars and lists are valid YAML


def source_markdown(note: SourceNote, wiki_slugs: set[str]) -> str:
    front = {
        "title": note.title,
        "authors": note.authors,
        "year": note.year,
        "venue": note.venue,
        "doi": note.doi,
        "arxiv": note.arxiv_id,
        "url": note.url,
        "kind": note.kind,
        "marginalia_id": note.id,
    }
    lines = [
        "---",
        *(f"{k}: {_yaml(v)}" for k, v in front.items() if v not in (None, [], "")),
        "---",
    ]
    lines += ["", f"# {note.title}", ""]
    byline = ", ".join(note.authors)
    meta = " · ".join(str(x) for x in (byline, note.venue, note.year) if x)
    if meta:
        lines += [meta, ""]
    if note.kind == "metadata":
        lines += ["*Known by its bibliographic record only (no full text yet).*", ""]
    if note.tldr:
        lines += [f"> **TL;DR** {note.tldr}", ""]
    if note.summary:
        lines += ["## Summary", "", note.summary, ""]
    if note.claims:
        lines += ["## Claims", ""]
        for text, quote, page in note.claims:
            lines.append(f"- {text}")
            if quote:
                where = f" (p. {page})" if page else ""
                lines.append(f"  > “{' '.join(quote.split())}”{where}")
        lines.append("")
    linked = [s for s in note.concepts if s in wiki_slugs]
    if linked:
        lines += ["## Concepts", "", " · ".join(f"[[{s}]]" for s in linked), ""]
    if note.notes:
        lines += ["## Notes", ""]
        for body in note.notes:
            lines += [body.strip(), ""]
    return "\n".join(lines).rstrip() + "\n"


def short_label(note: SourceNote) -> str:
    """``Cohan et al. 2020`` (or the title's first words without authors)."""
    if note.authors:
        last = note.authors[0].split()[-1]
        who = last + (" et al." if len(note.authors) > 2 else "")
        if len(note.authors) == 2:
            who = f"{last} & {note.authors[1].split()[-1]}"
        return f"{who} {note.year}" if note.year else who
    words = note.title.split()
    return " ".join(words[:5]) + ("…" if len(words) > 5 else "")


def wiki_markdown(
    page: WikiNote, source_names: Mapping[str, str], labels: Mapping[str, str] | None = None
) -> str:
    def link(match: re.Match[str]) -> str:
        source_id, chunk = match.group(1), match.group(2)
        name = source_names.get(source_id)
        if name is None:
            return ""
        page_no = page.pages.get((source_id, int(chunk))) if chunk else None
        short = (labels or {}).get(source_id, name)
        label = f"{short}, p. {page_no}" if page_no else short
        return f"([[{name}|{label}]])"

    body = _CITATION_RE.sub(link, page.body_raw).strip()
    if not body.startswith("# "):
        body = f"# {page.title}\n\n{body}"
    return body + "\n"


def vault(
    workspace: str, sources: Sequence[SourceNote], wiki: Sequence[WikiNote], bibtex: str
) -> dict[str, str]:
    """``{relative path: Markdown}`` for the whole vault."""
    taken = {p.slug.lower() for p in wiki}
    names = {s.id: note_name(s.title, taken) for s in sources}
    slugs = {p.slug for p in wiki}
    labels = {s.id: short_label(s) for s in sources}
    files: dict[str, str] = {}
    for s in sources:
        files[f"Sources/{names[s.id]}.md"] = source_markdown(s, slugs)
    for p in wiki:
        files[f"Wiki/{p.slug}.md"] = wiki_markdown(p, names, labels)
    index = [f"# {workspace}", "", f"{len(sources)} sources, {len(wiki)} wiki pages.", ""]
    if wiki:
        index += ["## Wiki", "", *(f"- [[{p.slug}|{p.title}]]" for p in wiki), ""]
    index += ["## Sources", "", *(f"- [[{names[s.id]}]]" for s in sources), ""]
    index += ["The bibliography is `references.bib`.", ""]
    files[f"{note_name(workspace, set())}.md"] = "\n".join(index)
    files["references.bib"] = bibtex
    return files
