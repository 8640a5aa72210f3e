"""What the knowledge layer shows: wiki citations rendered with the source's title and page
(and a reader link), refusals never shown as syntheses."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from marginalia.db.repositories import conversations as conv_repo
from marginalia.knowledge import update as knowledge_update
from marginalia.knowledge.wiki import extract_citations
from marginalia.runtime import Runtime
from marginalia.usecases import workspaces as ws_service
from tests.integration.knowledge_support import RELATED, add_paper, catalog

PAPERS = [RELATED[0], RELATED[2], RELATED[5]]


@pytest.fixture(scope="module")
async def shown(services: Runtime, shared_data: Path) -> AsyncIterator[tuple[uuid.UUID, list]]:
    records = catalog(shared_data / "catalog" / "acl2020" / "papers.jsonl")
    ws = await ws_service.create_workspace(
        services, name=f"kshow-{uuid.uuid4().hex[:8]}", description="compressing BERT"
    )
    sids = []
    for cid in PAPERS:
        sid = await add_paper(services, ws.id, records[cid])
        await knowledge_update.update_for_source(services, ws.id, sid)
        sids.append(sid)
    yield ws.id, sids
    await ws_service.delete_workspace(services, ws.id)


async def test_wiki_citations_show_title_and_page(
    client: httpx.AsyncClient, shown: tuple[uuid.UUID, list]
) -> None:
    ws, _ = shown
    base = f"/api/workspaces/{ws}"
    pages = (await client.get(f"{base}/wiki")).json()
    assert pages
    titles = {s["id"]: s["title"] for s in (await client.get(f"{base}/sources")).json()}
    seen = 0
    for summary in pages:
        page = (await client.get(f"{base}/wiki/{summary['slug']}")).json()
        raw = extract_citations(page["body_raw"])
        assert raw, "offline pages cite their sentences"
        assert "[source:" not in page["body"]
        assert len(page["citations"]) == len(raw)
        for cite, (sid, index) in zip(page["citations"], raw, strict=True):
            assert cite["source_id"] == sid and cite["chunk_index"] == index
            assert cite["title"] == titles[sid]
            assert cite["page"] == 1  # the test chunks all start on page 1
            href = f"/w/{ws}/read/{sid}?page=1" + (f"&chunk={index}" if index is not None else "")
            assert cite["href"] == href
            assert f"]({href})" in page["body"]
        labels = re.findall(r"\(\[([^\]]+)\]\(/w/", page["body"])
        assert labels and all(label.endswith(", p. 1") for label in labels)
        assert page["broken_links"] == []
        seen += 1
    assert seen == len(pages)


async def test_refusals_are_not_syntheses(
    services: Runtime, client: httpx.AsyncClient, shown: tuple[uuid.UUID, list]
) -> None:
    """Answers go on the canvas only when pinned (issue 33); a refusal cannot be pinned."""
    ws, sids = shown
    ids: dict[str, uuid.UUID] = {}  # question -> its answer message
    async with services.db.transaction() as session:
        conv = await conv_repo.create(session, workspace_id=ws, source_id=None, title="t")
    for question, answer in (
        ("What is MobileBERT?", {"refused": False, "claims": [{"text": "c", "citations": [1]}]}),
        ("What is the capital of Peru?", {"refused": True, "claims": []}),
    ):
        async with services.db.transaction() as session:
            await conv_repo.add_message(
                session, conversation_id=conv.id, role="user", content=question
            )
        async with services.db.transaction() as session:
            message = await conv_repo.add_message(
                session,
                conversation_id=conv.id,
                role="assistant",
                content="MobileBERT is small." if not answer["refused"] else "I cannot answer.",
                cited_sources=[] if answer["refused"] else [{"source_id": str(sids[0])}],
                answer=answer,
            )
            ids[question] = message.id
    graph = (await client.get(f"/api/workspaces/{ws}/graph")).json()
    assert not [n for n in graph["nodes"] if n["type"] == "synthesis"], "nothing pinned yet"
    refusal = ids["What is the capital of Peru?"]
    r = await client.post(f"/api/messages/{refusal}/pin")
    assert r.status_code == 422 and "refusal" in r.json()["detail"]
    assert (await client.post(f"/api/messages/{uuid.uuid4()}/pin")).status_code == 404
    answered = ids["What is MobileBERT?"]
    pinned = await client.post(f"/api/messages/{answered}/pin")
    assert pinned.status_code == 200 and pinned.json()["pinned_at"]
    again = await client.post(f"/api/messages/{answered}/pin")
    assert again.json()["pinned_at"] == pinned.json()["pinned_at"], "the first pin's time stays"
    graph = (await client.get(f"/api/workspaces/{ws}/graph")).json()
    syntheses = [n for n in graph["nodes"] if n["type"] == "synthesis"]
    assert [n["data"] for n in syntheses] == [
        {
            "question": "What is MobileBERT?",
            "claims": 1,
            "conversation_id": str(conv.id),
            "message_id": syntheses[0]["id"].removeprefix("synthesis:"),
        }
    ]
    # An older stored answer without passages: its claims, no passage to open.
    assert syntheses[0]["answer"]["claims"] == [{"text": "c", "citations": [1], "quote": None}]
    assert syntheses[0]["answer"]["passages"] == []
    assert syntheses[0]["label"] == "What is MobileBERT?"
    cites = [e for e in graph["edges"] if e["source"] == syntheses[0]["id"]]
    assert [e["target"] for e in cites] == [f"source:{sids[0]}"]
    unpinned = await client.delete(f"/api/messages/{answered}/pin")
    assert unpinned.status_code == 200 and unpinned.json()["pinned_at"] is None
    graph = (await client.get(f"/api/workspaces/{ws}/graph")).json()
    assert not [n for n in graph["nodes"] if n["type"] == "synthesis"], "unpinned: gone"


async def test_synthesis_node_carries_its_citations(
    client: httpx.AsyncClient, shown: tuple[uuid.UUID, list]
) -> None:
    """A real answer asked over HTTP becomes a synthesis node whose claims cite numbered
    passages, each naming its source and chunk index: the reader's ``?chunk=&quote=``."""
    ws, sids = shown
    url = f"/api/workspaces/{ws}/ask"
    async with client.stream("POST", url, json={"question": "How is BERT compressed?"}) as r:
        assert r.status_code == 200
        events = [json.loads(line) async for line in r.aiter_lines() if line.strip()]
    done = events[-1]
    assert done["type"] == "done" and not done["answer"]["refused"], done
    assert (await client.post(f"/api/messages/{done['message_id']}/pin")).status_code == 200
    graph = (await client.get(f"/api/workspaces/{ws}/graph")).json()
    node = next(n for n in graph["nodes"] if n["id"] == f"synthesis:{done['message_id']}")
    answer = node["answer"]
    assert answer["conversation_id"] == done["conversation_id"]
    assert answer["message_id"] == done["message_id"]
    assert [c["text"] for c in answer["claims"]] == [c["text"] for c in done["answer"]["claims"]]
    cited = {n for c in answer["claims"] for n in c["citations"]}
    assert cited and {p["n"] for p in answer["passages"]} == cited
    for p in answer["passages"]:
        assert p["source_id"] in {str(s) for s in sids} and p["document"]
        chunks = (await client.get(f"/api/sources/{p['source_id']}/chunks")).json()
        chunk = next(c for c in chunks if c["id"] == p["chunk_id"])
        assert p["chunk_index"] == chunk["chunk_index"]
        for c in answer["claims"]:
            if p["n"] in c["citations"] and c["quote"] and c["citations"] == [p["n"]]:
                assert " ".join(c["quote"].split()) in " ".join(chunk["text"].split())


