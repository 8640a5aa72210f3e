"""Bind values the knowledge queries share (JSON text, ANY arrays)."""

from __future__ import annotations

from typing import Any

import numpy as np


def json_value(value: Any) -> str:
    import json

    return json.dumps(value)


def any_array(value: Any) -> Any:
    return value


def vector_array(vector: np.ndarray | None) -> Any:
    # pgvector columns accept numpy arrays; the model declares list[float].
    return vector
