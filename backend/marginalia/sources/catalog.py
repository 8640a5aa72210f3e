"""A local catalog as a discovery source: JSONL paper records and PDFs in a folder.

Record formats read:

* ACL-Anthology-style (``catalog/acl2020/papers.jsonl``): ``id``, ``title``,
  ``authors`` (list), ``year``, ``venue``, ``abstract``, ``doi``, ``url``,
  ``pdf_url`` (or ``pdf``);
* unarXive-style: ``paper_id`` + ``metadata`` (arXiv metadata: ``title``, ``authors``
  as one comma-separated string, ``abstract``, ``doi``, ``journal-ref``).

:class:`CatalogSource` ranks with a pluggable ``(query, candidates, limit)`` callable;
the default is a small in-memory BM25 over title + abstract so the source is useful on
its own until the project's retrieval is plugged in.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from marginalia.sources.base import SourceError
from marginalia.sources.candidate import Candidate, MetadataReference

logger = logging.getLogger(__name__)

Ranker = Callable[[str, Sequence[Candidate], int], list[Candidate]]

NOT_CONFIGURED_MESSAGE = "Local catalog skipped: set MARGINALIA_CATALOG_PATH"


class CatalogError(ValueError):
    """A catalog file or folder cannot be read."""


# --- loading ----------------------------------------------------------------------------


def _year(value: object) -> int | None:
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        match = re.search(r"\b(1[5-9]\d\d|20\d\d)\b", value)
        if match:
            return int(match.group(1))
    return None


def _authors(value: object) -> list[str]:
    if isinstance(value, list):
        return [" ".join(str(a).split()) for a in value if str(a).strip()]
    if isinstance(value, str):
        parts = re.split(r",\s*|\s+and\s+", value)
        return [" ".join(p.split()) for p in parts if p.strip()]
    return []


def _text(value: object) -> str | None:
    if isinstance(value, dict):  # unarXive: {"section": "Abstract", "text": "..."}
        value = value.get("text")
    if not isinstance(value, str):
        return None
    cleaned = " ".join(value.split())
    return cleaned or None


def _bib_entries(value: object) -> list[MetadataReference]:
    """unarXive ``bib_entries`` (``{key: {"bib_entry_raw", "ids": {doi, arxiv_id,
    open_alex_id}}}``) as references, in the record's order."""
    out: list[MetadataReference] = []
    if not isinstance(value, dict):
        return out
    for entry in value.values():
        if not isinstance(entry, dict):
            continue
        raw_ids = entry.get("ids")
        ids: dict[str, Any] = raw_ids if isinstance(raw_ids, dict) else {}
        ref = MetadataReference(
            text=_text(entry.get("bib_entry_raw")) or "",
            doi=ids.get("doi") or None,
            arxiv_id=ids.get("arxiv_id") or None,
            openalex_id=ids.get("open_alex_id") or None,
        )
        if ref.text or ref.doi or ref.arxiv_id or ref.openalex_id:
            out.append(ref)
    return out


def record_to_candidate(record: dict[str, Any]) -> Candidate | None:
    """Map one JSONL record; None when it has no title."""
    meta = record.get("metadata")
    if isinstance(meta, dict) and "paper_id" in record:  # unarXive
        title = _text(meta.get("title"))
        if not title:
            return None
        arxiv_id = str(meta.get("id") or record["paper_id"])
        yymm = re.match(r"(\d{2})(\d{2})\.", arxiv_id)
        return Candidate(
            title=title,
            authors=_authors(meta.get("authors")),
            year=2000 + int(yymm.group(1)) if yymm else _year(meta.get("update_date")),
            abstract=_text(meta.get("abstract")) or _text(record.get("abstract")),
            url=f"https://arxiv.org/abs/{arxiv_id}",
            doi=meta.get("doi"),
            arxiv_id=arxiv_id,
            venue=meta.get("journal-ref"),
            origin="catalog",
            source_id=arxiv_id,
            references=_bib_entries(record.get("bib_entries")),
        )
    title = _text(record.get("title"))
    if not title:
        return None
    return Candidate(
        title=title,
        authors=_authors(record.get("authors")),
        year=_year(record.get("year")),
        abstract=_text(record.get("abstract")),
        url=record.get("url") or None,
        pdf_url=record.get("pdf_url") or record.get("pdf") or None,
        doi=record.get("doi"),
        arxiv_id=record.get("arxiv_id"),
        venue=_text(record.get("venue")),
        pages=record.get("pages") if isinstance(record.get("pages"), str) else None,
        origin="catalog",
        source_id=str(record["id"]) if record.get("id") is not None else None,
    )


def _load_jsonl(path: Path) -> list[Candidate]:
    out: list[Candidate] = []
    skipped = 0
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogError(f"cannot read catalog file {path}: {exc}") from exc
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CatalogError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from exc
        if not isinstance(record, dict):
            raise CatalogError(f"{path}:{lineno}: expected a JSON object per line")
        candidate = record_to_candidate(record)
        if candidate is None:
            skipped += 1
        else:
            out.append(candidate)
    if skipped:
        logger.warning("%s: skipped %d record(s) without a title", path, skipped)
    return out


def pdf_candidate(path: Path) -> Candidate:
    """A PDF in a catalog folder: listed by file path, parsed later by ingest."""
    resolved = str(path.resolve())
    title = " ".join(re.sub(r"[_\-]+", " ", path.stem).split())
    return Candidate(
        title=title or path.name,
        url=resolved,
        pdf_url=resolved,
        origin="catalog",
        source_id=path.name,
    )


