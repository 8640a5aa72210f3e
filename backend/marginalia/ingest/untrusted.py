"""Parsing an uploaded or downloaded document in the parse sandbox (:mod:`marginalia.sandbox`).

:func:`parse_untrusted` is what upload validation, the ingest job and research downloads
call (through ``validation.validate_document``): the parse runs in a child process with
the budgets of ``ingest.*`` settings —

* a PDF's content is first measured by :mod:`marginalia.ingest.pdf_budget` (inflated
  bytes per page and per document, declared image sizes);
* HTML larger than ``ingest.max_html_mb`` is refused before lxml builds a tree of it;
* the child's memory (``parse_memory_mb``), processor and wall-clock time
  (``parse_timeout_s``) and the time between two pages (``page_timeout_s``) are bounded.

A budget running out is a :class:`DocumentError` ``over_budget`` for that file alone.
The child sends the parsed document back as JSON (:func:`document_to_json`).
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import asdict
from typing import Any

import pikepdf

from marginalia import sandbox
from marginalia.config import IngestSettings
from marginalia.ingest.documents import Page, ParsedDocument, Section
from marginalia.ingest.errors import DocumentError
from marginalia.ingest.parse import parse_document, sniff_kind
from marginalia.ingest.pdf_budget import PdfBudget, check_pdf_budget

_MB = 1024 * 1024
TASK = "marginalia.ingest.untrusted:parse_document_task"


def budget_for(settings: IngestSettings) -> sandbox.Budget:
    return sandbox.Budget(
        memory_mb=settings.parse_memory_mb,
        cpu_s=settings.parse_timeout_s,
        wall_s=settings.parse_timeout_s,
        step_s=settings.page_timeout_s,
    )


def parse_untrusted(
    data: bytes, filename: str, content_type: str | None, settings: IngestSettings
) -> ParsedDocument:
    """Parse ``data`` in the sandbox; DocumentError with a user-facing reason otherwise."""
    args = {
        "filename": filename,
        "content_type": content_type,
        "max_bytes": settings.max_upload_mb * _MB,
        "max_pages": settings.max_pages,
        "max_html_bytes": settings.max_html_mb * _MB,
        "pdf_budget": asdict(
            PdfBudget(
                page_bytes=settings.max_page_content_mb * _MB,
                document_bytes=settings.max_document_content_mb * _MB,
                image_bytes=settings.max_image_mb * _MB,
            )
        ),
    }
    try:
        value = sandbox.run(
            TASK, data, args, budget_for(settings), slots=settings.parse_concurrency
        )
    except sandbox.TaskRefused as refused:
        raise DocumentError(refused.code, refused.message) from None  # type: ignore[arg-type]
    except sandbox.BudgetExceeded as exceeded:
        where = f" (last step: {exceeded.step})" if exceeded.step else ""
        raise DocumentError(
            "over_budget",
            f"“{filename}” could not be read within its budget: {exceeded.detail}{where}. "
            "It was refused; a paper needs far less, so the file is damaged or hostile.",
        ) from None
    return document_from_json(value)


# ------------------------------------------------------------------------------ the child


def parse_document_task(data: bytes, args: dict[str, Any], report: sandbox.Report) -> Any:
    """Runs in the sandbox's child: budgets first, then the parse, page by page."""
    filename = str(args["filename"])
    content_type = args.get("content_type")
    try:
        if data:
            kind = sniff_kind(data, filename, content_type)
            if kind == "pdf":
                check_pdf_budget(
                    data,
                    PdfBudget(**args["pdf_budget"]),
                    max_pages=int(args["max_pages"]),
                    on_page=lambda n: report(f"measured page {n}'s content"),
                )
            elif kind == "html" and len(data) > int(args["max_html_bytes"]):
                raise DocumentError(
                    "too_large",
                    f"“{filename}” is {len(data) / 1e6:.1f} MB of HTML; web pages up to "
                    f"{int(args['max_html_bytes']) / 1e6:.0f} MB are read. Save the article "
                    "as PDF or text and upload that.",
                )
        report("started reading")
        document = parse_document(
            data,
            filename,
            content_type=content_type,
            max_bytes=int(args["max_bytes"]),
            max_pages=int(args["max_pages"]),
            on_page=lambda n: report(f"read page {n}"),
        )
    except DocumentError as exc:
        raise sandbox.TaskRefused(exc.code, exc.message) from None
    return document_to_json(document)


def document_to_json(document: ParsedDocument) -> dict[str, Any]:
    return asdict(document)


def document_from_json(value: dict[str, Any]) -> ParsedDocument:
    fields = dict(value)
    fields["pages"] = [Page(**p) for p in value["pages"]]
    fields["sections"] = [Section(**s) for s in value["sections"]]
    return ParsedDocument(**fields)


def warm_up() -> None:
    """Parse one small document of each kind in the zygote before it forks, so every child
    starts with what a first parse initialises lazily (measured in a forked child: a tiny
    text 25 → 0.6 ms, a 13-page paper 407 → 316 ms)."""
    text = b"A warm-up note\n\nIt has a heading and a paragraph of words for the parser."
    samples = [
        (text, "warm.txt"),
        (b"# Warm-up\n\n" + text, "warm.md"),
        (
            b"<html><body><article><h1>Warm-up</h1><p>" + text + b"</p></article></body></html>",
            "warm.html",
        ),
        (_sample_pdf(), "warm.pdf"),
    ]
    for data, name in samples:
        with contextlib.suppress(DocumentError):  # a refusal still warmed what it reached
            parse_document(data, name, max_bytes=1 << 20, max_pages=5)


def _sample_pdf() -> bytes:
    pdf = pikepdf.new()
    font = pdf.make_indirect(
        pikepdf.Dictionary(
            Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica
        )
    )
    lines = [f"({words}) '" for words in ["A warm-up page of text", "read by the parser"] * 8]
    content = "BT /F1 11 Tf 72 720 Td 14 TL " + " ".join(lines) + " ET"
    page = pikepdf.Dictionary(
        Type=pikepdf.Name.Page,
        MediaBox=[0, 0, 612, 792],
        Resources=pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=font)),
        Contents=pdf.make_stream(content.encode()),
    )
    pdf.pages.append(pikepdf.Page(page))
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()
