"""Read models of the knowledge layer, shared by the API (response models) and the CLI (JSON)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

NodeType = Literal["source", "concept", "synthesis"]
EdgeType = Literal["similar", "discusses", "prerequisite", "specialization", "related", "cites"]


class SynthesisPassage(BaseModel):
    """A numbered passage a saved answer cites (its text is in the conversation)."""

    n: int
    kind: Literal["chunk", "wiki"] = "chunk"
    document: str
    source_id: uuid.UUID | None = None
    chunk_id: int | None = None
    chunk_index: int | None = Field(
        default=None, description="the chunk in its source: the reader's `chunk` parameter"
    )
    page: int | None = None
    section_title: str | None = None
    wiki_slug: str | None = None


class SynthesisClaim(BaseModel):
    text: str
    citations: list[int] = Field(default_factory=list, description="passage numbers `[n]`")
    quote: str | None = Field(default=None, description="verbatim from the cited passage")


class SynthesisAnswer(BaseModel):
    """A synthesis node's saved answer: its claims with their `[n]` citations and the
    passages those numbers name, enough to open the reader at each quote."""

    conversation_id: uuid.UUID
    message_id: uuid.UUID
    claims: list[SynthesisClaim]
    passages: list[SynthesisPassage] = Field(description="the cited passages only")


class GraphNode(BaseModel):
    """A canvas node. Positions are the front end's job."""

    id: str = Field(description="'source:<uuid>', 'concept:<slug>' or 'synthesis:<uuid>'")
    type: NodeType
    label: str
    level: int | None = Field(default=None, description="concepts: 0 foundational … 2 specialised")
    cluster_id: uuid.UUID | None = Field(
        default=None, description="sources: redundancy cluster, if any"
    )
    topic_id: str | None = Field(
        default=None, description="sources: the topic cluster (an id of the view's `topics`)"
    )
    data: dict[str, Any] = Field(default_factory=dict)
    answer: SynthesisAnswer | None = Field(
        default=None, description="syntheses: the saved answer with its citations"
    )


class GraphEdge(BaseModel):
    id: str
    source: str
    target: str
    type: EdgeType
    label: str | None = None
    weight: float = 1.0
    data: dict[str, Any] = Field(default_factory=dict)


class TopicView(BaseModel):
    """A topic cluster of sources (community detection over shared concepts, similarity
    and citations); its label is its most characteristic concepts."""

    id: str
    label: str
    concepts: list[str] = Field(description="the characteristic concepts' names, best first")
    concept_ids: list[str] = Field(description="their node ids ('concept:<slug>')")
    source_count: int


class GraphView(BaseModel):
    """One page of the graph: its nodes and the edges that close on this page (both ends
    on this page or an earlier one). Without ``limit``, the whole graph."""

    nodes: list[GraphNode]
    edges: list[GraphEdge]
    total_nodes: int = Field(default=0, description="nodes in the whole graph")
    next_cursor: str | None = Field(
        default=None, description="pass as `cursor` for the next page; null: this is the last"
    )
    remaining: int = Field(default=0, description="nodes after this page")
    topics: list[TopicView] = Field(
        default_factory=list, description="the topic clusters of the whole snapshot's sources"
    )


class ConceptView(BaseModel):
    id: uuid.UUID
    slug: str
    name: str
    level: int
    description: str | None
    aliases: list[str]
    centrality: float | None
    source_ids: list[uuid.UUID]


class EvidenceView(BaseModel):
    source_id: uuid.UUID
    source_title: str | None
    chunk_id: int | None
    relation: str = Field(description="supports | contradicts | qualifies | extends | related")
    score: float = Field(description="cosine similarity of claim and passage")
    rationale: str | None
    engine: str | None


class ClaimView(BaseModel):
    id: uuid.UUID
    source_id: uuid.UUID
    text: str
    quote: str | None
    chunk_id: int | None
    evidence: list[EvidenceView]


class WikiPageSummary(BaseModel):
    slug: str
    title: str
    revision: int
    links: list[str]
    updated_at: datetime


class WikiCitationView(BaseModel):
    source_id: uuid.UUID
    chunk_index: int | None
    title: str = Field(description="the cited source's title ('' when it was removed)")
    page: int | None = Field(description="first page of the cited passage")
    href: str = Field(description="the web app's reader URL of the passage")


