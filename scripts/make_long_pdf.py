"""Write a long PDF made of the shared PDFs, one after another, repeated up to N pages.

    uv run python scripts/make_long_pdf.py /tmp/long300.pdf --pages 300

Used by the reader benchmark (frontend/e2e/reader-bench.spec.ts, docs/BENCHMARKS.md):
opening a cited page past page 100, and the tab's memory with 300 pages open.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pypdfium2 as pdfium

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "pdfs"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--pages", type=int, default=300)
    args = parser.parse_args()
    sources = sorted(SHARED.glob("*.pdf"))
    out = pdfium.PdfDocument.new()
    while len(out) < args.pages:
        for path in sources:
            src = pdfium.PdfDocument(path)
            take = min(len(src), args.pages - len(out))
            out.import_pages(src, list(range(take)))
            src.close()
            if len(out) >= args.pages:
                break
    out.save(args.out)
    print(f"{args.out}: {len(out)} pages from {len(sources)} shared PDFs")


if __name__ == "__main__":
    main()
