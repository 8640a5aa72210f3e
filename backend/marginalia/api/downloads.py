"""The ``Content-Disposition`` header of every download the API serves."""

from __future__ import annotations

import re
from urllib.parse import quote

from marginalia.ingest.documents import safe_file_name


def content_disposition(disposition: str, filename: str) -> str:
    """``inline``/``attachment`` with an ASCII ``filename`` and the exact name as RFC 5987
    ``filename*``: a header must be Latin-1, while workspace and table names may be in any
    script (a raw non-Latin-1 name made the response itself fail with a 500)."""
    name = safe_file_name(filename, default="document")
    fallback = re.sub(r'[^\x20-\x7e]|["\\%;]', "_", name).strip() or "document"
    return f"{disposition}; filename=\"{fallback}\"; filename*=UTF-8''{quote(name, safe='')}"


def attachment(filename: str) -> dict[str, str]:
    """Response headers that make a browser save the body under ``filename``."""
    return {"Content-Disposition": content_disposition("attachment", filename)}
