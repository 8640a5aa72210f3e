"""What every import format parses into: records with their attachments and notes, and
the entries that could not be read, with the reason."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from marginalia.sources.candidate import Candidate

ImportFormat = Literal["bibtex", "ris", "csl-json"]
IMPORT_FORMATS: tuple[ImportFormat, ...] = ("bibtex", "ris", "csl-json")

_EXTENSIONS: dict[str, ImportFormat] = {
    ".bib": "bibtex",
    ".bibtex": "bibtex",
    ".ris": "ris",
    ".json": "csl-json",
    ".csljson": "csl-json",
}


class ImportFormatError(ValueError):
    """The text is not a file of the format it was read as."""


@dataclass
class ImportRecord:
    """One entry of an export: its bibliographic record, the attachment paths as written
    in the file (not yet resolved or read), and the entry's own notes."""

    candidate: Candidate
    attachments: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ImportFailure:
    """An entry that became no record (``entry``: its key, or its position)."""

    entry: str
    reason: str
    detail: str

    def as_dict(self) -> dict[str, str]:
        return {"entry": self.entry, "reason": self.reason, "detail": self.detail}


@dataclass
class ParsedImport:
    format: ImportFormat
    records: list[ImportRecord]
    failures: list[ImportFailure] = field(default_factory=list)


def format_for(path: Path | str, text: str | None = None) -> ImportFormat:
    """The format of an export file, from its extension (``.bib``, ``.ris``, ``.json``)
    or, failing that, its first characters."""
    suffix = Path(path).suffix.lower()
    if suffix in _EXTENSIONS:
        return _EXTENSIONS[suffix]
    head = (text or "").lstrip()[:200]
    if head.startswith(("[", "{")):
        return "csl-json"
    if head.startswith("TY  -") or "\nTY  -" in head:
        return "ris"
    if head.startswith("@") or "@" in head:
        return "bibtex"
    raise ImportFormatError(
        f"cannot tell the format of {path}: use a .bib, .ris or .json (CSL-JSON) file"
    )
