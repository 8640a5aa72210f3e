"""Evidence tables end to end on two real PDFs (issue 37): the API (create, read, export,
column values, add/remove columns and rows), the fill job (a cell per event, every quote
verbatim on its page, cancel and resume, cells reused when a column or row is added,
recomputed when a source's content or a column's text changes), and bad input (a clear
JSON error, nothing written)."""

from __future__ import annotations

import asyncio
import csv
import io
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from marginalia.answer.quotes import normalize
from marginalia.ingest.pipeline import ingest_document
from marginalia.runtime import Runtime
from marginalia.tables import repository as tables_repo
from marginalia.usecases import tables as tables_usecase
from marginalia.usecases import workspaces as ws_usecase

COUNT = "How many samples, participants or documents are studied?"
DATASET = "Which dataset or data source is used?"
METHOD = "What method or approach is proposed or used?"
LIMITATION = "What limitation is stated?"
RESULT = "What is the main result?"


@dataclass
class Corpus:
    workspace_id: uuid.UUID
    graph: uuid.UUID  # literature-graph-naacl2018.pdf
    trauma: uuid.UUID  # trauma-bmc2010.pdf
    other_workspace: uuid.UUID
    other_source: uuid.UUID


@pytest.fixture(scope="module")
async def corpus(services: Runtime, shared_data: Path) -> AsyncIterator[Corpus]:
    ws = await ws_usecase.create_workspace(services, name=f"tables-{uuid.uuid4().hex[:6]}")
    other = await ws_usecase.create_workspace(services, name=f"tables-o-{uuid.uuid4().hex[:6]}")
    ids = []
    for pdf in ("literature-graph-naacl2018.pdf", "trauma-bmc2010.pdf"):
        outcome = await ingest_document(
            services, ws.id, data=(shared_data / "pdfs" / pdf).read_bytes(), filename=pdf
        )
        ids.append(outcome.source_id)
    note = await ingest_document(
        services,
        other.id,
        data=b"# Notes\n\nWe interviewed 12 nurses about night shifts in two wards.\n",
        filename="notes.md",
    )
    yield Corpus(ws.id, ids[0], ids[1], other.id, note.source_id)
    await ws_usecase.delete_workspace(services, ws.id)
    await ws_usecase.delete_workspace(services, other.id)


async def finished(services: Runtime, job_id: str | uuid.UUID) -> Any:
    job = await asyncio.wait_for(tables_usecase.wait_for(services, uuid.UUID(str(job_id))), 240)
    assert job.status == "succeeded", job.error
    return job


async def page_texts(services: Runtime, source_id: uuid.UUID) -> dict[int, str]:
    async with services.db.session() as session:
        return dict(await tables_repo.source_pages(session, source_id))


async def counts(services: Runtime, corpus: Corpus) -> tuple[int, int, int, int]:
    """Tables, columns, rows and cells of the corpus's workspaces (nothing-written checks)."""
    async with services.db.session() as session:
        row = (
            await session.execute(
                text(
                    """SELECT (SELECT count(*) FROM evidence_tables WHERE workspace_id IN (:a, :b)),
                              (SELECT count(*) FROM evidence_table_columns c JOIN evidence_tables t
                                  ON t.id = c.table_id WHERE t.workspace_id IN (:a, :b)),
                              (SELECT count(*) FROM evidence_table_rows r JOIN evidence_tables t
                                  ON t.id = r.table_id WHERE t.workspace_id IN (:a, :b)),
                              (SELECT count(*) FROM evidence_cells e JOIN sources s
                                  ON s.id = e.source_id WHERE s.workspace_id IN (:a, :b))"""
                ),
                {"a": corpus.workspace_id, "b": corpus.other_workspace},
            )
        ).one()
    return int(row[0]), int(row[1]), int(row[2]), int(row[3])


async def cancelled_events(services: Runtime, job_id: uuid.UUID) -> int:
    async with services.db.session() as session:
        found = await session.execute(
            text(
                "SELECT count(*) FROM job_events WHERE job_id = :id AND type = 'status' "
                "AND stage = 'cancelled'"
            ),
            {"id": job_id},
        )
    return int(found.scalar_one())


def base(corpus: Corpus) -> str:
    return f"/api/workspaces/{corpus.workspace_id}/tables"


# ------------------------------------------------------------------------------ the API


