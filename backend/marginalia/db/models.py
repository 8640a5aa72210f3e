"""The whole schema (SQLModel). Alembic migrations under ``migrations/`` create it.

Ownership is total where a row cannot outlive its parent (a chunk without its source,
an event without its job): those foreign keys cascade on delete. Every embedding
column has the dimension of the configured model (``settings.embedding.dim``), pinned
in ``embedding_model`` so a database never mixes models.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Column,
    Computed,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, TSVECTOR, UUID
from sqlmodel import Field, SQLModel

from marginalia.db.models_columns import (
    created,
    empty_text,
    fk,
    hnsw,
    jsonb,
    updated,
    uuid_pk,
    vector,
)

# ---------------------------------------------------------------------------- users


class User(SQLModel, table=True):
    """An account (accounts mode, migration 0010); local mode has none."""

    __tablename__ = "users"
    id: uuid.UUID = uuid_pk()
    email: str = Field(unique=True)
    name: str | None = None
    # argon2id (``argon2-cffi``); None: the user cannot sign in with a password.
    password_hash: str | None = None
    created_at: datetime = created()


class ApiToken(SQLModel, table=True):
    """A bearer token for the CLI and agents; only its SHA-256 is stored."""

    __tablename__ = "api_tokens"
    id: uuid.UUID = uuid_pk()
    user_id: uuid.UUID = fk("users.id")
    name: str
    token_hash: str = Field(unique=True)
    created_at: datetime = created()
    last_used_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))


# Browser sessions and workspace members live in marginalia.db.models_accounts.


class EmbeddingModel(SQLModel, table=True):
    """The model every vector in this database came from (one row)."""

    __tablename__ = "embedding_model"
    id: int = Field(default=1, primary_key=True)
    model_id: str
    dim: int
    created_at: datetime = created()


# ---------------------------------------------------------------------------- workspaces


class Workspace(SQLModel, table=True):
    __tablename__ = "workspaces"
    __table_args__ = (hnsw("workspaces", "description_embedding"),)
    id: uuid.UUID = uuid_pk()
    name: str = Field(index=True)
    description: str = ""
    description_embedding: list[float] | None = vector()
    owner_id: uuid.UUID | None = fk("users.id", ondelete="SET NULL", nullable=True)
    # bumped by every knowledge update (source added or removed, rebuild); a learning path
    # made at an older version is stale
    knowledge_version: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    created_at: datetime = created()
    updated_at: datetime = updated()


class Source(SQLModel, table=True):
    __tablename__ = "sources"
    __table_args__ = (
        # Invariant 5: the same content twice in a workspace is one source.
        UniqueConstraint("workspace_id", "content_hash", name="uq_sources_workspace_hash"),
        Index("ix_sources_workspace_doi", "workspace_id", "doi"),
        Index("ix_sources_workspace_arxiv", "workspace_id", "arxiv_id"),
        Index("ix_sources_workspace_url", "workspace_id", "normalized_url"),
        # No HNSW index on mean_embedding: nearest sources are ranked exactly within a
        # workspace (migration 0005).
    )
    id: uuid.UUID = uuid_pk()
    workspace_id: uuid.UUID = fk("workspaces.id")
    kind: str  # pdf | html | markdown | text | abstract | web
    origin: str = "upload"  # upload | arxiv | openalex | brave | catalog | bibtex
    status: str = "pending"  # pending | ingesting | ready | failed
    error: str | None = None
    title: str | None = None
    authors: list[str] = jsonb([])
    year: int | None = None
    venue: str | None = None
    # The page range a bibliography gives ("4171--4186") and, per bibliographic field
    # filled from elsewhere than the source's own record, where from (issue 36).
    pages: str | None = None
    metadata_origins: dict[str, str] = jsonb({})
    abstract: str | None = None
    url: str | None = None
    normalized_url: str | None = None
    pdf_url: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    openalex_id: str | None = None
    citation_count: int | None = None
    content_hash: str | None = None
    abstract_only: bool = False
    # What the source's record says (issue 13): OpenAlex concepts/topics with their levels
    # and the works it references (OpenAlex referenced_works, unarXive bib_entries).
    metadata_concepts: list[dict[str, Any]] = jsonb([])
    metadata_references: list[dict[str, Any]] = jsonb([])
    file_key: str | None = None
    file_name: str | None = None
    content_type: str | None = None
    byte_size: int | None = None
    page_count: int | None = None
    # Dedup: which cascade layer matched this source to an existing one, if any.
    dedup_layer: str | None = None
    # Quality (DESIGN §6): total and its parts, 0–100.
    quality_score: float | None = None
    quality_authority: float | None = None
    quality_recency: float | None = None
    quality_relevance: float | None = None
    # Unified extraction fields.
    summary: str | None = None
    tldr: str | None = None
    thesis: str | None = None
    methodology: str | None = None
    key_results: list[str] = jsonb([])
    limitations: list[str] = jsonb([])
    datasets: list[str] = jsonb([])
    contributions: list[str] = jsonb([])
    extraction_engine: str | None = None
    mean_embedding: list[float] | None = vector()
    created_at: datetime = created()
    updated_at: datetime = updated()


class SourcePage(SQLModel, table=True):
    """Text of one page as parsed; chunk offsets point into it (quote highlighting)."""

    __tablename__ = "source_pages"
    source_id: uuid.UUID = Field(
        sa_column=Column(
            UUID(as_uuid=True), ForeignKey("sources.id", ondelete="CASCADE"), primary_key=True
        )
    )
    page_number: int = Field(sa_column=Column(Integer, primary_key=True))
    text: str


class Chunk(SQLModel, table=True):
    __tablename__ = "chunks"
    __table_args__ = (
        UniqueConstraint("source_id", "chunk_index", name="uq_chunks_source_index"),
        # No GIN index on tsv: BM25 reads retrieval_blocks (migrations 0004, 0009, 0015).
        hnsw("chunks"),
    )
    id: int | None = Field(
        default=None, sa_column=Column(BigInteger, primary_key=True, autoincrement=True)
    )
    source_id: uuid.UUID = fk("sources.id")
    workspace_id: uuid.UUID = fk("workspaces.id")
    chunk_index: int
    text: str
    section_type: str = "other"
    section_title: str | None = None
    page_start: int | None = None
    page_end: int | None = None
    char_start: int | None = None
    char_end: int | None = None
    token_count: int
    embedding: list[float] | None = vector()
    tsv: str | None = Field(
        default=None,
        sa_column=Column(TSVECTOR, Computed("to_tsvector('english', text)", persisted=True)),
    )


# The lexical index tables live in marginalia.db.models_retrieval (imported at the end).


# ---------------------------------------------------------------------------- knowledge


class Concept(SQLModel, table=True):
    __tablename__ = "concepts"
    __table_args__ = (
        UniqueConstraint("workspace_id", "slug", name="uq_concepts_workspace_slug"),
        hnsw("concepts"),
        # fastupdate off: a search reads no pending list (it grew with every insert, 0014)
        Index(
            "ix_concepts_match_keys",
            "match_keys",
            postgresql_using="gin",
            postgresql_with={"fastupdate": "off"},
        ),
    )
    id: uuid.UUID = uuid_pk()
    workspace_id: uuid.UUID = fk("workspaces.id")
    name: str
    slug: str
    level: int = 1  # 0 foundational … 2 specialised
    description: str | None = None
    aliases: list[str] = jsonb([])
    # Tagged merge keys of the name and aliases (knowledge/match_keys.py, migration 0011).
    match_keys: list[str] = Field(
        default_factory=list,
        sa_column=Column(ARRAY(Text), nullable=False, server_default=text("'{}'::text[]")),
    )
    centrality: float | None = None
    embedding: list[float] | None = vector()
    created_at: datetime = created()


class ConceptEdge(SQLModel, table=True):
    __tablename__ = "concept_edges"
    __table_args__ = (
        UniqueConstraint(
            "source_concept_id", "target_concept_id", "edge_type", name="uq_concept_edge"
        ),
    )
    id: uuid.UUID = uuid_pk()
    workspace_id: uuid.UUID = fk("workspaces.id")
    source_concept_id: uuid.UUID = fk("concepts.id")
    target_concept_id: uuid.UUID = fk("concepts.id")
    edge_type: str  # prerequisite | specialization | related
    evidence: str | None = None
    weight: float = 1.0


class SourceConcept(SQLModel, table=True):
    __tablename__ = "source_concepts"
    source_id: uuid.UUID = Field(
        sa_column=Column(
            UUID(as_uuid=True), ForeignKey("sources.id", ondelete="CASCADE"), primary_key=True
        )
    )
    concept_id: uuid.UUID = Field(
        sa_column=Column(
            UUID(as_uuid=True),
            ForeignKey("concepts.id", ondelete="CASCADE"),
            primary_key=True,
            index=True,
        )
    )
    weight: float = 1.0


class Claim(SQLModel, table=True):
    __tablename__ = "claims"
    __table_args__ = (hnsw("claims"),)
    id: uuid.UUID = uuid_pk()
    workspace_id: uuid.UUID = fk("workspaces.id")
    source_id: uuid.UUID = fk("sources.id")
    chunk_id: int | None = Field(
        default=None,
        sa_column=Column(BigInteger, ForeignKey("chunks.id", ondelete="SET NULL"), nullable=True),
    )
    text: str
    quote: str | None = None
    embedding: list[float] | None = vector()
    created_at: datetime = created()


class ClaimEvidence(SQLModel, table=True):
    __tablename__ = "claim_evidence"
    id: uuid.UUID = uuid_pk()
    claim_id: uuid.UUID = fk("claims.id")
    source_id: uuid.UUID = fk("sources.id")
    chunk_id: int | None = Field(
        default=None,
        sa_column=Column(BigInteger, ForeignKey("chunks.id", ondelete="CASCADE"), nullable=True),
    )
    relation: str  # supports | contradicts | qualifies | extends | related
    score: float
    rationale: str | None = None
    engine: str | None = None


class SourceEdge(SQLModel, table=True):
    __tablename__ = "source_edges"
    __table_args__ = (UniqueConstraint("source_a_id", "source_b_id", name="uq_source_edge"),)
    id: uuid.UUID = uuid_pk()
    workspace_id: uuid.UUID = fk("workspaces.id")
    source_a_id: uuid.UUID = fk("sources.id")
    source_b_id: uuid.UUID = fk("sources.id")
    strength: str  # strong | weak
    signals: dict[str, Any] = jsonb({})
    label: str | None = None


class SourceReference(SQLModel, table=True):
    """A source's reference entry; ``cited_source_id`` set is a ``cites`` edge (0008)."""

    __tablename__ = "source_references"
    __table_args__ = (
        Index("ix_source_references_workspace_doi", "workspace_id", "doi"),
        Index("ix_source_references_workspace_arxiv", "workspace_id", "arxiv_id"),
        Index("ix_source_references_workspace_openalex", "workspace_id", "openalex_id"),
        Index(
            "ix_source_references_terms",
            "terms",
            postgresql_using="gin",
            postgresql_with={"fastupdate": "off"},
        ),
    )
    id: int | None = Field(
        default=None, sa_column=Column(BigInteger, primary_key=True, autoincrement=True)
    )
    workspace_id: uuid.UUID = fk("workspaces.id")
    source_id: uuid.UUID = fk("sources.id")
    position: int
    text: str
    norm: str  # lower-case words, line-break hyphens joined
    doi: str | None = None
    arxiv_id: str | None = None
    openalex_id: str | None = None
    year: int | None = None
    cited_source_id: uuid.UUID | None = fk("sources.id", ondelete="SET NULL", nullable=True)
    match: str | None = None  # doi | arxiv | openalex | title
    match_score: float | None = None
    terms: str | None = Field(
        default=None,
        sa_column=Column(TSVECTOR, Computed("to_tsvector('simple', norm)", persisted=True)),
    )


