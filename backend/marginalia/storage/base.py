from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class StoredFile:
    key: str  # the SHA-256 hex digest of the content
    size: int


class FileStore(Protocol):
    """Content-addressed blob storage: local directory now, S3-compatible when scaled out."""

    def put(self, data: bytes) -> StoredFile: ...

    def get(self, key: str) -> bytes: ...

    def exists(self, key: str) -> bool: ...

    def size(self, key: str) -> int: ...

    def read_range(self, key: str, start: int, end_inclusive: int) -> bytes: ...

    def delete(self, key: str) -> None: ...

    def local_path(self, key: str) -> Path | None:
        """A filesystem path when the store has one (lets the API send files directly)."""
        ...
