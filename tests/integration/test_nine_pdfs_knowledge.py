"""Issue 35 on the 9 shared PDFs, ingested once for the module with the knowledge update
(offline engine): what a user reads first — concepts, wiki pages, claims and answer
quotes — is free of the issue's non-concepts, duplicates and PDF debris.

The debris strings (``tests/support/pdf_debris.py``) are the ones users read before the
text-hygiene step; ``tests/unit/test_hygiene.py`` shows each of them in the parsed text
before the step and in no sentence after it. Here they, and the patterns of their kinds,
are in no stored claim, no wiki page and no answer quote."""

from __future__ import annotations

import re
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from marginalia.answer import SIGNAL, Calibration
from marginalia.knowledge.concepts import normalize_concept
from marginalia.runtime import Runtime
from marginalia.usecases import ask as ask_usecase
from marginalia.usecases import knowledge as knowledge_usecase
from marginalia.usecases import sources as sources_usecase
from marginalia.usecases import workspaces as ws_usecase
from tests.support.pdf_debris import debris_in

# The examples: none of them may be a concept.
NOT_CONCEPTS = [
    "PDF",
    "CS",
    "RQ1",
    "GP",
    "KB",
    "COARSE",
    "FINE",
    "30K",
    "CC-BY",
    "CDCl3",
    "CLS",
    "Arg381",
    "His388",
    "Thr496",
    "Tyr369",
    "N-acetyl-Ser",
]
# ... and those that are no concept under any name (an initialism the source defines, such
# as KB = knowledge base, may stay the alias of the concept it stands for).
NEVER_ALIASES = ("PDF", "RQ1", "30K", "CC-BY", "CDCl3", "CLS", "Arg381", "His388", "Thr496")
QUESTIONS = (
    "How does SPECTER use citations to learn document embeddings?",
    "What does the S2ORC corpus contain and how was it built?",
    "How are entities extracted and linked in the literature graph?",
    "Why is human evaluation of long-form summaries hard?",
    "What does VESPA do for selective pressure analysis?",
    "How did the medical short stay change patient flow at Kamuzu Central Hospital?",
    "Which trauma patients need prophylaxis for deep venous thrombosis?",
)


@dataclass
class Nine:
    workspace_id: uuid.UUID
    sources: dict[str, uuid.UUID]


@pytest.fixture(scope="module")
async def nine(services: Runtime, shared_data: Path) -> AsyncIterator[Nine]:
    ws = await ws_usecase.create_workspace(services, name=f"nine-{uuid.uuid4().hex[:6]}")
    pdfs = sorted((shared_data / "pdfs").glob("*.pdf"))
    assert len(pdfs) == 9
    added = await sources_usecase.add_documents(
        services, ws.id, [(p.name, p.read_bytes) for p in pdfs]
    )
    try:
        yield Nine(ws.id, {p.name: o.source_id for p, o in zip(pdfs, added.outcomes, strict=True)})
    finally:
        await ws_usecase.delete_workspace(services, ws.id)


async def test_concepts_are_things_a_page_could_be_written_about(
    services: Runtime, nine: Nine
) -> None:
    ranked = await knowledge_usecase.source_concepts(services, nine.workspace_id)
    for name, sid in nine.sources.items():
        assert len(ranked.get(sid, [])) >= 5, f"{name}: {len(ranked.get(sid, []))} concepts"
    concepts = await knowledge_usecase.list_concepts(services, nine.workspace_id)
    bad = {k.casefold() for k in NOT_CONCEPTS}
    named = [c.name for c in concepts if c.name.casefold() in bad]
    assert named == [], f"non-concepts on the canvas: {named}"
    never = {k.casefold() for k in NEVER_ALIASES}
    aliased = [(c.name, a) for c in concepts for a in c.aliases if a.casefold() in never]
    assert aliased == []
    # a residue stays out inside a phrase too ("N-domain-specific Tyr369")
    residue = re.compile(r"\b(?:Arg|His|Thr|Tyr|Ser)\d+\b")
    assert [c.name for c in concepts if residue.search(c.name)] == []