async def test_a_table_fills_with_verified_quotes_and_exports(
    services: Runtime, corpus: Corpus, client: httpx.AsyncClient
) -> None:
    suggested = (await client.get(f"{base(corpus)}/suggestions")).json()
    assert {s["key"] for s in suggested} >= {
        "methodology",
        "key_results",
        "limitations",
        "datasets",
    }

    created = await client.post(base(corpus), json={"columns": [COUNT, DATASET]})
    assert created.status_code == 201, created.text
    body = created.json()
    table_id, job_id = body["table"]["id"], body["job_id"]
    assert job_id and body["table"]["pending"] == 4
    assert {r["source_id"] for r in body["table"]["rows"]} == {
        str(corpus.graph),
        str(corpus.trauma),
    }

    job = await finished(services, job_id)
    assert job.result["filled"] == 4 and job.result["cached"] == 0
    events = (
        await client.get(f"/api/jobs/{job_id}/events", headers={"accept": "text/event-stream"})
    ).text
    assert events.count('"stage":"cell"') + events.count('"stage": "cell"') == 4  # one per cell

    table = (await client.get(f"{base(corpus)}/{table_id}")).json()
    assert table["pending"] == 0 and table["job_id"] is None
    answered = 0
    for row in table["rows"]:
        pages = await page_texts(services, uuid.UUID(row["source_id"]))
        for cell in row["cells"]:
            assert cell["state"] == "filled"
            if cell["not_reported"]:
                assert not cell["quotes"] and cell["note"] and cell["searched"]
                continue
            answered += 1
            assert cell["answer"] and cell["quotes"] and cell["confidence"] is not None
            for quote in cell["quotes"]:  # invariant 3: verbatim on the page it names
                span = "\n".join(pages[p] for p in range(quote["page"], quote["page_end"] + 1))
                assert normalize(quote["text"]) in normalize(span)
    assert answered >= 2

    # The literature graph paper counts its papers: a number cut from the quote.
    graph = next(r for r in table["rows"] if r["source_id"] == str(corpus.graph))
    count_cell = graph["cells"][0]
    assert not count_cell["not_reported"]
    assert any(ch.isdigit() for ch in count_cell["answer"])
    assert normalize(count_cell["answer"].split(";")[0]) in normalize(
        count_cell["quotes"][0]["text"]
    )

    exported = await client.get(f"{base(corpus)}/{table_id}/export", params={"format": "csv"})
    assert exported.status_code == 200 and exported.headers["content-type"].startswith("text/csv")
    assert "attachment" in exported.headers["content-disposition"]
    lines = list(csv.reader(io.StringIO(exported.text)))
    assert lines[0][:2] == ["source_id", "title"]
    assert lines[0][2:5] == [COUNT, f"{COUNT} — quote", f"{COUNT} — page"]
    assert len(lines) == 3
    by_id = {line[0]: line for line in lines[1:]}
    value, quote, page = by_id[str(corpus.graph)][2:5]
    assert value == count_cell["answer"] and page == str(count_cell["quotes"][0]["page"])
    assert quote == " ".join(count_cell["quotes"][0]["text"].split())

    markdown = await client.get(f"{base(corpus)}/{table_id}/export", params={"format": "markdown"})
    assert markdown.status_code == 200 and markdown.headers["content-type"].startswith(
        "text/markdown"
    )
    assert f"| Source | {COUNT} | {DATASET} |" in markdown.text
    assert f"(p. {count_cell['quotes'][0]['page']})" in markdown.text

    values = (
        await client.get(f"{base(corpus)}/{table_id}/columns/{table['columns'][0]['id']}/values")
    ).json()
    assert values["question"] == COUNT
    assert values["values"][str(corpus.graph)] == count_cell["answer"]
    assert set(values["values"]) == {str(corpus.graph), str(corpus.trauma)}

    listed = (await client.get(base(corpus))).json()
    assert any(t["id"] == table_id and t["columns"] == 2 and t["rows"] == 2 for t in listed)


