"""Stored files, addressed by the SHA-256 of their content."""

from marginalia.storage.base import FileStore, StoredFile, content_hash
from marginalia.storage.local import LocalFileStore

__all__ = ["FileStore", "LocalFileStore", "StoredFile", "content_hash"]
