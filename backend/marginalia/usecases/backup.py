"""`marginalia backup FILE` / `marginalia restore FILE`: the database and every stored file
in one tar archive (gzip-compressed when FILE ends in .gz or .tgz).

Archive layout::

    database.dump     pg_dump --format=custom of the Marginalia database
    files/<sha256>    every object of the file store (local directory or S3 bucket)
    manifest.json     written last: format version, alembic revision, embedding model,
                      created_at, row counts, the dump's SHA-256, every file's size, and
                      ``digest``: the SHA-256 of the rest of the manifest

A restore (and ``restore --check``) validates the whole archive first — every member's
name, the manifest's digest, the dump's checksum and table of contents, every file's
content hash, and the manifest against the archive (issue 34): its schema revision, row
counts, pinned model and PostgreSQL version against what the dump itself holds, its file
list, sizes and count against the files, the files it calls missing against the file
keys the dumped sources name — and only then touches anything: it refuses a database that already holds workspaces unless ``force``, puts the
files back, replaces the database in one transaction (pg_restore ``--clean --if-exists``),
migrates it to head when the backup is older, and removes stored files the backup does
not have.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tarfile
import tempfile
import zlib
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from marginalia import __version__
from marginalia.config import Settings
from marginalia.db import dump as pg
from marginalia.db import migrate
from marginalia.db.server import resolve_database
from marginalia.errors import ConflictError, MarginaliaError
from marginalia.runtime import open_file_store
from marginalia.storage import FileStore
from marginalia.storage.base import is_key

FORMAT = "marginalia-backup"
FORMAT_VERSION = 2  # 2: the manifest carries its digest
READABLE_VERSIONS = (1, 2)
MANIFEST = "manifest.json"
DUMP = "database.dump"
FILES = "files/"
CHUNK = 1024 * 1024


class BackupError(MarginaliaError):
    code = "backup_error"


class InvalidBackup(BackupError):
    code = "invalid_backup"


class RestoreRefused(ConflictError):
    code = "restore_refused"


@dataclass
class RestoreReport:
    manifest: dict[str, Any]
    revision: str | None
    upgraded_from: str | None = None
    files_added: int = 0
    files_removed: int = 0
    warnings: list[str] = field(default_factory=list)


def _compressed(path: Path) -> bool:
    return path.name.endswith((".gz", ".tgz"))


class _HashingReader(io.RawIOBase):
    """A file object over a stored file's chunks that hashes what it hands out."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks
        self._buffer = b""
        self.digest = hashlib.sha256()

    def readable(self) -> bool:
        return True

    def readinto(self, target: Any) -> int:
        while not self._buffer:
            piece = next(self._chunks, None)
            if piece is None:
                return 0
            self._buffer = piece
        n = min(len(target), len(self._buffer))
        target[:n] = self._buffer[:n]
        self.digest.update(self._buffer[:n])
        self._buffer = self._buffer[n:]
        return n


