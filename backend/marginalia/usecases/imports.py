"""Importing a bibliography (BibTeX, RIS, CSL-JSON — what Zotero and Mendeley export)
into a workspace.

``submit_import`` reads the text in the parse sandbox (``formats/untrusted.py``: its own
process, under a memory and time budget; ``@string`` macros expanded under a budget; an
entry with a field over its limit refused, ``formats/limits.py``) — a bad file changes
nothing —, reads each entry's
attachment when it resolves inside the export's folder (``formats/attachments.py``;
escapes and missing files are refused, with the reason) into the file store, and
submits one ``research.import`` job. The job runs every entry through the research
pipeline's later stages — dedup, the stored attachment or a safe fetch of a PDF link,
ingest (abstract-only without full text, **metadata-only** without an abstract either),
the knowledge update (for more than :data:`DEFER_KNOWLEDGE_OVER` entries deferred until
all are ingested, then one pass in large batches and one refresh) — and adds each entry's notes to its source. Its result's
``import`` block is the summary: imported / abstract-only / metadata-only / duplicates
/ failed, with reasons.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

from marginalia.db.models import Job
from marginalia.discovery.bibtex_io import MAX_IMPORT_ENTRIES
from marginalia.errors import ValidationFailed
from marginalia.formats import untrusted
from marginalia.formats.attachments import pick_attachment
from marginalia.formats.limits import MAX_IMPORT_BYTES
from marginalia.formats.records import (
    IMPORT_FORMATS,
    ImportFormat,
    ImportFormatError,
    ParsedImport,
)
from marginalia.runtime import Runtime
from marginalia.usecases.workspaces import get_workspace

IMPORT_KIND = "research.import"
DEFER_KNOWLEDGE_OVER = 20
"""An import of more entries than this defers the knowledge update: every entry is
ingested first, then the new sources are linked in large batches and the graph-wide
refresh runs once (``ResearchOptions.defer_knowledge``); a small import links as it goes,
so its first sources reach the canvas early."""


async def read_export(rt: Runtime, text: str, fmt: ImportFormat) -> ParsedImport:
    """The records of an export, read in the parse sandbox; a clear ValidationFailed when
    it cannot be read, is too large, or holds no entry that can be imported."""
    if fmt not in untrusted.PARSERS:
        raise ValidationFailed(f"unknown import format {fmt!r}; one of {', '.join(IMPORT_FORMATS)}")
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_IMPORT_BYTES:
        raise ValidationFailed(
            f"the file is {size / 1e6:.1f} MB; import files up to "
            f"{MAX_IMPORT_BYTES // (1024 * 1024)} MB (split a larger library)"
        )
    try:
        parsed = await asyncio.to_thread(untrusted.parse_untrusted, text, fmt, rt.settings.ingest)
    except ImportFormatError as exc:
        raise ValidationFailed(f"cannot import {fmt}: {exc}") from exc
    return _importable(parsed)


def parse_export(text: str, fmt: ImportFormat) -> ParsedImport:
    """The records of an export parsed in this process (trusted text: tests, tools); the
    server and the CLI use :func:`read_export`."""
    if fmt not in untrusted.PARSERS:
        raise ValidationFailed(f"unknown import format {fmt!r}; one of {', '.join(IMPORT_FORMATS)}")
    try:
        parsed = untrusted.PARSERS[fmt](text)
    except ImportFormatError as exc:
        raise ValidationFailed(f"cannot import {fmt}: {exc}") from exc
    return _importable(parsed)


def _importable(parsed: ParsedImport) -> ParsedImport:
    total = len(parsed.records) + len(parsed.failures)
    if total > MAX_IMPORT_ENTRIES:
        raise ValidationFailed(
            f"the file has {total} entries; at most {MAX_IMPORT_ENTRIES} are imported at once"
        )
    if not parsed.records:
        reasons = "; ".join(f.detail for f in parsed.failures[:5])
        raise ValidationFailed(f"none of the {total} entries can be imported: {reasons}")
    return parsed


async def submit_import(
    rt: Runtime,
    workspace_id: uuid.UUID,
    text: str,
    fmt: ImportFormat,
    *,
    folder: Path | None = None,
    fetch: bool = True,
) -> Job:
    """Validate the export, store the attachments found inside ``folder`` (the export's
    own folder; None, e.g. over the API: no attachment is read), submit the import job."""
    await get_workspace(rt, workspace_id)
    parsed = await read_export(rt, text, fmt)
    max_bytes = rt.settings.ingest.max_upload_mb * 1024 * 1024
    refused: list[dict[str, str]] = []
    candidates: list[dict[str, Any]] = []
    notes: dict[str, list[str]] = {}
    keys: set[str] = set()
    for position, record in enumerate(parsed.records, start=1):
        candidate = record.candidate
        key = candidate.source_id or f"#{position}"
        key = f"{key}#{position}" if key in keys else key
        keys.add(key)
        candidate.source_id = key
        chosen, refusals = await asyncio.to_thread(
            pick_attachment, record.attachments, folder, max_bytes=max_bytes
        )
        refused += [{"entry": key, **r.as_dict()} for r in refusals]
        if chosen is not None:
            stored = await asyncio.to_thread(rt.files.put, chosen.data)
            candidate.file_key, candidate.file_name = stored.key, chosen.path.name
        if record.notes:
            notes[key] = record.notes
        candidates.append(candidate.model_dump(mode="json"))
    params: dict[str, Any] = {
        "workspace_id": str(workspace_id),
        "format": parsed.format,
        "candidates": candidates,
        "fetch": fetch,
        "metadata_only": True,
        "parse_failures": [f.as_dict() for f in parsed.failures],
        "attachments_refused": refused,
        "notes": notes,
    }
    return await rt.jobs.submit(IMPORT_KIND, params, workspace_id=workspace_id)


def import_summary(params: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    """What an import job did, entry by entry counted: imported (full text),
    abstract-only, metadata-only, duplicates (in the file or already in the workspace),
    failed (unreadable entries and refused ingests, with reasons)."""
    counts = result.get("counts") or {}
    items = result.get("candidates") or []
    failures = list(params.get("parse_failures") or [])
    for item in items:
        if item.get("stage") == "failed":
            failures.append(
                {"entry": item.get("title"), "reason": "ingest", "detail": item.get("error") or ""}
            )
    created = [i for i in items if i.get("stage") == "linked" and i.get("ingest") == "created"]
    metadata_only = int(counts.get("metadata_only", 0))
    abstract_only = sum(1 for i in created if i.get("abstract_only"))
    return {
        "format": params.get("format", "bibtex"),
        "entries": len(params.get("candidates") or []) + len(params.get("parse_failures") or []),
        "imported": len(created) - metadata_only - abstract_only,
        "abstract_only": abstract_only,
        "metadata_only": metadata_only,
        "upgraded": int(counts.get("upgraded", 0)),
        "duplicates_in_file": sum((counts.get("duplicates") or {}).values()),
        "already_in_workspace": int(counts.get("known", 0))
        + sum(1 for i in items if i.get("ingest") == "duplicate"),
        "attachments_ingested": sum(
            1
            for i in items
            if (i.get("fetch") or {}).get("status") == "ok"
            and (i.get("fetch") or {}).get("attachment")
            and not i.get("abstract_only")
            and i.get("ingest") == "created"
        ),
        "attachments_refused": list(params.get("attachments_refused") or []),
        "failed": failures,
        "notes_added": int(result.get("notes_added", 0)),
    }
