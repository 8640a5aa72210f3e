"""Quote geometry: where characters of the stored page text stand on the PDF page.

The ingest stores each page's text as :func:`marginalia.ingest.pdf.normalise_page_text`
of PDFium's ``FPDFText_GetText``. Given character ranges of that stored text, this module
re-opens the PDF with the same engine (pypdfium2), maps stored offsets back to PDFium
character indices, and returns the characters' boxes merged per line, normalised to the
page's crop box: ``x`` from its left edge, ``y`` from its top edge, both 0–1, in
*unrotated* page coordinates (the page's ``/Rotate`` is reported beside them, so a viewer
that shows the page rotated turns the rectangles with it).

Two details of PDFium matter: ``GetText`` reports a hyphenated line break as U+FFFE where
``GetUnicode`` says U+0002, and it leaves out characters whose code is 0 (and some other
control codes) that still have an index. The mapping aligns both sequences and refuses
a page where they do not line up (no rectangles rather than wrong ones).
"""

from __future__ import annotations

import hashlib
import statistics
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from marginalia.ingest.documents import Page, PageIndex
from marginalia.ingest.hygiene import CleanPage, clean_pdf_pages
from marginalia.ingest.pdf import _PDFIUM, normalise_page_text


@dataclass(frozen=True)
class Rect:
    """One line's piece of a span: normalised 0–1, origin top-left, unrotated page."""

    page: int
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass(frozen=True)
class PageSpan:
    """Characters ``[start, end)`` of the stored text of page ``page`` (1-based)."""

    page: int
    start: int
    end: int


@dataclass
class PageGeometry:
    page: int
    rotation: int  # the page's /Rotate, degrees clockwise (0, 90, 180, 270)
    rects: list[Rect] = field(default_factory=list)


def stored_to_raw(raw: str) -> tuple[str, list[int]]:
    """The stored form of PDFium's page text and, per stored character, its raw index."""
    out: list[str] = []
    index: list[int] = []
    j = 0
    while j < len(raw):
        ch = raw[j]
        if ch == "\r":
            out.append("\n")
            index.append(j)
            j += 2 if raw[j + 1 : j + 2] == "\n" else 1
            continue
        if ch == "\ufffe":
            out.extend("-\n")
            index.extend((j, j))
        else:
            out.append(ch)
            index.append(j)
        j += 1
    return normalise_page_text("".join(out)), index


def raw_to_char(raw: str, unicodes: Sequence[int]) -> list[int] | None:
    """Per character of ``GetText``'s string, its PDFium character index (None: no match)."""
    out: list[int] = []
    k = 0
    for ch in raw:
        code = ord(ch)
        while k < len(unicodes) and not (
            unicodes[k] == code or (ch == "\ufffe" and unicodes[k] == 2)
        ):
            k += 1  # a character GetText leaves out
        if k == len(unicodes):
            return None
        out.append(k)
        k += 1
    return out


@dataclass
class _Box:
    """A character in *display* coordinates (the page as shown, after its /Rotate),
    normalised 0–1 with the origin top-left and y downwards."""

    index: int
    x0: float
    y0: float
    x1: float
    y1: float  # tight glyph box
    band0: float
    band1: float  # the font's full height (PDFium's loose box), top and bottom


class _Frame:
    """Between PDF user space and normalised display / unrotated coordinates."""

    def __init__(self, page: pdfium.PdfPage) -> None:
        self.left, self.bottom, self.right, self.top = page.get_cropbox()
        self.rotation = page.get_rotation() % 360
        self.width, self.height = self.right - self.left, self.top - self.bottom

    def unrotated(self, x: float, y: float) -> tuple[float, float]:
        return (x - self.left) / self.width, (self.top - y) / self.height

    def to_display(self, u: float, v: float) -> tuple[float, float]:
        if self.rotation == 90:
            return 1 - v, u
        if self.rotation == 180:
            return 1 - u, 1 - v
        if self.rotation == 270:
            return v, 1 - u
        return u, v

    def from_display(self, x: float, y: float) -> tuple[float, float]:
        if self.rotation == 90:
            return y, 1 - x
        if self.rotation == 180:
            return 1 - x, 1 - y
        if self.rotation == 270:
            return 1 - y, x
        return x, y

    def display_box(self, box: tuple[float, float, float, float]) -> tuple[float, ...]:
        left, bottom, right, top = box
        a = self.to_display(*self.unrotated(left, top))
        b = self.to_display(*self.unrotated(right, bottom))
        return min(a[0], b[0]), min(a[1], b[1]), max(a[0], b[0]), max(a[1], b[1])


