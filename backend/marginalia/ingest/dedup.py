"""The source dedup cascade, cheap to expensive (DESIGN §1, §6).

1. identity: normalised URL, DOI or arXiv id equal;
2. title: Jaccard of title words, stop words removed, >= 0.5 — and only when nothing
   else contradicts it (issue 34): different author lists (no author in common), years
   more than one apart, different identifiers of one kind (two DOIs), or a negation in
   one title only ("Attention is not Explanation" / "Attention is not not Explanation");
   under 0.8 (titles that overlap but are not the same title) also only with the same
   author list;
3. embedding: cosine of content embeddings >= 0.7 (run by the caller against pgvector,
   only when layers 1–2 found nothing — see `embedding_layer_applies`), under the same
   contradiction checks as the title layer.
"""

from __future__ import annotations

import functools
import re
import unicodedata
import uuid
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from marginalia.knowledge.text import jaccard, title_tokens
from marginalia.sources.candidate import (
    normalize_arxiv_id,
    normalize_doi,
    normalize_openalex_id,
    normalized_url,
)

TITLE_THRESHOLD = 0.5
EMBEDDING_THRESHOLD = 0.7
# Very short titles ("Introduction", "Notes") match too easily to decide anything.
MIN_TITLE_WORDS = 3

DedupLayer = Literal["content_hash", "identity", "title", "embedding"]


# Words that turn a title's claim around: a title match differing in them is no match.
NEGATIONS = frozenset({"not", "no", "non", "never", "without", "nor", "cannot", "isn't", "don't"})
# Years a preprint and its publication may differ by.
YEAR_SLACK = 1
# Title Jaccard from which titles are the same title written differently; below it (and
# over ingest.dedup_title_jaccard) a title match also needs the same author list.
NEAR_IDENTICAL_TITLE = 0.8


@dataclass(frozen=True)
class DedupRecord:
    id: uuid.UUID | None
    title: str | None
    keys: frozenset[str]
    authors: tuple[str, ...] = ()
    year: int | None = None

    @property
    def has_scholarly_id(self) -> bool:
        return any(k.startswith(("doi:", "arxiv:", "openalex:")) for k in self.keys)


@dataclass(frozen=True)
class DedupMatch:
    existing_id: uuid.UUID
    layer: DedupLayer
    score: float


def identity_keys(
    *,
    url: str | None = None,
    doi: str | None = None,
    arxiv_id: str | None = None,
    openalex_id: str | None = None,
) -> frozenset[str]:
    keys: set[str] = set()
    if url:
        keys.add("url:" + normalized_url(url))
    if d := normalize_doi(doi):
        keys.add("doi:" + d)
    if a := normalize_arxiv_id(arxiv_id):
        keys.add("arxiv:" + a)
    if o := normalize_openalex_id(openalex_id):
        keys.add("openalex:" + o)
    return frozenset(keys)


def identifier_columns(keys: Collection[str]) -> dict[str, str | None]:
    """A source's ``doi``, ``arxiv_id`` and ``openalex_id`` columns, read back from its
    identity keys (so stored in the normalised form dedup compares)."""

    def first(prefix: str) -> str | None:
        return next((k[len(prefix) :] for k in keys if k.startswith(prefix)), None)

    return {"doi": first("doi:"), "arxiv_id": first("arxiv:"), "openalex_id": first("openalex:")}


@functools.lru_cache(maxsize=8192)
def _title_words(title: str | None) -> frozenset[str]:
    # A workspace's titles are compared with every new record: tokenise each once.
    return frozenset(title_tokens(title))


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def author_key(author: str) -> tuple[str, str] | None:
    """An author as (family name, first initial), folded, the same however the name is
    written: "Wallace, Byron C.", "Byron C. Wallace" and "B. C. Wallace" → ("wallace",
    "b"); "Van Durme, Benjamin" and "Benjamin Van Durme" → ("durme", "b"). Family names
    alone collide too often to tell authors apart (Wang, Li, Chen)."""
    name = _fold(author).strip()
    if "," in name:
        family, _, given = name.partition(",")
    else:
        *given_parts, family = name.split() or [""]
        given = " ".join(given_parts)
    family_words = re.sub(r"[^a-z ]", "", family).split()
    if not family_words or len(family_words[-1]) < 2:
        return None
    initial = re.sub(r"[^a-z]", "", given)[:1]
    return family_words[-1], initial


def _author_keys(authors: Sequence[str]) -> set[tuple[str, str]]:
    return {k for k in map(author_key, authors) if k is not None}


def _share_an_author(ours: set[tuple[str, str]], theirs: set[tuple[str, str]]) -> bool:
    """An author in common; a name without an initial matches any of that family name."""
    if ours & theirs:
        return True
    bare = {f for f, i in ours if not i} | {f for f, i in theirs if not i}
    return any(f in bare for f, _i in ours) and any(f in bare for f, _i in theirs)


def _negations(title: str | None) -> int:
    return sum(1 for w in re.findall(r"[a-z']+", _fold(title or "")) if w in NEGATIONS)


def _kinds(keys: frozenset[str]) -> dict[str, set[str]]:
    kinds: dict[str, set[str]] = {}
    for key in keys:
        kind, _, value = key.partition(":")
        if kind in ("doi", "arxiv", "openalex"):
            kinds.setdefault(kind, set()).add(value)
    return kinds


