"""Background statistics for the offline concept extractor: how generic a phrase is.

``data/background.json.gz`` (built by ``eval/concepts/build_background.py``; derived
statistics only) holds

* ``df`` — in how many of ``n_docs`` background documents (SciFact abstracts and ACL 2020
  titles+abstracts) each 1–3-word phrase occurs, keyed as
  :func:`~marginalia.knowledge.concepts.normalize_concept` keys it (phrases cut at stop
  words and punctuation by :func:`candidate_keys`), for phrases in at least ``min_df``
  documents;
* ``general`` — everyday English words (the whole words of the embedding model's uncased
  WordPiece vocabulary). A plain single word listed there ("document", "files",
  "Department") is never a concept by itself; one that is not ("enoxaparin",
  "thromboprophylaxis", "Ensembl") can be.

A third background is general English at large: :func:`is_everyday_english` reads a
word's frequency from ``wordfreq`` (Wikipedia, books, news, subtitles and more, as a
Zipf value). The WordPiece vocabulary is too small to know "quark", "contours",
"Hamiltonian" or "uniqueness" as everyday words, and SciFact and ACL never use them, so
in a physics or mathematics paper they looked specific.
"""

from __future__ import annotations

import gzip
import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from marginalia.knowledge.concepts import normalize_concept, singularize
from marginalia.knowledge.text import STOP_WORDS

DATA = Path(__file__).resolve().parent / "data" / "background.json.gz"
MAX_N = 3
EVERYDAY_ZIPF = 2.0
"""A word used at least this often in general English (Zipf 2: once in ten million words)
is an everyday word. Chosen on the development concept sets (gold, heldout, dev2): 1.5
and 2.0 tie on precision@10, 2.0 drops fewer rare names ("Ensembl", Zipf 1.5)."""

_WORD_RE = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[-'][A-Za-z0-9]+)*|\S")


def _runs(text: str) -> Iterator[list[str]]:
    run: list[str] = []
    for m in _WORD_RE.finditer(text):
        tok = m.group()
        if not tok[0].isalpha() or tok.casefold() in STOP_WORDS:
            if run:
                yield run
            run = []
            continue
        run.append(tok)
    if run:
        yield run


def candidate_keys(text: str, max_n: int = MAX_N) -> Iterator[str]:
    """Keys of every 1–``max_n``-word phrase of ``text`` between stop words/punctuation."""
    for run in _runs(text):
        for n in range(1, max_n + 1):
            for i in range(len(run) - n + 1):
                key = normalize_concept(" ".join(run[i : i + n]))
                if key:
                    yield key


@dataclass(frozen=True)
class Background:
    n_docs: int
    df: dict[str, int]
    general: frozenset[str]
    min_df: int = 3

    def doc_freq(self, key: str) -> int:
        """Background documents containing the phrase (0 below ``min_df``)."""
        return self.df.get(key, 0)

    def spread(self, key: str) -> float:
        """Share of background documents containing the phrase."""
        return self.doc_freq(key) / self.n_docs if self.n_docs else 0.0

    def idf(self, key: str) -> float:
        """Smoothed inverse document frequency of the phrase."""
        return math.log((1 + self.n_docs) / (1 + self.doc_freq(key))) + 1.0

    def is_general_word(self, word: str) -> bool:
        """An everyday English word (its singular or the word itself)."""
        low = word.casefold()
        return low in self.general or singularize(low) in self.general


@lru_cache(maxsize=4096)
def is_everyday_english(word: str) -> bool:
    """Whether one plain word (no hyphen, no digit) is common in general English: "quark",
    "contours", "uniqueness" are; "retrosynthesis", "enoxaparin", "Chemformer" are not."""
    from wordfreq import zipf_frequency  # imported here: a quarter second every CLI start

    return zipf_frequency(word, "en") >= EVERYDAY_ZIPF


@lru_cache(maxsize=1)
def load_background(path: Path = DATA) -> Background:
    """The shipped statistics (an empty background when the file is missing)."""
    if not path.is_file():
        return Background(0, {}, frozenset())
    data = json.loads(gzip.decompress(path.read_bytes()))
    return Background(
        n_docs=int(data["n_docs"]),
        df={str(k): int(v) for k, v in data["df"].items()},
        general=frozenset(data["general"]),
        min_df=int(data.get("min_df", 3)),
    )
