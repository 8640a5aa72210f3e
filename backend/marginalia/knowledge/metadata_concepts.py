"""Concepts a source's record names (OpenAlex ``concepts`` and ``topics``, issue 13):
pure functions, no database.

A source found through OpenAlex arrives with the work's concepts, each with OpenAlex's
level (0 = a field such as "Computer science" … 5 = most specific), and its topics. They
become concepts of the source beside the extracted ones, through the same filter
(:func:`~marginalia.knowledge.concept_filter.concept_allowed`: never a generic single
word such as "Throughput" or "Biology", boilerplate or an adjective; OpenAlex's score at
least :data:`MIN_SCORE` stands for the three uses a single word otherwise needs in the
source's text), with their level mapped to the product's three:
OpenAlex 0–1 → 0 (foundational), 2–3 → 1 (intermediate), 4–5 → 2 (specialised). A topic
counts as level 3. An extracted concept the record also names takes the record's level;
the others follow the extracted ones, best OpenAlex score first.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from marginalia.knowledge.background import load_background
from marginalia.knowledge.concept_filter import (
    SINGLE_WORD_MIN_COUNT,
    concept_allowed,
    name_count,
)
from marginalia.knowledge.concepts import normalize_concept
from marginalia.knowledge.schemas import ExtractedConcept, Extraction

MIN_SCORE = 0.3
"""OpenAlex scores below this are weak guesses (OpenAlex lists concepts down to ~0)."""
MAX_METADATA_CONCEPTS = 10

_DISAMBIGUATION = re.compile(r"\s*\([^()]*\)\s*$")


def product_level(openalex_level: int) -> int:
    """OpenAlex's 0–5 on the product's 0/1/2."""
    if openalex_level <= 1:
        return 0
    if openalex_level <= 3:
        return 1
    return 2


def metadata_concepts(rows: Sequence[Mapping[str, Any]] | None) -> list[ExtractedConcept]:
    """The record's concepts and topics as :class:`ExtractedConcept` (best score first;
    "Prime (order theory)" → "Prime"), unfiltered."""
    scored: list[tuple[float, int, ExtractedConcept]] = []
    for i, row in enumerate(rows or []):
        name = _DISAMBIGUATION.sub("", str(row.get("name") or "")).strip()
        level = row.get("level")
        score = row.get("score")
        if not name or not isinstance(level, int):
            continue
        if isinstance(score, (int, float)) and score < MIN_SCORE:
            continue
        concept = ExtractedConcept(name=name[:80], level=product_level(level))
        scored.append((-(float(score) if isinstance(score, (int, float)) else 0.0), i, concept))
    return [c for _, _, c in sorted(scored, key=lambda t: (t[0], t[1]))]


def with_metadata_concepts(
    extraction: Extraction, rows: Sequence[Mapping[str, Any]] | None, text: str
) -> Extraction:
    """``extraction`` with the record's concepts (see the module doc); unchanged when the
    record names none. ``text`` is the source's text the filters count names in."""
    background = load_background()
    named: list[ExtractedConcept] = []
    seen: set[str] = set()
    for concept in metadata_concepts(rows):
        key = normalize_concept(concept.name)
        if not key or key in seen:
            continue
        # OpenAlex's score stands for the use count a single word otherwise needs
        count = max(name_count(concept.name, text), SINGLE_WORD_MIN_COUNT)
        if concept_allowed(concept.name, key, background, heads=count, count=count):
            seen.add(key)
            named.append(concept)
    named = named[:MAX_METADATA_CONCEPTS]
    if not named:
        return extraction
    level_of = {normalize_concept(c.name): c.level for c in named}
    extracted = [
        c.model_copy(update={"level": level_of[k]})
        if (k := normalize_concept(c.name)) in level_of
        else c
        for c in extraction.concepts
    ]
    have = {normalize_concept(c.name) for c in extracted}
    added = [c for c in named if normalize_concept(c.name) not in have]
    return extraction.model_copy(update={"concepts": [*extracted, *added]})
