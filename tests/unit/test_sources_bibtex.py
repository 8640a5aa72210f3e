"""BibTeX import (Zotero-style exports) and export with stable citation keys."""

from __future__ import annotations

import pytest

from marginalia.sources.bibtex import BibtexError, citation_keys, parse_bibtex, to_bibtex
from marginalia.sources.candidate import Candidate

ZOTERO = r"""
@article{smith_deep_2020,
  title = {Deep {Learning} for {\"U}ber \& M{\'e}thodes: 50\% \emph{Better}},
  author = {Smith, John A. and M{\"u}ller, J{\"o}rg and {World Health Organization}},
  journal = {Nature},
  year = {2020},
  doi = {https://doi.org/10.1038/ABC.123},
  url = {https://example.org/paper},
  abstract = {We study
     things.},
  file = {Full Text PDF:files/12/smith.pdf:application/pdf},
}

@misc{vaswani_attention_2017,
  title = {Attention {Is} {All} {You} {Need}},
  author = {Vaswani, Ashish and Shazeer, Noam},
  year = {2017},
  eprint = {1706.03762v5},
  archivePrefix = {arXiv},
  primaryClass = {cs.CL},
  url = {http://arxiv.org/abs/1706.03762},
}

@inproceedings{doe_x_2019,
  title = {On X},
  booktitle = {Proceedings of {ACL}},
  author = {Jane Doe},
  year = 2019,
  month = jul,
}

@misc{untitled, author = {Nobody}}
"""


def test_parse_zotero_export() -> None:
    smith, vaswani, doe = parse_bibtex(ZOTERO)
    assert smith.title == "Deep Learning for Über & Méthodes: 50% Better"
    assert smith.authors == ["John A. Smith", "Jörg Müller", "World Health Organization"]
    assert smith.year == 2020
    assert smith.venue == "Nature"
    assert smith.doi == "10.1038/abc.123"
    assert smith.url == "https://example.org/paper"
    assert smith.pdf_url == "files/12/smith.pdf"
    assert smith.abstract == "We study things."
    assert smith.origin == "bibtex"
    assert smith.source_id == "smith_deep_2020"
    assert vaswani.arxiv_id == "1706.03762"
    assert vaswani.title == "Attention Is All You Need"
    assert doe.venue == "Proceedings of ACL"
    assert doe.authors == ["Jane Doe"]
    assert doe.year == 2019


@pytest.mark.parametrize("text", ["", "   ", "this is not bibtex", "@article{", "{}"])
def test_unparseable_input_is_a_clear_error(text: str) -> None:
    with pytest.raises(BibtexError):
        parse_bibtex(text)


def test_entries_without_title_only_is_an_error() -> None:
    with pytest.raises(BibtexError, match="has a title"):
        parse_bibtex("@misc{k, author = {X}}")


def _records() -> list[Candidate]:
    return [
        Candidate(
            title="Learning to Understand Child-directed and Adult-directed Speech",
            authors=["Lieke Gelderloos", "Grzegorz Chrupała", "Afra Alishahi"],
            year=2020,
            venue="Proceedings of the 58th Annual Meeting of the ACL",
            doi="10.18653/v1/2020.acl-main.1",
            url="https://aclanthology.org/2020.acl-main.1",
            abstract="Speech directed to children differs (50% of cases) & more_stuff {x}.",
            origin="catalog",
        ),
        Candidate(
            title="The Learning of Things",
            authors=["Lieke Gelderloos"],
            year=2020,
            venue="Journal of Things",
            origin="openalex",
        ),
        Candidate(
            title="PaperQA: Retrieval-Augmented Generative Agent",
            authors=["Jakub Lála", "Odhran O'Donoghue"],
            year=2023,
            arxiv_id="2312.07559",
            origin="arxiv",
        ),
        Candidate(title="A Title", origin="brave", url="https://example.org/post"),
    ]


def test_round_trip() -> None:
    records = _records()
    text = to_bibtex(records)
    assert "@inproceedings{gelderloos2020learning," in text
    assert "@article{gelderloos2020learninga," in text
    assert "@misc{lala2023paperqa," in text
    assert "@misc{anonndtitle," in text
    back = parse_bibtex(text)
    assert len(back) == len(records)
    for original, parsed in zip(records, back, strict=True):
        for field in ("title", "authors", "year", "venue", "doi", "url", "arxiv_id", "abstract"):
            assert getattr(parsed, field) == getattr(original, field), field
        assert parsed.origin == "bibtex"
    # Exporting again is stable.
    assert to_bibtex(back) == text


def test_citation_keys_are_unique_and_stable() -> None:
    r = Candidate(title="The Same Paper", authors=["Ann Lee"], year=2021, origin="catalog")
    keys = citation_keys([r, r, r])
    assert keys == ["lee2021same", "lee2021samea", "lee2021sameb"]
    assert citation_keys([r, r, r]) == keys
    # A suffix never collides with another record's base key.
    other = Candidate(title="Samea", authors=["Ann Lee"], year=2021, origin="catalog")
    clash = citation_keys([r, other, r])
    assert len(set(clash)) == 3
    assert clash[1] == "lee2021samea"
