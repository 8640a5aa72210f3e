"""Bibliographic metadata read from the document (ingest/metadata.py, issue 13 item 4).

Checked against eval/concepts/bibliography_gold.json (the 9 shared PDFs, read by hand)
and on page texts built here for the cases the PDFs do not cover.
"""

from __future__ import annotations

import json
from pathlib import Path

import bibtexparser
import pytest

from marginalia.ingest import Page, parse_document
from marginalia.ingest.metadata import (
    clean_abstract,
    find_arxiv_id,
    find_doi,
    find_venue_and_year,
    reconcile_authors,
)
from marginalia.sources.bibtex import to_bibtex
from marginalia.sources.candidate import Candidate

ROOT = Path(__file__).resolve().parents[2]
PDF_DIR = ROOT.parent / "shared" / "data" / "pdfs"
GOLD = json.loads((ROOT / "eval" / "concepts" / "bibliography_gold.json").read_text())["documents"]
LIMITS = {"max_bytes": 50_000_000, "max_pages": 200}


def _parse(name: str):  # type: ignore[no-untyped-def]
    path = PDF_DIR / name
    if not path.is_file():
        pytest.skip(f"shared test data not found at {PDF_DIR}")
    return parse_document(path.read_bytes(), path.name, **LIMITS)


def _gold_doi(name: str) -> str | None:
    printed = GOLD[name]["doi_printed"]
    return printed["doi"].lower() if printed else None


# --- the 9 shared PDFs ------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["clinsci2014.pdf", "rehab-hindawi2010.pdf", "vespa-peerj2017.pdf"]
)
def test_a_doi_printed_on_page_1_is_extracted(name: str) -> None:
    doc = _parse(name)
    assert GOLD[name]["doi_page1"] is not None
    assert doc.doi == GOLD[name]["doi_page1"].lower()


@pytest.mark.parametrize("name", sorted(GOLD))
def test_metadata_of_every_shared_pdf_matches_the_gold(name: str) -> None:
    doc = _parse(name)
    gold = GOLD[name]
    assert doc.doi == _gold_doi(name)  # None where the paper prints no DOI of its own
    assert doc.year == gold["year"]
    assert doc.arxiv_id is None  # no PDF prints its own arXiv id
    assert doc.authors == gold["authors"]
    assert doc.title == gold["title"]
    if name != "vespa-peerj2017.pdf":  # printed abbreviated: "PeerJ Comput. Sci."
        assert doc.venue == gold["venue"]


def test_names_are_as_printed_not_as_in_the_pdf_metadata() -> None:
    doc = _parse("literature-graph-naacl2018.pdf")
    assert "oren etzioni" in doc.metadata["Author"]  # what the typesetter stored
    assert doc.authors[-1] == "Oren Etzioni"
    assert "Lucy Lu Wang" in doc.authors and "Chris Wilhelm" in doc.authors


def test_abstracts_carry_no_front_matter() -> None:
    for name in sorted(GOLD):
        abstract = _parse(name).abstract
        assert abstract and len(abstract) > 300, name
        for noise in ("Correspondence", "Creative Commons", "licensee", "Key words", "Keywords"):
            assert noise not in abstract, (name, noise)
    # A structured abstract without an "Abstract" heading is found too.
    assert _parse("rehab-hindawi2010.pdf").abstract.startswith("Objectives. Patient experiences")  # type: ignore[union-attr]


def test_bibtex_of_the_shared_pdfs_has_year_type_and_doi() -> None:
    docs = {name: _parse(name) for name in sorted(GOLD)}
    records = [
        Candidate(
            title=d.title or name,
            authors=d.authors,
            year=d.year,
            venue=d.venue,
            doi=d.doi,
            abstract=d.abstract,
            origin="upload",
        )
        for name, d in docs.items()
    ]
    entries = bibtexparser.loads(to_bibtex(records)).entries
    assert len(entries) == len(GOLD)
    for name, entry in zip(docs, entries, strict=True):
        gold = GOLD[name]
        assert entry["ENTRYTYPE"] == gold["entry_type"], name
        assert entry["year"] == str(gold["year"]), name
        assert entry.get("doi") == _gold_doi(name), name
    assert entries[0]["ID"] == "douglas2014fragmentbased"


# --- page texts made here -----------------------------------------------------------------


def _pages(*texts: str) -> list[Page]:
    return [Page(number=i + 1, text=t) for i, t in enumerate(texts)]


def test_dois_of_cited_works_are_not_the_papers() -> None:
    refs = [
        "Smith J. A study. Nature 2001, 4:1-2. doi:10.1038/nature01234",
        "Doe A. Another. Cell 2005. doi:10.1016/j.cell.2005.01.001",
    ]
    pages = _pages(
        "A Paper Title\nJane Roe\nAbstract\nSome text.",
        "Body text.\nReferences\n" + "\n".join(refs),
    )
    assert find_doi(pages, {}, refs) is None


def test_doi_in_a_cite_this_block_on_the_last_page() -> None:
    refs = ["31. Cooper LA: Designing. J Gen Intern Med 2002. doi:10.1186/1472-6963-14-1 Cite"]
    pages = _pages(
        "Title\nAbstract\nText.",
        "References\n31. Cooper LA: Designing. J Gen Intern Med 2002.\n"
        "doi:10.1186/1472-6963-14-1\nCite this article as: Roe et al.: Title. BMC 2014, 14:1.",
    )
    assert find_doi(pages, {}, refs) == "10.1186/1472-6963-14-1"


def test_doi_in_pdf_metadata_comes_first() -> None:
    meta = {"Subject": "Journal of Things 2010 4:1. doi:10.1186/1752-2897-4-1"}
    assert find_doi(_pages("Title only"), meta, []) == "10.1186/1752-2897-4-1"


def test_arxiv_stamp_is_the_papers_id_but_a_cited_id_is_not() -> None:
    stamped = _pages("arXiv:2004.07180v4 [cs.CL] 20 May 2020\nSPECTER: Document-level ...")
    assert find_arxiv_id(stamped, {}) == "2004.07180"
    cited = _pages("Title\nAs shown by Doe (arXiv:1810.04805), BERT ...")
    assert find_arxiv_id(cited, {}) is None


def test_year_never_after_the_file_and_falls_back_to_published() -> None:
    pages = _pages("Submitted 25 March 2016\nAccepted 9 May 2017\nPublished 5 June 2017\nTitle")
    assert find_venue_and_year(pages, {"CreationDate": "D:20170601"}, None)[1] == 2017
    future = _pages("Proceedings of the Future Conference 2099, pages 1–9\nTitle")
    assert find_venue_and_year(future, {"CreationDate": "D:20200101"}, None) == (
        "Proceedings of the Future Conference 2099",
        2020,
    )


def test_page_authors_win_only_when_they_are_the_same_people() -> None:
    meta = ["Daniel Weld", "oren etzioni"]
    assert reconcile_authors(meta, ["Daniel S. Weld", "Oren Etzioni"]) == [
        "Daniel S. Weld",
        "Oren Etzioni",
    ]
    assert reconcile_authors(meta, ["Results Section", "Table Two"]) == meta
    assert reconcile_authors(["Nuala E. Tully"], ["Nuala E. Tully", "Karen M. Morgan"]) == [
        "Nuala E. Tully",
        "Karen M. Morgan",
    ]


def test_clean_abstract_cuts_licence_and_correspondence() -> None:
    body = "We study things and find results that matter a great deal to many people. " * 2
    text = (
        body + "* Correspondence: a@b.org 1 Dept of X © 2014 Roe et al.; licensee BioMed Central."
    )
    assert clean_abstract(text) == body.strip()
