"""Reading documents end to end on the real database: every shared PDF, idempotency,
the dedup cascade, refusals that change nothing, and the source API."""

from __future__ import annotations

import io
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import numpy as np
import pytest
from sqlalchemy import text

from marginalia.api.schemas import JobEventOut
from marginalia.errors import MarginaliaError
from marginalia.ingest.documents import Page, text_at
from marginalia.ingest.pipeline import (
    IngestItem,
    IngestOutcome,
    SourceMetadata,
    ingest_document,
    ingest_many,
)
from marginalia.jobs.events import event_payload, follow_events
from marginalia.runtime import Runtime
from marginalia.storage import content_hash
from marginalia.usecases import workspaces as ws_service


async def _counts(services: Runtime) -> tuple[int, int, int, int]:
    async with services.db.session() as session:
        row = (
            await session.execute(
                text(
                    "SELECT (SELECT count(*) FROM sources), (SELECT count(*) FROM chunks), "
                    "(SELECT count(*) FROM source_pages), (SELECT count(*) FROM jobs)"
                )
            )
        ).one()
    return (int(row[0]), int(row[1]), int(row[2]), int(row[3]))


@pytest.fixture(scope="module")
async def pdf_workspace(
    services: Runtime, shared_data: Path
) -> AsyncIterator[tuple[uuid.UUID, list[IngestOutcome]]]:
    ws = await ws_service.create_workspace(services, name=f"pdfs-{uuid.uuid4().hex[:6]}")
    outcomes = []
    for pdf in sorted((shared_data / "pdfs").glob("*.pdf")):
        outcomes.append(
            await ingest_document(
                services,
                ws.id,
                data=pdf.read_bytes(),
                filename=pdf.name,
                content_type="application/pdf",
            )
        )
    yield ws.id, outcomes
    await ws_service.delete_workspace(services, ws.id)


async def test_every_pdf_ingests_with_sections_and_offsets(
    services: Runtime, pdf_workspace: tuple[uuid.UUID, list[IngestOutcome]]
) -> None:
    _workspace_id, outcomes = pdf_workspace
    assert len(outcomes) == 9 and all(o.status == "created" for o in outcomes)
    embedder = services.embedder
    async with services.db.session() as session:
        for outcome in outcomes:
            pages = [
                Page(r[0], r[1])
                for r in (
                    await session.execute(
                        text(
                            "SELECT page_number, text FROM source_pages WHERE source_id = :s ORDER BY page_number"
                        ),
                        {"s": outcome.source_id},
                    )
                ).all()
            ]
            chunks = (
                await session.execute(
                    text(
                        "SELECT chunk_index, text, section_type, page_start, page_end, char_start, char_end, "
                        "token_count, vector_norm(embedding) FROM chunks WHERE source_id = :s ORDER BY chunk_index"
                    ),
                    {"s": outcome.source_id},
                )
            ).all()
            assert chunks, outcome.filename
            assert [c[0] for c in chunks] == list(range(len(chunks)))
            types = {c[2] for c in chunks}
            assert "references" not in types  # the reference list is kept apart
            assert types & {
                "introduction",
                "methods",
                "results",
                "discussion",
                "conclusion",
                "abstract",
            }, outcome.filename
            for _index, body, _type, p0, p1, c0, c1, tokens, norm in chunks:
                assert 1 <= p0 <= p1 <= len(pages)
                assert text_at(pages, p0, c0, p1, c1) == body  # highlightable on its page
                assert embedder.count_tokens(body) == tokens <= embedder.max_tokens  # invariant 1
                assert abs(norm - 1.0) < 1e-3  # invariant 2


async def test_same_file_twice_is_one_source(
    services: Runtime, pdf_workspace: tuple[uuid.UUID, list[IngestOutcome]], shared_data: Path
) -> None:
    workspace_id, outcomes = pdf_workspace
    before = await _counts(services)
    again = await ingest_document(
        services,
        workspace_id,
        data=(shared_data / "pdfs" / "specter-acl2020.pdf").read_bytes(),
        filename="copy.pdf",
    )
    assert again.status == "duplicate" and again.dedup_layer == "content_hash"
    assert again.source_id == next(
        o.source_id for o in outcomes if o.filename == "specter-acl2020.pdf"
    )
    assert await _counts(services) == before


