"""The local catalog source: JSONL/PDF loading and the default BM25 ranker."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from marginalia.config import Settings
from marginalia.sources.base import SourceClient, SourceError
from marginalia.sources.candidate import Candidate
from marginalia.sources.catalog import (
    BM25Index,
    CatalogError,
    CatalogSource,
    load_catalog,
    tokenize,
)
from tests.support.replay_server import SHARED_DATA

ACL = SHARED_DATA / "catalog" / "acl2020" / "papers.jsonl"


@pytest.fixture(scope="module")
def acl() -> list[Candidate]:
    if not ACL.is_file():
        pytest.skip(f"ACL 2020 catalog not found at {ACL} (shared data lives at ../shared/data)")
    return load_catalog(ACL)


def test_load_acl_catalog(acl: list[Candidate]) -> None:
    assert len(acl) == 2105
    first = acl[0]
    assert first.origin == "catalog"
    assert first.source_id == "2020.acl-main.1"
    assert first.title == "Learning to Understand Child-directed and Adult-directed Speech"
    assert first.authors == ["Lieke Gelderloos", "Grzegorz Chrupała", "Afra Alishahi"]
    assert first.year == 2020
    assert first.doi == "10.18653/v1/2020.acl-main.1"
    assert first.pdf_url == "https://aclanthology.org/2020.acl-main.1.pdf"
    assert first.venue and "Association for Computational Linguistics" in first.venue
    assert all(c.title and c.abstract for c in acl)


async def test_bm25_search_finds_relevant_acl_papers(acl: list[Candidate]) -> None:
    source = CatalogSource(acl)
    assert isinstance(source, SourceClient)
    dpr = await source.search("dense passage retrieval for open-domain question answering", limit=5)
    assert dpr[0].title == "Dense Passage Retrieval for Open-Domain Question Answering"
    specter = await source.search("document-level representation citation-informed", limit=3)
    assert specter[0].title.startswith("SPECTER")
    long_docs = await source.search("efficient attention for long documents", limit=10)
    assert any("Long Document" in c.title for c in long_docs[:5])
    assert len(long_docs) == 10


async def test_pluggable_ranker(acl: list[Candidate]) -> None:
    seen: list[tuple[str, int]] = []

    def newest_first(query: str, candidates: Sequence[Candidate], limit: int) -> list[Candidate]:
        seen.append((query, limit))
        return list(candidates)[-limit:]

    source = CatalogSource(acl, ranker=newest_first)
    assert await source.search("anything", limit=2) == acl[-2:]
    assert seen == [("anything", 2)]


async def test_stop_word_only_query_returns_nothing(acl: list[Candidate]) -> None:
    assert await CatalogSource(acl).search("the of and", limit=5) == []


def test_tokenize_and_bm25_basics() -> None:
    assert tokenize("The Cross-Lingual models, and BERT's tokens!") == [
        "cross",
        "lingual",
        "crosslingual",
        "models",
        "berts",
        "tokens",
    ]
    index = BM25Index(["cats purr", "dogs bark loudly", "cats and dogs"])
    top = index.top("cats", 5)
    assert {i for i, _ in top} == {0, 2}
    assert top[0][0] == 0  # the shorter document wins on equal tf (b > 0)
    assert index.top("unicorn", 5) == []


def test_folder_with_jsonl_and_pdfs(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(
        json.dumps({"id": "p1", "title": "Sparse Attention", "authors": ["A B"], "year": 2021})
        + "\n\n"
        + json.dumps({"id": "p2", "title": "", "abstract": "no title: skipped"})
        + "\n",
        encoding="utf-8",
    )
    (tmp_path / "my_paper-v2.pdf").write_bytes(b"%PDF-1.4\n")
    (tmp_path / "notes.txt").write_text("ignored")
    found = load_catalog(tmp_path)
    assert [c.title for c in found] == ["Sparse Attention", "my paper v2"]
    pdf = found[1]
    assert pdf.origin == "catalog"
    assert pdf.url == str((tmp_path / "my_paper-v2.pdf").resolve())


def test_unarxive_records() -> None:
    path = SHARED_DATA / "catalog" / "unarxive" / "arXiv_src_2212_086.jsonl"
    if not path.is_file():
        pytest.skip(f"unarXive sample not found at {path}")
    papers = load_catalog(path)
    assert len(papers) == 49
    assert all(p.arxiv_id and p.arxiv_id.startswith("2212.") for p in papers)
    assert papers[0].authors == ["Marcus Michelen", "Xuan-Truong Vu"]
    assert papers[0].year == 2022


def test_bad_input_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"title": "ok"}\n{not json\n', encoding="utf-8")
    with pytest.raises(CatalogError, match=r"bad\.jsonl:2: not valid JSON"):
        load_catalog(bad)
    with pytest.raises(CatalogError, match="does not exist"):
        load_catalog(tmp_path / "missing")


async def test_unconfigured_catalog_is_skipped() -> None:
    source = CatalogSource.from_settings(Settings(catalog_path=None))
    assert not source.configured
    with pytest.raises(SourceError) as info:
        await source.search("x", limit=3)
    assert info.value.reason == "not_configured"


def test_a_folder_is_read_recursively(tmp_path: Path) -> None:
    """MARGINALIA_CATALOG_PATH at a catalog folder finds the JSONL and PDFs in subfolders
    (issue 36); hidden folders are skipped."""
    (tmp_path / "acl").mkdir()
    (tmp_path / "acl" / "papers.jsonl").write_text(
        json.dumps({"id": "p1", "title": "Sparse Attention"}) + "\n", encoding="utf-8"
    )
    (tmp_path / "acl" / "deeper" / "pdfs").mkdir(parents=True)
    (tmp_path / "acl" / "deeper" / "pdfs" / "dense_retrieval.pdf").write_bytes(b"%PDF-1.4\n")
    (tmp_path / ".cache").mkdir()
    (tmp_path / ".cache" / "old.jsonl").write_text(
        json.dumps({"id": "x", "title": "Hidden"}) + "\n", encoding="utf-8"
    )
    found = load_catalog(tmp_path)
    assert [c.title for c in found] == ["dense retrieval", "Sparse Attention"]  # by path
