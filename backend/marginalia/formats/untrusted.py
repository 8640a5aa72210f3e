"""Reading an import file (BibTeX, RIS, CSL-JSON) in the parse sandbox
(:mod:`marginalia.sandbox`): bibtexparser's pyparsing grammar takes about a second per MB
of CPU, which would otherwise stall the server's event loop, and whatever a hostile file
finds in it ends the child, not the server. The budgets are the documents' (``ingest.*``):
``parse_memory_mb`` and ``parse_timeout_s``. The records come back as JSON."""

from __future__ import annotations

from typing import Any

from marginalia import sandbox
from marginalia.config import IngestSettings
from marginalia.formats.bibtex_import import parse_bibtex_export
from marginalia.formats.csljson import parse_csl_json
from marginalia.formats.records import (
    ImportFailure,
    ImportFormat,
    ImportFormatError,
    ImportRecord,
    ParsedImport,
)
from marginalia.formats.ris import parse_ris
from marginalia.sources.candidate import Candidate

TASK = "marginalia.formats.untrusted:parse_import_task"
PARSERS = {"bibtex": parse_bibtex_export, "ris": parse_ris, "csl-json": parse_csl_json}


def parse_untrusted(text: str, fmt: ImportFormat, settings: IngestSettings) -> ParsedImport:
    """The records of an export, parsed in the sandbox; ImportFormatError with the reason
    when the file cannot be read (or runs out of its budget). Blocking: run in a thread."""
    budget = sandbox.Budget(
        memory_mb=settings.parse_memory_mb,
        cpu_s=settings.parse_timeout_s,
        wall_s=settings.parse_timeout_s,
        step_s=settings.parse_timeout_s,
    )
    payload = text.encode("utf-8", "surrogatepass")
    try:
        value = sandbox.run(
            TASK, payload, {"format": fmt}, budget, slots=settings.parse_concurrency
        )
    except sandbox.TaskRefused as refused:
        raise ImportFormatError(refused.message) from None
    except sandbox.BudgetExceeded as exceeded:
        raise ImportFormatError(
            f"the file could not be read within its budget: {exceeded.detail}"
        ) from None
    return import_from_json(value)


def parse_import_task(data: bytes, args: dict[str, Any], report: sandbox.Report) -> Any:
    """Runs in the sandbox's child."""
    report("parsing")
    try:
        parsed = PARSERS[str(args["format"])](data.decode("utf-8", "surrogatepass"))
    except ImportFormatError as exc:
        raise sandbox.TaskRefused("unreadable", str(exc)) from None
    return import_to_json(parsed)


def import_to_json(parsed: ParsedImport) -> dict[str, Any]:
    return {
        "format": parsed.format,
        "records": [
            {
                "candidate": r.candidate.model_dump(mode="json"),
                "attachments": r.attachments,
                "notes": r.notes,
            }
            for r in parsed.records
        ],
        "failures": [f.as_dict() for f in parsed.failures],
    }


def import_from_json(value: dict[str, Any]) -> ParsedImport:
    return ParsedImport(
        value["format"],
        [
            ImportRecord(
                candidate=Candidate.model_validate(r["candidate"]),
                attachments=list(r["attachments"]),
                notes=list(r["notes"]),
            )
            for r in value["records"]
        ],
        [ImportFailure(f["entry"], f["reason"], f["detail"]) for f in value["failures"]],
    )
