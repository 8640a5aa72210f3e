"""What a hostile file can make the parsers do (issue 34, items 1, 2, 5 and 10), in process:
the 838-byte BibTeX macro bomb, field limits in every import format, the PDF content
budget (the 1 GiB decompression bomb), safe file names, paths out of public messages."""

from __future__ import annotations

import json
import time
import tracemalloc
import zlib
from pathlib import Path

import pytest

from marginalia import limits
from marginalia.formats.bibtex_import import parse_bibtex_export
from marginalia.formats.csljson import parse_csl_json
from marginalia.formats.records import ImportFormatError
from marginalia.formats.ris import parse_ris
from marginalia.ingest.documents import safe_file_name
from marginalia.ingest.errors import DocumentError
from marginalia.ingest.pdf_budget import PdfBudget, check_pdf_budget, inflate
from marginalia.sources.bibtex import BibtexError, parse_bibtex
from marginalia.sources.candidate import Candidate
from marginalia.usecases.health import without_paths
from tests.support.bombs import (
    bibtex_macro_bomb,
    deflated_spaces,
    pdf_bomb,
    pdf_image_bomb,
    pdf_with_streams,
    text_stream,
)

MB = 1024 * 1024
SEVEN_MB = 7 * MB
BUDGET = PdfBudget(page_bytes=64 * MB, document_bytes=512 * MB, image_bytes=256 * MB)


def test_the_issues_macro_bomb_is_refused_at_once_in_bounded_memory() -> None:
    bomb = bibtex_macro_bomb()
    assert len(bomb.encode()) == 838  # exactly as the issue writes it
    tracemalloc.start()
    started = time.monotonic()
    try:
        for parse, error in ((parse_bibtex_export, ImportFormatError), (parse_bibtex, BibtexError)):
            with pytest.raises(error, match="macro bomb") as refused:
                parse(bomb)  # type: ignore[operator]
            assert "5,497,558,138,880 characters" in str(refused.value)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.monotonic() - started < 5
    assert peak < 20 * MB, peak


def test_macros_still_expand_within_their_budget() -> None:
    parsed = parse_bibtex_export(
        '@string{me = "Jane"}\n@string{series = "Proceedings of " # me}\n'
        '@inproceedings{k, author = me # " Doe and Roe, Rick", title = {Ten {BERT} Tricks},'
        " booktitle = series, month = jan, year = 2021, note = undefinedmacro # {kept}}"
    )
    [record] = parsed.records
    assert record.candidate.authors == ["Jane Doe", "Rick Roe"]
    assert record.candidate.venue == "Proceedings of Jane"
    assert record.candidate.title == "Ten BERT Tricks"
    assert record.notes == ["kept"]  # an undefined macro expands to nothing, as in BibTeX


def test_a_macro_that_refers_to_itself_is_a_clear_error() -> None:
    with pytest.raises(ImportFormatError, match="refers to itself"):
        parse_bibtex_export("@string{a = b}\n@string{b = a}\n@article{k, title = a}")


def test_a_macro_bomb_in_many_fields_is_refused_by_the_files_budget() -> None:
    # 32,768 characters per note stays under the note's limit, but not 2,100 times.
    macros = "@string{a0={xxxxxxxx}}\n" + "".join(
        f"@string{{a{n}=a{n - 1}#a{n - 1}}}\n" for n in range(1, 13)
    )
    entries = "".join(f"@misc{{k{i}, note = a12, title = {{T}}}}\n" for i in range(2_100))
    with pytest.raises(ImportFormatError, match="in all"):
        parse_bibtex_export(macros + entries)


@pytest.mark.parametrize("field", ["title", "abstract"])
def test_a_seven_mb_field_refuses_its_entry_in_every_format(field: str) -> None:
    huge = "A" * SEVEN_MB
    limit = limits.TITLE if field == "title" else limits.ABSTRACT
    bib = f"@article{{big, title={{{huge if field == 'title' else 'Fine'}}}"
    bib += f", abstract={{{huge}}}}}" if field == "abstract" else "}"
    bib += "\n@article{ok, title={A normal paper}}\n"
    ris_tag = "TI" if field == "title" else "AB"
    ris = f"TY  - JOUR\nID  - big\n{ris_tag}  - {huge}\nTI  - Fine\nER  - \n"
    ris += "TY  - JOUR\nID  - ok\nTI  - A normal paper\nER  - \n"
    item = {"id": "big", "title": "Fine", field: huge}
    csl = json.dumps([item, {"id": "ok", "title": "A normal paper"}])
    for parse, text in ((parse_bibtex_export, bib), (parse_ris, ris), (parse_csl_json, csl)):
        parsed = parse(text)
        assert [r.candidate.title for r in parsed.records] == ["A normal paper"]
        [failure] = parsed.failures
        assert failure.reason == "too_long" and failure.entry == "big"
        assert f"{SEVEN_MB:,} characters" in failure.detail and field in failure.detail
        assert "at most" in failure.detail and (str(limit) in failure.detail.replace(",", ""))
        assert len(failure.detail) < 300  # the value itself is never echoed


