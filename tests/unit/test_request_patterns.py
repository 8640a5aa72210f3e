"""A pattern in the OpenAPI schema says exactly what the use case behind it checks.

Schemathesis generates strings from the pattern (ECMA dialect) and expects every match to
be accepted (ST202), and every non-match refused. A regex's ``\\s`` is not the set
``str.split()`` uses, so the blank-title rule spells its whitespace out.
"""

from __future__ import annotations

import re

import pytest

from marginalia.answer.schemas import NOT_BLANK

WHITESPACE = [chr(code) for code in range(0x110000) if chr(code).isspace()]


@pytest.mark.parametrize("space", WHITESPACE, ids=[f"U+{ord(c):04X}" for c in WHITESPACE])
def test_a_title_of_any_whitespace_does_not_match(space: str) -> None:
    assert re.fullmatch(NOT_BLANK, space) is None
    assert re.fullmatch(NOT_BLANK, f" {space}\t") is None
    assert not " ".join((space * 2).split())  # and the rename use case calls it blank


@pytest.mark.parametrize("title", ["a", " Notes on QCD ", "\u0085x", "日本", "\u200b"])
def test_a_title_with_something_in_it_matches(title: str) -> None:
    assert re.fullmatch(NOT_BLANK, title) is not None
    assert " ".join(title.split())


def test_a_nul_never_matches() -> None:
    assert re.fullmatch(NOT_BLANK, "title\x00") is None
