"""The composition root: the long-lived objects of one process, built once from a
:class:`~marginalia.config.Settings` object handed in (never read from the environment
here).

:func:`open_runtime` opens the database (and migrates it), the file store and the job
backend; the embedder, the LLM provider and the reranker are built on first use (the
embedding model takes a second to load, the Anthropic SDK seconds to import) and then
kept: one provider per process, closed by :meth:`Runtime.close` with everything else.

Stages never see this class. Each declares the narrow protocol of what it uses
(:class:`marginalia.knowledge.context.KnowledgeContext`,
:class:`marginalia.retrieval.hybrid.RetrievalContext`,
:class:`marginalia.answer.context.AnswerContext`,
:class:`marginalia.ingest.pipeline.IngestContext`, …) and a ``Runtime`` satisfies them
all; the use cases (:mod:`marginalia.usecases`) pass it down.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from marginalia.config import Settings
from marginalia.db import Database, migrate, open_database
from marginalia.db.supervisor import DatabaseSupervisor
from marginalia.embed import Embedder, FastEmbedEmbedder
from marginalia.jobs.backends import InProcessBackend, JobBackend, make_backend
from marginalia.jobs.service import JobService
from marginalia.llm import LLMProvider, make_provider
from marginalia.retrieval.rerank import Reranker, reranker_from_settings
from marginalia.storage import FileStore, LocalFileStore


@dataclass
class Runtime:
    settings: Settings
    db: Database
    jobs: JobService
    backend: JobBackend
    files: FileStore
    # The embedded PostgreSQL's supervisor (None with DATABASE_URL); `serve` runs it.
    database: DatabaseSupervisor | None = None
    _embedder: Embedder | None = field(default=None, repr=False)
    _llm: LLMProvider | None = field(default=None, repr=False)
    _reranker: Reranker | None = field(default=None, repr=False)
    _reranker_loaded: bool = field(default=False, repr=False)

    @property
    def embedder(self) -> Embedder:
        """The configured embedding model; it loads on first use, not at start-up."""
        if self._embedder is None:
            self._embedder = FastEmbedEmbedder.from_settings(
                self.settings.embedding, self.settings.models_dir
            )
        return self._embedder

    @property
    def llm(self) -> LLMProvider:
        """The configured LLM provider, built once (LLMConfigError when the settings
        cannot make it, e.g. anthropic without a key)."""
        if self._llm is None:
            self._llm = make_provider(self.settings.llm)
        return self._llm

    @property
    def reranker(self) -> Reranker | None:
        """The configured cross-encoder, loaded once; None when rerank is off."""
        if not self._reranker_loaded:
            self._reranker = reranker_from_settings(self.settings.retrieval)
            self._reranker_loaded = True
        return self._reranker

    async def close(self) -> None:
        await self.backend.close()
        self.files.close()
        if self._llm is not None:
            llm, self._llm = self._llm, None
            await llm.aclose()
        await self.db.dispose()


def open_file_store(settings: Settings) -> FileStore:
    """The stored-file backend the settings choose (``storage.backend``)."""
    storage = settings.storage
    if storage.backend == "s3":
        from marginalia.storage.s3 import S3FileStore  # boto3 only when asked for

        secret = storage.s3_secret_access_key
        return S3FileStore(
            bucket=storage.s3_bucket,
            endpoint_url=storage.s3_endpoint_url,
            region=storage.s3_region,
            access_key_id=storage.s3_access_key_id,
            secret_access_key=secret.get_secret_value() if secret else None,
            prefix=storage.s3_prefix,
            create_bucket=storage.s3_create_bucket,
        )
    return LocalFileStore(settings.files_dir)


async def open_runtime(settings: Settings, *, migrate_db: bool = True) -> Runtime:
    db = await asyncio.to_thread(open_database, settings)
    if migrate_db:
        await asyncio.to_thread(
            migrate.upgrade, db.location.url, embedding_dim=settings.embedding.dim
        )
    backend = make_backend(settings.redis_url)
    runtime = Runtime(
        settings=settings,
        db=db,
        jobs=JobService(db, settings, backend),
        backend=backend,
        files=open_file_store(settings),
        database=DatabaseSupervisor(settings, db) if db.location.embedded else None,
    )
    if isinstance(backend, InProcessBackend):
        backend.attach(runtime)
    return runtime
