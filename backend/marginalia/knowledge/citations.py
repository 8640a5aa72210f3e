"""Paper -> paper citations inside a workspace (issue 13, item 3): pure functions.

A source's reference list (split by the ingest parser, re-read here from its stored
pages) becomes :class:`Reference` rows; each is matched to a source of the same
workspace by, in order:

1. **DOI** — the DOI printed in the entry equals the source's;
2. **arXiv id** — ``arXiv:1903.10676``, ``arXiv preprint arXiv:…``, ``arxiv.org/abs/…``;
3. **OpenAlex id** — for references given as OpenAlex works (``referenced_works``);
4. **title** — the source's title, compared without case, spacing, punctuation or
   hyphens (so a line-break hyphen "liter- ature" and "Citation-informed" vs "citation
   informed" do not matter), appears in the entry. Titles shorter than 4 words or 20
   letters never match by title alone (too generic: "Deep learning"). A near miss (at
   least 90% of the title's words in the entry, in order, the title at least 6 words
   long) counts only when the entry also prints the source's year (±1).

A source never cites itself. The candidates for title matching come from an inverted
index of the titles' rarest words (:class:`TitleIndex`), and the references that may cite
a *new* source are found in the database by identifier or full-text search over their
words (:func:`title_query`), so neither direction compares every pair.
"""

from __future__ import annotations

import re
import uuid
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from marginalia.ingest.documents import Page
from marginalia.ingest.text import assemble_document
from marginalia.sources.candidate import normalize_arxiv_id, normalize_doi, normalize_openalex_id

MIN_TITLE_WORDS = 4
MIN_TITLE_LETTERS = 20
FUZZY_MIN_WORDS = 6
FUZZY_SHARE = 0.9

_DOI_IN_TEXT = re.compile(r"\b(10\.\d{4,9}/[^\s\"<>{}]+)")
_ARXIV_IN_TEXT = re.compile(
    r"(?:arxiv(?:\s+preprint)?\s*:?\s*(?:abs/)?|arxiv\.org/(?:abs|pdf)/)"
    r"(\d{4}\.\d{4,5}|[a-z-]+(?:\.[A-Z]{2})?/\d{7})",
    re.IGNORECASE,
)
_YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20\d\d)(?!\d)")
_WORD = re.compile(r"[a-z0-9]+")


def normalize_reference_text(text: str) -> str:
    """Lower-case words separated by single spaces; line-break hyphens ("liter- ature",
    "liter-\\nature") joined first."""
    joined = re.sub(r"(?<=[a-z])-\s+(?=[a-z])", "", text)
    return " ".join(_WORD.findall(joined.lower()))


def compact(text: str) -> str:
    """Letters and digits only: the form titles are compared in."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


@dataclass(frozen=True)
class Reference:
    """One reference entry of a source."""

    position: int
    text: str
    norm: str
    doi: str | None = None
    arxiv_id: str | None = None
    openalex_id: str | None = None
    year: int | None = None

    @property
    def compact(self) -> str:
        return self.norm.replace(" ", "")


def parse_reference(
    position: int,
    text: str,
    *,
    doi: str | None = None,
    arxiv_id: str | None = None,
    openalex_id: str | None = None,
    year: int | None = None,
) -> Reference:
    """A :class:`Reference` from an entry's text; identifiers given win over those found."""
    clean = re.sub(r"\s+", " ", text).strip()
    if doi is None:
        m = _DOI_IN_TEXT.search(clean)
        doi = normalize_doi(m.group(1).rstrip(".,;:)]}")) if m else None
    else:
        doi = normalize_doi(doi)
    if arxiv_id is None:
        m = _ARXIV_IN_TEXT.search(clean)
        arxiv_id = normalize_arxiv_id(m.group(1)) if m else None
    else:
        arxiv_id = normalize_arxiv_id(arxiv_id)
    if year is None:
        years = _YEAR.findall(clean)
        year = int(years[0]) if years else None
    return Reference(
        position=position,
        text=clean[:4000],
        norm=normalize_reference_text(clean)[:4000],
        doi=doi,
        arxiv_id=arxiv_id,
        openalex_id=normalize_openalex_id(openalex_id) if openalex_id else None,
        year=year,
    )