def _member(name: str, size: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size = size
    info.mode = 0o600
    info.mtime = int(datetime.now(UTC).timestamp())
    return info


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    tar.addfile(_member(name, len(data)), io.BytesIO(data))


def _add_stored(tar: tarfile.TarFile, store: FileStore, key: str) -> int | None:
    """Append one stored file; None when it vanished meanwhile (deleted since listed)."""
    try:
        size = store.size(key)
    except MarginaliaError:
        return None
    info = _member(FILES + key, size)
    reader = _HashingReader(iter(store.iter_range(key)))
    tar.addfile(info, reader)
    if reader.digest.hexdigest() != key:
        raise BackupError(f"stored file {key} does not match its content hash (damaged store)")
    return size


def create_backup(settings: Settings, path: Path, *, overwrite: bool = False) -> dict[str, Any]:
    """Write the archive to ``path`` (atomically: a failed backup leaves nothing there);
    returns its manifest."""
    if path.exists() and not overwrite:
        raise BackupError(f"{path} exists; choose another file or pass --force to replace it")
    if not path.parent.is_dir():
        raise BackupError(f"{path.parent} is not a directory")
    location = resolve_database(settings)
    tools = pg.find_tools(location)
    revision = migrate.current_revision(location.url)
    if revision is None:
        raise BackupError("the database has no Marginalia schema yet: nothing to back up")
    store = open_file_store(settings)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        # The dump is staged beside the archive (the disk chosen for it), not in /tmp.
        with tempfile.TemporaryDirectory(dir=path.parent, prefix=".marginalia-backup-") as work:
            dump_file = Path(work) / DUMP
            snapshot = pg.dump_consistent(tools, location.url, dump_file)
            counts = snapshot.counts
            pinned = pg.pinned_model(location.url)
            dump_hash = _file_hash(dump_file)
            files: dict[str, int] = {}
            mode = "w:gz" if _compressed(path) else "w"
            options = {"compresslevel": 6} if _compressed(path) else {}
            with tarfile.open(tmp, mode, **options) as tar:  # type: ignore[call-overload]
                with dump_file.open("rb") as handle:
                    tar.addfile(_member(DUMP, dump_file.stat().st_size), handle)
                for key in store.iter_keys():
                    size = _add_stored(tar, store, key)
                    if size is not None:
                        files[key] = size
                missing = sorted(snapshot.file_keys - set(files))
                manifest = {
                    "format": FORMAT,
                    "version": FORMAT_VERSION,
                    "marginalia_version": __version__,
                    "created_at": datetime.now(UTC).isoformat(),
                    "alembic_revision": revision,
                    "postgres_major": tools.major,
                    "embedding_model": {
                        "configured": {
                            "model": settings.embedding.model,
                            "dim": settings.embedding.dim,
                        },
                        "pinned": pinned,
                    },
                    "counts": {**counts, "stored_files": len(files)},
                    "database": {
                        "file": DUMP,
                        "size": dump_file.stat().st_size,
                        "sha256": dump_hash,
                    },
                    "files": {
                        "count": len(files),
                        "bytes": sum(files.values()),
                        "sizes": files,
                        # files the dumped sources name that the store no longer had
                        "missing": missing,
                    },
                }
                manifest["digest"] = manifest_digest(manifest)
                _add_bytes(tar, MANIFEST, json.dumps(manifest, indent=2).encode())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
        store.close()
    return manifest


def manifest_digest(manifest: dict[str, Any]) -> str:
    """SHA-256 of the manifest's canonical JSON, its ``digest`` left out."""
    body = {k: v for k, v in manifest.items() if k != "digest"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while piece := handle.read(CHUNK):
            digest.update(piece)
    return digest.hexdigest()


# ----------------------------------------------------------------------------- validate


def _copy_hashing(source: IO[bytes], target: Path) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    with target.open("wb") as out:
        while piece := source.read(CHUNK):
            digest.update(piece)
            size += len(piece)
            out.write(piece)
    return digest.hexdigest(), size


def unpack(path: Path, staging: Path, pg_restore: Path | None = None) -> dict[str, Any]:
    """Extract and check the whole archive into ``staging``; returns the manifest.
    Anything wrong raises :class:`InvalidBackup` — nothing outside ``staging`` is touched.
    ``pg_restore`` reads the dump (default: one that reads the manifest's PostgreSQL)."""
    if not path.is_file():
        raise InvalidBackup(f"{path} is not a file")
    (staging / "files").mkdir(parents=True, exist_ok=True)
    seen: dict[str, tuple[str, int]] = {}
    manifest_bytes: bytes | None = None
    try:
        with tarfile.open(path, "r|*") as tar:
            for member in tar:
                name = member.name
                if name in seen or (name == MANIFEST and manifest_bytes is not None):
                    raise InvalidBackup(f"{name} appears twice in the archive")
                if not member.isfile():
                    raise InvalidBackup(f"unexpected archive member {name!r}")
                handle = tar.extractfile(member)
                assert handle is not None
                if name == MANIFEST:
                    manifest_bytes = handle.read()
                elif name == DUMP:
                    seen[name] = _copy_hashing(handle, staging / DUMP)
                elif name.startswith(FILES) and is_key(name[len(FILES) :]):
                    seen[name] = _copy_hashing(handle, staging / name)
                else:
                    raise InvalidBackup(f"unexpected archive member {name!r}")
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        raise InvalidBackup(
            f"{path} is not a readable Marginalia backup (corrupt or truncated): {exc}"
        ) from exc
    if manifest_bytes is None:
        raise InvalidBackup(f"{path} has no {MANIFEST}: not a Marginalia backup, or truncated")
    try:
        manifest = json.loads(manifest_bytes)
        if manifest.get("format") != FORMAT:
            raise InvalidBackup(f"{path} is not a Marginalia backup")
        if manifest.get("version") not in READABLE_VERSIONS:
            raise InvalidBackup(
                f"backup format version {manifest.get('version')} is not supported "
                f"(this Marginalia reads versions {', '.join(map(str, READABLE_VERSIONS))})"
            )
        if manifest["version"] >= 2 and manifest.get("digest") != manifest_digest(manifest):
            raise InvalidBackup(
                f"{MANIFEST} was changed after the backup was made (its digest does not "
                "match its content)"
            )
        database, sizes = manifest["database"], manifest["files"]["sizes"]
        revision = manifest["alembic_revision"]
        if not isinstance(sizes, dict) or not isinstance(manifest["counts"], dict):
            raise TypeError("files.sizes and counts must be objects")
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InvalidBackup(f"{MANIFEST} of {path} is malformed: {exc}") from exc
    if seen.get(DUMP) != (database.get("sha256"), database.get("size")):
        raise InvalidBackup("the database dump is missing or does not match its checksum")
    for key, size in sizes.items():
        got = seen.get(FILES + key)
        if got is None:
            raise InvalidBackup(f"stored file {key} is missing from the archive")
        if got != (key, size):
            raise InvalidBackup(f"stored file {key} is damaged (content hash or size differ)")
    extra = {n for n in seen if n.startswith(FILES)} - {FILES + k for k in sizes}
    if extra:
        raise InvalidBackup(f"{len(extra)} files in the archive are not in its manifest")
    if not isinstance(revision, str) or not migrate.known_revision(revision):
        raise InvalidBackup(
            f"the backup's schema revision {revision!r} is unknown to this Marginalia "
            f"({__version__}): restore it with the version that made it, or a newer one"
        )
    _check_against_archive(manifest, staging / DUMP, pg_restore)
    return dict(manifest)


def _check_against_archive(
    manifest: dict[str, Any], dump_file: Path, pg_restore: Path | None
) -> None:
    """The manifest says what the archive holds: refuse it where it does not."""
    files, sizes, counts = manifest["files"], manifest["files"]["sizes"], manifest["counts"]
    wrong: list[str] = []
    if files.get("count") != len(sizes) or counts.get("stored_files") != len(sizes):
        wrong.append(f"it counts {files.get('count')} files, the archive has {len(sizes)}")
    if files.get("bytes") != sum(sizes.values()):
        wrong.append(f"it sums the files to {files.get('bytes')} bytes, not {sum(sizes.values())}")
    try:
        major = int(manifest.get("postgres_major") or 0)
        facts = pg.dump_facts(pg_restore or pg.reader_tool(major), dump_file)
    except (pg.BackupToolError, OSError, ValueError, TypeError) as exc:
        raise InvalidBackup(f"the database dump cannot be read back: {exc}") from exc
    if facts.revision != manifest["alembic_revision"]:
        wrong.append(
            f"it names schema {manifest['alembic_revision']!r}, the dump is at {facts.revision!r}"
        )
    table_counts = {k: v for k, v in counts.items() if k != "stored_files"}
    if table_counts != facts.counts:
        differ = sorted(
            t
            for t in set(table_counts) | set(facts.counts)
            if table_counts.get(t) != facts.counts.get(t)
        )
        wrong.append(f"its row counts differ from the dump's ({', '.join(differ[:5])})")
    pinned = (manifest.get("embedding_model") or {}).get("pinned")
    if pinned != facts.pinned:
        wrong.append(f"it names the embedding model {pinned}, the dump pins {facts.pinned}")
    if facts.server_major is not None and manifest.get("postgres_major") != facts.server_major:
        wrong.append(
            f"it says PostgreSQL {manifest.get('postgres_major')}, the dump is from "
            f"PostgreSQL {facts.server_major}"
        )
    if sorted(facts.file_keys - set(sizes)) != sorted(files.get("missing") or []):
        wrong.append("its list of missing files differs from what the dumped sources name")
    if wrong:
        raise InvalidBackup(f"{MANIFEST} does not describe this archive: " + "; ".join(wrong))


def read_manifest(path: Path) -> dict[str, Any]:
    """Validate ``path`` fully and return its manifest (nothing is restored)."""
    with tempfile.TemporaryDirectory(prefix="marginalia-restore-") as staging:
        return unpack(path, Path(staging))


# ----------------------------------------------------------------------------- restore


def restore_backup(settings: Settings, path: Path, *, force: bool = False) -> RestoreReport:
    """Restore ``path`` into the configured database and file store (see module doc).
    Stop `marginalia serve` and workers first: they hold connections to the old schema."""
    # Staged under the home (where local files land anyway), not in a possibly small /tmp.
    settings.home.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=settings.home, prefix=".restore-") as work:
        staging = Path(work)
        location = resolve_database(settings)
        tools = pg.find_tools(location)
        manifest = unpack(path, staging, tools.pg_restore)
        dump_file = staging / DUMP
        pg.archive_tables(tools, dump_file)  # reads the dump's whole table of contents
        existing = pg.workspace_count(location.url)
        if existing and not force:
            raise RestoreRefused(
                f"the database already holds {existing} workspace(s); restoring replaces "
                "everything in it — pass --force to do so"
            )
        store = open_file_store(settings)
        try:
            report = RestoreReport(manifest=manifest, revision=None)
            if busy := pg.other_sessions(location.url):
                report.warnings.append(
                    f"{busy} other connection(s) to the database (a running `marginalia serve` "
                    "or worker?): restart them after the restore"
                )
            sizes: dict[str, int] = manifest["files"]["sizes"]
            added = _put_files(store, staging, sizes)
            report.files_added = len(added)
            # Every table goes first (CASCADE), in the restore's transaction: a newer schema's
            # tables, columns and foreign keys would otherwise block the dump's --clean drops.
            drop_first = sorted(pg.public_tables(location.url))
            functions = pg.public_functions(location.url)
            try:
                pg.restore(
                    tools, location.url, dump_file, drop_first=drop_first, drop_functions=functions
                )
            except BaseException:
                for key in added:
                    with suppress(Exception):
                        store.delete(key)
                raise
            report.warnings += _count_differences(manifest["counts"], location.url)
            _migrate_to_head(settings, location.url, manifest, report)
            report.files_removed = _remove_unlisted(store, set(sizes))
        finally:
            store.close()
    return report


def _put_files(store: FileStore, staging: Path, sizes: dict[str, int]) -> list[str]:
    added = []
    try:
        for key in sizes:
            if store.exists(key):
                continue
            stored = store.put_stream(_read_chunks(staging / FILES / key))
            if stored.key != key:  # validated already; a store that rewrites bytes is broken
                raise BackupError(f"the file store returned {stored.key} for {key}")
            added.append(key)
    except BaseException:
        for key in added:
            with suppress(Exception):
                store.delete(key)
        raise
    return added


def _read_chunks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as handle:
        while piece := handle.read(CHUNK):
            yield piece


def _count_differences(expected: dict[str, int], url: str) -> list[str]:
    got = pg.table_counts(url)
    return [
        f"{table}: {count} rows in the manifest, {got.get(table)} restored"
        for table, count in expected.items()
        if table != "stored_files" and got.get(table) != count
    ]


def _migrate_to_head(
    settings: Settings, url: str, manifest: dict[str, Any], report: RestoreReport
) -> None:
    current = migrate.current_revision(url)
    head = migrate.head_revision(url)
    if current != head:
        pinned = (manifest.get("embedding_model") or {}).get("pinned") or {}
        dim = int(pinned.get("dim") or settings.embedding.dim)
        migrate.upgrade(url, embedding_dim=dim)
        report.upgraded_from = current
        current = migrate.current_revision(url)
    if current != head:
        raise BackupError(f"after the restore the database is at {current}, not head {head}")
    report.revision = current


def _remove_unlisted(store: FileStore, keep: set[str]) -> int:
    """Stored files the backup does not have belong to nothing restored: remove them."""
    removed = 0
    for key in list(store.iter_keys()):
        if key not in keep:
            store.delete(key)
            removed += 1
    return removed