def contradiction(a: DedupRecord, b: DedupRecord) -> str | None:
    """Why two records that look alike (title, content) are still two works, or None:
    their author lists share no author, their years are more than :data:`YEAR_SLACK`
    apart, they carry different identifiers of one kind, or one title negates what the
    other says."""
    ours, theirs = _author_keys(a.authors), _author_keys(b.authors)
    if ours and theirs and not _share_an_author(ours, theirs):
        return "authors"
    if a.year is not None and b.year is not None and abs(a.year - b.year) > YEAR_SLACK:
        return "year"
    kinds_a, kinds_b = _kinds(a.keys), _kinds(b.keys)
    if any(kind in kinds_b and not values & kinds_b[kind] for kind, values in kinds_a.items()):
        return "identifier"
    if _negations(a.title) != _negations(b.title):
        return "negation"
    return None


def title_match_holds(a: DedupRecord, b: DedupRecord, score: float) -> bool:
    """A title match (Jaccard ``score`` at the threshold or over) is a duplicate when
    nothing contradicts it and the titles are near-identical (:data:`NEAR_IDENTICAL_TITLE`)
    — or, for titles that only overlap (a subtitle dropped, a word changed), when both
    author lists are known and the same. Papers of one group on one topic share half
    their title words often (measured on the ACL 2020 catalog: docs/EVAL.md)."""
    if contradiction(a, b) is not None:
        return False
    if score >= NEAR_IDENTICAL_TITLE:
        return True
    ours, theirs = _author_keys(a.authors), _author_keys(b.authors)
    return bool(ours) and ours == theirs


def record_from_row(row: Mapping[str, Any]) -> DedupRecord:
    """A stored source (see repositories.sources.identities) as a dedup record."""
    keys = set(
        identity_keys(
            doi=row.get("doi"), arxiv_id=row.get("arxiv_id"), openalex_id=row.get("openalex_id")
        )
    )
    if row.get("normalized_url"):
        keys.add("url:" + str(row["normalized_url"]))
    return DedupRecord(
        id=row["id"],
        title=row.get("title"),
        keys=frozenset(keys),
        authors=tuple(row.get("authors") or ()),
        year=row.get("year"),
    )


def match_cheap_layers(
    new: DedupRecord,
    existing: Iterable[DedupRecord],
    *,
    title_threshold: float = TITLE_THRESHOLD,
) -> DedupMatch | None:
    """Layers 1 and 2. Identity beats title; the best title score wins among title matches
    (``ingest.dedup_title_jaccard``) that nothing contradicts (:func:`contradiction`)."""
    new_title = _title_words(new.title)
    best: DedupMatch | None = None
    for record in existing:
        assert record.id is not None
        if new.keys & record.keys:
            return DedupMatch(record.id, "identity", 1.0)
        if len(new_title) < MIN_TITLE_WORDS:
            continue
        other = _title_words(record.title)
        if len(other) < MIN_TITLE_WORDS:
            continue
        score = jaccard(new_title, other)
        if score < title_threshold or (best is not None and score <= best.score):
            continue
        if title_match_holds(new, record, score):
            best = DedupMatch(record.id, "title", score)
    return best


def embedding_layer_applies(new: DedupRecord, other: DedupRecord) -> bool:
    """Two records that each carry a DOI/arXiv/OpenAlex id and did not match on it are
    different works by definition; content similarity only decides when one lacks one
    (e.g. a blog post rewriting a paper), and only when nothing else contradicts it
    (:func:`contradiction`: two papers on one topic, by other authors, read alike)."""
    if new.has_scholarly_id and other.has_scholarly_id:
        return False
    return contradiction(new, other) is None


class DedupIndex:
    """Records indexed for :func:`match_cheap_layers`: the same answer as scanning them
    all in order, found through their identifiers and title words, so matching one new
    record costs what it shares with the others, not the size of the workspace (a
    2,000-entry import matches each entry against up to 2,000 sources)."""

    def __init__(self, records: Iterable[DedupRecord] = ()) -> None:
        self.records: list[DedupRecord] = []
        self._position: dict[uuid.UUID, int] = {}
        self._by_key: dict[str, int] = {}  # the first record carrying each identifier
        self._by_word: dict[str, list[int]] = {}  # positions of the titles with a word
        for record in records:
            self.add(record)

    def __len__(self) -> int:
        return len(self.records)

    def add(self, record: DedupRecord) -> None:
        assert record.id is not None
        position = len(self.records)
        self.records.append(record)
        self._position.setdefault(record.id, position)
        for key in record.keys:
            self._by_key.setdefault(key, position)
        words = _title_words(record.title)
        if len(words) >= MIN_TITLE_WORDS:
            for word in words:
                self._by_word.setdefault(word, []).append(position)

    def get(self, record_id: uuid.UUID) -> DedupRecord | None:
        position = self._position.get(record_id)
        return None if position is None else self.records[position]

    def match(
        self, new: DedupRecord, *, title_threshold: float = TITLE_THRESHOLD
    ) -> DedupMatch | None:
        """What ``match_cheap_layers(new, self.records, title_threshold=...)`` answers."""
        if title_threshold <= 0:  # every title qualifies: no shortcut
            return match_cheap_layers(new, self.records, title_threshold=title_threshold)
        hits = [self._by_key[k] for k in new.keys if k in self._by_key]
        if hits:
            record = self.records[min(hits)]
            assert record.id is not None
            return DedupMatch(record.id, "identity", 1.0)
        new_title = _title_words(new.title)
        if len(new_title) < MIN_TITLE_WORDS:
            return None
        # a title scoring over a positive threshold shares a word with the new one
        shared = sorted({p for w in new_title for p in self._by_word.get(w, ())})
        return match_cheap_layers(
            new, [self.records[p] for p in shared], title_threshold=title_threshold
        )