def references_from_pages(kind: str, pages: Sequence[Page]) -> list[Reference]:
    """The reference list of a stored document, split as the ingest parser splits it."""
    if not pages or kind in ("abstract", "web"):
        return []
    doc = assemble_document(
        "markdown" if kind == "markdown" else "pdf" if kind == "pdf" else "text",
        list(pages),
        title=None,
        authors=[],
        markdown=kind in ("markdown", "html"),
    )
    return [parse_reference(i, text) for i, text in enumerate(doc.references) if text.strip()]


def references_from_metadata(
    rows: Sequence[Mapping[str, Any]] | None, *, start: int = 0
) -> list[Reference]:
    """A source record's references (``sources.metadata_references``: OpenAlex
    ``referenced_works``, unarXive ``bib_entries``) as :class:`Reference` rows numbered
    from ``start`` — matched exactly as the entries of a PDF's reference list are."""
    out: list[Reference] = []
    for row in rows or []:
        text = str(row.get("text") or "")
        ids = {k: row.get(k) for k in ("doi", "arxiv_id", "openalex_id")}
        if not text.strip() and not any(ids.values()):
            continue
        label = text or " ".join(f"{k}:{v}" for k, v in ids.items() if v)
        year = row.get("year")
        out.append(
            parse_reference(
                start + len(out),
                label,
                doi=ids["doi"] or None,
                arxiv_id=ids["arxiv_id"] or None,
                openalex_id=ids["openalex_id"] or None,
                year=year if isinstance(year, int) else None,
            )
        )
    return out


# --- titles -------------------------------------------------------------------------------


@dataclass(frozen=True)
class CitableSource:
    """What matching needs to know about a workspace source."""

    id: uuid.UUID
    title: str | None
    year: int | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    openalex_id: str | None = None

    @property
    def title_words(self) -> list[str]:
        return normalize_reference_text(self.title or "").split()

    @property
    def title_matchable(self) -> bool:
        words = self.title_words
        return len(words) >= MIN_TITLE_WORDS and len(compact(self.title or "")) >= MIN_TITLE_LETTERS


@dataclass(frozen=True)
class Match:
    reference: Reference
    cited: uuid.UUID
    how: str  # doi | arxiv | openalex | title
    score: float


def _in_order_share(title: list[str], ref_words: list[str]) -> float:
    """Share of the title's words found in ``ref_words`` in order (greedy)."""
    if not title:
        return 0.0
    positions: dict[str, list[int]] = defaultdict(list)
    for i, w in enumerate(ref_words):
        positions[w].append(i)
    best = 0
    # Greedy from every occurrence of the title's first few words.
    starts = {i for w in title[:3] for i in positions.get(w, [])}
    for start in starts:
        pos, found = start - 1, 0
        for w in title:
            nxt = next((p for p in positions.get(w, []) if p > pos and p - pos <= 4), None)
            if nxt is not None:
                pos, found = nxt, found + 1
        best = max(best, found)
    return best / len(title)


def title_score(source: CitableSource, ref: Reference) -> float | None:
    """1.0 when the title appears in the entry, the in-order share for a near miss that
    also prints the year, else None."""
    if not source.title_matchable:
        return None
    if compact(source.title or "") in ref.compact:
        return 1.0
    words = source.title_words
    if len(words) < FUZZY_MIN_WORDS or source.year is None:
        return None
    if not any(abs(int(y) - source.year) <= 1 for y in _YEAR.findall(ref.text)):
        return None
    share = _in_order_share(words, ref.norm.split())
    return round(share, 3) if share >= FUZZY_SHARE else None


def match_by_identifier(ref: Reference, source: CitableSource) -> str | None:
    if ref.doi and source.doi and ref.doi == source.doi.lower():
        return "doi"
    if ref.arxiv_id and source.arxiv_id and ref.arxiv_id == source.arxiv_id:
        return "arxiv"
    if ref.openalex_id and source.openalex_id and ref.openalex_id == source.openalex_id:
        return "openalex"
    return None


def match_pair(ref: Reference, source: CitableSource) -> Match | None:
    how = match_by_identifier(ref, source)
    if how is not None:
        return Match(ref, source.id, how, 1.0)
    score = title_score(source, ref)
    return Match(ref, source.id, "title", score) if score is not None else None