class RedundancyCluster(SQLModel, table=True):
    __tablename__ = "redundancy_clusters"
    id: uuid.UUID = uuid_pk()
    workspace_id: uuid.UUID = fk("workspaces.id")
    label: str | None = None
    mean_similarity: float | None = None
    created_at: datetime = created()


class RedundancyClusterMember(SQLModel, table=True):
    __tablename__ = "redundancy_cluster_members"
    cluster_id: uuid.UUID = Field(
        sa_column=Column(
            UUID(as_uuid=True),
            ForeignKey("redundancy_clusters.id", ondelete="CASCADE"),
            primary_key=True,
        )
    )
    source_id: uuid.UUID = Field(
        sa_column=Column(
            UUID(as_uuid=True),
            ForeignKey("sources.id", ondelete="CASCADE"),
            primary_key=True,
            index=True,
        )
    )


class WikiPage(SQLModel, table=True):
    __tablename__ = "wiki_pages"
    __table_args__ = (
        UniqueConstraint("workspace_id", "slug", name="uq_wiki_workspace_slug"),
        hnsw("wiki_pages"),
    )
    id: uuid.UUID = uuid_pk()
    workspace_id: uuid.UUID = fk("workspaces.id")
    slug: str
    title: str
    body: str
    links: list[str] = jsonb([])
    cited: list[Any] = jsonb([])
    embedding: list[float] | None = vector()
    revision: int = 1
    created_at: datetime = created()
    updated_at: datetime = updated()


