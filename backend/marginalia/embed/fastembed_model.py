"""Embeddings with fastembed (ONNX Runtime), the default and only embedder.

The default model is all-MiniLM-L6-v2 with int8 weights, assembled from registry
packages by :func:`marginalia.embed.assets.ensure_default_model` and loaded by
fastembed from that folder (``specific_model_path``) as a custom model: mean pooling
over the attention mask + L2 normalisation, which is what the sentence-transformers
pipeline of all-MiniLM-L6-v2 does (Transformer -> Pooling(mean) -> Normalize). No hub
access happens on that path.

Any other fastembed model name is loaded by fastembed the usual way, with its cache
under ``models_dir/fastembed`` (this needs the hub, or a pre-filled cache).

ONNX work runs in worker threads, so the event loop never blocks on it: a call's
batches run back to back in up to ``max_concurrency`` threads at once (hopping through
the event loop between batches left the model idle whenever the loop was busy — storing
the previous documents, say). By default each batch is one single-threaded ONNX run and
there are as many slots as cores: two one-thread runs embed as fast as one two-thread
run, and when other work (parsing, PostgreSQL) takes a core for a moment only the run on
that core waits, where a two-thread run's every operator would wait for its slower half
(docs/BENCHMARKS.md). Batches take turns (:class:`BatchTurns`): a query waiting behind
a long ingest runs after a batch in progress, not after the whole ingest, and of two
long calls the older goes first. Inputs longer than the window are refused, never
truncated.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import json
import logging
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from marginalia.embed.assets import DEFAULT_DIM, DEFAULT_MAX_TOKENS, ensure_default_model
from marginalia.embed.base import EmbeddingError, FloatArray, InputTooLongError, l2_normalise

if TYPE_CHECKING:
    from tokenizers import Tokenizer

    from marginalia.config import EmbeddingSettings

log = logging.getLogger(__name__)

#: The name the configuration uses for the offline default.
DEFAULT_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
#: The id recorded with stored vectors: int8 weights differ slightly from fastembed's own
#: fp32 export of the same model, so vectors of the two are not mixed in one database.
DEFAULT_MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2@onnx-int8"
#: Name under which the local folder is registered as a fastembed custom model (fastembed
#: already knows DEFAULT_MODEL_NAME and refuses to register it again).
_CUSTOM_MODEL_NAME = "marginalia/all-MiniLM-L6-v2-onnx-int8"
_CUSTOM_HF_SOURCE = "sentence-transformers/all-MiniLM-L6-v2"  # informational only

_register_lock = threading.Lock()


def _register_default_custom_model() -> None:
    from fastembed import TextEmbedding
    from fastembed.common.model_description import ModelSource, PoolingType

    with _register_lock:
        known = {m["model"].lower() for m in TextEmbedding.list_supported_models()}
        if _CUSTOM_MODEL_NAME.lower() in known:
            return
        TextEmbedding.add_custom_model(
            model=_CUSTOM_MODEL_NAME,
            pooling=PoolingType.MEAN,
            normalization=True,
            sources=ModelSource(hf=_CUSTOM_HF_SOURCE),
            dim=DEFAULT_DIM,
            model_file="model.onnx",
            description="all-MiniLM-L6-v2, int8 ONNX, assembled from registry packages",
            license="apache-2.0",
            size_in_gb=0.023,
        )


def _counts_add_up(config: dict[str, Any]) -> bool:
    """From a tokenizer.json: WordPiece, after BERT's normaliser (or none) and BERT's
    pre-tokenizer (splits at whitespace and punctuation), with a post-processor that
    adds the same special tokens to any single text."""

    def kind(part: str) -> str | None:
        value = config.get(part)
        return value.get("type") if isinstance(value, dict) else None

    return (
        kind("model") == "WordPiece"
        and kind("normalizer") in (None, "BertNormalizer")
        and kind("pre_tokenizer") == "BertPreTokenizer"
        and kind("post_processor") in ("TemplateProcessing", "BertProcessing")
    )


class EmbeddingCancelled(EmbeddingError):
    """The caller went away; the remaining batches were not embedded."""


class BatchTurns:
    """At most ``slots`` batches run at once; waiting batches are served by rank, then
    in arrival order.

    The embedder ranks a one-batch call (a query) before every batch of a longer call,
    and longer calls oldest first: so a query cuts into a long ingest after the batch in
    progress, and of two calls queued by a pipeline the older one finishes first instead
    of both finishing late. A caller that finishes a batch and wants another queues
    behind everyone of its rank already waiting.
    """

    def __init__(self, slots: int) -> None:
        self._free = slots
        self._waiting: list[tuple[tuple[int, ...], int]] = []  # a heap of (rank, arrival)
        self._arrivals = itertools.count()
        self._changed = threading.Condition()

    @contextmanager
    def turn(self, rank: tuple[int, ...] = ()) -> Iterator[None]:
        ticket = (rank, next(self._arrivals))
        with self._changed:
            heapq.heappush(self._waiting, ticket)
            self._changed.wait_for(lambda: self._free > 0 and self._waiting[0] == ticket)
            heapq.heappop(self._waiting)
            self._free -= 1
            self._changed.notify_all()
        try:
            yield
        finally:
            with self._changed:
                self._free += 1
                self._changed.notify_all()


class FastEmbedEmbedder:
    """An :class:`~marginalia.embed.base.Embedder` backed by fastembed.

    Construction is cheap; the model loads lazily, once, on first use (thread-safe).
    """

    def __init__(
        self,
        models_dir: Path,
        *,
        model: str = DEFAULT_MODEL_NAME,
        dim: int | None = None,
        max_tokens: int | None = None,
        batch_size: int = 32,
        max_concurrency: int = 1,
        threads: int | None = None,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be >= 1")
        self.models_dir = Path(models_dir)
        self.model_name = model
        self.is_default = model.lower() == DEFAULT_MODEL_NAME.lower()
        self.batch_size = batch_size
        self.max_concurrency = max_concurrency
        self.threads = threads

        if self.is_default:
            self.model_id = DEFAULT_MODEL_ID
            known_dim = DEFAULT_DIM
            self.max_tokens = DEFAULT_MAX_TOKENS if max_tokens is None else max_tokens
            if self.max_tokens > DEFAULT_MAX_TOKENS:
                raise EmbeddingError(
                    f"max_tokens={self.max_tokens} exceeds the {DEFAULT_MAX_TOKENS}-token window "
                    f"of {model}"
                )
        else:
            self.model_id = model
            known_dim = self._fastembed_dim(model)
            # The real window is read from the tokenizer at load time and checked then.
            self.max_tokens = 512 if max_tokens is None else max_tokens
        if dim is not None and dim != known_dim:
            raise EmbeddingError(
                f"embedding dim is configured as {dim} but {model} produces {known_dim}-d "
                "vectors; set MARGINALIA_EMBEDDING__DIM accordingly"
            )
        self.dim = known_dim

        self._load_lock = threading.Lock()
        self._model: Any = None  # fastembed.TextEmbedding
        self._tokenizer: Tokenizer | None = None
        self._counts_add_up = False
        self._turns = BatchTurns(max_concurrency)
        self._calls = itertools.count()  # ranks longer calls, oldest first
        # Callers waiting for a turn wait in these threads, not in the event loop's
        # default pool, which parsing and file work share.
        self._threads = ThreadPoolExecutor(
            max_workers=max_concurrency + 7, thread_name_prefix="embed"
        )
        # A call's extra workers (its own thread is the first). They never submit work
        # themselves, so a full pool only delays them: the caller's thread does the rest.
        self._helpers = ThreadPoolExecutor(
            max_workers=max(1, max_concurrency - 1) * 2, thread_name_prefix="embed-batch"
        )

    @classmethod
    def from_settings(cls, embedding: EmbeddingSettings, models_dir: Path) -> FastEmbedEmbedder:
        """From ``settings.embedding`` and ``settings.models_dir``."""
        return cls(
            models_dir,
            model=embedding.model,
            dim=embedding.dim,
            max_tokens=embedding.max_tokens,
            batch_size=embedding.batch_size,
            max_concurrency=embedding.max_concurrency,
            threads=embedding.threads,
        )

    def __repr__(self) -> str:
        return f"FastEmbedEmbedder(model_id={self.model_id!r}, dim={self.dim})"

    # ------------------------------------------------------------------ loading

    @staticmethod
    def _fastembed_dim(model: str) -> int:
        from fastembed import TextEmbedding

        try:
            return int(TextEmbedding.get_embedding_size(model))
        except ValueError as exc:
            raise EmbeddingError(
                f"{model!r} is not a fastembed text embedding model "
                "(see fastembed.TextEmbedding.list_supported_models())"
            ) from exc

    def _ensure_model(self) -> Any:
        model = self._model
        if model is not None:
            return model
        with self._load_lock:
            if self._model is None:
                self._load_model()
            return self._model

    def _ensure_tokenizer(self) -> Tokenizer:
        tokenizer = self._tokenizer
        if tokenizer is not None:
            return tokenizer
        if not self.is_default:
            # Other models: the tokenizer comes with the model fastembed loads.
            self._ensure_model()
            assert self._tokenizer is not None
            return self._tokenizer
        with self._load_lock:
            if self._tokenizer is None:
                # The default: the tokenizer alone, read by fastembed's own loader from the
                # assembled folder, so counting never waits for the ONNX session.
                from fastembed.common.preprocessor_utils import load_tokenizer

                folder = ensure_default_model(self.models_dir)
                try:
                    fe_tokenizer, _ = load_tokenizer(folder)
                except Exception as exc:
                    raise EmbeddingError(f"cannot load the tokenizer in {folder}: {exc}") from exc
                self._set_tokenizer(fe_tokenizer)
            assert self._tokenizer is not None
            return self._tokenizer

    def _set_tokenizer(self, fe_tokenizer: Tokenizer) -> None:
        """Keep a copy of the tokenizer fastembed feeds the model (same vocab, normaliser,
        special tokens) with truncation and padding off, so counts are exact."""
        from tokenizers import Tokenizer

        window = (fe_tokenizer.truncation or {}).get("max_length")
        if isinstance(window, int) and self.max_tokens > window:
            raise EmbeddingError(
                f"max_tokens={self.max_tokens} exceeds the {window}-token window of "
                f"{self.model_name}; set MARGINALIA_EMBEDDING__MAX_TOKENS <= {window}"
            )
        config = fe_tokenizer.to_str()
        counter = Tokenizer.from_str(config)
        counter.no_truncation()
        counter.no_padding()
        self._counts_add_up = _counts_add_up(json.loads(config))
        self._tokenizer = counter

    def _load_model(self) -> None:
        from fastembed import TextEmbedding

        try:
            if self.is_default:
                folder = ensure_default_model(self.models_dir)
                _register_default_custom_model()
                model = TextEmbedding(
                    model_name=_CUSTOM_MODEL_NAME,
                    specific_model_path=str(folder),
                    cache_dir=str(self.models_dir / "fastembed"),
                    threads=self.threads,
                    local_files_only=True,
                )
            else:
                model = TextEmbedding(
                    model_name=self.model_name,
                    cache_dir=str(self.models_dir / "fastembed"),
                    threads=self.threads,
                )
        except EmbeddingError:
            raise
        except Exception as exc:
            raise EmbeddingError(
                f"could not load embedding model {self.model_name}: {exc}"
            ) from exc

        fe_tokenizer = getattr(model.model, "tokenizer", None)
        if fe_tokenizer is None:
            raise EmbeddingError(f"{self.model_name}: fastembed exposes no tokenizer to count with")
        if self._tokenizer is None:
            self._set_tokenizer(fe_tokenizer)
        self._model = model
        log.info(
            "loaded embedding model %s (dim %d, window %d)",
            self.model_id,
            self.dim,
            self.max_tokens,
        )

    def load(self) -> None:
        """Load the model now (otherwise it loads on first use); blocking."""
        self._ensure_model()
        self._ensure_tokenizer()

    # ------------------------------------------------------------------ tokens

    def count_tokens(self, text: str) -> int:
        tokenizer = self._ensure_tokenizer()
        return len(tokenizer.encode(text, add_special_tokens=True).ids)

    @property
    def counts_add_up(self) -> bool:
        """Whether the count of texts joined by whitespace is the sum of their counts
        (without the special tokens): true of WordPiece behind BERT's normaliser and
        pre-tokenizer, which never make a token across a word break. The chunker then
        need not count its chunks again (``chunk_document(counts_add_up=...)``)."""
        self._ensure_tokenizer()
        return self._counts_add_up

    def count_tokens_batch(self, texts: Sequence[str]) -> list[int]:
        """:meth:`count_tokens` for many texts at once (faster)."""
        if not texts:
            return []
        tokenizer = self._ensure_tokenizer()
        encodings = tokenizer.encode_batch(list(texts), add_special_tokens=True)
        return [len(e.ids) for e in encodings]

    def _plan(self, texts: Sequence[str]) -> list[list[int]]:
        """Check every text against the window, then group indices into batches.

        Batches are formed in order of token count, so each batch is padded to a
        similar length (fastembed pads to the longest in the batch): less padding,
        same vectors. Results are put back in input order by the callers.
        """
        counts = self.count_tokens_batch(texts)
        for i, n in enumerate(counts):
            if n > self.max_tokens:
                raise InputTooLongError(i, n, self.max_tokens, self.model_id)
        # Longest first: with several batches running at once, the call's last batches are
        # its shortest, so a slot left without work at the end idles least.
        order = sorted(range(len(counts)), key=counts.__getitem__, reverse=True)
        size = self.batch_size
        batches = [order[i : i + size] for i in range(0, len(order), size)]
        slots = self.max_concurrency
        if slots > 1 and len(batches) > 1:
            # The last batches run while other slots may have nothing left to do: cut in
            # quarters, they finish closer together (same passages, same padding).
            tail = [i for batch in batches[-slots:] for i in batch]
            piece = max(1, size // 4)
            batches = batches[:-slots] + [tail[i : i + piece] for i in range(0, len(tail), piece)]
        return batches

    @staticmethod
    def _as_list(texts: Sequence[str]) -> list[str]:
        if isinstance(texts, str):
            raise TypeError("embed_documents expects a sequence of strings, not a string")
        out = list(texts)
        for i, t in enumerate(out):
            if not isinstance(t, str):
                raise TypeError(f"input #{i} is {type(t).__name__}, not str")
        return out

    def _embed_batch(self, texts: list[str]) -> FloatArray:
        """Embed one batch of texts already checked against the window."""
        model = self._ensure_model()
        try:
            rows = list(model.embed(texts, batch_size=len(texts)))
        except Exception as exc:
            raise EmbeddingError(f"{self.model_id} failed to embed: {exc}") from exc
        arr = np.asarray(rows, dtype=np.float32)
        if arr.shape != (len(texts), self.dim):
            raise EmbeddingError(
                f"{self.model_id} returned shape {arr.shape}, expected {(len(texts), self.dim)}"
            )
        return l2_normalise(arr, model_id=self.model_id)

    def _embed_all(self, items: list[str], stop: threading.Event | None = None) -> FloatArray:
        """Every batch of ``items``, each in its turn, in this thread and up to
        ``max_concurrency - 1`` helpers."""
        out = np.empty((len(items), self.dim), dtype=np.float32)
        if not items:
            return out
        # Every input is checked before anything is embedded (this loads the model if needed).
        plan = self._plan(items)
        batches = iter(plan)
        rank = (0,) if len(plan) == 1 else (1, next(self._calls))
        taking = threading.Lock()
        failed = threading.Event()  # one worker failed: the others stop too

        def work() -> None:
            while True:
                with taking:
                    idx = next(batches, None)
                if idx is None or failed.is_set():
                    return
                with self._turns.turn(rank):
                    if stop is not None and stop.is_set():
                        raise EmbeddingCancelled("embedding cancelled by the caller")
                    if failed.is_set():
                        return
                    try:
                        out[idx] = self._embed_batch([items[i] for i in idx])
                    except BaseException:
                        failed.set()
                        raise

        helpers = [
            self._helpers.submit(work) for _ in range(min(self.max_concurrency, len(plan)) - 1)
        ]
        try:
            work()
        finally:
            # `out` is returned (or dropped) only once no helper can still write to it.
            for helper in helpers:
                helper.exception()
        for helper in helpers:
            helper.result()  # a helper's failure is the call's failure
        return out

    def embed_documents_sync(self, texts: Sequence[str]) -> FloatArray:
        return self._embed_all(self._as_list(texts))

    def embed_query_sync(self, text: str) -> FloatArray:
        return self.embed_documents_sync([text])[0]

    async def embed_documents(self, texts: Sequence[str]) -> FloatArray:
        items = self._as_list(texts)
        stop = threading.Event()
        try:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._threads, self._embed_all, items, stop)
        except asyncio.CancelledError:
            stop.set()  # the thread stops before its next batch
            raise

    async def embed_query(self, text: str) -> FloatArray:
        return (await self.embed_documents([text]))[0]