class WikiBacklinkView(BaseModel):
    slug: str
    title: str = Field(description="the linking page's title, as a reader names it")


class WikiPageView(WikiPageSummary):
    body: str = Field(
        description="Markdown; citations rendered as links labelled with the source's title "
        "and page, pointing at the reader (/w/<ws>/read/<source>?page=N&chunk=I)"
    )
    body_raw: str = Field(description="the stored Markdown, citations as [source:<id>#<chunk>]")
    cited: list[Any]
    citations: list[WikiCitationView] = Field(description="every citation, in order of appearance")
    revisions: int
    backlinks: list[str] = Field(description="slugs of the pages that link here")
    backlink_pages: list[WikiBacklinkView] = Field(
        default_factory=list, description="the pages that link here, with their titles"
    )
    broken_links: list[str] = Field(description="[[slug]] links of this page that name no page")


class PathPrerequisiteView(BaseModel):
    source_id: uuid.UUID
    title: str
    position: int | None = Field(description="its step's position in this path")
    concepts: list[str] = Field(
        default_factory=list, description="names of the concepts it explains that this step needs"
    )


class PathConceptView(BaseModel):
    slug: str
    name: str
    level: int | None


class PathStepView(BaseModel):
    id: uuid.UUID
    position: int
    source_id: uuid.UUID
    title: str
    difficulty: str = Field(description="beginner | intermediate | advanced")
    prerequisites: list[PathPrerequisiteView] = Field(description="the steps to read first")
    key_takeaways: list[str]
    concepts_covered: list[str] = Field(description="concept slugs, foundational first")
    concepts: list[PathConceptView] = Field(description="the same concepts, named")
    reading_minutes: int
    read: bool
    read_at: datetime | None
    topic_id: str | None = Field(
        default=None, description="the topic cluster this step is read in (the canvas's topics)"
    )
    topic: str | None = Field(default=None, description="that topic's label")
    why: str = Field(default="", description="why here: the concepts it needs and introduces")


class LearningPathView(BaseModel):
    id: uuid.UUID
    title: str
    engine: str | None
    notes: str | None
    broken_cycles: list[str]
    created_at: datetime
    stale: bool = Field(
        description="the knowledge changed since the path was made (a source added or removed, "
        "a rebuild); POST .../path makes a new one"
    )
    stale_reason: str | None
    steps_read: int
    steps: list[PathStepView]


class CitationView(BaseModel):
    """One paper -> paper citation between two sources of a workspace."""

    source_id: uuid.UUID = Field(description="the other source: cited (in `cites`) or citing")
    title: str | None
    match: str = Field(description="how the reference was matched: doi, arxiv, openalex or title")
    score: float
    reference: str = Field(description="the reference entry as printed in the citing source")


class SourceCitationsView(BaseModel):
    source_id: uuid.UUID
    cites: list[CitationView] = Field(description="sources of the workspace this source cites")
    cited_by: list[CitationView] = Field(description="sources of the workspace that cite it")


class WikiRevisionSummary(BaseModel):
    revision: int
    title: str
    reason: str | None = Field(description="why it was written (a source added, removed, …)")
    created_at: datetime


class WikiRevisionView(WikiRevisionSummary):
    slug: str
    body: str = Field(description="Markdown, citations rendered as on the page")
    body_raw: str
    citations: list[WikiCitationView]


class GapResearch(BaseModel):
    """A body for ``POST /api/workspaces/{id}/research`` that researches the gap."""

    queries: list[str]
    max_sources: int = 10


class GapView(BaseModel):
    id: str = Field(description="stable: '<kind>:<claim id or concept slug>'")
    kind: str = Field(
        description="contested_claim | unsupported_claim | unexplained_prerequisite | "
        "single_source_concept"
    )
    title: str
    detail: str
    suggested_topic: str = Field(description="what a research run on this gap would look for")
    research: GapResearch
    score: float
    concepts: list[str] = Field(description="concept slugs (wiki pages and canvas nodes)")
    concept_names: list[str]
    claim_id: uuid.UUID | None
    source_ids: list[uuid.UUID]
    evidence: dict[str, int] = Field(description="claims: evidence count per relation")


class GapsView(BaseModel):
    engine: str = Field(description="'offline' when no model judged the evidence")
    counts: dict[str, int] = Field(description="gaps per kind")
    gaps: list[GapView]