async def test_adding_a_column_or_a_row_fills_only_what_is_new(
    services: Runtime, corpus: Corpus, client: httpx.AsyncClient
) -> None:
    one = await client.post(
        base(corpus), json={"columns": [METHOD], "source_ids": [str(corpus.graph)]}
    )
    table_id = one.json()["table"]["id"]
    first = await finished(services, one.json()["job_id"])
    assert first.result["filled"] == 1

    added = await client.post(
        f"{base(corpus)}/{table_id}/columns", json={"questions": [LIMITATION]}
    )
    assert added.status_code == 200, added.text
    assert [c["question"] for c in added.json()["table"]["columns"]] == [METHOD, LIMITATION]
    job = await finished(services, added.json()["job_id"])
    assert job.result["filled"] == 1 and job.result["cached"] == 1  # the new column only

    rows = await client.post(
        f"{base(corpus)}/{table_id}/rows", json={"source_ids": [str(corpus.trauma)]}
    )
    job = await finished(services, rows.json()["job_id"])
    assert job.result["filled"] == 2 and job.result["cached"] == 2  # the new row only

    # A second table asking the same question reuses the cells (keyed by source and text).
    again = await client.post(base(corpus), json={"columns": [f"  {METHOD.upper()} "]})
    job = await finished(services, again.json()["job_id"])
    assert job.result["filled"] == 0 and job.result["cached"] == 2
    filling = await client.post(f"{base(corpus)}/{table_id}/fill")
    job = await finished(services, filling.json()["job_id"])
    assert job.result["filled"] == 0

    # A changed column text is a new question: its cells are pending until filled.
    column_id = added.json()["table"]["columns"][1]["id"]
    changed = await client.patch(
        f"{base(corpus)}/{table_id}/columns/{column_id}",
        json={"question": "Which limitation do the authors state?", "fill": False},
    )
    assert changed.status_code == 200
    assert [r["cells"][1]["state"] for r in changed.json()["table"]["rows"]] == ["pending"] * 2
    assert changed.json()["table"]["pending"] == 2

    # A source whose content changed (a new hash) has its cells recomputed.
    async with services.db.transaction() as session:
        await session.execute(
            text("UPDATE sources SET content_hash = content_hash || 'x' WHERE id = :id"),
            {"id": corpus.trauma},
        )
    try:
        table = (await client.get(f"{base(corpus)}/{table_id}")).json()
        trauma = next(r for r in table["rows"] if r["source_id"] == str(corpus.trauma))
        assert {c["state"] for c in trauma["cells"]} == {"pending"}
        filling = await client.post(f"{base(corpus)}/{table_id}/fill")
        job = await finished(services, filling.json()["job_id"])
        assert job.result["filled"] == 3  # the new question twice, trauma's method cell
        assert (await client.get(f"{base(corpus)}/{table_id}")).json()["pending"] == 0
    finally:
        async with services.db.transaction() as session:
            await session.execute(
                text("UPDATE sources SET content_hash = rtrim(content_hash, 'x') WHERE id = :id"),
                {"id": corpus.trauma},
            )

    removed = await client.delete(f"{base(corpus)}/{table_id}/columns/{column_id}")
    assert [c["question"] for c in removed.json()["columns"]] == [METHOD]
    removed = await client.delete(f"{base(corpus)}/{table_id}/rows/{corpus.trauma}")
    assert [r["source_id"] for r in removed.json()["rows"]] == [str(corpus.graph)]
    assert (await client.patch(f"{base(corpus)}/{table_id}", json={"name": "Methods"})).json()[
        "name"
    ] == "Methods"
    assert (await client.delete(f"{base(corpus)}/{table_id}")).status_code == 204
    assert (await client.get(f"{base(corpus)}/{table_id}")).status_code == 404


async def test_a_fill_is_cancelled_between_cells_and_resumes_where_it_stopped(
    services: Runtime, corpus: Corpus
) -> None:
    started = await tables_usecase.create_table(
        services,
        corpus.workspace_id,
        columns=[
            "What outcome is measured?",
            "Which country is studied?",
            "What is the study design?",
            "Who funded the work?",
            "Which software is used?",
            RESULT,
        ],
        name="cancel me",
    )
    job_id = started.job_id
    assert job_id is not None
    total = 2 * 6
    assert started.table.pending == total
    # Cancel once the first cells are stored: the job stops between cells.
    async with asyncio.timeout(120):
        while True:
            table = await tables_usecase.get_table(services, corpus.workspace_id, started.table.id)
            if table.pending <= total - 2:
                break
            await asyncio.sleep(0.05)
    await services.jobs.cancel(job_id)
    job = await asyncio.wait_for(tables_usecase.wait_for(services, job_id), 60)
    assert job.status == "cancelled"
    # The job itself stops at the next cell: the runner records its own "cancelled".
    async with asyncio.timeout(30):
        while await cancelled_events(services, job_id) < 2:
            await asyncio.sleep(0.1)
    table = await tables_usecase.get_table(services, corpus.workspace_id, started.table.id)
    done_before = total - table.pending
    assert 2 <= done_before < total, done_before  # what was filled stays

    resumed = await services.jobs.resume(job_id)
    assert resumed.checkpoint.get("filled", 0) >= 0
    job = await asyncio.wait_for(tables_usecase.wait_for(services, job_id), 240)
    assert job.status == "succeeded", job.error
    assert job.result["filled"] == total - done_before  # only the cells not filled before
    table = await tables_usecase.get_table(services, corpus.workspace_id, started.table.id)
    assert table.pending == 0
    await tables_usecase.delete_table(services, corpus.workspace_id, started.table.id)


# ------------------------------------------------------------------------------ bad input


