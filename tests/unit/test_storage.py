from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from marginalia.errors import NotFoundError
from marginalia.storage import LocalFileStore


def test_content_addressed_and_idempotent(tmp_path: Path) -> None:
    store = LocalFileStore(tmp_path)
    first = store.put(b"hello paper")
    again = store.put(b"hello paper")
    assert first == again
    assert first.key == hashlib.sha256(b"hello paper").hexdigest()
    assert store.get(first.key) == b"hello paper"
    assert store.read_range(first.key, 6, 10) == b"paper"
    assert store.size(first.key) == 11
    assert not list(tmp_path.rglob(".incoming-*"))


def test_unknown_and_malformed_keys(tmp_path: Path) -> None:
    store = LocalFileStore(tmp_path)
    with pytest.raises(NotFoundError):
        store.get("0" * 64)
    with pytest.raises(NotFoundError):
        store.get("../../etc/passwd")