class WikiRevision(SQLModel, table=True):
    __tablename__ = "wiki_revisions"
    id: uuid.UUID = uuid_pk()
    page_id: uuid.UUID = fk("wiki_pages.id")
    revision: int
    title: str
    body: str
    reason: str | None = None
    created_at: datetime = created()


# ---------------------------------------------------------------------------- conversations


class Conversation(SQLModel, table=True):
    __tablename__ = "conversations"
    id: uuid.UUID = uuid_pk()
    workspace_id: uuid.UUID = fk("workspaces.id")
    # Set for per-paper Q&A: the conversation is scoped to this source.
    source_id: uuid.UUID | None = fk("sources.id", nullable=True)
    # Who asked (accounts mode): only they write into it. None: local mode, or before 0018.
    user_id: uuid.UUID | None = fk("users.id", ondelete="SET NULL", nullable=True, index=False)
    title: str
    created_at: datetime = created()
    updated_at: datetime = updated()


class Message(SQLModel, table=True):
    __tablename__ = "messages"
    id: uuid.UUID = uuid_pk()
    conversation_id: uuid.UUID = fk("conversations.id")
    role: str  # user | assistant
    content: str
    # Invariant 7: only sources cited in the answer are saved here.
    cited_sources: list[Any] = jsonb([])
    answer: dict[str, Any] | None = jsonb(None)
    created_at: datetime = created()
    # Migration 0024: the user pinned this answer to the canvas (null: not on it).
    pinned_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))