async def test_near_duplicate_title_caught_by_title_layer(services: Runtime) -> None:
    ws = await ws_service.create_workspace(services, name="dedup")
    first = await ingest_document(
        services,
        ws.id,
        data=b"# SPECTER: Document-level Representation Learning using Citation-informed Transformers\n\nWe propose SPECTER, a method to embed documents.",
        filename="a.md",
    )
    second = await ingest_document(
        services,
        ws.id,
        data=b"# Document-level Representation Learning with Citation-informed Transformers (SPECTER)\n\nA journal version with other words entirely.",
        filename="b.md",
    )
    third = await ingest_document(
        services,
        ws.id,
        data=b"# A survey of protein folding methods\n\nUnrelated.",
        filename="c.md",
        metadata=SourceMetadata(doi="10.1000/XYZ"),
    )
    fourth = await ingest_document(
        services,
        ws.id,
        data=b"# Totally different words here\n\nStill the same DOI.",
        filename="d.md",
        metadata=SourceMetadata(doi="https://doi.org/10.1000/xyz"),
    )
    assert first.status == "created"
    assert (second.status, second.dedup_layer, second.source_id) == (
        "duplicate",
        "title",
        first.source_id,
    )
    assert second.dedup_score is not None and second.dedup_score >= 0.5
    assert third.status == "created"
    assert (fourth.status, fourth.dedup_layer, fourth.source_id) == (
        "duplicate",
        "identity",
        third.source_id,
    )


def _encrypted_pdf(real: bytes) -> bytes:
    import pikepdf

    out = io.BytesIO()
    with pikepdf.open(io.BytesIO(real)) as pdf:
        pdf.save(out, encryption=pikepdf.Encryption(owner="o", user="secret"))
    return out.getvalue()


def _image_only_pdf() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (200, 200), "white").save(out, "PDF")
    return out.getvalue()


