from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from marginalia.errors import NotFoundError

_KEY = re.compile(r"^[0-9a-f]{64}$")


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def is_key(name: str) -> bool:
    return bool(_KEY.match(name))


def check_key(key: str) -> str:
    """A stored-file key is a SHA-256 hex digest; anything else (a path, say) is unknown."""
    if not _KEY.match(key):
        raise NotFoundError(f"not a stored-file key: {key!r}")
    return key


@dataclass(frozen=True)
class StoredFile:
    key: str  # the SHA-256 hex digest of the content
    size: int


class FileStore(Protocol):
    """Content-addressed blob storage: a local directory (embedded default) or an
    S3-compatible bucket (settings ``storage.backend``); both pass tests/unit/test_storage.py."""

    def put(self, data: bytes) -> StoredFile: ...

    def put_stream(self, chunks: Iterable[bytes]) -> StoredFile:
        """Store a body arriving in pieces, in constant memory."""
        ...

    def iter_range(
        self, key: str, start: int = 0, end_inclusive: int | None = None
    ) -> Iterator[bytes]:
        """Stream the bytes ``start..end_inclusive`` (default: to the end)."""
        ...

    def get(self, key: str) -> bytes: ...

    def exists(self, key: str) -> bool: ...

    def iter_keys(self) -> Iterator[str]:
        """Every stored file's key (backup walks them; order unspecified)."""
        ...

    def size(self, key: str) -> int: ...

    def read_range(self, key: str, start: int, end_inclusive: int) -> bytes: ...

    def delete(self, key: str) -> None: ...

    def local_path(self, key: str) -> Path | None:
        """A filesystem path when the store has one (lets the API send files directly)."""
        ...

    def close(self) -> None:
        """Release connections (the runtime calls it on shutdown)."""
        ...
