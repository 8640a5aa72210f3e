"""What a source's record says, used by the knowledge layer (issue 13): OpenAlex concepts
and topics become concepts with their levels through the same filters; OpenAlex
``referenced_works`` and unarXive ``bib_entries`` become reference entries matched as a
PDF's are. Pure functions over the recorded OpenAlex responses and the unarXive sample."""

from __future__ import annotations

import json
import uuid

import pytest

from marginalia.discovery.support import jsonable_candidate, merge_into
from marginalia.knowledge.citations import (
    CitableSource,
    TitleIndex,
    match_references,
    references_from_metadata,
)
from marginalia.knowledge.metadata_concepts import (
    metadata_concepts,
    product_level,
    with_metadata_concepts,
)
from marginalia.knowledge.schemas import ExtractedConcept, Extraction
from marginalia.sources.candidate import Candidate
from marginalia.sources.catalog import record_to_candidate
from marginalia.sources.openalex_client import work_to_candidate
from tests.support.replay_server import FIXTURES

WORK = FIXTURES / "openalex" / "test_doi_search_paper_attributes3___2.json"
UNARXIVE = FIXTURES.parent / "catalog" / "unarxive" / "arXiv_src_2212_086.jsonl"


def _work() -> dict:
    if not WORK.is_file():
        pytest.skip(f"recorded OpenAlex responses not found at {WORK.parent}")
    return json.loads(WORK.read_text())


def test_openalex_levels_map_onto_three() -> None:
    assert [product_level(n) for n in range(6)] == [0, 0, 1, 1, 2, 2]


def test_an_openalex_work_carries_its_concepts_topics_and_references() -> None:
    work = _work()
    candidate = work_to_candidate(work)
    concepts = [c for c in candidate.concepts if c.kind == "concept"]
    topics = [c for c in candidate.concepts if c.kind == "topic"]
    assert [(c.name, c.level) for c in concepts] == [
        (c["display_name"], c["level"]) for c in work["concepts"]
    ]
    assert [t.name for t in topics] == [t["display_name"] for t in work["topics"]]
    assert len(candidate.references) == len(work["referenced_works"]) > 0
    assert all(r.openalex_id and r.openalex_id.startswith("W") for r in candidate.references)


def test_openalex_concepts_pass_the_filters_with_their_levels() -> None:
    candidate = work_to_candidate(_work())  # antisense oligonucleotides (PK, uptake)
    rows = [c.model_dump() for c in candidate.concepts]
    text = f"{candidate.title}\n{candidate.abstract}"
    extracted = Extraction(
        summary="", tldr="", concepts=[ExtractedConcept(name="antisense oligonucleotides")]
    )
    out = with_metadata_concepts(extracted, rows, text)
    got = {c.name: c.level for c in out.concepts}
    assert out.concepts[0].name == "antisense oligonucleotides"  # extracted ones keep first
    # OpenAlex level 3 -> 1; the three topics (level 3 by rule) -> 1
    assert got["Biodistribution"] == 1
    for topic in (t["display_name"] for t in _work()["topics"]):
        assert got[topic] == 1, topic
    # field-wide single words (OpenAlex levels 0-2) are generic words: never concepts
    for word in ("Chemistry", "Biology", "Cell", "Pharmacology", "Biochemistry"):
        assert word not in got, word


def test_metadata_concepts_scores_disambiguation_and_levels() -> None:
    rows = [
        {"name": "Prime (order theory)", "level": 2, "score": 0.69},
        {"name": "Computer science", "level": 0, "score": 0.48},
        {"name": "Gene knockout", "level": 5, "score": 0.9},
        {"name": "Noise", "level": 2, "score": 0.1},  # a weak guess
        {"name": "CRISPR and Genetic Engineering", "level": 3, "score": 0.99, "kind": "topic"},
    ]
    got = [(c.name, c.level) for c in metadata_concepts(rows)]
    assert got == [
        ("CRISPR and Genetic Engineering", 1),
        ("Gene knockout", 2),
        ("Prime", 1),
        ("Computer science", 0),
    ]
    # an extracted concept the record names takes the record's level; generic words go
    extraction = Extraction(
        summary="", tldr="", concepts=[ExtractedConcept(name="gene knockouts", level=1)]
    )
    out = with_metadata_concepts(extraction, rows, "gene knockouts in mice")
    assert [(c.name, c.level) for c in out.concepts] == [
        ("gene knockouts", 2),
        ("CRISPR and Genetic Engineering", 1),
        ("Computer science", 0),
    ]
    assert with_metadata_concepts(extraction, [], "x") is extraction


def test_unarxive_bib_entries_become_references() -> None:
    if not UNARXIVE.is_file():
        pytest.skip(f"unarXive sample not found at {UNARXIVE}")
    record = json.loads(UNARXIVE.read_text().splitlines()[0])
    candidate = record_to_candidate(record)
    assert candidate is not None
    entries = list(record["bib_entries"].values())
    assert len(candidate.references) == len(entries)
    first = candidate.references[0]
    assert first.text.startswith("T. Alazard")
    assert first.openalex_id == "W4225968159" and first.arxiv_id == "2104.06921"
    assert any(r.doi == "10.1090/tran/8674" for r in candidate.references)


def test_metadata_references_match_as_printed_ones() -> None:
    cited = CitableSource(uuid.uuid4(), "Zeros of random polynomials", openalex_id="W4283717483")
    by_arxiv = CitableSource(uuid.uuid4(), "Dynamics of roots", arxiv_id="2104.06921")
    absent = CitableSource(uuid.uuid4(), "Some other paper on polynomials", openalex_id="W1")
    citing = uuid.uuid4()
    rows = [
        {"text": "", "openalex_id": "https://openalex.org/W4283717483"},
        {"text": "T. Alazard. On the dynamics of the roots. 2022.", "arxiv_id": "2104.06921"},
        {"text": "", "openalex_id": "W999"},  # a work not in the workspace
        {"text": ""},  # nothing to match on
    ]
    refs = references_from_metadata(rows, start=7)
    assert [r.position for r in refs] == [7, 8, 9]
    matches = match_references(citing, refs, TitleIndex([cited, by_arxiv, absent]))
    assert {(m.cited, m.how) for m in matches} == {(cited.id, "openalex"), (by_arxiv.id, "arxiv")}


def test_a_kept_duplicate_takes_the_records_concepts_and_references() -> None:
    work = _work()
    openalex = work_to_candidate(work)
    arxiv = Candidate(title=openalex.title, origin="arxiv", arxiv_id="2101.00001")
    kept = {"candidate": jsonable_candidate(arxiv)}
    merge_into(kept, openalex)
    merged = Candidate.model_validate(kept["candidate"])
    assert merged.concepts == openalex.concepts and merged.references == openalex.references
    # what the kept record has is not overwritten
    merge_into(kept, arxiv)
    assert Candidate.model_validate(kept["candidate"]).concepts == openalex.concepts
