"""One validated settings tree for the whole app.

Every value comes from the environment (prefix ``MARGINALIA_``, nested fields with
``__``, e.g. ``MARGINALIA_LLM__PROVIDER=anthropic``) or a ``.env`` file. The two
service URLs also read the conventional un-prefixed ``DATABASE_URL`` / ``REDIS_URL``.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import platformdirs
from pydantic import AliasChoices, BaseModel, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


def _default_home() -> Path:
    return Path(platformdirs.user_data_dir("marginalia", appauthor=False))


class EmbeddingSettings(BaseModel):
    # The offline default (DESIGN §4): all-MiniLM-L6-v2 assembled from registry packages.
    model: str = "sentence-transformers/all-MiniLM-L6-v2"
    dim: int = 384
    # Token window of the model; chunks are sized below it, never truncated (invariant 1).
    max_tokens: int = 256
    # Small batches run fastest on CPU (a batch's activations stay in cache) and pad least:
    # 4 embedded 35.2 passages/s against 32.4 for 16 and 30.0 for 32 (eval/bench_embedder.py,
    # docs/BENCHMARKS.md).
    batch_size: int = 4
    # Batches embedded at once, each a single-threaded ONNX run by default (`threads`):
    # as fast as one run over every core, and steadier when other work shares the CPU.
    max_concurrency: int = Field(default_factory=lambda: min(os.cpu_count() or 1, 8), ge=1)
    # ONNX threads per batch (None: ONNX Runtime's default, every core).
    threads: int | None = Field(default=1, ge=1)


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
    call_deadline_s: float = Field(
        default=60.0,
        gt=0,
        description="Wall time of any other call (decomposition, evidence, wiki, paths, chat).",
    )


class SourceSettings(BaseModel):
    arxiv_base_url: str = "https://export.arxiv.org/api/query"
    openalex_base_url: str = "https://api.openalex.org"
    openalex_email: str | None = None
    brave_base_url: str = "https://api.search.brave.com/res/v1"
    brave_api_key: SecretStr | None = None
    min_interval_s: float = 1.0
    timeout_s: float = 20.0
    deadline_s: float = 60.0
    max_retries: int = 3
    max_results_per_query: int = 10
    # Fetching: SSRF guard (DESIGN: private/loopback/link-local refused unless allowed).
    allow_private_addresses: bool = False
    # Narrower than the switch above: networks (CIDR) fetching may reach, e.g. 127.0.0.0/8.
    allowed_networks: list[str] = []
    max_download_mb: int = 50
    max_redirects: int = 5
    concurrent_downloads: int = 3


class IngestSettings(BaseModel):
    max_upload_mb: int = 50
    max_pages: int = 300
    # Overlap between consecutive chunks, as a fraction of the window (10–15%).
    chunk_overlap: float = 0.12


class JobSettings(BaseModel):
    # One research pipeline at a time per process (DESIGN §6).
    pipeline_concurrency: int = 1
    # A running job whose heartbeat is older than this is considered cut off by a crash.
    stale_after_s: float = 60.0
    heartbeat_s: float = 5.0


class RetrievalSettings(BaseModel):
    # "score": legs' scores min-max scaled and summed; "rrf": reciprocal rank fusion.
    # Measured side by side on SciFact (docs/decisions/0005-relative-score-fusion.md).
    fusion: Literal["score", "rrf"] = "score"
    rrf_k: int = 60
    wiki_first_threshold: float = 0.75
    hnsw_ef_search: int = 200
    rerank_model_dir: Path | None = None
    calibration_path: Path | None = None


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="MARGINALIA_",
        env_nested_delimiter="__",
        env_file=".env",
        extra="ignore",
    )

    home: Path = Field(default_factory=_default_home)
    database_url: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("MARGINALIA_DATABASE_URL", "DATABASE_URL")
    )
    redis_url: str | None = Field(
        default=None, validation_alias=AliasChoices("MARGINALIA_REDIS_URL", "REDIS_URL")
    )
    host: str = "127.0.0.1"
    port: int = 8000
    catalog_path: Path | None = None
    log_level: str = "INFO"

    embedding: EmbeddingSettings = EmbeddingSettings()
    llm: LLMSettings = LLMSettings()
    sources: SourceSettings = SourceSettings()
    ingest: IngestSettings = IngestSettings()
    jobs: JobSettings = JobSettings()
    retrieval: RetrievalSettings = RetrievalSettings()

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
    return Settings()


def reset_settings_cache() -> None:
    get_settings.cache_clear()
