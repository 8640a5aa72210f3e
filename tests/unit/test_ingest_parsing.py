"""parse_document on real PDFs, Markdown, HTML, text, and on bad input."""

from __future__ import annotations

import io
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from marginalia.ingest import DocumentError, ParsedDocument, parse_document
from marginalia.ingest.documents import PageIndex, joined_text

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
PDF_DIR = DATA / "pdfs"
MB = 1_000_000
LIMITS = {"max_bytes": 50 * MB, "max_pages": 200}

ACL_PAPERS = [
    "specter-acl2020",
    "literature-graph-naacl2018",
    "s2orc-acl2020",
    "longeval-eacl2023",
]


def _pdfs() -> list[Path]:
    return sorted(PDF_DIR.glob("*.pdf")) if PDF_DIR.is_dir() else []


def _need_data() -> None:
    if not PDF_DIR.is_dir():
        pytest.skip(f"shared test data not found at {PDF_DIR} (see DESIGN §7)")


def _parse_pdf(name: str) -> ParsedDocument:
    _need_data()
    path = PDF_DIR / f"{name}.pdf"
    return parse_document(path.read_bytes(), path.name, **LIMITS)


def _real_pdf_bytes() -> bytes:
    _need_data()
    return (PDF_DIR / "specter-acl2020.pdf").read_bytes()


# --- real PDFs ----------------------------------------------------------------------------


@pytest.mark.parametrize("path", _pdfs(), ids=lambda p: p.stem)
def test_every_pdf_parses_with_sane_sections(path: Path) -> None:
    doc = parse_document(path.read_bytes(), path.name, **LIMITS)
    assert doc.kind == "pdf"
    assert doc.page_count == len(doc.pages) > 0
    assert [p.number for p in doc.pages] == list(range(1, doc.page_count + 1))
    assert doc.title and len(doc.title) > 10
    assert doc.authors
    types = [s.section_type for s in doc.sections]
    assert "introduction" in types
    assert "references" in types and len(doc.references) >= 10
    index = PageIndex(doc.pages)
    previous_end = 0
    for s in doc.sections:
        assert 1 <= s.page_start <= s.page_end <= doc.page_count
        assert 0 <= s.char_start <= len(doc.pages[s.page_start - 1].text)
        assert 0 <= s.char_end <= len(doc.pages[s.page_end - 1].text)
        start, end = index.offset(s.page_start, s.char_start), index.offset(s.page_end, s.char_end)
        assert previous_end <= start <= end  # in order, not overlapping
        previous_end = end
    assert "\r" not in joined_text(doc.pages)


def test_pdfs_parsed_in_many_threads_at_once_match_a_serial_parse() -> None:
    """The ingest pipeline parses ahead in worker threads; PDFium is not thread-safe and
    corrupted the heap (the process died) before parsing was serialised in one lock."""
    _need_data()
    paths = _pdfs()
    serial = {p.name: parse_document(p.read_bytes(), p.name, **LIMITS) for p in paths}
    with ThreadPoolExecutor(max_workers=8) as pool:
        parsed = list(
            pool.map(
                lambda p: (p.name, parse_document(p.read_bytes(), p.name, **LIMITS)), paths * 3
            )
        )
    assert len(parsed) == 3 * len(paths)
    for name, doc in parsed:
        assert [pg.text for pg in doc.pages] == [pg.text for pg in serial[name].pages]
        assert doc.title == serial[name].title


@pytest.mark.parametrize("name", ACL_PAPERS)
def test_acl_papers_have_introduction_and_references(name: str) -> None:
    doc = _parse_pdf(name)
    titled = {(s.section_type, s.title) for s in doc.sections}
    assert ("introduction", "Introduction") in titled
    assert ("references", "References") in titled
    assert ("abstract", "Abstract") in titled
    assert doc.abstract and len(doc.abstract) > 300
    # References are kept apart and don't bleed body text in.
    assert all(len(r) < 1500 for r in doc.references)


