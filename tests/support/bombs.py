"""The hostile inputs of issue 34, made on demand (never committed as files): the 838-byte
BibTeX ``@string`` macro bomb and PDF decompression bombs. scripts/fuzz_api.py sends
them to a live server too."""

from __future__ import annotations

import zlib
from functools import lru_cache

GIB = 1 << 30
_CHUNK = 64 << 20


def bibtex_macro_bomb(depth: int = 39) -> str:
    """``@string{a0={xxxxxxxxxx}}``, then ``@string{aN=aN-1#aN-1}`` for N = 1..depth, and
    one entry whose title is ``a<depth>``: 10 × 2**depth characters once expanded (5.5 TB
    at the issue's depth 39) from 838 bytes."""
    lines = ["@string{a0={xxxxxxxxxx}}"]
    lines += [f"@string{{a{n}=a{n - 1}#a{n - 1}}}" for n in range(1, depth + 1)]
    lines.append(f"@article{{x, title=a{depth}}}")
    return "\n".join(lines) + "\n"


@lru_cache(maxsize=4)
def deflated_spaces(inflated: int) -> bytes:
    """A zlib stream that inflates to ``inflated`` spaces (1 GiB → about 1 MB)."""
    packer = zlib.compressobj(9)
    chunk = b" " * min(_CHUNK, inflated)
    parts, left = [], inflated
    while left > 0:
        piece = chunk if left >= len(chunk) else chunk[:left]
        parts.append(packer.compress(piece))
        left -= len(piece)
    parts.append(packer.flush())
    return b"".join(parts)


def pdf_with_streams(
    pages: list[list[tuple[bytes, bool]]], *, image: tuple[bytes, int] | None = None
) -> bytes:
    """A PDF whose pages each have the given content streams ``(data, deflated)``; with
    ``image`` (a deflated 8-bit grey image stream and its height: 1 × height pixels) every
    page also carries it as an XObject."""
    objects: list[bytes] = [b"<< /Type /Catalog /Pages 2 0 R >>", b""]
    font = _add(objects, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    image_ref = b""
    if image is not None:
        data, height = image
        img = _add(
            objects,
            b"<< /Type /XObject /Subtype /Image /Width 1 /Height %d /ColorSpace /DeviceGray "
            b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream"
            % (height, len(data), data),
        )
        image_ref = b" /XObject << /Im1 %d 0 R >>" % img
    kids = []
    for streams in pages:
        refs = []
        for data, deflated in streams:
            flt = b" /Filter /FlateDecode" if deflated else b""
            refs.append(
                _add(
                    objects,
                    b"<< /Length %d%s >>\nstream\n%s\nendstream" % (len(data), flt, data),
                )
            )
        contents = b" ".join(b"%d 0 R" % r for r in refs)
        kids.append(
            _add(
                objects,
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font "
                b"<< /F1 %d 0 R >>%s >> /Contents [%s] >>" % (font, image_ref, contents),
            )
        )
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids),
        len(kids),
    )
    return _serialise(objects)


def _add(objects: list[bytes], body: bytes) -> int:
    objects.append(body)
    return len(objects)


def _serialise(objects: list[bytes]) -> bytes:
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def text_stream(words: str) -> bytes:
    """A content stream that shows ``words`` (ASCII) on the page, one line each 14 pt."""
    lines = [b"BT /F1 11 Tf 72 740 Td 14 TL"]
    for line in words.splitlines():
        escaped = line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        lines.append(b"(%s) '" % escaped.encode("ascii", "replace"))
    lines.append(b"ET")
    return b"\n".join(lines)


READABLE = (
    "Decompression budgets for untrusted documents\n"
    "A page of ordinary text that any parser reads in a moment.\n"
    "The next content stream on this page is what the budget is for."
)


def pdf_bomb(inflated: int = GIB) -> bytes:
    """The issue's PDF bomb: one page with readable text, then a content stream that
    inflates to ``inflated`` spaces (1 GiB: a 1 MB file)."""
    return pdf_with_streams([[(text_stream(READABLE), False), (deflated_spaces(inflated), True)]])


def pdf_image_bomb(inflated: int = GIB) -> bytes:
    """A readable page that also carries a grey image XObject whose stream inflates to
    ``inflated`` bytes (1 × ``inflated`` pixels)."""
    image = (deflated_spaces(inflated), inflated)
    return pdf_with_streams([[(text_stream(READABLE), False)]], image=image)
