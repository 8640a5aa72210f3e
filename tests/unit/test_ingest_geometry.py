"""Quote geometry (issue 16): the characters under a quote's rectangles, read back from
PDFium, are the quote — on one-column and two-column pages, across a page break and on
a rotated page of the shared PDFs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from marginalia.answer.locations import normalize_with_map, quote_span
from marginalia.answer.quotes import normalize
from marginalia.ingest.documents import PageIndex, joined_text
from marginalia.ingest.geometry import (
    PageSpan,
    Rect,
    page_spans,
    raw_to_char,
    span_geometry,
    stored_to_raw,
    text_under,
)
from marginalia.ingest.hygiene import clean_document
from marginalia.ingest.pdf import parse_pdf

# Prose: a sentence of 8+ words of letters and plain punctuation.
_PROSE = re.compile(r"(?<=[.!?]\s)[A-Z][a-z]+(?:[ \n][a-zA-Z,;()'-]+){7,30}[.]")


def _squash(text: str) -> str:
    # Hyphens and digits aside: the stored text keeps "state-of-the-art" whole where
    # PDFium reads "state-\nof-the-art" (which the quote normaliser would join as one
    # word), and a rectangle over "SCIDOCS," also covers the footnote mark "3" the
    # stored text left out.
    return re.sub(r"[\s\d-]", "", normalize(text))


def _load(shared_data: Path, name: str) -> tuple[bytes, list]:
    """The PDF and its pages as the ingest stores them (after the hygiene step)."""
    data = (shared_data / "pdfs" / f"{name}.pdf").read_bytes()
    return data, clean_document(parse_pdf(data, max_pages=300)).pages


def _rects(data: bytes, spans: list[PageSpan]) -> list[Rect]:
    return [r for g in span_geometry(data, spans).values() for r in g.rects]


def test_stored_offsets_map_to_pdfium_characters() -> None:
    stored, index = stored_to_raw("ab\r\nin\ufffeter\x01x")
    assert stored == "ab\nin-\nter x"
    assert index == [0, 1, 2, 4, 5, 6, 6, 7, 8, 9, 10, 11]
    # GetText leaves out a NUL the text page still counts, and says U+FFFE for U+0002.
    assert raw_to_char("a!b\ufffec", [ord("a"), 0, ord("!"), ord("b"), 2, ord("c")]) == [
        0,
        2,
        3,
        4,
        5,
    ]
    assert raw_to_char("abc", [ord("a"), ord("b")]) is None


def test_quote_span_maps_normalised_match_back() -> None:
    text = "The ﬁrst  model is ingre-\ndient based; it “works”."
    norm, origin = normalize_with_map(text)
    assert norm == normalize(text)
    assert len(origin) == len(norm)
    start, end = quote_span(text, 'model is ingredient based; it "works"') or (0, 0)
    assert text[start:end] == "model is ingre-\ndient based; it “works”"
    assert quote_span(text, "not in the text at all") is None


@pytest.mark.parametrize(
    "name", ["specter-acl2020", "clinsci2014", "trauma-bmc2010", "longeval-eacl2023"]
)
def test_rects_read_back_as_the_quote(shared_data: Path, name: str) -> None:
    data, pages = _load(shared_data, name)
    checked = 0
    for page in pages[:6]:
        for m in list(_PROSE.finditer(page.text))[:4]:
            rects = _rects(data, [PageSpan(page.number, m.start(), m.end())])
            assert rects, (name, page.number, m.group())
            assert all(0 <= r.x0 < r.x1 <= 1 and 0 <= r.y0 < r.y1 <= 1 for r in rects)
            assert _squash(text_under(data, rects)) == _squash(m.group()), (name, page.number)
            checked += 1
    assert checked >= 6


def test_two_column_quote_gets_one_rect_per_column_line(shared_data: Path) -> None:
    """A quote that runs from the foot of the left column to the head of the right one
    on a two-column ACL page: rectangles in both columns, none spanning the gutter."""
    data, pages = _load(shared_data, "specter-acl2020")
    found = 0
    for page in pages[1:5]:
        words = list(re.finditer(r"\S+", page.text))
        for k in range(0, len(words) - 16, 3):
            a, b = words[k].start(), words[k + 15].end()
            quote = page.text[a:b]
            if not re.fullmatch(r"[A-Za-z ,.;()'\n-]+", quote) or "\n\n" in quote:
                continue  # (a blank line: a footnote the hygiene step moved, no quote's)
            rects = _rects(data, [PageSpan(page.number, a, b)])
            left = [r for r in rects if r.x1 <= 0.5]
            right = [r for r in rects if r.x0 >= 0.5]
            if left and right:
                found += 1
                assert not any(r.x0 < 0.45 and r.x1 > 0.55 for r in rects), quote
                assert _squash(text_under(data, rects)) == _squash(quote)
                # Reading order: the left column's lines first, lower on the page.
                assert max(r.y1 for r in left) > min(r.y0 for r in right)
    assert found >= 1


def test_page_crossing_quote_has_rects_on_both_pages(shared_data: Path) -> None:
    data, pages = _load(shared_data, "longeval-eacl2023")
    text = joined_text(pages)
    index = PageIndex(pages)
    # The last 60 characters of page 3's body and the first 60 of page 4.
    boundary = index.starts[3] - 1
    a = text.rfind(" ", 0, boundary - 60)
    b = text.find(" ", boundary + 60)
    page, char = index.locate(a)
    spans = page_spans(pages, page, char, 0, b - a)
    assert [s.page for s in spans] == [3, 4]
    rects = _rects(data, spans)
    assert {r.page for r in rects} == {3, 4}
    assert _squash(text_under(data, rects)) == _squash(text[a:b])


def test_rotated_page_rects_in_unrotated_coordinates(shared_data: Path) -> None:
    """vespa page 8 has /Rotate 90: its table text runs up the unrotated page, so a line
    of it is a tall, narrow rectangle in unrotated coordinates."""
    data, pages = _load(shared_data, "vespa-peerj2017")
    text = pages[7].text
    first_line = text.index("\n")
    geometry = span_geometry(data, [PageSpan(8, 0, first_line)])
    assert geometry[8].rotation == 90
    (rect,) = geometry[8].rects
    assert rect.y1 - rect.y0 > 5 * (rect.x1 - rect.x0)
    assert _squash(text_under(data, [rect])) == _squash(text[:first_line])
    # The caption and two table cells: tall rectangles side by side (x grows).
    end = text.index("\n", text.index("\n", first_line + 1) + 1)
    rects = _rects(data, [PageSpan(8, 0, end)])
    assert len(rects) >= 3 and rects[-1].x0 > rects[0].x1
    assert _squash(text_under(data, rects)) == _squash(text[:end])


def test_stale_page_text_gives_no_rects(shared_data: Path) -> None:
    data, _ = _load(shared_data, "trauma-bmc2010")
    assert span_geometry(data, [PageSpan(99, 0, 10)]) == {}
    assert span_geometry(data, [PageSpan(1, 5, 5)]) == {}


def test_pages_stored_before_the_hygiene_step_keep_their_rects(shared_data: Path) -> None:
    """A source ingested before the hygiene step stores PDFium's own text: its offsets
    still map to the right characters when the stored text is handed in; a stored text
    that is neither form gets no rectangles rather than wrong ones."""
    data = (shared_data / "pdfs" / "specter-acl2020.pdf").read_bytes()
    raw_pages = parse_pdf(data, max_pages=300).pages
    clean_pages = clean_document(parse_pdf(data, max_pages=300)).pages
    raw, clean = raw_pages[1].text, clean_pages[1].text
    assert raw != clean
    m = next(_PROSE.finditer(raw))
    legacy = span_geometry(data, [PageSpan(2, m.start(), m.end())], {2: raw})[2].rects
    assert legacy and _squash(text_under(data, legacy)) == _squash(m.group())
    n = next(_PROSE.finditer(clean))
    now = span_geometry(data, [PageSpan(2, n.start(), n.end())], {2: clean})[2].rects
    assert now and _squash(text_under(data, now)) == _squash(n.group())
    assert span_geometry(data, [PageSpan(2, 0, 40)], {2: "something else"})[2].rects == []


def test_footnote_marker_and_dehyphenated_word_read_back(shared_data: Path) -> None:
    """Where the hygiene step took a footnote marker out ("SCIDOCS3" → "SCIDOCS") and
    joined a word split over two lines ("ingre-\ndient"), the rectangles of the clean
    text's span still cover exactly those words on the page."""
    data, pages = _load(shared_data, "specter-acl2020")
    page1, page2 = pages[0].text, pages[1].text
    for number, text, phrase in (
        (1, page1, "a critical ingredient"),
        (2, page2, "release SCIDOCS, a novel"),
    ):
        at = text.replace("\n", " ").index(phrase)
        rects = _rects(data, [PageSpan(number, at, at + len(phrase))])
        under = _squash(text_under(data, rects))
        assert under.startswith(_squash(phrase.split(",")[0])), (phrase, under)
        assert "SCIDOCS3" not in text
