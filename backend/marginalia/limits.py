"""How long the bibliographic fields of a source may be (issue 34, item 5).

What a person sends — an imported BibTeX/RIS/CSL-JSON entry — is *refused* when a field
is longer (``formats/limits.py``: the entry is listed as failed, with the field, its
length and the limit; the other entries are imported). What a document or a search
result says about itself (a PDF's metadata title, an HTML ``<title>``, an API's abstract)
is *clipped* to the same limits (:func:`clip`): the file itself is fine, only a field is
absurd. Either way nothing longer is stored. The limits sit far above real records: the
longest title in the shared data (SciFact, ACL 2020) is 300 characters, the longest
abstract 10,000, the most authors 47 (a physics paper can have 3,000).
"""

from __future__ import annotations

TITLE = 1_000
ABSTRACT = 20_000
VENUE = 1_000
AUTHOR = 300  # one name
AUTHORS = 5_000  # names per record
URL = 4_096
IDENTIFIER = 512  # a DOI, an entry key
NOTE = 100_000  # one imported note
NOTES = 200  # notes per entry
ATTACHMENTS = 50  # attachment paths per entry


def clip(text: str | None, limit: int) -> str | None:
    """``text`` cut to ``limit`` characters (an ellipsis marks the cut)."""
    if text is None or len(text) <= limit:
        return text
    return text[: limit - 1].rstrip() + "…"


def clip_names(names: list[str]) -> list[str]:
    return [n for name in names[:AUTHORS] if (n := clip(name, AUTHOR))]
