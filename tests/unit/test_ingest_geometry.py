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
from marginalia.ingest.pdf import parse_pdf

# Prose: a sentence of 8+ words of letters and plain punctuation.
_PROSE = re.compile(r"(?<=[.!?]\s)[A-Z][a-z]+(?:[ \n][a-zA-Z,;()'-]+){7,30}[.]")


def _squash(text: str) -> str:
    return re.sub(r"\s", "", normalize(text))


def _load(shared_data: Path, name: str) -> tuple[bytes, list]:
    data = (shared_data / "pdfs" / f"{name}.pdf").read_bytes()
    return data, parse_pdf(data, max_pages=300).pages


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
            if not re.fullmatch(r"[A-Za-z ,.;()'\n-]+", quote):
                continue
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
