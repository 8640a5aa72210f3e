from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from marginalia.errors import NotFoundError
from marginalia.storage.base import StoredFile, check_key, content_hash, is_key

READ_CHUNK = 64 * 1024


class LocalFileStore:
    """Files under `root/ab/cd/<sha256>`; writes are atomic (temp file + rename)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, key: str) -> Path:
        check_key(key)
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

    def put_stream(self, chunks: Iterable[bytes]) -> StoredFile:
        """Written to a temporary file while hashed, then renamed to its content key."""
        self.root.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.root, prefix=".incoming-")
        digest, size = hashlib.sha256(), 0
        try:
            with os.fdopen(fd, "wb") as handle:
                for chunk in chunks:
                    digest.update(chunk)
                    size += len(chunk)
                    handle.write(chunk)
            path = self._path(digest.hexdigest())
            path.parent.mkdir(parents=True, exist_ok=True)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return StoredFile(key=digest.hexdigest(), size=size)

    def get(self, key: str) -> bytes:
        path = self._path(key)
        if not path.exists():
            raise NotFoundError(f"stored file {key} is missing")
        return path.read_bytes()

    def exists(self, key: str) -> bool:
        return self._path(key).exists()

    def iter_keys(self) -> Iterator[str]:
        if not self.root.is_dir():
            return
        for path in sorted(self.root.glob("??/??/*")):
            name = path.name
            if is_key(name) and path.parent.name == name[2:4] and path.is_file():
                yield name

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

    def iter_range(
        self, key: str, start: int = 0, end_inclusive: int | None = None
    ) -> Iterator[bytes]:
        path = self._path(key)
        if not path.exists():
            raise NotFoundError(f"stored file {key} is missing")
        with path.open("rb") as handle:
            handle.seek(start)
            left = None if end_inclusive is None else end_inclusive - start + 1
            while left is None or left > 0:
                piece = handle.read(READ_CHUNK if left is None else min(READ_CHUNK, left))
                if not piece:
                    break
                if left is not None:
                    left -= len(piece)
                yield piece

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)

    def local_path(self, key: str) -> Path | None:
        path = self._path(key)
        return path if path.exists() else None

    def close(self) -> None:
        return None
