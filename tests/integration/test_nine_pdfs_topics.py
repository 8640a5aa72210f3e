"""Issue 33 on the 9 shared PDFs (two unrelated fields: scholarly-document NLP and trauma /
health-services medicine, plus a medicinal-chemistry and a bioinformatics paper that belong
to neither): the canvas graph groups the sources into topic clusters that do not mix the
fields, and the learning path reads each field's papers contiguously, every step saying
why it stands there."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from marginalia.knowledge.topics import GENERIC_TERMS, is_name
from marginalia.runtime import Runtime
from marginalia.usecases import knowledge as knowledge_usecase
from marginalia.usecases import paths as paths_usecase
from marginalia.usecases import sources as sources_usecase
from marginalia.usecases import workspaces as ws_usecase

NLP = {
    "literature-graph-naacl2018.pdf",
    "longeval-eacl2023.pdf",
    "s2orc-acl2020.pdf",
    "specter-acl2020.pdf",
}
MEDICINE = {"health-bmc2014.pdf", "rehab-hindawi2010.pdf", "trauma-bmc2010.pdf"}


@dataclass
class Nine:
    workspace_id: uuid.UUID
    sources: dict[str, uuid.UUID]


@pytest.fixture(scope="module")
async def nine(services: Runtime, shared_data: Path) -> AsyncIterator[Nine]:
    ws = await ws_usecase.create_workspace(services, name=f"topics-{uuid.uuid4().hex[:6]}")
    pdfs = sorted((shared_data / "pdfs").glob("*.pdf"))
    assert len(pdfs) == 9
    added = await sources_usecase.add_documents(
        services, ws.id, [(p.name, p.read_bytes) for p in pdfs]
    )
    try:
        yield Nine(ws.id, {p.name: o.source_id for p, o in zip(pdfs, added.outcomes, strict=True)})
    finally:
        await ws_usecase.delete_workspace(services, ws.id)


async def test_topic_clusters_keep_the_fields_apart(services: Runtime, nine: Nine) -> None:
    graph = await knowledge_usecase.graph_view(services, nine.workspace_id, max_concepts=300)
    topic = {n.id: n.topic_id for n in graph.nodes if n.type == "source"}
    of = {name: topic[f"source:{sid}"] for name, sid in nine.sources.items()}
    assert all(of.values()), of
    nlp_topics = {of[n] for n in NLP}
    med_topics = {of[n] for n in MEDICINE}
    assert not nlp_topics & med_topics, of
    listed = {t.id: t for t in graph.topics}
    assert set(of.values()) <= set(listed)
    assert sum(t.source_count for t in graph.topics) == 9
    for t in graph.topics:
        assert t.label.strip()
        assert len(t.concepts) == len(t.concept_ids)
        # A label is characteristic concepts: no generic phrase, a descriptive term first
        # (before the fix: "deep venous thrombosis · demographic data · Central Region",
        # "33RE · codeML", "PubMed Central · ScienceParse · SCIBERT").
        words = t.label.split(" · ")
        assert not {w.casefold() for w in words} & GENERIC_TERMS, t.label
        assert not is_name(words[0]), t.label
    labels = {t.id: t.label for t in graph.topics}
    # Each medical paper's own subject (its top concept) names the medical topic.
    medical = labels[of["trauma-bmc2010.pdf"]].split(" · ")
    assert {"deep venous thrombosis", "heart failure"} <= set(medical), medical


async def test_learning_path_reads_each_field_contiguously(services: Runtime, nine: Nine) -> None:
    path = await paths_usecase.generate_learning_path(services, nine.workspace_id)
    names = {sid: name for name, sid in nine.sources.items()}
    order = [names[st.source_id] for st in path.steps]
    assert sorted(order) == sorted(nine.sources)
    for field in (NLP, MEDICINE):
        at = [i for i, n in enumerate(order) if n in field]
        assert at == list(range(at[0], at[0] + len(field))), (field, order)
    assert all(st.why for st in path.steps)
    assert all(st.topic for st in path.steps)
    # A topic's steps are contiguous: its id never comes back after another topic's.
    topics = [st.topic_id for st in path.steps]
    runs = [t for i, t in enumerate(topics) if i == 0 or topics[i - 1] != t]
    assert len(runs) == len(set(runs)), topics
    assert path.notes and "never interleaved" in path.notes
