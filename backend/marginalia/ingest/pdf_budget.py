"""How many bytes a PDF's pages inflate to, counted before PDFium reads them.

A content stream is compressed; PDFium inflates each whole stream into memory before it
parses the page, so a 1 MB file can ask for 1 GiB (issue 34). This pass (qpdf through
pikepdf, inside the parse sandbox) reads every stream PDFium would parse for text — the
page's content streams, the form XObjects it draws (recursively) and its Type 3 glyph
procedures — and inflates it *streaming*, counting and discarding the output, until a
per-page or per-document budget is spent. Image XObjects are not inflated when text is
extracted (measured: a page carrying a 1 GiB image parses in 59 MB); their declared size
(width × height × components × bits) is checked instead, since the reader's pdf.js
would decode them. Over a budget: :class:`DocumentError` ``over_budget``, naming the page.

Filters inflated with bounded memory: FlateDecode (zlib, 64 KB steps), LZWDecode,
RunLengthDecode, ASCIIHexDecode, ASCII85Decode; predictors are ignored (they change a
stream's size by one byte a row). Anything else in a content stream (an image codec) is
counted at its raw size: PDFium cannot read it as content either.
"""

from __future__ import annotations

import base64
import binascii
import io
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import pikepdf

from marginalia.ingest.errors import DocumentError

_STEP = 64 * 1024
_MB = 1024 * 1024
#: Form XObjects nest; PDFium itself stops well before this depth.
_MAX_FORM_DEPTH = 32
_COMPONENTS = {"/DeviceGray": 1, "/CalGray": 1, "/DeviceRGB": 3, "/CalRGB": 3, "/Lab": 3}


@dataclass(frozen=True)
class PdfBudget:
    page_bytes: int  # inflated content of one page (its streams, forms, glyph procedures)
    document_bytes: int  # the same, over all pages
    image_bytes: int  # one image's declared decoded size


class _Spent(Exception):
    """A budget ran out while inflating (the count so far is over it)."""


def check_pdf_budget(
    data: bytes,
    budget: PdfBudget,
    *,
    max_pages: int,
    on_page: Callable[[int], None] | None = None,
) -> int:
    """The bytes the document's content inflates to; DocumentError ``over_budget`` when a
    page or the document passes its budget. A file qpdf cannot open (damaged, password)
    passes through: PDFium's parse gives the user the reason."""
    try:
        pdf = pikepdf.open(io.BytesIO(data))
    except (pikepdf.PdfError, pikepdf.PasswordError, ValueError, RuntimeError):
        return 0
    with pdf:
        try:
            pages = pdf.pages
            if len(pages) > max_pages:
                return 0  # the parse refuses it with the page count
            return _count_pages(pages, budget, on_page)
        except (pikepdf.PdfError, ValueError, RuntimeError, RecursionError, AttributeError):
            return 0  # a structure qpdf cannot walk: PDFium decides


def _count_pages(
    pages: Iterable[pikepdf.Page], budget: PdfBudget, on_page: Callable[[int], None] | None
) -> int:
    total = 0
    for number, page in enumerate(pages, start=1):
        left = min(budget.page_bytes, budget.document_bytes - total)
        counter = _PageCounter(left, budget.image_bytes, number)
        try:
            counter.page(page)
        except _Spent:
            if counter.used > budget.page_bytes or left == budget.page_bytes:
                raise DocumentError(
                    "over_budget",
                    f"page {number}'s content inflates to more than "
                    f"{budget.page_bytes // _MB} MB (the limit per page): this PDF looks like "
                    "a decompression bomb, not a paper. It was refused.",
                ) from None
            raise DocumentError(
                "over_budget",
                f"this PDF's content inflates to more than {budget.document_bytes // _MB} MB "
                f"(the limit per document; passed on page {number}). It was refused.",
            ) from None
        total += counter.used
        if on_page is not None:
            on_page(number)
    return total


class _PageCounter:
    def __init__(self, limit: int, image_limit: int, number: int) -> None:
        self.limit = limit
        self.image_limit = image_limit
        self.number = number
        self.used = 0
        self.seen: set[tuple[int, int]] = set()

    def page(self, page: pikepdf.Page) -> None:
        contents = page.obj.get("/Contents")
        streams = contents if isinstance(contents, pikepdf.Array) else [contents]
        for stream in streams:
            if isinstance(stream, pikepdf.Stream):
                self.stream(stream)
        self.resources(page.resources, depth=0)

    def resources(self, resources: object, depth: int) -> None:
        if not isinstance(resources, pikepdf.Dictionary) or depth > _MAX_FORM_DEPTH:
            return
        xobjects = resources.get("/XObject")
        if isinstance(xobjects, pikepdf.Dictionary):
            for _name, xobject in xobjects.items():
                if not isinstance(xobject, pikepdf.Stream) or not self._first_visit(xobject):
                    continue
                subtype = xobject.get("/Subtype")
                if subtype == "/Form":
                    self.stream(xobject)
                    self.resources(xobject.get("/Resources"), depth + 1)
                elif subtype == "/Image":
                    self.image(xobject)
        fonts = resources.get("/Font")
        if isinstance(fonts, pikepdf.Dictionary):
            for _name, font in fonts.items():
                if not isinstance(font, pikepdf.Dictionary) or font.get("/Subtype") != "/Type3":
                    continue
                procs = font.get("/CharProcs")
                if isinstance(procs, pikepdf.Dictionary):
                    for _glyph, proc in procs.items():
                        if isinstance(proc, pikepdf.Stream) and self._first_visit(proc):
                            self.stream(proc)
                self.resources(font.get("/Resources"), depth + 1)

    def _first_visit(self, obj: pikepdf.Object) -> bool:
        key = obj.objgen
        if key == (0, 0):
            return True  # a direct object: counted where it stands
        if key in self.seen:
            return False
        self.seen.add(key)
        return True

    def stream(self, stream: pikepdf.Stream) -> None:
        for chunk in inflate(stream.read_raw_bytes(), _filters(stream), cap=2 * self.limit):
            self.used += len(chunk)
            if self.used > self.limit:
                raise _Spent

    def image(self, image: pikepdf.Stream) -> None:
        try:
            width, height = int(image.get("/Width", 0)), int(image.get("/Height", 0))
            bits = int(image.get("/BitsPerComponent", 8))
        except (TypeError, ValueError):
            return
        space = image.get("/ColorSpace")
        components = _COMPONENTS.get(str(space), 4 if str(space) == "/DeviceCMYK" else 3)
        declared = max(width, 0) * max(height, 0) * components * max(bits, 1) // 8
        if declared > self.image_limit:
            raise DocumentError(
                "over_budget",
                f"an image on page {self.number} declares {width} × {height} pixels "
                f"({declared // _MB} MB decoded; the limit per image is "
                f"{self.image_limit // _MB} MB). It was refused.",
            )