class Note(SQLModel, table=True):
    __tablename__ = "notes"
    id: uuid.UUID = uuid_pk()
    workspace_id: uuid.UUID = fk("workspaces.id")
    source_id: uuid.UUID | None = fk("sources.id", nullable=True)
    page: int | None = None
    body: str
    created_at: datetime = created()
    updated_at: datetime = updated()


class Highlight(SQLModel, table=True):
    """A highlight (with an optional note) anchored in the stored page text (migration
    0007): ``char_start`` of page ``page`` to ``char_end`` of ``page_end``, the quote
    with ``prefix``/``suffix`` context, and its PDF rectangles (0–1, unrotated)."""

    __tablename__ = "highlights"
    id: uuid.UUID = uuid_pk()
    source_id: uuid.UUID = fk("sources.id")
    workspace_id: uuid.UUID = fk("workspaces.id")
    page: int
    page_end: int
    char_start: int
    char_end: int
    text: str
    prefix: str = empty_text()
    suffix: str = empty_text()
    rects: list[dict[str, Any]] = jsonb([], nullable=False)
    color: str = "yellow"
    note: str | None = None
    created_at: datetime = created()
    updated_at: datetime = updated()


class LearningPath(SQLModel, table=True):
    __tablename__ = "learning_paths"
    id: uuid.UUID = uuid_pk()
    workspace_id: uuid.UUID = fk("workspaces.id")
    title: str
    broken_cycles: list[str] = jsonb([])
    notes: str | None = None
    engine: str | None = None
    knowledge_version: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    source_ids: list[Any] = jsonb([])  # the sources it was planned over
    created_at: datetime = created()


