"""The import formats: BibTeX (Zotero, Better BibTeX), RIS, CSL-JSON, attachments."""

from __future__ import annotations

from pathlib import Path

import pytest

from marginalia.formats.attachments import pick_attachment, resolve_attachment
from marginalia.formats.bibtex_import import parse_bibtex_export, split_file_field
from marginalia.formats.csljson import parse_csl_json, to_csl_json
from marginalia.formats.records import ImportFormatError, format_for
from marginalia.formats.ris import parse_ris, to_ris
from tests.support.zotero_export import (
    ATTENTION_ABSTRACT,
    ATTENTION_ARXIV,
    BERT_DOI,
    SCIBERT_ARXIV,
    SPECTER_DOI,
    make_export,
)


@pytest.fixture
def export(tmp_path: Path):
    specter = tmp_path / "src" / "specter.pdf"
    specter.parent.mkdir()
    specter.write_bytes(b"%PDF-1.4 not really a paper\n")
    outside = tmp_path / "elsewhere" / "private.pdf"
    outside.parent.mkdir()
    outside.write_bytes(b"%PDF-1.4 private\n")
    folder = tmp_path / "export"
    folder.mkdir()
    return make_export(folder, specter, outside)


@pytest.mark.parametrize("kind", ["bib", "ris", "csl"])
def test_every_format_reads_the_same_works(export, kind: str) -> None:
    path = getattr(export, kind)
    parse = {"bib": parse_bibtex_export, "ris": parse_ris, "csl": parse_csl_json}[kind]
    parsed = parse(path.read_text())
    assert format_for(path) == {"bib": "bibtex", "ris": "ris", "csl": "csl-json"}[kind]
    titles = [r.candidate.title for r in parsed.records]
    assert len(titles) == 4 and titles[1] == "Attention Is All You Need"
    assert titles[0].startswith("BERT: Pre-training")  # braces gone
    assert [f.reason for f in parsed.failures] == ["no_title"]
    bert, attention, scibert, specter = (r.candidate for r in parsed.records)
    assert bert.doi == BERT_DOI and bert.year == 2019 and bert.authors[0] == "Jacob Devlin"
    assert attention.arxiv_id == ATTENTION_ARXIV and attention.abstract == ATTENTION_ABSTRACT
    assert scibert.arxiv_id == SCIBERT_ARXIV
    assert specter.doi == SPECTER_DOI
    assert parsed.records[0].notes == ["Read for the masked LM objective."]
    assert parsed.records[2].notes == []  # "arXiv: …" in a note is an identifier, not a note
    assert parsed.records[3].attachments == ["files/7/Cohan - 2020 - SPECTER.pdf"]
    assert len(parsed.records[2].attachments) == 1


def test_bibtex_venue_and_year_from_biblatex_fields() -> None:
    parsed = parse_bibtex_export(
        "@article{k, title={T one two}, journaltitle={Journal of Things}, date={2021-03-01}}"
    )
    c = parsed.records[0].candidate
    assert (c.venue, c.year, c.source_id) == ("Journal of Things", 2021, "k")


def test_zotero_file_fields() -> None:
    assert split_file_field("Full Text PDF:files/12/x.pdf:application/pdf") == ["files/12/x.pdf"]
    assert split_file_field(
        "Full Text:/home/u/Zotero/storage/AB/a.pdf:application/pdf;Snapshot:s.html:text/html"
    ) == ["/home/u/Zotero/storage/AB/a.pdf", "s.html"]
    assert split_file_field(r"PDF:C\:\\Users\\me\\a.pdf:application/pdf") == [r"C:\Users\me\a.pdf"]
    assert split_file_field("/abs/one.pdf;/abs/two.pdf") == ["/abs/one.pdf", "/abs/two.pdf"]


def test_attachments_resolve_only_inside_the_export_folder(export) -> None:
    cap = 10_000_000
    inside = resolve_attachment("files/7/Cohan - 2020 - SPECTER.pdf", export.folder, max_bytes=cap)
    assert not hasattr(inside, "reason") and inside.data.startswith(b"%PDF")
    absolute_inside = resolve_attachment(
        str(export.folder / "files/7/Cohan - 2020 - SPECTER.pdf"), export.folder, max_bytes=cap
    )
    assert not hasattr(absolute_inside, "reason")
    for escape in (str(export.outside_pdf), "../elsewhere/private.pdf", r"C:\Users\me\a.pdf"):
        refused = resolve_attachment(escape, export.folder, max_bytes=cap)
        assert getattr(refused, "reason", None) == "outside_export_folder", escape
    # a link inside the folder pointing outside is an escape too
    (export.folder / "link.pdf").symlink_to(export.outside_pdf)
    assert resolve_attachment("link.pdf", export.folder, max_bytes=cap).reason == (  # type: ignore[union-attr]
        "outside_export_folder"
    )
    assert resolve_attachment("files/none.pdf", export.folder, max_bytes=cap).reason == "missing"  # type: ignore[union-attr]
    assert (
        resolve_attachment("files/7/Cohan - 2020 - SPECTER.pdf", export.folder, max_bytes=3).reason
        == "too_large"
    )  # type: ignore[union-attr]
    chosen, refused_all = pick_attachment(["a.pdf"], None, max_bytes=cap)
    assert chosen is None and refused_all[0].reason == "no_export_folder"


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(ImportFormatError):
        parse_bibtex_export("not bibtex at all")
    with pytest.raises(ImportFormatError):
        parse_ris("nothing here")
    with pytest.raises(ImportFormatError):
        parse_csl_json("{not json")


def test_ris_and_csl_json_round_trip(export) -> None:
    parsed = parse_bibtex_export(export.bib.read_text())
    for write, read in ((to_ris, parse_ris), (to_csl_json, parse_csl_json)):
        again = read(write(parsed.records))
        assert not again.failures
        for a, b in zip(parsed.records, again.records, strict=True):
            fields = ("title", "authors", "year", "venue", "doi", "arxiv_id", "abstract", "url")
            assert {f: getattr(a.candidate, f) for f in fields} == {
                f: getattr(b.candidate, f) for f in fields
            }, write.__name__
            assert a.notes == b.notes
