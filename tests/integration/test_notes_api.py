"""Highlights and notes over the API (issue 16): a selection anchored in the stored page
text with PDF rectangles that read back as the quote, edit, search, Markdown export,
delete, clear 4xx errors, and a source's deletion taking its notes with it."""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from marginalia.answer import normalize
from marginalia.formats.bibtex_import import parse_bibtex_export
from marginalia.ingest.geometry import Rect, text_under
from marginalia.ingest.pipeline import ingest_document
from marginalia.runtime import Runtime
from marginalia.usecases import sources as sources_usecase
from marginalia.usecases import workspaces as ws_service

NOTES_MD = b"# Field notes\n\nThe starter doubled in four hours at room temperature.\n\nIt smelled of apples.\n"


@pytest.fixture(scope="module")
async def corpus(services: Runtime, shared_data: Path) -> AsyncIterator[dict[str, uuid.UUID]]:
    ws = await ws_service.create_workspace(services, name=f"notes-{uuid.uuid4().hex[:6]}")
    pdf = await ingest_document(
        services,
        ws.id,
        data=(shared_data / "pdfs" / "specter-acl2020.pdf").read_bytes(),
        filename="specter.pdf",
        content_type="application/pdf",
    )
    md = await ingest_document(
        services, ws.id, data=NOTES_MD, filename="notes.md", content_type="text/markdown"
    )
    try:
        yield {"workspace": ws.id, "pdf": pdf.source_id, "md": md.source_id}
    finally:
        await ws_service.delete_workspace(services, ws.id)


def _squash(text: str) -> str:
    return re.sub(r"\s", "", normalize(text))


async def test_highlight_lifecycle_on_a_pdf(
    services: Runtime, corpus: dict[str, uuid.UUID], client: httpx.AsyncClient, shared_data: Path
) -> None:
    pdf = corpus["pdf"]
    pages = {p.page_number: p.text for p in await sources_usecase.source_pages(services, pdf)}
    sentence = re.search(r"[A-Z][a-z]+(?:[ \n][a-zA-Z,;()'-]+){10,25}\.", pages[2])
    assert sentence is not None
    # What pdf.js gives: spaces where the stored text has line breaks.
    selected = " ".join(sentence.group().split())
    before = pages[2][max(0, sentence.start() - 30) : sentence.start()]
    r = await client.post(
        f"/api/sources/{pdf}/highlights",
        json={"page": 2, "quote": selected, "prefix": before, "color": "green", "note": "Key"},
    )
    assert r.status_code == 201, r.text
    made = r.json()
    assert (made["page"], made["page_end"], made["color"], made["note"]) == (2, 2, "green", "Key")
    assert pages[2][made["char_start"] : made["char_end"]] == made["text"] == sentence.group()
    assert made["prefix"] and made["suffix"] is not None
    data = (shared_data / "pdfs" / "specter-acl2020.pdf").read_bytes()
    rects = [Rect(**x) for x in made["rects"]]
    assert rects and _squash(text_under(data, rects)) == _squash(sentence.group())

    listed = (await client.get(f"/api/sources/{pdf}/highlights")).json()
    assert [h["id"] for h in listed] == [made["id"]]

    r = await client.patch(f"/api/highlights/{made['id']}", json={"note": "Key idea: triplets"})
    assert r.status_code == 200 and r.json()["note"] == "Key idea: triplets"
    assert r.json()["color"] == "green"

    ws = corpus["workspace"]
    found = (await client.get(f"/api/workspaces/{ws}/highlights", params={"q": "TRIPLETS"})).json()
    assert [h["id"] for h in found] == [made["id"]]
    assert found[0]["source_title"]
    assert (
        await client.get(f"/api/workspaces/{ws}/highlights", params={"q": "absent"})
    ).json() == []

    md = await client.get(f"/api/sources/{pdf}/highlights.md")
    assert md.status_code == 200 and md.headers["content-type"].startswith("text/markdown")
    assert "— p. 2" in md.text and "Key idea: triplets" in md.text
    assert " ".join(sentence.group().split()) in md.text
    whole = await client.get(f"/api/workspaces/{ws}/highlights.md")
    assert whole.status_code == 200 and "## " in whole.text and "Key idea: triplets" in whole.text

    # BibTeX: the note and the quote with its page in ``annote``, per source and per
    # workspace; read back by the BibTeX importer as the same note.
    bib = await client.get(f"/api/sources/{pdf}/bibtex")
    assert bib.status_code == 200 and bib.headers["content-type"].startswith("application/x-bibtex")
    parsed = parse_bibtex_export(bib.text)
    assert len(parsed.records) == 1
    (annote,) = parsed.records[0].notes
    assert annote.startswith("p. 2: ") and annote.endswith("Key idea: triplets")
    assert " ".join(sentence.group().split()) in annote
    workspace_bib = parse_bibtex_export((await client.get(f"/api/workspaces/{ws}/bibtex")).text)
    assert len(workspace_bib.records) == 2
    assert [annote] in [r.notes for r in workspace_bib.records]
    assert (await client.get(f"/api/sources/{uuid.uuid4()}/bibtex")).status_code == 404

    assert (await client.delete(f"/api/highlights/{made['id']}")).status_code == 204
    assert (await client.get(f"/api/sources/{pdf}/highlights")).json() == []
    assert (await client.delete(f"/api/highlights/{made['id']}")).status_code == 404