def load_catalog(path: str | Path) -> list[Candidate]:
    """Candidates from a ``.jsonl`` file, or from every ``*.jsonl`` and ``*.pdf`` inside a
    folder and its subfolders (sorted by path; hidden files and folders skipped). Raises
    :class:`CatalogError` on unreadable input."""
    root = Path(path).expanduser()
    if root.is_file():
        if root.suffix.lower() == ".pdf":
            return [pdf_candidate(root)]
        return _load_jsonl(root)
    if not root.is_dir():
        raise CatalogError(f"catalog path does not exist: {root}")
    out: list[Candidate] = []
    for child in sorted(root.rglob("*")):
        relative = child.relative_to(root).parts
        if not child.is_file() or any(part.startswith(".") for part in relative):
            continue
        suffix = child.suffix.lower()
        if suffix == ".jsonl":
            out.extend(_load_jsonl(child))
        elif suffix == ".pdf":
            out.append(pdf_candidate(child))
    return out


# --- default ranker: BM25 ---------------------------------------------------------------

_STOP_WORDS_TEXT = """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself no nor not now of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your
    yours yourself yourselves also via using use used based towards toward"""
STOP_WORDS = frozenset(_STOP_WORDS_TEXT.split())

_TOKEN = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens, stop words removed (hyphenated words kept whole and split)."""
    tokens: list[str] = []
    for token in _TOKEN.findall(text.lower()):
        token = token.replace("'", "")
        if "-" in token:
            parts = [p for p in token.split("-") if p]
            tokens.extend(p for p in parts if p not in STOP_WORDS)
            token = token.replace("-", "")
        if token and token not in STOP_WORDS:
            tokens.append(token)
    return tokens


class BM25Index:
    """Okapi BM25 over a fixed list of documents (k1 = 0.9, b = 0.4 by default)."""

    def __init__(self, documents: Iterable[str], *, k1: float = 0.9, b: float = 0.4) -> None:
        self.k1 = k1
        self.b = b
        self._tfs: list[Counter[str]] = [Counter(tokenize(doc)) for doc in documents]
        self._lengths = [sum(tf.values()) for tf in self._tfs]
        n = len(self._tfs)
        self._avgdl = (sum(self._lengths) / n) if n else 0.0
        df: Counter[str] = Counter()
        for tf in self._tfs:
            df.update(tf.keys())
        # BM25 idf with +1 inside the log, so it is never negative.
        self._idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        self._postings: dict[str, list[int]] = {}
        for i, tf in enumerate(self._tfs):
            for term in tf:
                self._postings.setdefault(term, []).append(i)

    def __len__(self) -> int:
        return len(self._tfs)

    def scores(self, query: str) -> dict[int, float]:
        """Document index → score, for documents sharing at least one query term."""
        out: dict[int, float] = {}
        for term in set(tokenize(query)):
            idf = self._idf.get(term)
            if idf is None:
                continue
            for i in self._postings[term]:
                tf = self._tfs[i][term]
                norm = self.k1 * (1 - self.b + self.b * self._lengths[i] / (self._avgdl or 1.0))
                out[i] = out.get(i, 0.0) + idf * tf * (self.k1 + 1) / (tf + norm)
        return out

    def top(self, query: str, limit: int) -> list[tuple[int, float]]:
        ranked = sorted(self.scores(query).items(), key=lambda kv: (-kv[1], kv[0]))
        return ranked[:limit]


class BM25Ranker:
    """The default :data:`Ranker`: BM25 over title + abstract.

    The index is built on first use and reused while the same candidate list is passed.
    """

    def __init__(self, *, k1: float = 0.9, b: float = 0.4) -> None:
        self.k1 = k1
        self.b = b
        self._indexed: Sequence[Candidate] | None = None
        self._index: BM25Index | None = None

    def __call__(self, query: str, candidates: Sequence[Candidate], limit: int) -> list[Candidate]:
        if self._index is None or self._indexed is not candidates:
            self._index = BM25Index(
                (f"{c.title} {c.abstract or ''}" for c in candidates), k1=self.k1, b=self.b
            )
            self._indexed = candidates
        return [candidates[i] for i, _ in self._index.top(query, limit)]


# --- the source -------------------------------------------------------------------------


class CatalogSource:
    """The local catalog as a :class:`~marginalia.sources.base.SourceClient`."""

    name = "catalog"

    def __init__(
        self,
        candidates: Sequence[Candidate] | None,
        *,
        ranker: Ranker | None = None,
    ) -> None:
        # ``None`` means "no catalog configured" (search raises not_configured).
        self._candidates: list[Candidate] | None = (
            list(candidates) if candidates is not None else None
        )
        self._ranker: Ranker = ranker or BM25Ranker()

    @classmethod
    def from_path(cls, path: str | Path, *, ranker: Ranker | None = None) -> CatalogSource:
        return cls(load_catalog(path), ranker=ranker)

    @classmethod
    def from_settings(cls, settings: Any, *, ranker: Ranker | None = None) -> CatalogSource:
        """From ``Settings.catalog_path`` (the top-level settings); unconfigured when unset."""
        path = getattr(settings, "catalog_path", None)
        if path is None:
            return cls(None, ranker=ranker)
        return cls.from_path(path, ranker=ranker)

    @property
    def configured(self) -> bool:
        return self._candidates is not None

    @property
    def candidates(self) -> list[Candidate]:
        return list(self._candidates or [])

    async def search(self, query: str, *, limit: int) -> list[Candidate]:
        if self._candidates is None:
            raise SourceError(self.name, "not_configured", NOT_CONFIGURED_MESSAGE)
        if limit <= 0 or not self._candidates:
            return []
        candidates = self._candidates
        return await asyncio.to_thread(self._ranker, query, candidates, limit)