@pytest.mark.parametrize(
    ("name", "make", "status", "code"),
    [
        ("truncated.pdf", lambda real: real[: len(real) // 2], 422, "corrupt_pdf"),
        ("encrypted.pdf", _encrypted_pdf, 422, "encrypted_pdf"),
        ("empty.pdf", lambda real: b"", 422, "empty_file"),
        ("scan.pdf", lambda real: _image_only_pdf(), 422, "image_only_pdf"),
        (
            "huge.pdf",
            lambda real: b"%PDF-1.7\n" + b"0" * (60 * 1024 * 1024),
            413,
            "payload_too_large",
        ),
        ("setup.pdf", lambda real: b"MZ\x90\x00" + b"\x00" * 4096, 415, "unsupported_type"),
    ],
)
async def test_bad_uploads_are_refused_and_change_nothing(
    client: httpx.AsyncClient,
    services: Runtime,
    shared_data: Path,
    name: str,
    make,
    status: int,
    code: str,  # type: ignore[no-untyped-def]
) -> None:
    real = (shared_data / "pdfs" / "trauma-bmc2010.pdf").read_bytes()
    ws = (await client.post("/api/workspaces", json={"name": "uploads"})).json()
    files_before = (
        sorted(p.name for p in services.settings.files_dir.rglob("*") if p.is_file())
        if services.settings.files_dir.exists()
        else []
    )
    before = await _counts(services)
    response = await client.post(
        f"/api/workspaces/{ws['id']}/sources",
        files={"files": (name, make(real), "application/pdf")},
    )
    assert response.status_code == status, response.text
    body = response.json()
    assert body["error"] == code
    assert name in body["detail"] or "MB" in body["detail"]
    assert "Traceback" not in response.text
    assert await _counts(services) == before
    files_after = (
        sorted(p.name for p in services.settings.files_dir.rglob("*") if p.is_file())
        if services.settings.files_dir.exists()
        else []
    )
    assert files_after == files_before


async def test_upload_job_and_source_api(
    client: httpx.AsyncClient, services: Runtime, shared_data: Path
) -> None:
    ws = (await client.post("/api/workspaces", json={"name": "api"})).json()
    pdf = (shared_data / "pdfs" / "trauma-bmc2010.pdf").read_bytes()
    response = await client.post(
        f"/api/workspaces/{ws['id']}/sources",
        files=[
            ("files", ("trauma.pdf", pdf, "application/pdf")),
            (
                "files",
                (
                    "notes.md",
                    b"# Notes\n\nDeep venous thrombosis prophylaxis notes.",
                    "text/markdown",
                ),
            ),
        ],
    )
    assert response.status_code == 202, response.text
    job = response.json()
    assert job["kind"] == "ingest"
    stages = [e.stage async for e in follow_events(services.db, uuid.UUID(job["id"]))]
    for stage in ("parsing", "chunking", "embedding", "storing"):
        assert stage in stages
    finished = (await client.get(f"/api/jobs/{job['id']}")).json()
    assert finished["status"] == "succeeded", finished
    assert finished["result"]["created"] == 2

    sources = (await client.get(f"/api/workspaces/{ws['id']}/sources")).json()
    assert len(sources) == 2
    trauma = next(s for s in sources if s["file_name"] == "trauma.pdf")
    assert trauma["page_count"] == 4 and trauma["title"]
    chunks = (await client.get(f"/api/sources/{trauma['id']}/chunks")).json()
    pages = (await client.get(f"/api/sources/{trauma['id']}/pages")).json()
    first = chunks[0]
    page_text = pages[first["page_start"] - 1]["text"]
    if first["page_start"] == first["page_end"]:
        assert page_text[first["char_start"] : first["char_end"]] == first["text"]

    whole = await client.get(f"/api/sources/{trauma['id']}/file")
    assert whole.status_code == 200 and whole.content == pdf
    part = await client.get(f"/api/sources/{trauma['id']}/file", headers={"Range": "bytes=0-7"})
    assert part.status_code == 206 and part.content == pdf[:8]
    assert part.headers["content-range"] == f"bytes 0-7/{len(pdf)}"
    tail = await client.get(f"/api/sources/{trauma['id']}/file", headers={"Range": "bytes=-10"})
    assert tail.content == pdf[-10:]
    bad = await client.get(
        f"/api/sources/{trauma['id']}/file", headers={"Range": f"bytes={len(pdf) + 5}-"}
    )
    assert bad.status_code == 416

    assert (await client.delete(f"/api/sources/{trauma['id']}")).status_code == 204
    assert (await client.get(f"/api/sources/{trauma['id']}")).status_code == 404
    assert (await client.get(f"/api/sources/{trauma['id']}/chunks")).status_code == 404
    async with services.db.session() as session:
        left = await session.scalar(
            text("SELECT count(*) FROM chunks WHERE source_id = :s"), {"s": trauma["id"]}
        )
    assert left == 0
    assert (
        await client.post(
            f"/api/workspaces/{uuid.uuid4()}/sources",
            files={"files": ("a.md", b"# x\n\ny", "text/markdown")},
        )
    ).status_code == 404


async def test_one_bad_file_does_not_sink_the_batch_and_progress_advances(
    client: httpx.AsyncClient, services: Runtime, shared_data: Path
) -> None:
    ws = (await client.post("/api/workspaces", json={"name": "mixed batch"})).json()
    good = (shared_data / "pdfs" / "trauma-bmc2010.pdf").read_bytes()
    bad = b"just some text, not a PDF at all " + uuid.uuid4().bytes
    response = await client.post(
        f"/api/workspaces/{ws['id']}/sources",
        files=[
            ("files", ("trauma.pdf", good, "application/pdf")),
            ("files", ("notes.pdf", bad, "application/pdf")),
        ],
    )
    assert response.status_code == 202, response.text
    body = response.json()
    outcomes = {f["filename"]: f for f in body["files"]}
    assert outcomes["trauma.pdf"]["status"] == "accepted"
    assert outcomes["notes.pdf"]["status"] == "refused"
    assert "notes.pdf" in outcomes["notes.pdf"]["detail"]
    assert [f["filename"] for f in body["params"]["files"]] == ["trauma.pdf"]
    # Only the accepted file was stored.
    assert services.files.exists(content_hash(good))
    assert not services.files.exists(content_hash(bad))

    events = [e async for e in follow_events(services.db, uuid.UUID(body["id"]))]
    ingest = [e for e in events if e.stage in ("parsing", "chunking", "embedding", "storing")]
    fractions = [e.data["file_progress"] for e in ingest if e.data]
    assert all(e.data and e.data["filename"] == "trauma.pdf" for e in ingest)
    assert fractions == sorted(fractions) and 0 < fractions[0] < fractions[-1] < 1
    assert any("embedding" in e.message and "/" in e.message for e in ingest)
    job_progress = [e.progress for e in events if e.progress is not None]
    assert job_progress == sorted(job_progress)
    assert len({p for p in job_progress if 0 < p < 1}) >= 4  # real steps, not 0 then 1
    finished = (await client.get(f"/api/jobs/{body['id']}")).json()
    assert finished["status"] == "succeeded" and finished["result"]["created"] == 1
    # The SSE payloads are what the schema's JobEventOut says.
    for e in events:
        JobEventOut.model_validate(event_payload(e))
    # The start page's list carries the count and the latest activity (this job).
    listed = next(w for w in (await client.get("/api/workspaces")).json() if w["id"] == ws["id"])
    assert listed["source_count"] == 1
    assert listed["last_activity_at"] >= finished["finished_at"][:19]


async def test_model_mismatch_is_refused_with_reembed_hint(services: Runtime) -> None:
    from marginalia.db.repositories import embedding_model
    from marginalia.embed.pinning import EmbeddingModelMismatch, ensure_pinned

    embedder = services.embedder
    await ensure_pinned(services.db, embedder)
    async with services.db.transaction() as session:
        await embedding_model.repin(session, "some/other-model", embedder.dim)
    try:
        with pytest.raises(EmbeddingModelMismatch, match="marginalia reembed"):
            await ensure_pinned(services.db, embedder)
        ws = await ws_service.create_workspace(services, name="mismatch")
        with pytest.raises(EmbeddingModelMismatch):
            await ingest_document(
                services, ws.id, data=b"# A title of words\n\nBody text here.", filename="x.md"
            )
        job = await services.jobs.submit("reembed", {})
        async for _ in follow_events(services.db, job.id):
            pass
        done = await services.jobs.get(job.id)
        assert done.status == "succeeded", done.error
        await ensure_pinned(services.db, embedder)  # re-pinned to the configured model
    finally:
        async with services.db.transaction() as session:
            await embedding_model.repin(session, embedder.model_id, embedder.dim)


async def test_pipelined_batch_dedups_within_itself_and_isolates_refusals(
    services: Runtime, shared_data: Path
) -> None:
    """`ingest_many` embeds several documents per call and stores one group while the
    next is embedded; documents that duplicate one not yet stored must still come out as
    duplicates of it, and a refused file must not disturb the others."""
    ws = await ws_service.create_workspace(services, name=f"batch-{uuid.uuid4().hex[:6]}")
    specter = (shared_data / "pdfs" / "specter-acl2020.pdf").read_bytes()
    vespa = (shared_data / "pdfs" / "vespa-peerj2017.pdf").read_bytes()
    title_a = (
        b"# Graph neural networks for molecular property prediction at scale\n\nWe train GNNs."
    )
    title_b = (
        b"# Molecular property prediction at scale with graph neural networks\n\nJournal version."
    )
    files = [
        ("specter.pdf", specter),
        ("broken.pdf", specter[:2000]),  # truncated: refused
        ("specter-again.pdf", specter),  # same bytes as a document not yet stored
        ("a.md", title_a),
        ("vespa.pdf", vespa),
        ("b.md", title_b),  # near-duplicate title of a.md, same batch
    ]
    items = [IngestItem(load=lambda d=data: d, filename=name) for name, data in files]
    results: dict[int, IngestOutcome | MarginaliaError] = {}
    async for position, outcome in ingest_many(services, ws.id, items, group_passages=8):
        assert position not in results
        results[position] = outcome
    assert sorted(results) == list(range(len(files)))
    specter_out, broken, again, a_md, vespa_out, b_md = (results[i] for i in range(6))
    assert isinstance(specter_out, IngestOutcome) and specter_out.status == "created"
    assert isinstance(broken, MarginaliaError)
    assert isinstance(again, IngestOutcome)
    assert (again.status, again.dedup_layer, again.source_id) == (
        "duplicate",
        "content_hash",
        specter_out.source_id,
    )
    assert isinstance(a_md, IngestOutcome) and a_md.status == "created"
    assert isinstance(vespa_out, IngestOutcome) and vespa_out.status == "created"
    assert isinstance(b_md, IngestOutcome)
    assert (b_md.status, b_md.dedup_layer, b_md.source_id) == ("duplicate", "title", a_md.source_id)
    async with services.db.session() as session:
        n_sources = await session.scalar(
            text("SELECT count(*) FROM sources WHERE workspace_id = :w"), {"w": ws.id}
        )
        n_chunks = await session.scalar(
            text("SELECT count(*) FROM chunks WHERE workspace_id = :w"), {"w": ws.id}
        )
    assert n_sources == 3
    assert n_chunks == specter_out.chunks + a_md.chunks + vespa_out.chunks
    await ws_service.delete_workspace(services, ws.id)


async def test_stored_vectors_are_exactly_the_embedder_s(services: Runtime) -> None:
    """Vectors travel to the server in pgvector's binary form: what comes back must be
    the embedder's float32 vector bit for bit, row by row in chunk order."""
    ws = await ws_service.create_workspace(services, name=f"vec-{uuid.uuid4().hex[:6]}")
    body = "\n\n".join(
        f"Paragraph {i} about citation graphs, hard negatives and triplet losses." * 6
        for i in range(8)
    )
    outcome = await ingest_document(
        services, ws.id, data=f"# Vectors\n\n{body}".encode(), filename="v.md"
    )
    assert outcome.status == "created" and outcome.chunks >= 2
    async with services.db.session() as session:
        rows = (
            await session.execute(
                text(
                    "SELECT text, embedding::text FROM chunks WHERE source_id = :s "
                    "ORDER BY chunk_index"
                ),
                {"s": outcome.source_id},
            )
        ).all()
    expected = await services.embedder.embed_documents([r[0] for r in rows])
    stored = np.asarray([[float(x) for x in r[1].strip("[]").split(",")] for r in rows])
    assert stored.shape == expected.shape
    assert np.array_equal(stored.astype(np.float32), expected)
    await ws_service.delete_workspace(services, ws.id)


async def test_nearest_source_is_exact_within_a_workspace(services: Runtime) -> None:
    """The embedding dedup layer's lookup: a workspace's nearest source by mean embedding,
    ranked exactly, whatever other workspaces hold. Here two workspaces of 1,500 sources
    each, one crowding the query: an approximate index shared by both (the HNSW index
    dropped by migration 0005) is what the planner picks for such a query, returns the
    database-wide nearest ``hnsw.ef_search`` and filters after, so it found no source of
    the other workspace at all. Mean embeddings are stored bit for bit."""
    from marginalia.db.repositories.sources import (
        NewSource,
        insert_sources,
        nearest_by_mean_embedding,
    )

    rng = np.random.default_rng(7)
    dim = services.embedder.dim
    query = np.zeros(dim, dtype=np.float32)
    query[0] = 1.0

    def unit(v: np.ndarray) -> np.ndarray:
        return (v / np.linalg.norm(v)).astype(np.float32)

    def random_unit() -> np.ndarray:
        return unit(rng.standard_normal(dim).astype(np.float32))

    def source(n: int, vector: np.ndarray) -> NewSource:
        fields = {"kind": "text", "title": f"s{n}", "content_hash": f"h{n}-{uuid.uuid4().hex}"}
        return NewSource(fields={**fields, "mean_embedding": vector}, pages=[], chunks=[])

    crowd = await ws_service.create_workspace(services, name=f"crowd-{uuid.uuid4().hex[:6]}")
    own = await ws_service.create_workspace(services, name=f"own-{uuid.uuid4().hex[:6]}")
    wanted = unit(query + 0.9 * random_unit())  # cosine ~0.74 to the query
    async with services.db.transaction() as session:
        near = [source(i, unit(query + 0.05 * random_unit())) for i in range(1500)]
        await insert_sources(session, workspace_id=crowd.id, sources=near)
        mine = [source(0, wanted)] + [source(i, random_unit()) for i in range(1, 1500)]
        wanted_id, *_ = await insert_sources(session, workspace_id=own.id, sources=mine)
    try:
        async with services.db.session() as session:
            await session.execute(text("ANALYZE sources"))
            found = await nearest_by_mean_embedding(session, own.id, query, limit=5)
            stored = await session.scalar(
                text("SELECT mean_embedding::text FROM sources WHERE id = :i"), {"i": wanted_id}
            )
        assert len(found) == 5 and found[0][0] == wanted_id
        assert found[0][1] == pytest.approx(float(wanted @ query), abs=1e-6)
        assert np.array_equal(
            np.asarray([float(x) for x in str(stored).strip("[]").split(",")], np.float32), wanted
        )
    finally:
        await ws_service.delete_workspace(services, crowd.id)
        await ws_service.delete_workspace(services, own.id)