def _boxes(textpage: pdfium.PdfTextPage, frame: _Frame, indices: Sequence[int]) -> list[_Box]:
    out: list[_Box] = []
    for i in indices:
        code = pdfium_c.FPDFText_GetUnicode(textpage, i)
        if code in (0, 2) or chr(code).isspace() or pdfium_c.FPDFText_IsGenerated(textpage, i):
            continue
        tight = textpage.get_charbox(i)
        if tight[2] <= tight[0] and tight[3] <= tight[1]:
            continue  # an empty glyph (a space drawn as a character)
        x0, y0, x1, y1 = frame.display_box(tight)
        _, band0, _, band1 = frame.display_box(textpage.get_charbox(i, loose=True))
        out.append(_Box(i, x0, y0, x1, y1, min(band0, y0), max(band1, y1)))
    return out


def _lines(boxes: Sequence[_Box]) -> list[list[_Box]]:
    """Boxes in reading order cut into lines: a new line where the text leaves the
    current line's band or moves back to the left (a new line or a new column)."""
    lines: list[list[_Box]] = []
    for box in boxes:
        if lines:
            line = lines[-1]
            band0 = statistics.median(b.band0 for b in line)
            band1 = statistics.median(b.band1 for b in line)
            middle = (box.y0 + box.y1) / 2
            height = max(band1 - band0, 1e-4)
            back = box.x0 < line[-1].x0 - 0.5 * height
            far = box.x0 > line[-1].x1 + 3 * height
            if band0 <= middle <= band1 and not back and not far:
                line.append(box)
                continue
        lines.append([box])
    return lines


def _page_rects(frame: _Frame, number: int, boxes: Sequence[_Box]) -> list[Rect]:
    if frame.width <= 0 or frame.height <= 0:
        return []

    def clamp(v: float) -> float:
        return round(min(max(v, 0.0), 1.0), 5)

    rects = []
    for line in _lines(boxes):
        x0 = min(b.x0 for b in line)
        x1 = max(b.x1 for b in line)
        y0 = min(statistics.median(b.band0 for b in line), min(b.y0 for b in line))
        y1 = max(statistics.median(b.band1 for b in line), max(b.y1 for b in line))
        a = frame.from_display(x0, y0)
        b = frame.from_display(x1, y1)
        rects.append(
            Rect(
                number,
                clamp(min(a[0], b[0])),
                clamp(min(a[1], b[1])),
                clamp(max(a[0], b[0])),
                clamp(max(a[1], b[1])),
            )
        )
    return rects


def span_geometry(
    data: bytes, spans: Sequence[PageSpan], page_texts: Mapping[int, str] | None = None
) -> dict[int, PageGeometry]:
    """Per page of ``spans``: the rectangles of their characters (see the module doc).

    ``page_texts``: the stored text of (at least) the spans' pages. Offsets are read in
    the text the ingest stores — the hygiene step's clean text
    (:mod:`marginalia.ingest.hygiene`), whose map back to PDFium's text is recomputed
    here — or, for a source stored before that step, PDFium's text itself. A page whose
    stored text is neither gets no rectangles; a page out of range is left out. Without
    ``page_texts`` the offsets are taken to be in the clean text. Every PDFium call is
    made under the ingest's lock."""
    with _PDFIUM:
        pdf = pdfium.PdfDocument(data)
        try:
            key = hashlib.blake2b(data, digest_size=16).digest()
            return _span_geometry_locked(pdf, key, spans, page_texts)
        finally:
            pdf.close()


def _origins(
    pdf: pdfium.PdfDocument, key: bytes, numbers: set[int], page_texts: Mapping[int, str] | None
) -> dict[int, Sequence[int] | None]:
    """Per page, the map from stored offsets to offsets of PDFium's (normalised) text:
    the hygiene step's origins, or None where the stored text is PDFium's own."""
    texts, cleaned = _document_texts(pdf, key)
    if page_texts is not None and all(
        page_texts.get(n) == texts[n - 1] for n in numbers if n in page_texts
    ):
        return dict.fromkeys(numbers)  # stored before the hygiene step
    out: dict[int, Sequence[int] | None] = {}
    for n in numbers:
        page_clean = cleaned[n - 1]
        if page_texts is None or page_texts.get(n) in (None, page_clean.text):
            out[n] = page_clean.origin
        elif page_texts.get(n) == texts[n - 1]:
            out[n] = None
        else:
            out[n] = ()  # neither: no rectangles rather than wrong ones
    return out


_DOCUMENTS: OrderedDict[bytes, tuple[list[str], list[CleanPage]]] = OrderedDict()
_DOCUMENTS_KEPT = 8


def _document_texts(pdf: pdfium.PdfDocument, key: bytes) -> tuple[list[str], list[CleanPage]]:
    """PDFium's text of every page and the hygiene step over it, kept for the last few
    documents (a reader asks for one document's quotes again and again). Called under
    the PDFium lock."""
    if key in _DOCUMENTS:
        _DOCUMENTS.move_to_end(key)
        return _DOCUMENTS[key]
    texts = []
    for i in range(len(pdf)):
        page = pdf[i]
        textpage = page.get_textpage()
        try:
            texts.append(stored_to_raw(textpage.get_text_range())[0])
        finally:
            textpage.close()
            page.close()
    entry = texts, clean_pdf_pages([Page(i + 1, t) for i, t in enumerate(texts)])
    _DOCUMENTS[key] = entry
    while len(_DOCUMENTS) > _DOCUMENTS_KEPT:
        _DOCUMENTS.popitem(last=False)
    return entry


