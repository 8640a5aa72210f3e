"""The text-hygiene step (issue 35): running headers, page numbers, footnote markers and
bodies, line-break hyphenation and display equations, on made-up pages and on the 9
shared PDFs — listing the debris a user read in claims and wiki pages before, and showing
that no sentence of the stored text carries it now."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from marginalia.ingest.documents import Page, joined_text
from marginalia.ingest.hygiene import clean_document, clean_pages
from marginalia.ingest.pdf import parse_pdf
from marginalia.knowledge.text import is_prose, sentence_spans
from tests.support.pdf_debris import PDF_DEBRIS


def _page(number: int, body: str, header: str = "Journal of Things 2020, 4:1") -> Page:
    return Page(number, f"{header}\n{body}\n{number + 100}")


def _origin_holds(page: Page, text: str, origin: tuple[int, ...]) -> None:
    assert len(text) == len(origin)
    for ch, k in zip(text, origin, strict=True):
        if k >= 0:
            assert page.text[k] == ch or (ch == "\n" and page.text[k].isspace()), (ch, k)


def test_running_header_and_page_numbers_go_the_body_stays() -> None:
    bodies = ["First words.", "The second page.", "A third one here.", "And the end."]
    pages = [_page(n, bodies[n - 1]) for n in range(1, 5)]
    cleaned = clean_pages(pages)
    assert [c.text for c in cleaned] == bodies
    for page, clean in zip(pages, cleaned, strict=True):
        _origin_holds(page, clean.text, clean.origin)


def test_footnote_marker_out_body_after_the_text_as_its_own_paragraph() -> None:
    body = (
        "We release SCIDOCS3\n, a collection of tasks, and the\n"
        "model.4 It is trained on citations\n"
        "3https://github.com/allenai/scidocs\n"
        "4The model is pronounced like the bird.\n"
        "that papers share, without labels."
    )
    pages = [_page(n, body if n == 2 else "Other text here.") for n in range(1, 5)]
    clean = clean_pages(pages)[1]
    assert clean.text == (
        "We release SCIDOCS, a collection of tasks, and the\n"
        "model. It is trained on citations\n"
        "that papers share, without labels.\n\n"
        "https://github.com/allenai/scidocs\n\n"
        "The model is pronounced like the bird."
    )
    _origin_holds(pages[1], clean.text, clean.origin)


def test_line_break_hyphenation_joined_compounds_kept() -> None:
    body = (
        "Evaluation is chal-\nlenging for long texts and state-\nof-the-art models\n"
        "use automatically-\ndetected mentions; pre-\nand post-training differ."
    )
    pages = [_page(n, body if n == 1 else f"Page {n} has other words.") for n in range(1, 4)]
    clean = clean_pages(pages)[0]
    flat = " ".join(clean.text.split())
    assert "challenging for long texts" in flat
    assert "state-of-the-art models" in flat
    assert "automatically-detected mentions" in flat
    assert "pre- and post-training" in flat
    # lines stay lines: a joined word's break moves to the next space
    assert clean.text.count("\n") == body.count("\n")
    _origin_holds(pages[0], clean.text, clean.origin)


def test_display_equation_set_apart_from_the_sentences() -> None:
    body = (
        "We train with the following loss function:\nL = maxn d\nP\n+ m\n, 0\n(2)\n"
        "where d is a distance function."
    )
    pages = [_page(n, body if n == 1 else f"Page {n} has other words.") for n in range(1, 4)]
    text = clean_pages(pages)[0].text
    sentences = [text[a:b] for a, b in sentence_spans(text)]
    assert "We train with the following loss function:" in sentences
    assert not any("(2)" in s and "where d is" in s for s in sentences)
    assert not any("function:" in s and "maxn" in s for s in sentences)


def test_other_kinds_come_back_unchanged() -> None:
    from marginalia.ingest.text import parse_markdown

    doc = parse_markdown("# Title\n\nSome chal-\nlenging text.\n")
    assert clean_document(doc) is doc


def _sentences(pages: list[Page]) -> list[str]:
    text = joined_text(pages)
    return [" ".join(text[a:b].split()) for a, b in sentence_spans(text)]


@pytest.mark.parametrize("name", sorted(PDF_DEBRIS))
def test_debris_of_the_shared_pdfs_is_gone(shared_data: Path, name: str) -> None:
    parsed = parse_pdf((shared_data / "pdfs" / f"{name}.pdf").read_bytes(), max_pages=300)
    before = _sentences(parsed.pages)
    cleaned = clean_document(parsed)
    after = _sentences(cleaned.pages)
    for debris in PDF_DEBRIS[name]:
        assert any(debris in s for s in before), f"not found before: {debris}"
        assert not any(debris in s for s in after), f"still there: {debris}"
    # No prose sentence (what a claim can take) has a word split at a line end.
    split = re.compile(r"\b[a-z]{2,}- (?!and\b|or\b|to\b)[a-z]{2,}")
    assert [s for s in after if is_prose(s) and split.search(s)] == []
    assert len(" ".join(after)) > 0.8 * len(" ".join(before))  # the text itself stays