async def test_a_table_named_in_any_script_exports_under_its_name(
    corpus: Corpus, client: httpx.AsyncClient
) -> None:
    """A response header must be Latin-1: the name travels as RFC 5987 ``filename*`` (a
    name like this one made the export a 500 under `make fuzz`)."""
    name = 'Ⱦrial outcomes — 表 "quoted"; ok'
    made = await client.post(base(corpus), json={"name": name, "columns": [COUNT], "fill": False})
    assert made.status_code == 201, made.text
    table_id = made.json()["table"]["id"]
    for fmt in ("csv", "markdown"):
        r = await client.get(f"{base(corpus)}/{table_id}/export", params={"format": fmt})
        assert r.status_code == 200, r.text
        disposition = r.headers["content-disposition"]
        assert disposition.startswith('attachment; filename="')
        assert "filename*=UTF-8''" in disposition and "%E8%A1%A8" in disposition
        ascii_name = disposition.split('filename="', 1)[1].split('"', 1)[0]
        assert ascii_name.isascii() and '"' not in ascii_name and ";" not in ascii_name
    await client.delete(f"{base(corpus)}/{table_id}")


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"columns": []}, "at least one column"),
        ({"columns": [""]}, "empty"),
        ({"columns": ["   \t "]}, "empty"),
        ({"columns": ["x" * 301]}, "at most 300"),
        ({"columns": ["?!"]}, "no letter or digit"),
        ({"columns": ["ok?"] * 21}, "at most"),
        ({"columns": ["ok?"], "name": "   "}, "name is empty"),
        ({"columns": "not a list"}, "columns"),
        ({"columns": ["ok?"], "source_ids": ["not-a-uuid"]}, "source_ids"),
        ({"columns": ["ok?"], "surprise": 1}, "surprise"),
    ],
)
async def test_bad_tables_are_refused_and_nothing_is_written(
    services: Runtime, corpus: Corpus, client: httpx.AsyncClient, body: dict[str, Any], needle: str
) -> None:
    before = await counts(services, corpus)
    response = await client.post(base(corpus), json=body)
    assert response.status_code == 422, response.text
    payload = response.json()
    assert payload["error"] == "invalid_request" and needle in payload["detail"]
    assert await counts(services, corpus) == before


async def test_unknown_ids_are_404_or_422_and_nothing_is_written(
    services: Runtime, corpus: Corpus, client: httpx.AsyncClient
) -> None:
    made = await client.post(base(corpus), json={"columns": [COUNT], "fill": False})
    table_id = made.json()["table"]["id"]
    column_id = made.json()["table"]["columns"][0]["id"]
    assert made.json()["job_id"] is None
    before = await counts(services, corpus)
    unknown = uuid.uuid4()

    # A source of another workspace, or none at all, is not a row.
    for sid in (corpus.other_source, unknown):
        r = await client.post(base(corpus), json={"columns": [COUNT], "source_ids": [str(sid)]})
        assert r.status_code == 422 and str(sid) in r.json()["detail"]
        r = await client.post(f"{base(corpus)}/{table_id}/rows", json={"source_ids": [str(sid)]})
        assert r.status_code == 422 and str(sid) in r.json()["detail"]
    r = await client.post(f"{base(corpus)}/{table_id}/rows", json={"source_ids": []})
    assert r.status_code == 422

    # Unknown workspace, table, column, row: 404 with a JSON error.
    other = f"/api/workspaces/{corpus.other_workspace}/tables/{table_id}"
    for method, url, json_body in [
        ("POST", f"/api/workspaces/{unknown}/tables", {"columns": [COUNT]}),
        ("GET", f"/api/workspaces/{unknown}/tables", None),
        ("GET", f"{base(corpus)}/{unknown}", None),
        ("GET", other, None),  # the table is not the other workspace's
        ("POST", f"{other}/columns", {"questions": [DATASET]}),
        ("POST", f"{base(corpus)}/{unknown}/fill", None),
        ("DELETE", f"{base(corpus)}/{table_id}/columns/{unknown}", None),
        ("PATCH", f"{base(corpus)}/{table_id}/columns/{unknown}", {"question": DATASET}),
        ("GET", f"{base(corpus)}/{table_id}/columns/{unknown}/values", None),
        ("DELETE", f"{base(corpus)}/{table_id}/rows/{corpus.other_source}", None),
        ("GET", f"{base(corpus)}/{unknown}/export", None),
    ]:
        r = await client.request(method, url, json=json_body)
        assert r.status_code == 404, (method, url, r.text)
        assert r.json()["error"] == "not_found" and r.json()["detail"]

    # Empty, oversized or too many columns added to a table: 422.
    for questions in ([], [""], ["y" * 301], ["ok?"] * 20):
        r = await client.post(f"{base(corpus)}/{table_id}/columns", json={"questions": questions})
        assert r.status_code == 422, r.text
    r = await client.patch(f"{base(corpus)}/{table_id}/columns/{column_id}", json={"question": " "})
    assert r.status_code == 422
    r = await client.get(f"{base(corpus)}/{table_id}/export", params={"format": "xlsx"})
    assert r.status_code == 422
    assert await counts(services, corpus) == before
    await client.delete(f"{base(corpus)}/{table_id}")
