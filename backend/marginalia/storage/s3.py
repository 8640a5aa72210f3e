"""Stored files in an S3-compatible bucket (AWS S3, MinIO, Ceph, moto's server in tests).

Same contract as :class:`marginalia.storage.local.LocalFileStore`: objects are addressed
by the SHA-256 of their content (``<prefix>ab/<sha256>``), so a write is idempotent and
two processes storing the same bytes race harmlessly. Large bodies move in parts: a
stream is uploaded part by part to a temporary key while it is hashed, then copied to its
content key — memory stays constant whatever the file's size.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

from marginalia.errors import NotFoundError
from marginalia.storage.base import StoredFile, check_key, content_hash, is_key

#: S3's smallest multipart part (except the last) is 5 MiB.
PART_BYTES = 8 * 1024 * 1024
READ_CHUNK = 64 * 1024


def _missing(exc: ClientError) -> bool:
    code = str(exc.response.get("Error", {}).get("Code", ""))
    return code in {"404", "NoSuchKey", "NotFound"}


class S3FileStore:
    """Content-addressed objects in one bucket (created on first use when allowed)."""

    def __init__(
        self,
        *,
        bucket: str,
        endpoint_url: str | None = None,
        region: str = "us-east-1",
        access_key_id: str | None = None,
        secret_access_key: str | None = None,
        prefix: str = "files/",
        create_bucket: bool = False,
    ) -> None:
        self.bucket = bucket
        self.prefix = prefix
        self._client: Any = boto3.session.Session().client(
            "s3",
            endpoint_url=endpoint_url,
            region_name=region,
            aws_access_key_id=access_key_id,
            aws_secret_access_key=secret_access_key,
            # Path-style addressing works with every S3-compatible server.
            config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 3}),
        )
        if create_bucket:
            self._ensure_bucket(region)

    def _ensure_bucket(self, region: str) -> None:
        try:
            self._client.head_bucket(Bucket=self.bucket)
        except ClientError as exc:
            if not _missing(exc):
                raise
            extra = (
                {}
                if region == "us-east-1"
                else {"CreateBucketConfiguration": {"LocationConstraint": region}}
            )
            self._client.create_bucket(Bucket=self.bucket, **extra)

    def _object(self, key: str) -> str:
        check_key(key)
        return f"{self.prefix}{key[:2]}/{key}"

    # ------------------------------------------------------------------ writes

    def put(self, data: bytes) -> StoredFile:
        key = content_hash(data)
        if not self.exists(key):
            self._client.put_object(Bucket=self.bucket, Key=self._object(key), Body=data)
        return StoredFile(key=key, size=len(data))

    def put_stream(self, chunks: Iterable[bytes]) -> StoredFile:
        """Store a body that arrives in pieces, in constant memory (multipart upload to a
        temporary key while hashing, then a server-side copy to the content key)."""
        digest = hashlib.sha256()
        temp = f"{self.prefix}incoming/{uuid.uuid4().hex}"
        upload = self._client.create_multipart_upload(Bucket=self.bucket, Key=temp)
        parts: list[dict[str, Any]] = []
        size = 0
        buffer = bytearray()

        def flush() -> None:
            number = len(parts) + 1
            reply = self._client.upload_part(
                Bucket=self.bucket,
                Key=temp,
                UploadId=upload["UploadId"],
                PartNumber=number,
                Body=bytes(buffer),
            )
            parts.append({"ETag": reply["ETag"], "PartNumber": number})
            buffer.clear()

        try:
            for chunk in chunks:
                digest.update(chunk)
                size += len(chunk)
                buffer.extend(chunk)
                if len(buffer) >= PART_BYTES:
                    flush()
            if buffer or not parts:
                flush()
            self._client.complete_multipart_upload(
                Bucket=self.bucket,
                Key=temp,
                UploadId=upload["UploadId"],
                MultipartUpload={"Parts": parts},
            )
        except BaseException:
            self._client.abort_multipart_upload(
                Bucket=self.bucket, Key=temp, UploadId=upload["UploadId"]
            )
            raise
        key = digest.hexdigest()
        try:
            if not self.exists(key):
                self._client.copy_object(
                    Bucket=self.bucket,
                    Key=self._object(key),
                    CopySource={"Bucket": self.bucket, "Key": temp},
                )
        finally:
            self._client.delete_object(Bucket=self.bucket, Key=temp)
        return StoredFile(key=key, size=size)

    def delete(self, key: str) -> None:
        self._client.delete_object(Bucket=self.bucket, Key=self._object(key))

    # ------------------------------------------------------------------ reads

    def _head(self, key: str) -> dict[str, Any] | None:
        try:
            head: dict[str, Any] = self._client.head_object(
                Bucket=self.bucket, Key=self._object(key)
            )
        except ClientError as exc:
            if _missing(exc):
                return None
            raise
        return head

    def exists(self, key: str) -> bool:
        return self._head(key) is not None

    def iter_keys(self) -> Iterator[str]:
        pages = self._client.get_paginator("list_objects_v2").paginate(
            Bucket=self.bucket, Prefix=self.prefix
        )
        for page in pages:
            for item in page.get("Contents", []):
                rest = str(item["Key"])[len(self.prefix) :]
                shard, _, key = rest.partition("/")
                if is_key(key) and shard == key[:2]:
                    yield key

    def size(self, key: str) -> int:
        head = self._head(key)
        if head is None:
            raise NotFoundError(f"stored file {key} is missing")
        return int(head["ContentLength"])

    def _body(self, key: str, byte_range: str | None = None) -> Any:
        args: dict[str, Any] = {"Bucket": self.bucket, "Key": self._object(key)}
        if byte_range:
            args["Range"] = byte_range
        try:
            return self._client.get_object(**args)["Body"]
        except ClientError as exc:
            if _missing(exc):
                raise NotFoundError(f"stored file {key} is missing") from exc
            raise

    def get(self, key: str) -> bytes:
        body = self._body(key)
        try:
            data: bytes = body.read()
        finally:
            body.close()
        return data

    def read_range(self, key: str, start: int, end_inclusive: int) -> bytes:
        body = self._body(key, f"bytes={start}-{end_inclusive}")
        try:
            data: bytes = body.read()
        finally:
            body.close()
        return data

    def iter_range(
        self, key: str, start: int = 0, end_inclusive: int | None = None
    ) -> Iterator[bytes]:
        """The bytes ``start..end_inclusive`` (default: to the end) in pieces."""
        end = "" if end_inclusive is None else str(end_inclusive)
        body = self._body(key, f"bytes={start}-{end}" if start or end else None)
        try:
            yield from body.iter_chunks(READ_CHUNK)
        finally:
            body.close()

    def local_path(self, key: str) -> Path | None:
        return None

    def close(self) -> None:
        self._client.close()
