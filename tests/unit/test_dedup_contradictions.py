"""Dedup (issue 34, part 2): a title or content match merges only when authors, year,
identifiers and negations do not contradict it; the pair of the issue stays two; true
duplicates still merge; no false merge on the ACL 2020 catalog's layers 1–2."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from marginalia.ingest.dedup import (
    DedupRecord,
    author_key,
    contradiction,
    embedding_layer_applies,
    identity_keys,
    match_cheap_layers,
)

CATALOG = Path(__file__).resolve().parents[2].parent / "shared/data/catalog/acl2020/papers.jsonl"


def rec(
    title: str,
    authors: tuple[str, ...] = (),
    year: int | None = None,
    doi: str | None = None,
) -> DedupRecord:
    return DedupRecord(uuid.uuid4(), title, identity_keys(doi=doi), authors, year)


JAIN = rec("Attention is not Explanation", ("Sarthak Jain", "Byron C. Wallace"), 2019)
WIEGREFFE = rec("Attention is not not Explanation", ("Sarah Wiegreffe", "Yuval Pinter"), 2019)


def test_the_attention_pair_stays_two_sources() -> None:
    assert contradiction(JAIN, WIEGREFFE) == "authors"
    assert not embedding_layer_applies(WIEGREFFE, JAIN)  # content alike, still two
    assert match_cheap_layers(WIEGREFFE, [JAIN]) is None
    # Without authors (two PDFs nothing was read from), the negation still tells them apart.
    bare_a, bare_b = rec(JAIN.title or ""), rec(WIEGREFFE.title or "")
    assert contradiction(bare_a, bare_b) == "negation"
    assert not embedding_layer_applies(bare_b, bare_a)


def test_names_compare_however_written() -> None:
    assert author_key("Wallace, Byron C.") == author_key("Byron C. Wallace") == ("wallace", "b")
    assert author_key("Van Durme, Benjamin") == author_key("Benjamin Van Durme")
    assert author_key("Diarmuid Ó Séaghdha") == ("seaghdha", "d")
    # One family name is not one author: Wei Wang and Yiren Wang are two people.
    a = rec("Learning a Multi-Domain Curriculum for NMT", ("Wei Wang",), 2020)
    b = rec("Multi-task Learning for Multilingual NMT", ("Yiren Wang",), 2020)
    assert contradiction(a, b) == "authors"


@pytest.mark.parametrize(
    ("other", "why"),
    [
        (rec("SPECTER: Document-level Representation Learning", ("Arman Cohan",), 2012), "year"),
        (rec("SPECTER: Document-level Representation Learning", doi="10.1000/b"), "identifier"),
        (rec("SPECTER: Document-level Representation Learning", ("Iz Beltagy",)), "authors"),
    ],
)
def test_each_contradiction_keeps_two_sources(other: DedupRecord, why: str) -> None:
    first = rec(
        "SPECTER: Document-level Representation Learning", ("Arman Cohan",), 2020, "10.1000/a"
    )
    assert contradiction(first, other) == why
    assert match_cheap_layers(other, [first]) is None


def test_true_duplicates_still_merge() -> None:
    stored = rec(
        "SPECTER: Document-level Representation Learning using Citation-informed Transformers",
        ("Arman Cohan", "Sergey Feldman", "Iz Beltagy", "Doug Downey", "Daniel S. Weld"),
        2020,
        "10.18653/v1/2020.acl-main.207",
    )
    retyped = rec(
        "SPECTER - document level representation learning using citation informed transformers",
        ("Cohan, Arman", "Feldman, S.", "Beltagy, Iz", "Downey, Doug", "Weld, Daniel S."),
        2019,  # the preprint's year
    )
    match = match_cheap_layers(retyped, [stored])
    assert match is not None and match.layer == "title"
    # Subtitle dropped: the titles only overlap, and the same authors confirm it.
    short = rec("SPECTER: Document-level Representation Learning", stored.authors, 2020)
    assert match_cheap_layers(short, [stored]) is not None
    # ... but not when nothing confirms it (no authors known on one side).
    assert match_cheap_layers(rec(short.title or ""), [stored]) is None
    # Same DOI: identity, whatever else differs.
    same = rec(
        "Other words entirely here", ("Someone Else",), 1990, "10.18653/V1/2020.ACL-MAIN.207"
    )
    match = match_cheap_layers(same, [stored])
    assert match is not None and match.layer == "identity"


def test_no_false_merge_on_the_acl_catalog_without_dois() -> None:
    if not CATALOG.exists():
        pytest.skip(f"shared data not found at {CATALOG}")
    papers = [json.loads(line) for line in CATALOG.read_text().splitlines() if line.strip()]
    assert len(papers) == 2105
    stored: list[DedupRecord] = []
    merges = []
    for paper in papers:
        new = rec(paper["title"], tuple(paper["authors"]), paper["year"])  # no DOI: worst case
        match = match_cheap_layers(new, stored)
        if match is None:
            stored.append(new)
        else:
            merges.append((new.title, next(s.title for s in stored if s.id == match.existing_id)))
    assert merges == []
