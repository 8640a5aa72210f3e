"""One validated settings tree for the whole app.

Every value comes from the environment (prefix ``MARGINALIA_``, nested fields with
``__``, e.g. ``MARGINALIA_LLM__PROVIDER=anthropic``) or a ``.env`` file. The two
service URLs also read the conventional un-prefixed ``DATABASE_URL`` / ``REDIS_URL``.

Nothing reads settings at import time: the composition root
(:func:`marginalia.runtime.open_runtime`) is handed one ``Settings`` object and passes
what each stage needs. Every field describes itself (``marginalia config`` prints the
descriptions). The refusal threshold is deliberately not a setting: it is read from
``eval/calibration.json`` (invariant 4).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import AliasChoices, BaseModel, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


def _default_home() -> Path:
    return Path(platformdirs.user_data_dir("marginalia", appauthor=False))


class EmbeddingSettings(BaseModel):
    model: str = Field(
        default="sentence-transformers/all-MiniLM-L6-v2",
        description="fastembed model id; the default is assembled offline from registry "
        "packages (DESIGN §4). Pinned in the database: change it, then run `marginalia reembed`",
    )
    dim: int = Field(default=384, description="vector dimension of the model (pinned per database)")
    max_tokens: int = Field(
        default=256,
        description="token window of the model; chunks are sized below it, never truncated "
        "(invariant 1)",
    )
    batch_size: int = Field(
        default=4,
        description="passages per ONNX run: small batches run fastest on CPU and pad least "
        "(eval/bench_embedder.py, docs/BENCHMARKS.md)",
    )
    max_concurrency: int = Field(
        default_factory=lambda: min(os.cpu_count() or 1, 8),
        ge=1,
        description="batches embedded at once (default: the cores, at most 8)",
    )
    threads: int | None = Field(
        default=1,
        ge=1,
        description="ONNX threads per batch (unset: ONNX Runtime's default, every core)",
    )


class LLMMaxTokens(BaseModel):
    """``max_tokens`` sent with each kind of call. Each cap sits above what the call's
    bounded schema needs from a capable model, and far below a local model's context, so
    a small model that loops (repeating list items until its context is full) stops."""

    synthesis: int = Field(
        default=1280,
        ge=16,
        description="A cited answer: up to 6 claims of 400 characters, each with a quote of 400.",
    )
    extraction: int = Field(
        default=3072,
        ge=16,
        description="The per-source extraction: summary, lists, up to 15 claims, 12 concepts.",
    )
    decomposition: int = Field(
        default=768, ge=16, description="A research description into queries and papers."
    )
    evidence: int = Field(
        default=192, ge=16, description="One claim/passage relation with a one-line rationale."
    )
    wiki: int = Field(default=2048, ge=16, description="2-5 wiki pages to create or update.")
    path: int = Field(default=1024, ge=16, description="Takeaways per learning-path step.")
    chat: int = Field(default=1024, ge=16, description="A streamed free-text reply.")
    table: int = Field(
        default=384,
        ge=16,
        description="One evidence-table cell: a short answer and up to 2 quotes of 400.",
    )


class LLMSettings(BaseModel):
    provider: Literal["offline", "anthropic", "openai"] = Field(
        default="offline",
        description="offline (extractive, no model), anthropic, or openai (any "
        "OpenAI-compatible server: Ollama, vLLM, llama.cpp).",
    )
    anthropic_api_key: SecretStr | None = Field(default=None, description="Anthropic API key.")
    anthropic_base_url: str | None = Field(
        default=None, description="Anthropic API base URL (None: the SDK's default)."
    )
    extraction_model: str = Field(
        default="claude-haiku-4-5", description="Anthropic model for extraction-type calls."
    )
    synthesis_model: str = Field(
        default="claude-sonnet-4-6", description="Anthropic model for cited answers."
    )
    openai_base_url: str = Field(
        default="http://127.0.0.1:11434/v1",
        description="The server's /v1 URL (Ollama :11434, llama.cpp :8080, vLLM :8000).",
    )
    openai_api_key: SecretStr | None = Field(
        default=None, description="Bearer token, if the server wants one."
    )
    openai_model: str = Field(
        default="llama3.1", description="Model name sent to the OpenAI-compatible server."
    )
    max_retries: int = Field(
        default=4,
        ge=0,
        description="Retries of one call (429, 5xx, timeouts), within its deadline.",
    )
    timeout_s: float = Field(
        default=120.0,
        gt=0,
        description="Timeout of one HTTP attempt; never more than what is left of the deadline.",
    )
    max_tokens: LLMMaxTokens = Field(
        default_factory=LLMMaxTokens, description="Output-token cap per kind of call."
    )
    answer_deadline_s: float = Field(
        default=25.0,
        gt=0,
        description=(
            "Wall time of one answer once its passages are retrieved: evidence scoring and "
            "the model call, retries and format fallbacks included; past it the answer is "
            "extractive, with a note."
        ),
    )
    extraction_deadline_s: float = Field(
        default=120.0,
        gt=0,
        description=(
            "Wall time one source's extraction call may take, retries and fallbacks "
            "included; past it the offline engine extracts."
        ),
    )
    table_deadline_s: float = Field(
        default=30.0,
        gt=0,
        description=(
            "Wall time of one evidence-table cell's call, retries included; past it the cell "
            "is filled extractively, with a note, and computed again by the next fill."
        ),
    )
    call_deadline_s: float = Field(
        default=60.0,
        gt=0,
        description="Wall time of any other call (decomposition, evidence, wiki, paths, chat).",
    )


class SourceSettings(BaseModel):
    arxiv_base_url: str = Field(
        default="https://export.arxiv.org/api/query", description="arXiv API endpoint"
    )
    openalex_base_url: str = Field(
        default="https://api.openalex.org", description="OpenAlex API base URL"
    )
    openalex_email: str | None = Field(
        default=None, description="contact e-mail for OpenAlex's polite pool"
    )
    openalex_citations: bool = Field(
        default=False,
        description="citation chasing also asks OpenAlex for a source's referenced and "
        "citing works (network); off: the PDFs' reference lists and the catalog only",
    )
    brave_base_url: str = Field(
        default="https://api.search.brave.com/res/v1", description="Brave Search API base URL"
    )
    brave_api_key: SecretStr | None = Field(
        default=None, description="Brave Search API key (web search is skipped without one)"
    )
    min_interval_s: float = Field(
        default=1.0, description="seconds between two calls to one external source (DESIGN §6)"
    )
    timeout_s: float = Field(default=20.0, description="timeout of one search call, seconds")
    deadline_s: float = Field(
        default=60.0, description="a search call's deadline, retries included, seconds"
    )
    max_retries: int = Field(default=3, description="retries of a failed search call")
    max_results_per_query: int = Field(
        default=10, description="results asked of each source per query"
    )
    allow_private_addresses: bool = Field(
        default=False,
        description="let fetching reach private, loopback and link-local addresses (SSRF "
        "guard off)",
    )
    allowed_networks: list[str] = Field(
        default=[],
        description="networks (CIDR) fetching may reach despite the SSRF guard, e.g. "
        "127.0.0.0/8 (narrower than allow_private_addresses)",
    )
    max_download_mb: int = Field(default=50, description="largest document fetched, MB")
    max_redirects: int = Field(default=5, description="redirects followed by one fetch")
    concurrent_downloads: int = Field(default=3, description="PDF downloads at once (DESIGN §6)")


class IngestSettings(BaseModel):
    max_upload_mb: int = Field(default=50, description="largest file accepted, MB")
    max_pages: int = Field(default=300, description="most pages of a PDF accepted")
    chunk_overlap: float = Field(
        default=0.12,
        description="overlap between consecutive chunks, a fraction of the model window (10–15%)",
    )
    dedup_title_jaccard: float = Field(
        default=0.5,
        description="title Jaccard (stop words removed) at which a document is a duplicate "
        "(DESIGN §6)",
    )
    dedup_embedding: float = Field(
        default=0.7,
        description="mean-embedding cosine at which a document without a scholarly id is a "
        "duplicate (DESIGN §6)",
    )
    # Budgets of the parse sandbox (issue 34; ingest/untrusted.py, docs/BENCHMARKS.md).
    parse_memory_mb: int = Field(
        default=1024,
        ge=64,
        description="memory one document's parse may use (its child process's address "
        "space above what it starts with), MB",
    )
    parse_timeout_s: float = Field(
        default=180.0, gt=0, description="longest parse of one document (wall and CPU), seconds"
    )
    page_timeout_s: float = Field(
        default=30.0, gt=0, description="longest time spent on one PDF page, seconds"
    )
    max_page_content_mb: int = Field(
        default=64,
        ge=1,
        description="what one PDF page's content streams may inflate to, MB (the largest "
        "page of the shared papers: 0.34 MB)",
    )
    max_document_content_mb: int = Field(
        default=512, ge=1, description="what a PDF's content streams may inflate to in all, MB"
    )
    max_image_mb: int = Field(
        default=256, ge=1, description="largest decoded size an image in a PDF may declare, MB"
    )
    max_html_mb: int = Field(default=10, ge=1, description="largest HTML page parsed, MB")
    parse_concurrency: int = Field(
        default=2, ge=1, description="documents parsed at once (each in its own process)"
    )


class KnowledgeSettings(BaseModel):
    claim_chunk_limit: int = Field(
        default=15, description="claims are taken from a source's first N chunks (DESIGN §6)"
    )
    evidence_min_similarity: float = Field(
        default=0.55,
        description="cosine (claim vs passage) at which another source's passage is "
        "recorded as evidence",
    )
    evidence_per_claim: int = Field(
        default=3, description="other sources (best passage each) searched per claim"
    )
    evidence_backward_limit: int = Field(
        default=30,
        ge=0,
        description="an added source's passages are recorded as evidence for at most this "
        "many (the most similar) claims of the other sources",
    )
    max_llm_evidence_calls: int = Field(
        default=40,
        description="evidence classifications per update with a model; the rest stay "
        "'related' with their score",
    )
    llm_concurrency: int = Field(default=4, description="model calls of one update at once")
    wiki_central_pages: int = Field(
        default=50,
        description="the offline wiki keeps a page for (at most) this many most central concepts",
    )
    link_batch: int = Field(
        default=8,
        ge=1,
        description="research runs: new sources linked by one knowledge update (at most) and "
        "ingested together; ingest runs at most this many sources ahead of linking",
    )
    refresh_delay_s: float = Field(
        default=10.0,
        ge=0,
        description="seconds without a knowledge update before the debounced "
        "knowledge.refresh job recomputes centrality, levels, clusters and central wiki pages "
        "after uploads; 0 runs the refresh inline at the end of each upload job",
    )


class AnswerSettings(BaseModel):
    history_messages: int = Field(
        default=10,
        description="messages of a conversation passed to a follow-up as history (DESIGN §1)",
    )
    title_chars: int = Field(
        default=64, description="characters of a first question that title its conversation"
    )
    wiki_chunks: int = Field(
        default=5, description="chunks beside a matching wiki page in an answer's context"
    )
    hybrid_chunks: int = Field(
        default=10, description="chunks in an answer's context without a matching wiki page"
    )


class JobSettings(BaseModel):
    pipeline_concurrency: int = Field(
        default=1, description="research pipelines at once per process (DESIGN §6)"
    )
    stale_after_s: float = Field(
        default=60.0,
        description="a running job whose heartbeat is older than this is marked interrupted",
    )
    heartbeat_s: float = Field(default=5.0, description="seconds between a job's heartbeats")
    max_attempts: int = Field(
        default=3,
        ge=1,
        description="runs a job gets in all when its process keeps dying: the sweep resumes "
        "an interrupted job from its checkpoint until it has had this many, then leaves it "
        "failed with the reason",
    )
    resume_within_s: float = Field(
        default=86400.0,
        gt=0,
        description="the sweep resumes only jobs interrupted at most this many seconds ago",
    )
    sweep_interval_s: float = Field(
        default=10.0,
        gt=0,
        description="seconds between sweeps for stale jobs (API process and every worker)",
    )


class AuthSettings(BaseModel):
    mode: Literal["local", "accounts"] = Field(
        default="local",
        description="local: one implicit user, loopback only; accounts: users sign in "
        "(session cookie or API token) and see only their workspaces. `serve` on a "
        "non-loopback address requires accounts",
    )
    session_days: float = Field(
        default=14.0, gt=0, le=366, description="how long a browser stays signed in"
    )
    secure_cookies: bool = Field(
        default=False,
        description="mark the session cookie Secure (set when served over HTTPS)",
    )
    # Sign-in back-off (issue 34): attempts are counted per account and per client
    # address; past the free ones each attempt is followed by a block that doubles.
    sign_in_free_attempts: int = Field(
        default=5, ge=1, description="sign-in attempts per account before the back-off starts"
    )
    sign_in_free_attempts_per_address: int = Field(
        default=20,
        ge=1,
        description="sign-in attempts from one client address before the back-off starts",
    )
    sign_in_backoff_s: float = Field(
        default=1.0, gt=0, description="the first back-off after the free attempts, seconds"
    )
    sign_in_backoff_max_s: float = Field(
        default=900.0, gt=0, description="the longest back-off (each doubles up to it), seconds"
    )
    sign_in_forget_s: float = Field(
        default=3600.0,
        gt=0,
        description="quiet time after which an account's or address's attempts are forgotten",
    )
    password_hash_threads: int = Field(
        default=1,
        ge=1,
        description="password hashes (argon2, 64 MiB each) computed at once, in low-priority "
        "threads off the event loop",
    )


class RetrievalSettings(BaseModel):
    fusion: Literal["score", "rrf"] = Field(
        default="score",
        description="'score': legs' scores min-max scaled and summed; 'rrf': reciprocal "
        "rank fusion (docs/decisions/0005-relative-score-fusion.md)",
    )
    rrf_k: int = Field(default=60, description="k of reciprocal rank fusion")
    wiki_first_threshold: float = Field(
        default=0.75,
        description="a wiki page at least this similar to the question leads the context",
    )
    hnsw_ef_search: int = Field(
        default=400,
        description="pgvector HNSW ef_search of queries (400: recall@100 0.977 at 1M chunks, "
        "200: 0.936; docs/BENCHMARKS.md)",
    )
    prf_docs: int = Field(
        default=0,
        description="pseudo-relevance feedback: the vector leg searches again with the query "
        "vector moved towards the mean embedding of this many first-pass fused chunks (0: off)",
    )
    prf_weight: float = Field(
        default=0.5,
        description="weight of the feedback chunks' mean (unit length) added to the unit query "
        "vector before the second vector search",
    )
    prf_mode: Literal["replace", "add"] = Field(
        default="replace",
        description="'replace': the feedback search replaces the vector leg; 'add': it is fused "
        "as a fourth leg",
    )
    lexical_exact: bool = Field(
        default=False,
        description="exact BM25 in the lexical leg: read every posting of every query term "
        "(slow on large workspaces; for evaluation). False: top postings by impact, "
        "candidates scored exactly (docs/decisions/0010-impact-ordered-postings.md)",
    )
    rerank_model_dir: Path | None = Field(
        default=None,
        description="folder of an ONNX cross-encoder (model.onnx, tokenizer.json); unset: "
        "no rerank (the cross-encoder trained by eval/reranker/train.sh measured no better "
        "than the fusion, docs/EVAL.md)",
    )
    rerank_threads: int = Field(
        default=1,
        ge=1,
        le=64,
        description="onnxruntime threads of one cross-encoder call (1: concurrent requests "
        "each take a core instead of contending)",
    )
    calibration_path: Path | None = Field(
        default=None,
        description="the refusal calibration file (unset: <repo>/eval/calibration.json)",
    )


class StorageSettings(BaseModel):
    """Where stored files (uploads, fetched papers) live."""

    backend: Literal["local", "s3"] = Field(
        default="local",
        description="local: a directory under home (embedded default); s3: an "
        "S3-compatible bucket (AWS S3, MinIO, Ceph) shared by every API process and worker",
    )
    s3_bucket: str = Field(default="marginalia", description="the bucket (backend s3)")
    s3_endpoint_url: str | None = Field(
        default=None,
        description="the S3 API's URL, e.g. http://127.0.0.1:9000 for MinIO (unset: AWS)",
    )
    s3_region: str = Field(default="us-east-1", description="the bucket's region")
    s3_access_key_id: str | None = Field(
        default=None, description="access key (unset: boto3's usual credential chain)"
    )
    s3_secret_access_key: SecretStr | None = Field(
        default=None, description="secret key (unset: boto3's usual credential chain)"
    )
    s3_prefix: str = Field(default="files/", description="key prefix of the stored objects")
    s3_create_bucket: bool = Field(
        default=False, description="create the bucket at start-up when it does not exist"
    )


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="MARGINALIA_",
        env_nested_delimiter="__",
        env_file=".env",
        extra="ignore",
    )

    home: Path = Field(
        default_factory=_default_home,
        description="where the embedded database, files and models live",
    )
    database_url: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("MARGINALIA_DATABASE_URL", "DATABASE_URL"),
        description="PostgreSQL URL (unset: the embedded server under home)",
    )
    database_check_s: float = Field(
        default=1.0,
        gt=0,
        description="seconds between `serve`'s checks that the embedded PostgreSQL runs "
        "(it is started again when it died)",
    )
    redis_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("MARGINALIA_REDIS_URL", "REDIS_URL"),
        description="Redis URL: jobs run on arq workers (unset: in-process)",
    )
    host: str = Field(default="127.0.0.1", description="address `marginalia serve` binds")
    port: int = Field(default=8000, description="port `marginalia serve` binds")
    allowed_hosts: list[str] = Field(
        default=["localhost", "127.0.0.1", "::1"],
        description="Host header names the API answers (DNS rebinding guard); the address "
        "`serve` binds is added when it is not a wildcard. JSON list in the environment",
    )
    catalog_path: Path | None = Field(
        default=None, description="the local paper catalog (JSON Lines) research searches"
    )
    log_level: str = Field(default="INFO", description="log level of the marginalia loggers")

    embedding: EmbeddingSettings = Field(
        default_factory=EmbeddingSettings, description="the embedding model"
    )
    llm: LLMSettings = Field(default_factory=LLMSettings, description="the language model")
    sources: SourceSettings = Field(
        default_factory=SourceSettings, description="external sources and fetching"
    )
    ingest: IngestSettings = Field(default_factory=IngestSettings, description="reading documents")
    knowledge: KnowledgeSettings = Field(
        default_factory=KnowledgeSettings, description="the knowledge layer"
    )
    answer: AnswerSettings = Field(default_factory=AnswerSettings, description="answers")
    jobs: JobSettings = Field(default_factory=JobSettings, description="jobs")
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings, description="retrieval")
    storage: StorageSettings = Field(
        default_factory=StorageSettings, description="stored files: local directory or S3"
    )
    auth: AuthSettings = Field(
        default_factory=AuthSettings, description="who may use the API: local or accounts"
    )

    @property
    def pgdata_dir(self) -> Path:
        return self.home / "pgdata"

    @property
    def files_dir(self) -> Path:
        return self.home / "files"

    @property
    def models_dir(self) -> Path:
        return self.home / "models"

    def masked(self) -> dict[str, Any]:
        """The effective settings as plain data, secrets masked (for `marginalia config`)."""
        data: dict[str, Any] = self.model_dump(mode="json")
        if self.database_url is not None:
            data["database_url"] = _mask_url(self.database_url.get_secret_value())
        return data

    def described(self) -> list[tuple[str, Any, str]]:
        """``(dotted name, effective value, description)`` of every leaf setting, secrets
        masked, in declaration order."""
        return list(_describe(self, self.masked(), ""))


def _describe(
    model: BaseModel, data: dict[str, Any], prefix: str
) -> Iterator[tuple[str, Any, str]]:
    for name, info in type(model).model_fields.items():
        value = getattr(model, name)
        if isinstance(value, BaseModel):
            yield from _describe(value, data[name], f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", data[name], info.description or ""


def _mask_url(url: str) -> str:
    # postgresql://user:password@host/db -> postgresql://user:***@host/db
    if "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    creds, host = rest.rsplit("@", 1)
    if ":" in creds:
        creds = creds.split(":", 1)[0] + ":***"
    return f"{scheme}://{creds}@{host}"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The settings of this process's environment — for entry points only (the CLI's
    ``main``, ``marginalia serve``, the arq worker, Alembic); nothing else calls it."""
    return Settings()


def reset_settings_cache() -> None:
    get_settings.cache_clear()
