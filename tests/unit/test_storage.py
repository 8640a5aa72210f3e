"""One suite, both stored-file backends: the local directory and an S3 bucket on a real
S3 API server (moto's server mode on 127.0.0.1)."""

from __future__ import annotations

import hashlib
import os
import tracemalloc
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from marginalia.errors import NotFoundError
from marginalia.storage import FileStore, LocalFileStore
from marginalia.storage.s3 import S3FileStore
from tests.support.s3_server import S3Server, running_s3_server


@pytest.fixture(scope="module")
def s3_server() -> Iterator[S3Server]:
    with running_s3_server() as server:
        yield server


@pytest.fixture(params=["local", "s3"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[FileStore]:
    if request.param == "local":
        yield LocalFileStore(tmp_path)
        return
    server: S3Server = request.getfixturevalue("s3_server")
    s3 = S3FileStore(
        bucket=f"test-{uuid.uuid4().hex[:12]}",
        endpoint_url=server.endpoint_url,
        access_key_id=server.access_key_id,
        secret_access_key=server.secret_access_key,
        create_bucket=True,
    )
    yield s3
    s3.close()


def _leftovers(store: FileStore, tmp_path: Path) -> list[str]:
    """Temporary uploads a write left behind."""
    if isinstance(store, S3FileStore):
        listed = store._client.list_objects_v2(Bucket=store.bucket, Prefix="files/incoming/")
        return [o["Key"] for o in listed.get("Contents", [])]
    return [p.name for p in tmp_path.rglob(".incoming-*")]


def test_content_addressed_and_idempotent(store: FileStore, tmp_path: Path) -> None:
    first = store.put(b"hello paper")
    again = store.put(b"hello paper")
    assert first == again
    assert first.key == hashlib.sha256(b"hello paper").hexdigest()
    assert store.get(first.key) == b"hello paper"
    assert store.read_range(first.key, 6, 10) == b"paper"
    assert store.size(first.key) == 11
    assert store.exists(first.key)
    assert not _leftovers(store, tmp_path)


def test_unknown_and_malformed_keys(store: FileStore) -> None:
    with pytest.raises(NotFoundError):
        store.get("0" * 64)
    with pytest.raises(NotFoundError):
        store.size("0" * 64)
    with pytest.raises(NotFoundError):
        store.get("../../etc/passwd")
    with pytest.raises(NotFoundError):
        list(store.iter_range("0" * 64))
    assert not store.exists("0" * 64)


def test_delete(store: FileStore) -> None:
    stored = store.put(b"to be removed")
    store.delete(stored.key)
    assert not store.exists(stored.key)
    store.delete(stored.key)  # deleting twice is not an error


def test_streams_in_and_out_in_pieces(store: FileStore, tmp_path: Path) -> None:
    body = os.urandom(9 * 1024 * 1024 + 123)  # more than one S3 part
    pieces = (body[i : i + 1_000_000] for i in range(0, len(body), 1_000_000))
    stored = store.put_stream(pieces)
    assert stored.key == hashlib.sha256(body).hexdigest() and stored.size == len(body)
    assert store.put(body) == stored  # the same bytes, the same object
    assert not _leftovers(store, tmp_path)
    assert b"".join(store.iter_range(stored.key)) == body
    assert b"".join(store.iter_range(stored.key, 5, 70_004)) == body[5:70_005]
    assert b"".join(store.iter_range(stored.key, len(body) - 10)) == body[-10:]
    assert store.read_range(stored.key, 100, 199) == body[100:200]


def test_an_empty_stream_is_an_empty_file(store: FileStore) -> None:
    stored = store.put_stream(iter([]))
    assert stored.size == 0 and stored.key == hashlib.sha256(b"").hexdigest()
    assert store.get(stored.key) == b""


def test_a_failing_stream_stores_nothing(store: FileStore, tmp_path: Path) -> None:
    def broken() -> Iterator[bytes]:
        yield b"x" * 1000
        raise OSError("the client went away")

    with pytest.raises(OSError):
        store.put_stream(broken())
    assert not store.exists(hashlib.sha256(b"x" * 1000).hexdigest())
    assert not _leftovers(store, tmp_path)


def test_streaming_memory_does_not_grow_with_the_file(store: FileStore) -> None:
    """64 MB in and out while Python's own allocations stay far below the file's size."""
    size, piece = 64 * 1024 * 1024, b"\x01" * (1024 * 1024)
    tracemalloc.start()
    try:
        stored = store.put_stream(piece for _ in range(size // len(piece)))
        _, peak_in = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        total = sum(len(chunk) for chunk in store.iter_range(stored.key))
        _, peak_out = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert stored.size == size and total == size
    assert peak_in < size / 2, f"upload peaked at {peak_in / 1e6:.1f} MB"
    assert peak_out < size / 8, f"download peaked at {peak_out / 1e6:.1f} MB"


def test_keys_lists_every_stored_file_and_nothing_else(store: FileStore) -> None:
    assert list(store.iter_keys()) == []
    first, second = store.put(b"one file"), store.put(b"another file")
    store.put(b"one file")  # stored once
    assert sorted(store.iter_keys()) == sorted([first.key, second.key])
    store.delete(first.key)
    assert list(store.iter_keys()) == [second.key]