async def test_a_selection_across_a_page_break_is_one_highlight_on_both_pages(
    services: Runtime, corpus: dict[str, uuid.UUID], client: httpx.AsyncClient, shared_data: Path
) -> None:
    pdf = corpus["pdf"]
    pages = {p.page_number: p.text for p in await sources_usecase.source_pages(services, pdf)}
    # Whole lines, so no line-break hyphen falls inside the selection.
    tail = pages[1].rstrip().splitlines()[-1].split()
    first, second = pages[2].splitlines()[:2]
    head = first.split() + second.split()[:-1]
    # What the browser sends: the end of page 1's text layer and the start of page 2's.
    selected = " ".join(tail + head)
    r = await client.post(
        f"/api/sources/{pdf}/highlights", json={"page": 1, "page_end": 2, "quote": selected}
    )
    assert r.status_code == 201, r.text
    made = r.json()
    assert (made["page"], made["page_end"]) == (1, 2)
    stored = pages[1][made["char_start"] :] + "\n" + pages[2][: made["char_end"]]
    assert _squash(made["text"]) == _squash(stored) == _squash(selected)
    rects = [Rect(**x) for x in made["rects"]]
    assert {r.page for r in rects} == {1, 2}
    data = (shared_data / "pdfs" / "specter-acl2020.pdf").read_bytes()
    assert _squash(text_under(data, rects)) == _squash(selected)
    md = (await client.get(f"/api/sources/{pdf}/highlights.md")).text
    assert "— pp. 1–2" in md
    assert (await client.delete(f"/api/highlights/{made['id']}")).status_code == 204


async def test_bad_highlights_are_refused_and_nothing_is_stored(
    corpus: dict[str, uuid.UUID], client: httpx.AsyncClient
) -> None:
    pdf = corpus["pdf"]
    cases = [
        ({"page": 2, "quote": "sourdough starter at high altitude"}, 422, "not on page 2"),
        ({"page": 99, "quote": "anything"}, 422, "no page 99"),
        ({"page": 2, "quote": "the", "color": "purple"}, 422, ""),
        ({"page": 0, "quote": "the"}, 422, ""),
        ({"page": 2, "quote": ""}, 422, ""),
        ({"page": 2, "page_end": 1, "quote": "the"}, 422, "page_end"),
        ({"page": 2, "page_end": 5, "quote": "the"}, 422, "page_end"),
        ({"page": 2, "page_end": 3, "quote": "sourdough at altitude"}, 422, "not on pages 2–3"),
    ]
    for body, code, detail in cases:
        r = await client.post(f"/api/sources/{pdf}/highlights", json=body)
        assert r.status_code == code, (body, r.text)
        assert r.json()["error"] and detail in r.json()["detail"]
    assert (await client.get(f"/api/sources/{pdf}/highlights")).json() == []
    missing = uuid.uuid4()
    assert (await client.get(f"/api/sources/{missing}/highlights")).status_code == 404
    r = await client.post(f"/api/sources/{missing}/highlights", json={"page": 1, "quote": "x"})
    assert r.status_code == 404
    assert (await client.patch(f"/api/highlights/{missing}", json={"note": "x"})).status_code == 404
    assert (await client.get(f"/api/workspaces/{missing}/highlights")).status_code == 404


