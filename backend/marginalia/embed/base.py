"""The embedding interface every stage codes against.

An :class:`Embedder` turns text into L2-normalised float32 vectors of a fixed
dimension. It never truncates: an input longer than the model window is refused
with :class:`EmbeddingError` (DESIGN §5, invariant 1), and chunkers size their
chunks with :meth:`Embedder.count_tokens` so that never happens in practice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float32]


class EmbeddingError(Exception):
    """An input, a model or its files cannot produce a valid embedding."""


class InputTooLongError(EmbeddingError):
    """An input has more tokens than the model window (nothing is truncated)."""

    def __init__(self, index: int, n_tokens: int, max_tokens: int, model_id: str) -> None:
        self.index = index
        self.n_tokens = n_tokens
        self.max_tokens = max_tokens
        self.model_id = model_id
        super().__init__(
            f"input #{index} has {n_tokens} tokens (special tokens included), more than the "
            f"{max_tokens}-token window of {model_id}; split it before embedding "
            "(inputs are never truncated)"
        )


@runtime_checkable
class Embedder(Protocol):
    """A text embedding model.

    ``model_id`` and ``dim`` are pinned per database (invariant 2); ``max_tokens`` is the
    window chunks are sized under, counted with :meth:`count_tokens`.
    """

    model_id: str
    dim: int
    max_tokens: int

    def count_tokens(self, text: str) -> int:
        """Model tokens of ``text`` including special tokens ([CLS]/[SEP]); no truncation."""
        ...

    async def embed_documents(self, texts: Sequence[str]) -> FloatArray:
        """float32 array of shape ``(len(texts), dim)``, each row of unit L2 norm."""
        ...

    async def embed_query(self, text: str) -> FloatArray:
        """float32 array of shape ``(dim,)`` of unit L2 norm."""
        ...

    def embed_documents_sync(self, texts: Sequence[str]) -> FloatArray:
        """Blocking variant of :meth:`embed_documents` (benchmarks, scripts)."""
        ...

    def embed_query_sync(self, text: str) -> FloatArray:
        """Blocking variant of :meth:`embed_query`."""
        ...


def l2_normalise(vectors: npt.NDArray[np.floating], *, model_id: str = "model") -> FloatArray:
    """Row-wise L2 normalisation in float32; refuses non-finite or all-zero rows.

    Applied to every vector an embedder returns, whatever the model already did
    (invariant 2).
    """
    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim != 2:
        raise EmbeddingError(f"{model_id} returned an array of shape {arr.shape}, expected 2-d")
    if not np.isfinite(arr).all():
        raise EmbeddingError(f"{model_id} returned non-finite values (NaN or inf)")
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    if arr.shape[0] and float(norms.min()) <= 1e-12:
        raise EmbeddingError(f"{model_id} returned a zero vector, which cannot be normalised")
    out = (arr / norms).astype(np.float32, copy=False)
    if not np.isfinite(out).all():  # pragma: no cover - guarded above
        raise EmbeddingError(f"{model_id} produced non-finite values after normalisation")
    return out


def normalised_mean(vectors: npt.NDArray[np.floating]) -> FloatArray:
    """The mean of ``vectors`` scaled to unit length (a zero mean is returned as is)."""
    mean = np.asarray(vectors, dtype=np.float32).mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return (mean / norm if norm > 0 else mean).astype(np.float32)
