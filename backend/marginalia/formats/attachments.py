"""Zotero attachments: a path written in an export is read only when it resolves (links
followed) to a file inside the export's own folder — nothing else on the file system is
opened. Relative paths are taken from that folder (Zotero's "Export Files" writes
``files/12/paper.pdf``); absolute ones must already point inside it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PureWindowsPath

#: What the ingest pipeline reads, best first (Zotero also attaches HTML snapshots).
_KINDS = {".pdf": 0, ".html": 1, ".htm": 1, ".md": 2, ".markdown": 2, ".txt": 3}


@dataclass(frozen=True)
class Attachment:
    """An attachment read from the export folder."""

    path: Path
    data: bytes


@dataclass(frozen=True)
class AttachmentRefused:
    written: str
    reason: str  # outside_export_folder | missing | not_a_file | too_large | unsupported
    detail: str

    def as_dict(self) -> dict[str, str]:
        return {"path": self.written, "reason": self.reason, "detail": self.detail}


def _candidate_path(written: str, folder: Path) -> Path:
    text = written.strip()
    if PureWindowsPath(text).drive and not text.startswith("/"):
        return Path(text)  # a Windows drive path: absolute, never inside a POSIX folder
    path = Path(text).expanduser() if text.startswith("~") else Path(text)
    return path if path.is_absolute() else folder / path


def resolve_attachment(
    written: str, folder: Path, *, max_bytes: int
) -> Attachment | AttachmentRefused:
    """Read ``written`` when it resolves inside ``folder``; otherwise say why not."""
    root = folder.resolve()
    path = _candidate_path(written, root)
    if PureWindowsPath(written.strip()).drive and not written.strip().startswith("/"):
        return AttachmentRefused(
            written, "outside_export_folder", f"{written} is not inside the export folder {root}"
        )
    resolved = path.resolve()
    if not resolved.is_relative_to(root):
        return AttachmentRefused(
            written, "outside_export_folder", f"{written} is not inside the export folder {root}"
        )
    if resolved.suffix.lower() not in _KINDS:
        return AttachmentRefused(
            written, "unsupported", f"{resolved.name}: only PDF, HTML, Markdown or text is read"
        )
    if not resolved.exists():
        return AttachmentRefused(written, "missing", f"{written} does not exist in {root}")
    if not resolved.is_file():
        return AttachmentRefused(written, "not_a_file", f"{written} is not a file")
    size = resolved.stat().st_size
    if size > max_bytes:
        return AttachmentRefused(
            written, "too_large", f"{written} has {size} bytes; at most {max_bytes} are read"
        )
    return Attachment(resolved, resolved.read_bytes())


def pick_attachment(
    written: list[str], folder: Path | None, *, max_bytes: int
) -> tuple[Attachment | None, list[AttachmentRefused]]:
    """The best readable attachment of an entry (PDF before HTML before text) and the
    refusals of the others; without a folder (text sent over the API) every attachment
    is refused."""
    refused: list[AttachmentRefused] = []
    if not written:
        return None, refused
    if folder is None:
        return None, [
            AttachmentRefused(
                w, "no_export_folder", "attachments are read only from a file's folder"
            )
            for w in written
        ]
    ordered = sorted(written, key=lambda w: _KINDS.get(Path(w).suffix.lower(), 9))
    chosen: Attachment | None = None
    for w in ordered:
        if chosen is not None and Path(w).suffix.lower() in _KINDS:
            continue  # one attachment per entry is ingested; the rest are not opened
        result = resolve_attachment(w, folder, max_bytes=max_bytes)
        if isinstance(result, AttachmentRefused):
            refused.append(result)
        else:
            chosen = result
    return chosen, refused
