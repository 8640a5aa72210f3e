"""A concept's merge keys as strings, stored in ``concepts.match_keys`` (GIN-indexed).

The per-source update (:mod:`marginalia.knowledge.concept_local`) looks for the stored
concepts that may merge with a new source's: a name or alias with the same key, the same
compact key, initials equal to an acronym's letters of the extraction, or acronym letters
equal to the initials of one of its keys (the rules of
:func:`~marginalia.knowledge.concepts.merge_concepts`). Each stored form's values are kept
tagged (``k:`` key, ``c:`` compact key, ``i:`` initials of a multi-word key, ``l:`` letters
of an acronym), so that look-up is ``match_keys && :probe`` through the index instead of
reading every concept of the workspace. The repository computes the column whenever it
writes a concept's name or aliases; the refresh rewrites rows whose stored keys differ from
:func:`concept_match_keys` (after a change of these rules), and migration 0011 backfilled it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from marginalia.knowledge.concepts import (
    acronym_letters,
    compact_key,
    is_acronym,
    key_initials,
    normalize_concept,
)


@dataclass(frozen=True)
class Surface:
    key: str
    compact: str
    initials: str | None  # of a multi-word key
    letters: str | None  # of an acronym surface


@lru_cache(maxsize=262_144)
def surface(name: str) -> Surface:
    key = normalize_concept(name)
    return Surface(
        key=key,
        compact=compact_key(key),
        initials=key_initials(key) if len(key.split()) >= 2 else None,
        letters=acronym_letters(name) if is_acronym(name.strip()) else None,
    )


def concept_match_keys(name: str, aliases: Iterable[str]) -> list[str]:
    """Every tagged key of a concept's name and aliases, sorted (what the column stores)."""
    out: set[str] = set()
    for form in (name, *aliases):
        s = surface(form)
        out.add("k:" + s.key)
        out.add("c:" + s.compact)
        if s.initials is not None:
            out.add("i:" + s.initials)
        if s.letters is not None:
            out.add("l:" + s.letters)
    return sorted(out)


def probe_keys(
    keys: Iterable[str], compacts: Iterable[str], letters: Iterable[str], initials: Iterable[str]
) -> list[str]:
    """The tagged values a stored concept must have one of to match: its key or compact key
    among ``keys``/``compacts``, its initials among the extraction's acronym ``letters``, its
    acronym letters among the extraction's ``initials``."""
    return sorted(
        {"k:" + k for k in keys}
        | {"c:" + c for c in compacts}
        | {"i:" + x for x in letters}
        | {"l:" + x for x in initials}
    )