async def test_gaps_over_http(
    services: Runtime, client: httpx.AsyncClient, shown: tuple[uuid.UUID, list]
) -> None:
    from sqlalchemy import text

    from marginalia.api.routes.research import ResearchRequest

    ws, sids = shown
    base = f"/api/workspaces/{ws}"
    body = (await client.get(f"{base}/gaps")).json()
    assert body["engine"] == "offline"
    gaps = body["gaps"]
    assert gaps and sum(body["counts"].values()) == len(gaps)
    assert (await client.get(f"{base}/gaps")).json() == body  # deterministic
    claims = {c["id"]: c for c in (await client.get(f"{base}/claims")).json()}
    slugs = {c["slug"] for c in (await client.get(f"{base}/concepts")).json()}
    for gap in gaps:
        assert gap["suggested_topic"] and gap["suggested_topic"] in gap["research"]["queries"]
        ResearchRequest.model_validate(gap["research"])  # a body research accepts
        assert set(gap["source_ids"]) <= {str(s) for s in sids}
        assert set(gap["concepts"]) <= slugs and len(gap["concept_names"]) == len(gap["concepts"])
        if gap["kind"] == "unsupported_claim":  # offline: nothing in another source relates
            claim = claims[gap["claim_id"]]
            assert not [e for e in claim["evidence"] if e["source_id"] != claim["source_id"]]
    # a model judged one claim's evidence both ways: it is contested, listed first
    judged = next(iter(claims.values()))
    others = [s for s in sids if str(s) != judged["source_id"]]
    async with services.db.transaction() as session:
        await session.execute(
            text("DELETE FROM claim_evidence WHERE claim_id = :c"), {"c": judged["id"]}
        )
        for sid, relation in zip(others[:2], ("supports", "contradicts"), strict=True):
            await session.execute(
                text(
                    "INSERT INTO claim_evidence (id, claim_id, source_id, relation, score, engine)"
                    " VALUES (:id, :c, :s, :r, 0.6, 'scripted')"
                ),
                {"id": uuid.uuid4(), "c": judged["id"], "s": sid, "r": relation},
            )
    after = (await client.get(f"{base}/gaps")).json()
    assert after["engine"] == "offline, scripted"
    first = after["gaps"][0]
    assert first["kind"] == "contested_claim" and first["claim_id"] == judged["id"]
    assert first["evidence"]["supports"] == 1 and first["evidence"]["contradicts"] == 1
    missing = await client.get(f"/api/workspaces/{uuid.uuid4()}/gaps")
    assert missing.status_code == 404 and missing.json()["error"] == "not_found"


async def test_wiki_revisions_are_viewable(
    client: httpx.AsyncClient, shown: tuple[uuid.UUID, list]
) -> None:
    ws, _ = shown
    base = f"/api/workspaces/{ws}/wiki"
    pages = (await client.get(base)).json()
    page = max(pages, key=lambda p: p["revision"])
    full = (await client.get(f"{base}/{page['slug']}")).json()
    revisions = (await client.get(f"{base}/{page['slug']}/revisions")).json()
    assert [r["revision"] for r in revisions] == list(range(full["revisions"], 0, -1))
    assert all(r["reason"] for r in revisions)
    latest = (await client.get(f"{base}/{page['slug']}/revisions/{full['revision']}")).json()
    assert latest["body"] == full["body"] and latest["body_raw"] == full["body_raw"]
    assert latest["citations"] == full["citations"]
    first = (await client.get(f"{base}/{page['slug']}/revisions/1")).json()
    assert first["revision"] == 1 and "[source:" not in first["body"]
    assert (await client.get(f"{base}/{page['slug']}/revisions/999")).status_code == 404
    assert (await client.get(f"{base}/{page['slug']}/revisions/0")).status_code == 422
    assert (await client.get(f"{base}/no-such-page/revisions")).status_code == 404
