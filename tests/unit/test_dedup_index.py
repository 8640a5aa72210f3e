"""The dedup index (issue 36 item 4: a 2,000-entry import matched each entry against every
source, read again each time): it answers exactly what scanning the records in order with
``match_cheap_layers`` answers — identity first (the earliest record), else the best title
match (ties: the earliest) that nothing contradicts."""

from __future__ import annotations

import json
import random
import uuid
from pathlib import Path

import pytest

from marginalia.ingest.dedup import DedupIndex, DedupRecord, identity_keys, match_cheap_layers

CATALOG = Path(__file__).resolve().parents[2].parent / "shared/data/catalog/acl2020/papers.jsonl"


def rec(title: str | None, authors: tuple[str, ...] = (), year: int | None = None, **ids: str):
    return DedupRecord(uuid.uuid4(), title, identity_keys(**ids), authors, year)


def test_identity_beats_title_and_the_earliest_wins() -> None:
    a = rec("Neural machine translation of rare words", ("Rico Sennrich",), 2016)
    b = rec("Something else entirely different here", (), None, doi="10.1234/x")
    c = rec("Yet another unrelated paper title", (), None, doi="10.1234/x")
    index = DedupIndex([a, b, c])
    new = rec("Neural machine translation of rare words", ("Rico Sennrich",), 2016, doi="10.1234/x")
    assert index.match(new).existing_id == b.id  # identity, the first of b and c
    assert match_cheap_layers(new, [a, b, c]).existing_id == b.id
    same_title = rec("Neural Machine Translation of Rare Words", ("R. Sennrich",), 2016)
    assert index.match(same_title).existing_id == a.id
    assert index.match(rec("Neural", ())) is None  # too short a title to decide
    assert index.get(c.id) is c and index.get(uuid.uuid4()) is None


def test_a_title_tie_goes_to_the_earliest_and_added_records_count() -> None:
    first = rec("Graph attention networks for relation extraction", ("Ann Lee",), 2020)
    second = rec("Graph attention networks for relation extraction", ("Ann Lee",), 2020)
    index = DedupIndex([first])
    index.add(second)
    new = rec("Graph attention networks for relation extraction", ("A. Lee",), 2020)
    assert index.match(new).existing_id == first.id
    assert len(index) == 2


def test_the_index_answers_as_the_scan_on_the_acl_catalog() -> None:
    if not CATALOG.exists():
        pytest.skip(f"shared data not found at {CATALOG}")
    rows = [json.loads(line) for line in CATALOG.read_text().splitlines()[:1500] if line.strip()]
    records = [
        rec(r.get("title"), tuple(r.get("authors") or ()), r.get("year"), doi=r.get("doi"))
        for r in rows
    ]
    rng = random.Random(36)
    stored, probes = records[:1000], []
    for r in rng.sample(records, 400):
        words = (r.title or "").split()
        if words and rng.random() < 0.5:  # a word dropped: a title match below 1.0, or none
            del words[rng.randrange(len(words))]
        doi = None if rng.random() < 0.7 else next(iter(r.keys), "doi:10.9/none")[4:]
        authors = r.authors if rng.random() < 0.8 else ("Someone Else",)
        probes.append(rec(" ".join(words), authors, r.year, doi=doi))
    index = DedupIndex(stored)
    matched = 0
    for threshold in (0.5, 0.8):
        for probe in probes:
            expected = match_cheap_layers(probe, stored, title_threshold=threshold)
            assert index.match(probe, title_threshold=threshold) == expected
            matched += expected is not None
    assert matched > 200  # the probes do exercise both layers
