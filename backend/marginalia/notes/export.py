"""Highlights as Markdown (quote, page, note) and as a BibTeX ``annote`` field."""

from __future__ import annotations

from collections.abc import Sequence

from marginalia.db.models import Highlight


def _quote_block(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in " ".join(text.split()).splitlines())


def _pages(h: Highlight) -> str:
    return f"p. {h.page}" if h.page == h.page_end else f"pp. {h.page}–{h.page_end}"


def source_markdown(title: str, highlights: Sequence[Highlight], *, level: int = 1) -> str:
    """One source's highlights: each quote, its page, and the note under it."""
    lines = [f"{'#' * level} {title}", ""]
    if not highlights:
        lines += ["No highlights yet.", ""]
    for h in highlights:
        lines.append(_quote_block(h.text))
        lines.append(f">\n> — {_pages(h)}")
        lines.append("")
        if h.note:
            lines += [h.note.strip(), ""]
    return "\n".join(lines).rstrip() + "\n"


def workspace_markdown(name: str, by_source: Sequence[tuple[str, Sequence[Highlight]]]) -> str:
    parts = [f"# {name}\n"]
    parts += [source_markdown(title, hs, level=2) for title, hs in by_source]
    return "\n".join(parts)


def annote(highlights: Sequence[Highlight]) -> str:
    """The text of a BibTeX ``annote`` field: one line per highlight, braces escaped."""
    lines = []
    for h in highlights:
        quote = " ".join(h.text.split())
        note = f" {' '.join(h.note.split())}" if h.note else ""
        lines.append(f'{_pages(h)}: "{quote}"{note}')
    text = "\n".join(lines)
    return text.replace("\\", "\\\\").replace("{", "\\{").replace("}", "\\}")