class LearningPathStep(SQLModel, table=True):
    __tablename__ = "learning_path_steps"
    __table_args__ = (UniqueConstraint("path_id", "position", name="uq_path_step_position"),)
    id: uuid.UUID = uuid_pk()
    path_id: uuid.UUID = fk("learning_paths.id")
    position: int
    source_id: uuid.UUID = fk("sources.id")
    difficulty: str
    prerequisites: list[Any] = jsonb([])
    takeaways: list[str] = jsonb([])
    concepts: list[str] = jsonb([])
    reading_minutes: int
    read_at: datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )


# ---------------------------------------------------------------------------- jobs


class Job(SQLModel, table=True):
    __tablename__ = "jobs"
    __table_args__ = (Index("ix_jobs_status", "status"),)
    id: uuid.UUID = uuid_pk()
    kind: str
    workspace_id: uuid.UUID | None = fk("workspaces.id", nullable=True)
    # who started it (accounts mode): a job without a workspace is visible only to them
    user_id: uuid.UUID | None = fk("users.id", ondelete="SET NULL", nullable=True, index=False)
    status: str = "queued"  # queued | running | succeeded | failed | cancelled
    params: dict[str, Any] = jsonb({})
    # What a resumed run needs to skip work it already did.
    checkpoint: dict[str, Any] = jsonb({})
    result: dict[str, Any] | None = jsonb(None)
    error: str | None = None
    # Set when a crash cut the job off; such a job can be resumed or retried.
    interrupted: bool = False
    stage: str | None = None
    progress: float = 0.0
    attempts: int = 0
    backend: str | None = None
    worker: str | None = None
    created_at: datetime = created()
    started_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))
    finished_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))
    heartbeat_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))


class JobEvent(SQLModel, table=True):
    __tablename__ = "job_events"
    id: int | None = Field(
        default=None, sa_column=Column(BigInteger, primary_key=True, autoincrement=True)
    )
    job_id: uuid.UUID = fk("jobs.id")
    type: str  # status | stage | progress | log | result | error
    stage: str | None = None
    message: str | None = None
    progress: float | None = None
    data: dict[str, Any] = jsonb({})
    created_at: datetime = created()


from marginalia.db.models_accounts import (  # noqa: E402, F401
    SignInAttempt,
    UserSession,
    WorkspaceInvitation,
    WorkspaceMember,
)
from marginalia.db.models_retrieval import (  # noqa: E402, F401  (registers the tables)
    RetrievalBlock,
    RetrievalSourceStats,
    RetrievalTerm,
)
from marginalia.db.models_sentences import ChunkSentence  # noqa: E402, F401  (registers the table)
from marginalia.db.models_tables import (  # noqa: E402, F401  (registers the tables)
    EvidenceCell,
    EvidenceTable,
    EvidenceTableColumn,
    EvidenceTableRow,
)
