"""Reading BibTeX with ``@string`` macros expanded under a budget (issue 34, item 1).

bibtexparser expands macros while it parses: ``@string{a1=a0#a0}`` … ``@string{a39=a38#a38}``
makes 838 bytes ask for 5.5 TB. Here the parser keeps macros unexpanded
(``interpolate_strings=False``) and :class:`MacroExpander` first *measures* what each
field the importers read would expand to (memoised per macro, so measuring is linear in
the file), then expands only what fits:

* a field whose expansion is longer than the whole file's budget (``budget`` characters,
  all fields together) is a macro bomb: the file is refused, nothing is expanded;
* a field longer than its own limit (``limits``: raw characters, LaTeX markup included)
  makes that entry a failure (``too_long``), reported with the field, its length and the
  limit; the other entries are read;
* fields the importers do not read are never expanded.

An undefined macro expands to nothing (BibTeX's own behaviour); a macro that refers to
itself is an error.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import bibtexparser
from bibtexparser.bibdatabase import BibDataString, BibDataStringExpression
from bibtexparser.bparser import BibTexParser

# Lengths are counted exactly up to here (2**39 × 10 is far below), then saturate.
_LENGTH_CAP = 10**18
# A macro's expansion is kept for reuse up to this many characters.
_CACHED = 1 << 20


class MacroBomb(ValueError):
    """The macros expand past the whole file's budget."""


@dataclass(frozen=True)
class TooLong:
    entry: str
    field: str
    length: int
    limit: int

    @property
    def detail(self) -> str:
        return (
            f"entry {self.entry}: the {self.field} is {self.length:,} characters long "
            f"(at most {self.limit:,}); the entry was not imported"
        )


def shown_key(key: str) -> str:
    """An entry key as a message shows it (a hostile key can be megabytes long)."""
    return key if len(key) <= 80 else key[:77] + "…"


@dataclass
class BoundedEntries:
    entries: list[dict[str, str]] = field(default_factory=list)
    too_long: list[TooLong] = field(default_factory=list)


class MacroExpander:
    """Lengths and expansions of values in a database's string macros."""

    def __init__(self, strings: Mapping[str, Any], cap: int) -> None:
        self.strings = {k.lower(): v for k, v in strings.items()}
        self.cap = cap  # lengths saturate just past this (the numbers stay small)
        self._lengths: dict[str, int] = {}
        self._texts: dict[str, str] = {}  # expansions of macros up to _CACHED characters
        self._open: set[str] = set()

    def length(self, value: Any) -> int:
        total = 0
        for part in _parts(value):
            total += self._macro_length(part.name) if isinstance(part, BibDataString) else len(part)
            if total > self.cap:
                return self.cap + 1
        return total

    def _macro_length(self, name: str) -> int:
        name = name.lower()
        if name in self._lengths:
            return self._lengths[name]
        if name in self._open:
            raise ValueError(f"the @string macro {name!r} refers to itself")
        self._open.add(name)
        try:
            length = self.length(self.strings[name]) if name in self.strings else 0
        finally:
            self._open.discard(name)
        self._lengths[name] = length
        return length

    def expand(self, value: Any) -> str:
        """The value's text; call only after :meth:`length` said it fits."""
        out: list[str] = []
        for part in _parts(value):
            out.append(self._macro_text(part.name) if isinstance(part, BibDataString) else part)
        return "".join(out)

    def _macro_text(self, name: str) -> str:
        name = name.lower()
        if name in self._texts:
            return self._texts[name]
        macro = self.strings.get(name)
        text = self.expand(macro) if macro is not None else ""
        if len(text) <= _CACHED:
            self._texts[name] = text
        return text


def _parts(value: Any) -> Iterable[Any]:
    if isinstance(value, BibDataStringExpression):
        return list(value.expr)
    if isinstance(value, BibDataString):
        return [value]
    return [value if isinstance(value, str) else str(value)]


def load_bounded(
    text: str,
    limits: Mapping[str, int],
    *,
    budget: int,
    stated: Mapping[str, int] | None = None,
) -> BoundedEntries:
    """The entries of ``text`` with only the fields named in ``limits`` (lower-case),
    each expanded within its limit (raw characters: braces and LaTeX included); ``ID`` and
    ``ENTRYTYPE`` kept. A refusal names ``stated[field]`` as the limit when given (the
    limit on the field once its LaTeX is read). Raises :class:`MacroBomb` when a field
    would expand past ``budget``, and whatever bibtexparser raises on text it cannot
    parse."""
    parser = BibTexParser(
        common_strings=True, ignore_nonstandard_types=False, interpolate_strings=False
    )
    parser.homogenize_fields = False
    database = bibtexparser.loads(text, parser=parser)
    expander = MacroExpander(database.strings, _LENGTH_CAP)
    out = BoundedEntries()
    spent = 0
    for raw in database.entries:
        key = str(raw.get("ID") or "?")
        entry = {"ID": key, "ENTRYTYPE": str(raw.get("ENTRYTYPE") or "")}
        refused: TooLong | None = None
        for name, value in raw.items():
            lowered = name.lower()
            if name in ("ID", "ENTRYTYPE") or lowered not in limits:
                continue
            length = expander.length(value)
            if length > budget:
                size = f"{length:,}" if length <= _LENGTH_CAP else f"more than {_LENGTH_CAP:,}"
                raise MacroBomb(
                    f"the @string macros in the {lowered} of entry {shown_key(key)} expand to {size} "
                    f"characters, and a whole file may expand to {budget:,}: a macro bomb, "
                    "not a bibliography. Nothing was imported."
                )
            if length <= limits[lowered] and spent + length > budget:
                raise MacroBomb(
                    f"the file's fields expand to more than {budget:,} characters in all "
                    f"(passed at entry {shown_key(key)}). Nothing was imported; split the file."
                )
            if length > limits[lowered]:
                limit = (stated or {}).get(lowered, limits[lowered])
                refused = refused or TooLong(shown_key(key), lowered, length, limit)
                continue
            spent += length
            entry[lowered] = expander.expand(value)
        if refused is not None:
            out.too_long.append(refused)
        else:
            out.entries.append(entry)
    return out
