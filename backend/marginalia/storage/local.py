from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

from marginalia.errors import NotFoundError
from marginalia.storage.base import StoredFile, content_hash

_KEY = re.compile(r"^[0-9a-f]{64}$")


class LocalFileStore:
    """Files under `root/ab/cd/<sha256>`; writes are atomic (temp file + rename)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, key: str) -> Path:
        if not _KEY.match(key):
            raise NotFoundError(f"not a stored-file key: {key!r}")
        return self.root / key[:2] / key[2:4] / key

    def put(self, data: bytes) -> StoredFile:
        key = content_hash(data)
        path = self._path(key)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".incoming-")
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        return StoredFile(key=key, size=len(data))

    def get(self, key: str) -> bytes:
        path = self._path(key)
        if not path.exists():
            raise NotFoundError(f"stored file {key} is missing")
        return path.read_bytes()

    def exists(self, key: str) -> bool:
        return self._path(key).exists()

    def size(self, key: str) -> int:
        path = self._path(key)
        if not path.exists():
            raise NotFoundError(f"stored file {key} is missing")
        return path.stat().st_size

    def read_range(self, key: str, start: int, end_inclusive: int) -> bytes:
        path = self._path(key)
        with path.open("rb") as handle:
            handle.seek(start)
            return handle.read(end_inclusive - start + 1)

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)

    def local_path(self, key: str) -> Path | None:
        path = self._path(key)
        return path if path.exists() else None
