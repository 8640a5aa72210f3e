"""The parse sandbox (issue 34, item 2): a document's parse runs in a child process, and a
parse that runs out of memory, time or a page's time is refused for that file while
this process — the server — goes on. Real parsers, real PDFs, real child processes."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from marginalia.config import IngestSettings, Settings
from marginalia.ingest.errors import DocumentError
from marginalia.ingest.parse import parse_document
from marginalia.ingest.untrusted import parse_untrusted
from marginalia.ingest.validation import IngestRefused, validate_document
from tests.support.bombs import pdf_bomb

GIB = 1 << 30


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def _loose(settings: Settings, **changes: object) -> IngestSettings:
    """Budgets with the inflate check out of the way, so the child's own limits act."""
    base = {"max_page_content_mb": 4096, "max_document_content_mb": 4096}
    return settings.ingest.model_copy(update={**base, **changes})


def test_a_sandboxed_parse_equals_the_in_process_one(settings: Settings, shared_data: Path) -> None:
    for name in ("specter-acl2020.pdf", "trauma-bmc2010.pdf"):
        data = (shared_data / "pdfs" / name).read_bytes()
        inside = parse_document(data, name, max_bytes=60 * 2**20, max_pages=300)
        outside = parse_untrusted(data, name, "application/pdf", settings.ingest)
        assert outside == inside


def test_the_pdf_bomb_is_refused_by_validation_without_growing_this_process(
    settings: Settings,
) -> None:
    bomb = pdf_bomb()
    before = _rss_mb()
    started = time.monotonic()
    with pytest.raises(IngestRefused) as refused:
        validate_document(bomb, "bomb.pdf", "application/pdf", settings)
    assert refused.value.code == "over_budget" and refused.value.status_code == 422
    assert "page 1's content inflates to more than 64 MB" in refused.value.detail
    assert time.monotonic() - started < 30
    assert _rss_mb() - before < 50  # before issue 34: +2 GB in the server


def test_a_parse_over_its_memory_budget_ends_the_child_not_the_server(
    settings: Settings, shared_data: Path
) -> None:
    with pytest.raises(DocumentError, match="more than 256 MB of memory") as refused:
        parse_untrusted(pdf_bomb(), "bomb.pdf", None, _loose(settings, parse_memory_mb=256))
    assert refused.value.code == "over_budget"
    # The sandbox goes on: the next file parses.
    data = (shared_data / "pdfs" / "trauma-bmc2010.pdf").read_bytes()
    assert parse_untrusted(data, "trauma.pdf", None, settings.ingest).page_count == 4


def test_a_page_over_its_time_budget_is_refused(settings: Settings) -> None:
    started = time.monotonic()
    with pytest.raises(DocumentError, match="took longer than 2 s"):
        parse_untrusted(pdf_bomb(), "bomb.pdf", None, _loose(settings, page_timeout_s=2))
    assert time.monotonic() - started < 15


def test_a_document_over_its_time_budget_is_refused(settings: Settings) -> None:
    started = time.monotonic()
    with pytest.raises(DocumentError, match="the parse took longer than 3 s"):
        parse_untrusted(
            pdf_bomb(), "bomb.pdf", None, _loose(settings, parse_timeout_s=3, page_timeout_s=60)
        )
    assert time.monotonic() - started < 15


def test_refusals_of_the_parser_come_back_as_they_are(settings: Settings) -> None:
    with pytest.raises(DocumentError) as refused:
        parse_untrusted(b"%PDF-1.4\n% cut off here", "cut.pdf", None, settings.ingest)
    assert refused.value.code == "corrupt_pdf"


def test_html_past_its_limit_is_refused_before_lxml_reads_it(settings: Settings) -> None:
    page = (
        b"<html><body><article>" + b"<p>word word word</p>" * 600_000 + b"</article></body></html>"
    )
    assert len(page) > 10 * 2**20
    with pytest.raises(DocumentError, match="MB of HTML") as refused:
        parse_untrusted(page, "page.html", "text/html", settings.ingest)
    assert refused.value.code == "too_large"
