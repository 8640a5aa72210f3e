"""The per-source update reads only the sources that can have an edge with the new one
(issue 19, item 2) and still finds exactly the edges the DESIGN §6 rules give over the
whole workspace: a title twin with no shared concept (strong by title alone), a title with
a non-ASCII word, a near-duplicate abstract (strong by embedding), an ordinary source."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from marginalia.knowledge import repository as repo
from marginalia.knowledge import update as knowledge_update
from marginalia.knowledge.edges import SourceForEdges, concept_frequencies, edges_for_new_source
from marginalia.knowledge.text import title_tokens
from marginalia.runtime import Runtime
from marginalia.usecases import workspaces as ws_service
from tests.integration.knowledge_support import add_paper

pytestmark = pytest.mark.slow

TOPIC = re.compile(r"\bBERT\b|language models?\b|pre-?train", re.IGNORECASE)


def _records(path: Path, n: int) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    related = sorted(
        (r for r in rows if r.get("abstract") and TOPIC.search(r["abstract"])),
        key=lambda r: r["id"],
    )
    others = sorted(
        (r for r in rows if r.get("abstract") and not TOPIC.search(r["abstract"])),
        key=lambda r: r["id"],
    )
    return [*related[: n - 5], *others[:5]]


async def _edges_over_everything(
    services: Runtime, ws: uuid.UUID, new_id: uuid.UUID
) -> set[tuple[Any, ...]]:
    """The rules over every ready source, concepts from every stored link."""
    async with services.db.session() as session:
        sources = await repo.workspace_sources(session, ws)
        links = (
            await session.execute(
                text(
                    "SELECT sc.source_id, c.slug, c.level FROM source_concepts sc "
                    "JOIN concepts c ON c.id = sc.concept_id WHERE c.workspace_id = :w"
                ),
                {"w": ws},
            )
        ).all()
    concepts: dict[uuid.UUID, dict[str, int]] = {}
    for sid, slug, level in links:
        concepts.setdefault(sid, {})[slug] = level
    items = [
        SourceForEdges(str(s.id), s.title, concepts.get(s.id, {}), s.mean_embedding)
        for s in sources
    ]
    new = next(i for i in items if i.id == str(new_id))
    edges = edges_for_new_source(
        new, [i for i in items if i.id != new.id], concept_frequencies(items)
    )
    return {(e.a, e.b, e.strength, e.signals, e.label) for e in edges}


async def _stored_edges(services: Runtime, new_id: uuid.UUID) -> set[tuple[Any, ...]]:
    async with services.db.session() as session:
        rows = (
            await session.execute(
                text(
                    "SELECT source_a_id, source_b_id, strength, signals, label FROM source_edges "
                    "WHERE source_a_id = :s OR source_b_id = :s"
                ),
                {"s": new_id},
            )
        ).all()
    from marginalia.knowledge.edges import EdgeSignals

    return {
        (
            str(a),
            str(b),
            strength,
            EdgeSignals(tuple(sig["shared_concepts"]), sig["title_jaccard"], sig["embedding_sim"]),
            label,
        )
        for a, b, strength, sig, label in rows
    }


@pytest.mark.timeout(600)
async def test_new_source_edges_match_the_rules_over_the_whole_workspace(
    services: Runtime, shared_data: Path
) -> None:
    records = _records(shared_data / "catalog" / "acl2020" / "papers.jsonl", 30)
    ws = await ws_service.create_workspace(
        services, name=f"edges-{uuid.uuid4().hex[:8]}", description="pre-trained language models"
    )
    try:
        for r in records:
            sid = await add_paper(services, ws.id, r)
            await knowledge_update.update_for_source(services, ws.id, sid, refresh=False)
        twin_of, unrelated = records[3], records[-1]
        words = twin_of["title"].split()
        probes = [
            # the title of one source with one word changed, the abstract of an unrelated one
            {**unrelated, "title": " ".join([*words[:-1], "Revisited"])},
            # a non-ASCII word among the title's
            {**unrelated, "title": "Überblick: " + twin_of["title"]},
            # the abstract of a source (embedding ~1), another title
            {**twin_of, "title": "A completely different heading"},
            records[len(records) // 2],
        ]
        strong_by_title = strong_by_embedding = 0
        for i, probe in enumerate(probes):
            sid = await add_paper(services, ws.id, probe, suffix=" " * (i + 1))
            update = await knowledge_update.update_for_source(services, ws.id, sid, refresh=False)
            expected = await _edges_over_everything(services, ws.id, sid)
            assert await _stored_edges(services, sid) == expected
            # read: the sources with an edge, plus the few the prefilter could not rule out
            assert len(expected) <= update.rows_read["sources_for_edges"] < len(records)
            strong_by_title += sum(1 for e in expected if e[3].title_jaccard > 0.5)
            strong_by_embedding += sum(1 for e in expected if e[3].embedding_sim > 0.7)
        assert strong_by_title >= 2 and strong_by_embedding >= 1
    finally:
        await ws_service.delete_workspace(services, ws.id)


async def test_edge_prefilter_keeps_every_source_that_can_pass(
    services: Runtime, shared_data: Path
) -> None:
    """``edge_candidates`` on its own: the sources with more than half of the new title's
    words, with a non-ASCII title, or with a near embedding come back; the others do not
    (they cannot pass a threshold without a shared concept)."""
    records = _records(shared_data / "catalog" / "acl2020" / "papers.jsonl", 10)
    a, b = records[0], records[-1]
    ws = await ws_service.create_workspace(services, name=f"prefilter-{uuid.uuid4().hex[:8]}")
    title = "Sparse Attention Heads for Efficient Transformer Distillation"
    try:
        new = await add_paper(services, ws.id, {**a, "title": title})
        ids = {
            name: await add_paper(services, ws.id, {**rec, "title": t}, suffix=" " * (i + 1))
            for i, (name, rec, t) in enumerate(
                [
                    # 4 of the 6 title words (Jaccard 4/8 = 0.5: may not pass, but may)
                    ("four_words", b, "Sparse Attention Heads in Distillation of Parsers"),
                    # 2 of 6: can pass neither title threshold
                    ("two_words", b, "Efficient Parsing with Attention Maps and Grammars"),
                    ("non_ascii", b, "Über Parsing und Grammatik"),
                    ("same_abstract", a, "An Unrelated Heading About Nothing In Particular"),
                    ("other", b, "Cross-lingual Retrieval Evaluation Toolkit"),
                ]
            )
        }
        async with services.db.session() as session:
            strong, ready = await repo.edge_candidates(
                session,
                ws.id,
                new,
                title_patterns=[f"%{w}%" for w in sorted(title_tokens(title))],
                strong_hits=4,
                strong_distance=0.301,
                shared_once=[ids["two_words"]],
                weak_hits=2,
                weak_distance=0.401,
                linked=[ids["two_words"], ids["other"]],
            )
            plain, _ = await repo.edge_candidates(
                session,
                ws.id,
                new,
                title_patterns=[f"%{w}%" for w in sorted(title_tokens(title))],
                strong_hits=4,
                strong_distance=0.301,
                shared_once=[],
                weak_hits=2,
                weak_distance=0.401,
            )
        name_of = {v: k for k, v in ids.items()}
        assert {name_of[i] for i in plain} == {"four_words", "non_ascii", "same_abstract"}
        # sharing one concept, two title words are enough for the weak rule's prefilter
        assert {name_of[i] for i in strong} == {
            "four_words",
            "non_ascii",
            "same_abstract",
            "two_words",
        }
        assert ready == {ids["two_words"], ids["other"]}
    finally:
        await ws_service.delete_workspace(services, ws.id)