async def test_no_acronym_expansion_or_near_duplicate_pairs(services: Runtime, nine: Nine) -> None:
    concepts = await knowledge_usecase.list_concepts(services, nine.workspace_id)
    owner: dict[str, str] = {}
    clashes = []
    for c in concepts:
        for form in {normalize_concept(f) for f in (c.name, *c.aliases)}:
            if form in owner and owner[form] != c.slug:
                clashes.append((owner[form], c.slug, form))
            owner.setdefault(form, c.slug)
    assert clashes == [], f"one name, two concepts: {clashes}"
    by_name = {c.name: c for c in concepts}
    assert "DVT" not in by_name  # titled by what it stands for
    dvt = by_name["deep venous thrombosis"]
    assert "DVT" in dvt.aliases
    assert "FINE" not in by_name and "COARSE" not in by_name


async def test_wiki_pages_lead_cleanly_and_carry_no_debris(services: Runtime, nine: Nine) -> None:
    pages = await knowledge_usecase.list_wiki_pages(services, nine.workspace_id)
    assert len(pages) >= 9
    problems: list[tuple[str, str]] = []
    for summary in pages:
        page = await knowledge_usecase.get_wiki_page(services, nine.workspace_id, summary.slug)
        body = page.body_raw
        lines = [ln.strip() for ln in body.splitlines()]
        prose = [
            ln
            for ln in lines
            if ln and not ln.startswith(("#", "- ", "Also known as:", "Related:"))
        ]
        if not prose:
            problems.append((page.slug, "no lead"))
            continue
        lead = _without_markers(prose[0])
        bullets = [_without_markers(ln[2:]) for ln in lines if ln.startswith("- ")]
        if lead in bullets:
            problems.append((page.slug, f"lead repeated as a bullet: {lead}"))
        if re.search(r"^Related: .*\[\[[^|\]]+\]\]", body, re.MULTILINE):
            problems.append((page.slug, "a related link without its title"))
        for debris in debris_in(body):
            problems.append((page.slug, debris))
    assert problems == []


async def test_claims_carry_no_running_head_footnote_or_equation(
    services: Runtime, nine: Nine
) -> None:
    claims = await knowledge_usecase.list_claims(services, nine.workspace_id)
    assert len(claims) >= 9  # (offline, three of the PDFs give no claim at all)
    found = [(c.text, d) for c in claims for d in debris_in(f"{c.text} {c.quote or ''}")]
    assert found == []
    questions = [c.text for c in claims if re.match(r"\s*RQ\s?\d", c.text)]
    assert questions == [], "a research question is no claim"


async def test_answer_quotes_carry_no_debris(services: Runtime, nine: Nine) -> None:
    answer_everything = Calibration(threshold=0.0, signal=SIGNAL, method="test: never refuse")
    found = []
    shown_something = 0
    for question in QUESTIONS:
        answer = await ask_usecase.answer(
            services,
            workspace_id=nine.workspace_id,
            question=question,
            calibration=answer_everything,
        )
        for claim in answer.claims:
            found += [(question, d) for d in debris_in(f"{claim.text} {claim.quote or ''}")]
        # The best-evidence sentences are what every outcome shows first (issue 32); a
        # "closest" answer has them and no claim.
        for sentence in answer.evidence:
            found += [(question, d) for d in debris_in(sentence.text)]
        shown_something += any(c.quote for c in answer.claims) or bool(answer.evidence)
    assert shown_something == len(QUESTIONS)
    assert found == []


async def test_offline_evidence_shows_only_what_it_can_stand_behind(
    services: Runtime, nine: Nine
) -> None:
    """Every "related" link names the salient term claim and passage share; the gap list
    holds a few claims central to their source, not every claim (before: 30)."""
    claims = await knowledge_usecase.list_claims(services, nine.workspace_id)
    links = [e for c in claims for e in c.evidence if e.source_id != c.source_id]
    assert all(e.relation == "related" for e in links)
    assert all((e.rationale or "").startswith("shares “") for e in links), [
        e.rationale for e in links
    ]
    gaps = await knowledge_usecase.workspace_gaps(services, nine.workspace_id)
    unsupported = [g for g in gaps.gaps if g.kind == "unsupported_claim"]
    assert 1 <= len(unsupported) <= 5
    assert len({g.source_ids[0] for g in unsupported}) == len(unsupported)
    assert all("central to that source" in g.detail for g in unsupported)


def _without_markers(text: str) -> str:
    return re.sub(r"\s*\[source:[^\]]*\]", "", text).strip()