def test_specter_metadata_and_abstract() -> None:
    doc = _parse_pdf("specter-acl2020")
    assert doc.title == (
        "SPECTER: Document-level Representation Learning using Citation-informed Transformers"
    )
    assert doc.authors[:2] == ["Arman Cohan", "Sergey Feldman"]
    assert doc.abstract is not None
    # Hyphenated line breaks are joined in the abstract (display text) ...
    assert doc.abstract.startswith(
        "Representation learning is a critical ingredient for natural language processing"
    )
    # ... but page text keeps the break as printed.
    assert "ingre-\ndient" in doc.pages[0].text
    assert 45 <= len(doc.references) <= 60  # ground truth parse has 54 entries
    assert doc.references[0].startswith("Anant K. Agarwal")


def test_title_and_authors_from_layout_when_metadata_is_missing() -> None:
    doc = _parse_pdf("vespa-peerj2017")  # no Title/Author metadata
    assert doc.title == "VESPA: Very large-scale Evolutionary and Selective Pressure Analyses"
    assert doc.authors == ["Andrew E. Webb", "Thomas A. Walsh", "Mary J. O’Connell"]
    junk_meta = _parse_pdf("health-bmc2014")  # metadata title is "6489122611071476 1..10"
    assert junk_meta.title is not None and junk_meta.title.startswith("Understanding the barriers")


# --- bad input ------------------------------------------------------------------------------


def _assert_refused(data: bytes, filename: str, code: str, **limits: int) -> DocumentError:
    with pytest.raises(DocumentError) as info:
        parse_document(data, filename, **{**LIMITS, **limits})
    err = info.value
    assert err.code == code
    message = str(err)
    assert message and "Traceback" not in message and "PDFium" not in message
    assert len(message.split()) >= 8  # says what is wrong and what to do
    return err