def _span_geometry_locked(
    pdf: pdfium.PdfDocument,
    key: bytes,
    spans: Sequence[PageSpan],
    page_texts: Mapping[int, str] | None,
) -> dict[int, PageGeometry]:
    by_page: dict[int, list[PageSpan]] = {}
    for span in spans:
        if 1 <= span.page <= len(pdf) and span.end > span.start:
            by_page.setdefault(span.page, []).append(span)
    origins = _origins(pdf, key, set(by_page), page_texts) if by_page else {}
    out: dict[int, PageGeometry] = {}
    for number, page_spans in sorted(by_page.items()):
        page = pdf[number - 1]
        try:
            textpage = page.get_textpage()
            try:
                frame = _Frame(page)
                geometry = PageGeometry(number, frame.rotation)
                origin = origins.get(number)
                indices = (
                    None
                    if origin is not None and len(origin) == 0
                    else _char_indices(textpage, page_spans, origin)
                )
                if indices is not None:
                    boxes = _boxes(textpage, frame, indices)
                    geometry.rects = _page_rects(frame, number, boxes)
                out[number] = geometry
            finally:
                textpage.close()
        finally:
            page.close()
    return out


def _char_indices(
    textpage: pdfium.PdfTextPage, spans: Sequence[PageSpan], origin: Sequence[int] | None
) -> list[int] | None:
    raw = textpage.get_text_range()
    stored, to_raw = stored_to_raw(raw)
    count = textpage.count_chars()
    unicodes = [pdfium_c.FPDFText_GetUnicode(textpage, k) for k in range(count)]
    to_char = raw_to_char(raw, unicodes)
    if to_char is None:
        return None
    chosen: set[int] = set()
    for span in spans:
        if origin is None:
            start, end = max(span.start, 0), min(span.end, len(stored))
            chosen.update(to_char[to_raw[k]] for k in range(start, end))
            continue
        for k in range(max(span.start, 0), min(span.end, len(origin))):
            if 0 <= origin[k] < len(to_raw):
                chosen.add(to_char[to_raw[origin[k]]])
    return sorted(chosen)


def stored_page_texts(data: bytes) -> list[str]:
    """Every page's text as the ingest stores it (tests and checks)."""
    with _PDFIUM:
        pdf = pdfium.PdfDocument(data)
        try:
            texts = []
            for i in range(len(pdf)):
                page = pdf[i]
                textpage = page.get_textpage()
                texts.append(stored_to_raw(textpage.get_text_range())[0])
                textpage.close()
                page.close()
            return texts
        finally:
            pdf.close()


def text_under(data: bytes, rects: Sequence[Rect]) -> str:
    """The read-back check: every character of the pages whose glyph box has its centre
    inside one of ``rects``, in PDFium's order, a new line where the rectangle changes
    (a line-break hyphen, U+0002 in PDFium, is read as "-")."""
    pages = sorted({r.page for r in rects})
    with _PDFIUM:
        pdf = pdfium.PdfDocument(data)
        try:
            out: list[str] = []
            for number in pages:
                page = pdf[number - 1]
                frame = _Frame(page)
                mine = [r for r in rects if r.page == number]
                textpage = page.get_textpage()
                last: Rect | None = None
                for i in range(textpage.count_chars()):
                    code = pdfium_c.FPDFText_GetUnicode(textpage, i)
                    if code == 0 or pdfium_c.FPDFText_IsGenerated(textpage, i):
                        continue
                    left, bottom, right, top = textpage.get_charbox(i)
                    u, v = frame.unrotated((left + right) / 2, (bottom + top) / 2)
                    hit = next((r for r in mine if r.x0 <= u <= r.x1 and r.y0 <= v <= r.y1), None)
                    if hit is None:
                        continue
                    if last is not None and hit is not last:
                        out.append("\n")
                    out.append("-" if code == 2 else chr(code))
                    last = hit
                textpage.close()
                page.close()
                out.append("\n")
            return normalise_page_text("".join(out))
        finally:
            pdf.close()


def page_spans(
    pages: Sequence[Page], page_start: int, char_start: int, start: int, end: int
) -> list[PageSpan]:
    """Characters ``[start, end)`` of a text that begins at ``char_start`` of page
    ``page_start`` (a chunk's text: page slices joined with "\\n") as one span per page."""
    index = PageIndex(list(pages))
    a = index.offset(page_start, char_start) + start
    b = index.offset(page_start, char_start) + end
    spans: list[PageSpan] = []
    for page, page_offset in zip(index.pages, index.starts, strict=True):
        lo, hi = max(a, page_offset), min(b, page_offset + len(page.text))
        if hi > lo:
            spans.append(PageSpan(page.number, lo - page_offset, hi - page_offset))
    return spans