def _filters(stream: pikepdf.Stream) -> list[str]:
    value = stream.get("/Filter")
    if isinstance(value, pikepdf.Array):
        return [str(v) for v in value]
    return [str(value)] if value is not None else []


def inflate(raw: bytes, filters: list[str], *, cap: int) -> Iterator[bytes]:
    """The stream's decoded bytes, in pieces: about 64 KB held at once from the last
    filter; an earlier filter's output (what the next one reads whole) is cut off past
    ``cap`` bytes with :class:`_Spent`."""
    chunks: Iterable[bytes] = [raw]
    known = [_DECODERS.get(name.lstrip("/")) for name in filters]
    for position, decoder in enumerate(known):
        if decoder is None:
            break  # an image codec or crypt filter: counted as it stands
        chunks = decoder(chunks)
        if position < len(known) - 1:
            chunks = _capped(chunks, cap)
    yield from chunks


def _capped(chunks: Iterable[bytes], cap: int) -> Iterator[bytes]:
    total = 0
    for chunk in chunks:
        total += len(chunk)
        if total > cap:
            raise _Spent
        yield chunk


def _flate(chunks: Iterable[bytes]) -> Iterator[bytes]:
    unpack = zlib.decompressobj()
    try:
        for chunk in chunks:
            data = chunk
            while data:
                out = unpack.decompress(data, _STEP)
                if out:
                    yield out
                data = unpack.unconsumed_tail
            if unpack.eof:
                return
        while out := unpack.decompress(b"", _STEP):
            yield out
    except zlib.error:
        return  # damaged data: PDFium stops there too


def _run_length(chunks: Iterable[bytes]) -> Iterator[bytes]:
    data = b"".join(chunks)
    i, out = 0, bytearray()
    while i < len(data):
        length = data[i]
        if length == 128:
            break
        if length < 128:
            out += data[i + 1 : i + 2 + length]
            i += length + 2
        else:
            out += data[i + 1 : i + 2] * (257 - length)
            i += 2
        if len(out) >= _STEP:
            yield bytes(out)
            out.clear()
    if out:
        yield bytes(out)


def _lzw(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """LZWDecode (early change 1, the PDF default), yielding as it goes."""
    data = b"".join(chunks)
    table: list[bytes] = [bytes([i]) for i in range(256)] + [b"", b""]
    width, previous, out = 9, b"", bytearray()
    bits = bitcount = 0
    for byte in data:
        bits = (bits << 8) | byte
        bitcount += 8
        while bitcount >= width:
            bitcount -= width
            code = (bits >> bitcount) & ((1 << width) - 1)
            bits &= (1 << bitcount) - 1
            if code == 256:  # clear table
                del table[258:]
                width, previous = 9, b""
                continue
            if code == 257:  # end of data
                if out:
                    yield bytes(out)
                return
            if code < len(table):
                entry = table[code]
            elif code == len(table) and previous:
                entry = previous + previous[:1]
            else:
                if out:
                    yield bytes(out)
                return  # corrupt
            out += entry
            if previous:
                table.append(previous + entry[:1])
            previous = entry
            if len(table) + 1 >= (1 << width) and width < 12:
                width += 1
            if len(out) >= _STEP:
                yield bytes(out)
                out.clear()
    if out:
        yield bytes(out)


def _ascii_hex(chunks: Iterable[bytes]) -> Iterator[bytes]:
    text = b"".join(chunks).split(b">", 1)[0]
    digits = bytes(c for c in text if c in b"0123456789abcdefABCDEF")
    if len(digits) % 2:
        digits += b"0"
    yield binascii.unhexlify(digits)


def _ascii85(chunks: Iterable[bytes]) -> Iterator[bytes]:
    text = b"".join(chunks).strip()
    text = text.removeprefix(b"<~").split(b"~>", 1)[0]
    try:
        yield base64.a85decode(b"".join(text.split()))
    except ValueError:
        return


_DECODERS: dict[str, Callable[[Iterable[bytes]], Iterator[bytes]]] = {
    "FlateDecode": _flate,
    "Fl": _flate,
    "LZWDecode": _lzw,
    "LZW": _lzw,
    "RunLengthDecode": _run_length,
    "RL": _run_length,
    "ASCIIHexDecode": _ascii_hex,
    "AHx": _ascii_hex,
    "ASCII85Decode": _ascii85,
    "A85": _ascii85,
}