def test_entries_at_the_limits_are_kept() -> None:
    title, abstract = "T" * limits.TITLE, "a" * limits.ABSTRACT
    parsed = parse_bibtex_export(f"@article{{k, title={{{title}}}, abstract={{{abstract}}}}}")
    [record] = parsed.records
    assert record.candidate.title == title and record.candidate.abstract == abstract
    too_many = [{"family": f"F{i}", "given": "G"} for i in range(limits.AUTHORS + 1)]
    csl = parse_csl_json(json.dumps([{"id": "crowd", "title": "T", "author": too_many}]))
    assert csl.failures[0].reason == "too_long" and "author list" in csl.failures[0].detail


def test_ris_wrapped_lines_are_joined_in_linear_time() -> None:
    lines = "\n".join("continued words" for _ in range(200_000))
    text = f"TY  - JOUR\nTI  - Start\nN1  - first\n{lines}\nER  - \n"
    started = time.monotonic()
    parsed = parse_ris(text)
    assert time.monotonic() - started < 5
    assert parsed.failures[0].reason == "too_long"  # 3.2 MB of note: over the note limit


def test_deeply_nested_csl_json_is_a_clear_error() -> None:
    with pytest.raises(ImportFormatError, match="nested too deeply"):
        parse_csl_json("[" * 100_000 + "]" * 100_000)


def test_search_results_are_clipped_not_refused() -> None:
    candidate = Candidate(
        title="T" * SEVEN_MB, abstract="a" * SEVEN_MB, authors=["x" * 1000], origin="arxiv"
    )
    assert candidate.title is not None and len(candidate.title) == limits.TITLE
    assert candidate.abstract is not None and len(candidate.abstract) == limits.ABSTRACT
    assert len(candidate.authors[0]) == limits.AUTHOR


# ------------------------------------------------------------------------------ PDF budget


def test_the_issues_pdf_bomb_is_refused_naming_its_page_in_bounded_memory() -> None:
    bomb = pdf_bomb()  # 1 GiB of spaces in a 1 MB file
    assert len(bomb) < 1_100_000
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(DocumentError, match="page 1's content inflates to more than 64 MB"):
            check_pdf_budget(bomb, BUDGET, max_pages=300)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.monotonic() - started < 10
    assert peak < 16 * MB, peak  # inflated 64 KB at a time, never held


def test_the_document_budget_adds_up_pages() -> None:
    page = [(text_stream("Readable words on every page of this file."), False)]
    pages = [[*page, (deflated_spaces(40 * MB), True)] for _ in range(4)]
    pdf = pdf_with_streams(pages)
    assert check_pdf_budget(pdf, PdfBudget(64 * MB, 200 * MB, MB), max_pages=300) > 120 * MB
    with pytest.raises(DocumentError, match="limit per document; passed on page 3"):
        check_pdf_budget(pdf, PdfBudget(64 * MB, 100 * MB, MB), max_pages=300)


def test_an_image_declaring_a_gigabyte_is_refused() -> None:
    with pytest.raises(DocumentError, match="an image on page 1 declares 1 × 1073741824"):
        check_pdf_budget(pdf_image_bomb(), BUDGET, max_pages=300)


def test_the_shared_papers_are_far_inside_the_budget(shared_data: Path) -> None:
    for pdf in sorted((shared_data / "pdfs").glob("*.pdf")):
        inflated = check_pdf_budget(pdf.read_bytes(), BUDGET, max_pages=300)
        assert 0 < inflated < 2 * MB, (pdf.name, inflated)


def _run_length(data: bytes) -> bytes:
    out = bytearray()
    for i in range(0, len(data), 128):
        piece = data[i : i + 128]
        out += bytes([len(piece) - 1]) + piece
    return bytes(out + b"\x80")


def test_filter_chains_decode_to_the_same_bytes() -> None:
    text = b"BT /F1 12 Tf (Hello) Tj ET\n" * 1000
    hexed = zlib.compress(text).hex().encode() + b">"
    chained = b"".join(inflate(hexed, ["/ASCIIHexDecode", "/FlateDecode"], cap=MB))
    assert chained == text
    assert b"".join(inflate(_run_length(text), ["/RunLengthDecode"], cap=MB)) == text
    assert b"".join(inflate(b"\x00\x01garbage", ["/FlateDecode"], cap=MB)) == b""  # damaged


# ------------------------------------------------------------------------------ names, paths


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("../../etc/passwd", "passwd"),
        ("..\\..\\windows\\evil.pdf", "evil.pdf"),
        ("notes/../../../x.md", "x.md"),
        ("..", "upload"),
        (".env", "env"),
        ("a\x01b\x7f.txt", "ab.txt"),
        ("paper.pdf", "paper.pdf"),
    ],
)
def test_file_names_lose_their_path(sent: str, kept: str) -> None:
    assert safe_file_name(sent) == kept


def test_public_messages_lose_absolute_paths() -> None:
    report = {
        "answers": {"path": "/home/someone/.local/share/marginalia/eval/calibration.json"},
        "database": {"error": 'OperationalError: socket "/tmp/x/pgdata/.s.PGSQL.5432" failed'},
        "url": "see https://example.org/a/b",
    }
    cleaned = without_paths(report)
    assert cleaned["answers"]["path"] == "calibration.json"
    assert cleaned["database"]["error"] == 'OperationalError: socket ".s.PGSQL.5432" failed'
    assert cleaned["url"] == "see https://example.org/a/b"