# --- matching a source's references against the workspace ---------------------------------

# Words too common in titles to index a title by.
_COMMON = frozenset(
    [
        "a",
        "an",
        "and",
        "the",
        "of",
        "for",
        "in",
        "on",
        "to",
        "with",
        "from",
        "by",
        "using",
        "via",
        "towards",
        "toward",
        "is",
        "are",
        "at",
        "as",
        "study",
        "analysis",
        "approach",
        "new",
        "based",
        "learning",
        "model",
        "models",
        "data",
        "system",
        "method",
        "methods",
        "review",
        "paper",
    ]
)


class TitleIndex:
    """The workspace's sources by the rarest words of their titles (and by identifier),
    so a reference is compared with the few sources that share such a word with it."""

    def __init__(self, sources: Iterable[CitableSource]) -> None:
        self.sources = list(sources)
        self._by_word: dict[str, list[CitableSource]] = defaultdict(list)
        self._by_id: dict[str, CitableSource] = {}
        counts: dict[str, int] = defaultdict(int)
        for s in self.sources:
            for w in set(s.title_words):
                counts[w] += 1
        for s in self.sources:
            for key in (
                f"doi:{s.doi.lower()}" if s.doi else None,
                f"arxiv:{s.arxiv_id}" if s.arxiv_id else None,
                f"openalex:{s.openalex_id}" if s.openalex_id else None,
            ):
                if key:
                    self._by_id[key] = s
            if s.title_matchable:
                for w in _index_words(s.title_words, counts):
                    self._by_word[w].append(s)

    def candidates(self, ref: Reference) -> list[CitableSource]:
        out: dict[uuid.UUID, CitableSource] = {}
        for key in (
            f"doi:{ref.doi}" if ref.doi else None,
            f"arxiv:{ref.arxiv_id}" if ref.arxiv_id else None,
            f"openalex:{ref.openalex_id}" if ref.openalex_id else None,
        ):
            if key and key in self._by_id:
                s = self._by_id[key]
                out[s.id] = s
        for w in set(ref.norm.split()):
            for s in self._by_word.get(w, ()):
                out[s.id] = s
        return list(out.values())


def _index_words(words: list[str], counts: dict[str, int]) -> list[str]:
    """Two of the rarest distinctive words of a title (a near-miss title keeps 90% of its
    words, so one of two is almost always there)."""
    usable = [w for w in dict.fromkeys(words) if w not in _COMMON and len(w) >= 3]
    usable.sort(key=lambda w: (counts.get(w, 0), -len(w)))
    return usable[:2] or words[:1]


def match_references(
    citing: uuid.UUID, references: Sequence[Reference], index: TitleIndex
) -> list[Match]:
    """The best match of each reference (identifier before title, then score), never the
    citing source itself; one reference cites at most one source."""
    out: list[Match] = []
    for ref in references:
        best: Match | None = None
        for cand in index.candidates(ref):
            if cand.id == citing:
                continue
            m = match_pair(ref, cand)
            if m is None:
                continue
            if best is None or _rank(m) > _rank(best):
                best = m
        if best is not None:
            out.append(best)
    return out


def _rank(m: Match) -> tuple[int, float]:
    return (0 if m.how == "title" else 1, m.score)


def title_query(title: str | None) -> str | None:
    """A ``to_tsquery('simple', …)`` text that every reference naming ``title`` satisfies:
    its distinctive words that no hyphen touches (a line break inside a hyphenated word
    can glue it to its neighbour), ANDed; None for a title too short to match by."""
    if not title:
        return None
    source = CitableSource(id=uuid.UUID(int=0), title=title)
    if not source.title_matchable:
        return None
    plain = [
        w
        for tok in re.split(r"\s+", title.lower())
        if "-" not in tok and "–" not in tok
        for w in _WORD.findall(tok)
    ]
    words = [w for w in dict.fromkeys(plain) if w not in _COMMON and len(w) >= 3]
    words.sort(key=len, reverse=True)
    a = words[:3]
    if len(a) == 3:
        # Two of the three: a near-miss title (90% of its words) still qualifies.
        return f"({a[0]} & {a[1]}) | ({a[0]} & {a[2]}) | ({a[1]} & {a[2]})"
    return " & ".join(a) if a else None