def test_truncated_pdf_is_corrupt() -> None:
    data = _real_pdf_bytes()
    _assert_refused(data[: len(data) // 2], "paper.pdf", "corrupt_pdf")


def test_encrypted_pdf() -> None:
    pikepdf = pytest.importorskip("pikepdf")
    src = pikepdf.open(io.BytesIO(_real_pdf_bytes()))
    out = io.BytesIO()
    src.save(out, encryption=pikepdf.Encryption(user="secret", owner="owner", R=6))
    err = _assert_refused(out.getvalue(), "locked.pdf", "encrypted_pdf")
    assert "password" in str(err).lower()


def test_empty_file() -> None:
    _assert_refused(b"", "paper.pdf", "empty_file")
    _assert_refused(b"  \n\t\n", "notes.txt", "empty_file")


def test_image_only_pdf() -> None:
    image_module = pytest.importorskip("PIL.Image")
    image = image_module.new("RGB", (600, 800), "white")
    out = io.BytesIO()
    image.save(out, "PDF")
    err = _assert_refused(out.getvalue(), "scan.pdf", "image_only_pdf")
    assert "OCR" in str(err)


def test_too_large_is_checked_before_parsing() -> None:
    data = b"%PDF-1.7\n" + b"\x00" * (60 * MB)  # garbage: would be corrupt if parsed
    err = _assert_refused(data, "big.pdf", "too_large", max_bytes=50 * MB)
    assert "50 MB" in str(err)


def test_too_many_pages() -> None:
    err = _assert_refused(_real_pdf_bytes(), "paper.pdf", "too_many_pages", max_pages=5)
    assert "13 pages" in str(err)


def test_exe_renamed_pdf_is_unsupported() -> None:
    exe = b"MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff" + b"\x00" * 200
    err = _assert_refused(exe, "paper.pdf", "unsupported_type")
    assert "program" in str(err)


def test_html_saved_as_pdf_is_unsupported() -> None:
    page = b"<!DOCTYPE html><html><body><h1>Sign in</h1></body></html>"
    _assert_refused(
        page,
        "paper.pdf",
        "unsupported_type",
    )


def test_binary_garbage_is_unsupported() -> None:
    _assert_refused(bytes(range(256)) * 10, "data.bin", "unsupported_type")


def test_pdf_sniffed_from_content_not_name() -> None:
    doc = parse_document(_real_pdf_bytes(), "download", content_type=None, **LIMITS)
    assert doc.kind == "pdf" and doc.page_count == 13


# --- Markdown, HTML, text ------------------------------------------------------------------

MARKDOWN = """---
title: Cats and Deep Nets
authors: Jane Doe, John Smith
---

# Cats and Deep Nets

## Abstract

We study cats with deep networks. The results are good.

## 1. Introduction

Cats are popular on the internet, e.g. in memes. We propose a model.

## 2. Our Approach

### 2.1 Training data

We trained a network on 3.5 million images.

## References

- Doe, J. 2020. Cats. In CatConf.
- Smith, J. 2021. Dogs. In DogConf.
"""


def test_markdown_parse() -> None:
    doc = parse_document(MARKDOWN.encode(), "notes.md", **LIMITS)
    assert doc.kind == "markdown" and doc.page_count == 1 and doc.pages[0].text == MARKDOWN
    assert doc.title == "Cats and Deep Nets"
    assert doc.authors == ["Jane Doe", "John Smith"]
    assert doc.abstract == "We study cats with deep networks. The results are good."
    typed = [(s.section_type, s.title) for s in doc.sections]
    assert typed == [
        ("other", None),
        ("abstract", "Abstract"),
        ("introduction", "1. Introduction"),
        ("methods", "2. Our Approach"),
        ("methods", "2.1 Training data"),
        ("references", "References"),
    ]
    assert doc.references == [
        "Doe, J. 2020. Cats. In CatConf.",
        "Smith, J. 2021. Dogs. In DogConf.",
    ]


HTML = b"""<!DOCTYPE html>
<html><head><title>Deep Nets for Cats</title>
<meta name="author" content="Jane Doe; John Smith"></head>
<body><nav>Home | About | Contact</nav>
<article><h1>Deep Nets for Cats</h1>
<h2>Abstract</h2><p>We study cats with deep networks. The results are good and we say so.</p>
<h2>1 Introduction</h2><p>Cats are popular on the internet, e.g. in memes. We propose a model
that recognises them in photographs taken by their owners.</p>
<h2>2 Methods</h2><p>We trained a network on 3.5 million images. It took two days.</p>
<h2>References</h2><ul><li>Doe, J. 2020. Cats. In CatConf.</li><li>Smith, J. 2021. Dogs.</li></ul>
</article><footer>Copyright 2024</footer></body></html>"""


def test_html_parse() -> None:
    doc = parse_document(HTML, "page.html", content_type="text/html", **LIMITS)
    assert doc.kind == "html" and doc.page_count == 1
    assert doc.title == "Deep Nets for Cats"
    assert doc.authors == ["Jane Doe", "John Smith"]
    assert doc.abstract is not None and doc.abstract.startswith("We study cats")
    types = [s.section_type for s in doc.sections]
    assert types[-3:] == ["introduction", "methods", "references"]
    assert "Home | About" not in doc.pages[0].text  # boilerplate removed
    assert len(doc.references) == 2


def test_html_sniffed_without_extension() -> None:
    doc = parse_document(HTML, "download", **LIMITS)
    assert doc.kind == "html"


def test_plain_text_uses_heading_detector() -> None:
    text = (
        "A Study of Things\n\n"
        "Abstract\nWe study things. They are interesting.\n\n"
        "1 Introduction\nThings matter. We explain why in this paper.\n\n"
        "2 Methods\nWe looked at things closely.\n\n"
        "References\nDoe, J. 2020. Things. In ThingConf.\n"
    )
    doc = parse_document(text.encode(), "paper.txt", **LIMITS)
    assert doc.kind == "text" and doc.title == "A Study of Things"
    assert [s.section_type for s in doc.sections] == [
        "other",
        "abstract",
        "introduction",
        "methods",
        "references",
    ]
    assert doc.abstract == "We study things. They are interesting."
    assert doc.references == ["Doe, J. 2020. Things. In ThingConf."]


def test_text_with_crlf_and_latin1() -> None:
    doc = parse_document("Caf\xe9 notes\r\nSecond line.\r\n".encode("latin-1"), "n.txt", **LIMITS)
    assert doc.pages[0].text == "Café notes\nSecond line.\n"
