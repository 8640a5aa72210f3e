"""Text embeddings (DESIGN §4): a small protocol and its fastembed implementation."""

from __future__ import annotations

from marginalia.embed.assets import ModelAssetsError, ensure_default_model
from marginalia.embed.base import Embedder, EmbeddingError, InputTooLongError, l2_normalise
from marginalia.embed.fastembed_model import (
    DEFAULT_MODEL_ID,
    DEFAULT_MODEL_NAME,
    FastEmbedEmbedder,
)

__all__ = [
    "DEFAULT_MODEL_ID",
    "DEFAULT_MODEL_NAME",
    "Embedder",
    "EmbeddingError",
    "FastEmbedEmbedder",
    "InputTooLongError",
    "ModelAssetsError",
    "ensure_default_model",
    "l2_normalise",
]
