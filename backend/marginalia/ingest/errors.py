"""The one exception type for refused input (DESIGN §5 invariant 6)."""

from __future__ import annotations

from typing import Literal

ErrorCode = Literal[
    "empty_file",
    "too_large",
    "too_many_pages",
    "unsupported_type",
    "encrypted_pdf",
    "corrupt_pdf",
    "image_only_pdf",
    "no_text",
    "over_budget",  # the parse needs more memory, time or inflated bytes than allowed
]


class DocumentError(Exception):
    """A document we refuse, with a stable `code` and a message for a person.

    The message says what is wrong and what to do about it; it never carries a
    library traceback (the original exception, if any, is chained as __cause__).
    """

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"DocumentError(code={self.code!r}, message={self.message!r})"
