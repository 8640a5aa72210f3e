"""Ids as people type them: a full UUID, or any unique prefix of one (``jobs list`` and
the tables print ids that a terminal may cut). An ambiguous prefix is refused with the
candidates it matches."""

from __future__ import annotations

import re
import uuid
from typing import Literal

from marginalia.db.repositories import lookup as repo
from marginalia.errors import NotFoundError, ValidationFailed
from marginalia.runtime import Runtime

Kind = Literal["job", "workspace", "source"]
MIN_PREFIX = 4
_PREFIX = re.compile(r"^[0-9a-f-]+$")


def looks_like_id_prefix(ref: str) -> bool:
    return len(ref) >= MIN_PREFIX and bool(_PREFIX.match(ref.lower()))


async def resolve_id(rt: Runtime, kind: Kind, ref: str) -> uuid.UUID:
    """The id of the one ``kind`` whose id is ``ref`` or starts with it."""
    text = ref.strip().lower()
    try:
        return uuid.UUID(text)
    except ValueError:
        pass
    if not looks_like_id_prefix(text):
        raise ValidationFailed(
            f"{ref!r} is not a {kind} id: give the id or at least its first {MIN_PREFIX} characters"
        )
    async with rt.db.session() as session:
        found = await repo.ids_with_prefix(session, kind, text)
    if not found:
        raise NotFoundError(f"no {kind} id starts with {ref!r}")
    if len(found) > 1:
        shown = "; ".join(f"{i} ({label or '-'})" for i, label in found[:5])
        more = " and more" if len(found) > 5 else ""
        raise ValidationFailed(
            f"{ref!r} is ambiguous: {len(found) if not more else 'several'} {kind}s match — "
            f"{shown}{more}. Type more of the id."
        )
    return found[0][0]