async def test_text_source_highlight_and_deleting_the_source_deletes_its_notes(
    services: Runtime, corpus: dict[str, uuid.UUID], client: httpx.AsyncClient
) -> None:
    md = corpus["md"]
    r = await client.post(
        f"/api/sources/{md}/highlights",
        json={"page": 1, "quote": "doubled in four hours", "note": "fast"},
    )
    assert r.status_code == 201, r.text
    made = r.json()
    pages = {p.page_number: p.text for p in await sources_usecase.source_pages(services, md)}
    assert pages[1][made["char_start"] : made["char_end"]] == "doubled in four hours"
    assert made["rects"] == []
    assert (await client.delete(f"/api/sources/{md}")).status_code in (200, 202, 204)
    ws = corpus["workspace"]
    remaining = (await client.get(f"/api/workspaces/{ws}/highlights")).json()
    assert made["id"] not in [h["id"] for h in remaining]
    assert (
        await client.patch(f"/api/highlights/{made['id']}", json={"note": "x"})
    ).status_code == 404


async def test_chunk_location_marks_a_quote_or_the_whole_chunk(
    services: Runtime, corpus: dict[str, uuid.UUID], client: httpx.AsyncClient, shared_data: Path
) -> None:
    """What a wiki or evidence citation (a chunk, perhaps a quote) opens the reader with."""
    pdf = corpus["pdf"]
    chunks = await sources_usecase.source_chunks(services, pdf, limit=100, offset=0)
    chunk = next(c for c in chunks if c.page_start == 2)
    sentence = re.search(r"[A-Z][a-z]+(?:[ \n][a-zA-Z,;()'-]+){8,20}\.", chunk.text)
    assert sentence is not None
    data = (shared_data / "pdfs" / "specter-acl2020.pdf").read_bytes()
    url = f"/api/sources/{pdf}/chunks/{chunk.chunk_index}/location"
    r = await client.get(url, params={"quote": sentence.group()})
    assert r.status_code == 200, r.text
    got = r.json()
    assert got["page"] == 2 and got["rects"]
    under = text_under(data, [Rect(**x) for x in got["rects"]])
    assert _squash(under) == _squash(sentence.group())
    whole = (await client.get(url)).json()
    assert whole["rects"] and len(whole["rects"]) > len(got["rects"])
    assert whole["char_start"] <= got["char_start"] and whole["char_end"] >= got["char_end"]
    # A quote that is not in the chunk marks the whole chunk (the passage was cited).
    assert (await client.get(url, params={"quote": "no such words here"})).json() == whole
    missing = await client.get(f"/api/sources/{pdf}/chunks/99999/location")
    assert missing.status_code == 404


async def test_a_selection_across_line_breaks_is_accepted_however_the_lines_join(
    services: Runtime, corpus: dict[str, uuid.UUID], client: httpx.AsyncClient
) -> None:
    """Issue 34, part 2: a selection that wraps lines in the PDF reader — sent with a space
    where the line broke (what the reader sends now), glued (what it sent before: 422), or
    with a word hyphenated at the break joined (the reader's quote normalisation, the
    backend's) — is one highlight over the same stored text."""
    pdf = corpus["pdf"]
    pages = {p.page_number: p.text for p in await sources_usecase.source_pages(services, pdf)}
    text = pages[2]
    plain = re.search(r"(?:[a-z]+ ){3}[a-z]{3,}\n[a-z]{3,}(?: [a-z]+){3}", text)
    assert plain is not None, "no plain line break between words on page 2"
    before, _, after = plain.group().partition("\n")
    made = []
    for quote in (f"{before} {after}", f"{before}{after}"):
        r = await client.post(f"/api/sources/{pdf}/highlights", json={"page": 2, "quote": quote})
        assert r.status_code == 201, (quote, r.text)
        made.append(r.json())
    spans = {(m["char_start"], m["char_end"]) for m in made}
    assert spans == {(plain.start(), plain.end())}
    assert made[0]["text"] == plain.group()

    page, hyphen = next(
        (n, m)
        for n, t in sorted(pages.items())
        if (m := re.search(r"[A-Za-z]{2,} [a-z]{3,}-\n[a-z]{3,} [a-z]{2,}", t))
    )
    head, _, tail = hyphen.group().partition("-\n")
    r = await client.post(
        f"/api/sources/{pdf}/highlights", json={"page": page, "quote": head + tail}
    )
    assert r.status_code == 201, r.text
    assert r.json()["text"] == hyphen.group()
    for m in [*made, r.json()]:
        assert (await client.delete(f"/api/highlights/{m['id']}")).status_code == 204
