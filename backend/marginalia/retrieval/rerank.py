"""The optional rerank stage: a cross-encoder scoring (query, passage) pairs.

Off by default: no cross-encoder ships in any package this project can install
(DESIGN §4), and the one trained here from all-MiniLM-L6-v2 (``eval/reranker/train.sh``)
measured no better than the fusion and today's sentence support on data it never saw
(docs/EVAL.md, "A cross-encoder trained here"), so it is not shipped. Point
``settings.retrieval.rerank_model_dir`` (env ``MARGINALIA_RETRIEVAL__RERANK_MODEL_DIR``)
at a folder holding an ONNX export of a cross-encoder — ``model.onnx`` and its
``tokenizer.json`` (e.g. the folder ``eval/reranker/train.sh`` writes, or an export of
cross-encoder/ms-marco-MiniLM-L-6-v2) — and the stage turns on.

A cross-encoder reads query and passage together, truncated to its window: the pair is
cut from the passage side ("only_second"), which only affects the rerank score, never
stored text or embeddings; a query longer than a quarter of the window is cut to that
many words first so that the passage keeps room. Pairs are scored in batches of similar
length (the cost is the padded length), on ``rerank_threads`` onnxruntime threads.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from marginalia.config import RetrievalSettings
from marginalia.errors import MarginaliaError


class RerankerError(MarginaliaError):
    code = "reranker_unavailable"
    status_code = 503


@runtime_checkable
class Reranker(Protocol):
    name: str

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        """One relevance score per passage; higher is more relevant (blocking)."""
        ...


class OnnxCrossEncoder:
    """A cross-encoder exported to ONNX, run with onnxruntime + tokenizers."""

    def __init__(
        self,
        model_dir: Path,
        *,
        batch_size: int = 32,
        max_length: int | None = None,
        threads: int = 1,
    ):
        self.model_dir = Path(model_dir)
        model = self.model_dir / "model.onnx"
        tok = self.model_dir / "tokenizer.json"
        missing = [p.name for p in (model, tok) if not p.is_file()]
        if missing:
            raise RerankerError(
                f"rerank model folder {self.model_dir} lacks {', '.join(missing)} "
                "(expected an ONNX cross-encoder: model.onnx + tokenizer.json)"
            )
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.name = f"onnx:{self.model_dir.name}"
        self.batch_size = batch_size
        self._lock = threading.Lock()
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        try:
            self._session = ort.InferenceSession(
                str(model), options, providers=["CPUExecutionProvider"]
            )
            self._tokenizer = Tokenizer.from_file(str(tok))
            limit = max_length or self._configured_max_length() or 512
        except Exception as exc:  # onnxruntime and tokenizers raise their own types
            raise RerankerError(
                f"rerank model folder {self.model_dir} could not be loaded as an ONNX "
                f"cross-encoder: {str(exc).splitlines()[0][:300]}"
            ) from exc
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer.enable_truncation(max_length=limit, strategy="only_second")
        self._tokenizer.enable_padding()
        # Truncation cuts the passage side only, so the query must leave it room.
        self._query_words = max(8, limit // 4)

    def _configured_max_length(self) -> int | None:
        cfg = self.model_dir / "tokenizer_config.json"
        if not cfg.is_file():
            return None
        try:
            value = json.loads(cfg.read_text(encoding="utf-8")).get("model_max_length")
        except (ValueError, AttributeError) as exc:
            raise RerankerError(f"{cfg} is not a JSON object: {exc}") from exc
        return int(value) if isinstance(value, int | float) and 0 < value <= 8192 else None

    def score(self, query: str, passages: Sequence[str]) -> list[float]:
        if not passages:
            return []
        query = " ".join(query.split()[: self._query_words])
        pairs = [(query, p) for p in passages]
        scores = np.zeros(len(pairs), dtype=np.float64)
        with self._lock:
            self._tokenizer.no_padding()
            lengths = [len(e.ids) for e in self._tokenizer.encode_batch(pairs)]
            self._tokenizer.enable_padding()
            # Batches of similar length: the cost is the padded length.
            order = sorted(range(len(pairs)), key=lambda i: lengths[i])
            for start in range(0, len(order), self.batch_size):
                idx = order[start : start + self.batch_size]
                encodings = self._tokenizer.encode_batch([pairs[i] for i in idx])
                feeds: dict[str, Any] = {}
                if "input_ids" in self._inputs:
                    feeds["input_ids"] = np.array([e.ids for e in encodings], dtype=np.int64)
                if "attention_mask" in self._inputs:
                    feeds["attention_mask"] = np.array(
                        [e.attention_mask for e in encodings], dtype=np.int64
                    )
                if "token_type_ids" in self._inputs:
                    feeds["token_type_ids"] = np.array(
                        [e.type_ids for e in encodings], dtype=np.int64
                    )
                logits = np.asarray(self._session.run(None, feeds)[0], dtype=np.float64)
                scores[idx] = _relevance(logits)
        return scores.tolist()


def _relevance(logits: np.ndarray) -> np.ndarray:
    """(n,) or (n, 1): the score itself; (n, 2+): the last class's logit margin."""
    if logits.ndim == 1:
        return logits
    if logits.shape[1] == 1:
        return logits[:, 0]
    return logits[:, -1] - logits[:, 0]


_cache: dict[Path, Reranker] = {}
_cache_lock = threading.Lock()


def reranker_from_settings(settings: RetrievalSettings) -> Reranker | None:
    """The configured reranker, loaded once per folder; None when rerank is off."""
    if settings.rerank_model_dir is None:
        return None
    path = Path(settings.rerank_model_dir).expanduser().resolve()
    with _cache_lock:
        if path not in _cache:
            _cache[path] = OnnxCrossEncoder(path, threads=settings.rerank_threads)
        return _cache[path]
