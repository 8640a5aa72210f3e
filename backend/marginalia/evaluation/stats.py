"""Rates with denominators and Wilson intervals, and the text normalisation the QA eval uses.

Invariant 8: every rate in an eval report carries its denominator and a Wilson 95%
interval. ``rate(k, n)`` is the one shape every report uses.
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

__all__ = ["normalize_text", "rate", "wilson"]


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for ``k`` successes out of ``n`` trials.

    ``n == 0`` has no interval; it returns the uninformative ``(0.0, 1.0)``.
    """
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    lo = max(0.0, centre - half)
    hi = min(1.0, centre + half)
    # Exact bounds at the extremes (floating error otherwise leaves 1e-17 residue).
    if k == 0:
        lo = 0.0
    if k == n:
        hi = 1.0
    return (lo, hi)


def rate(k: int, n: int, z: float = 1.96) -> dict[str, Any]:
    """``{"value", "k", "n", "ci95": [lo, hi]}``; with ``n == 0`` value and interval are None
    and ``note`` says why."""
    if n == 0:
        return {
            "value": None,
            "k": k,
            "n": 0,
            "ci95": None,
            "note": "no items in the denominator; the rate is undefined",
        }
    lo, hi = wilson(k, n, z)
    return {"value": k / n, "k": k, "n": n, "ci95": [lo, hi]}


# --------------------------------------------------------------------------- normalisation

_HY = "-\u00ad\u2010\u2011"
_LETTER = r"[^\W\d_]"
# A word broken across lines by a hyphen: "ingre-\ndient" -> "ingredient".
_LINE_HYPHEN = re.compile(rf"({_LETTER})[{_HY}][ \t]*\n\s*({_LETTER})")
# Hyphens between letters are removed, so "state-of-the-art", "state-of-the-\nart" and
# "stateof-the-art" all compare equal; other hyphens ("15-20") become spaces below.
_WORD_HYPHEN = re.compile(rf"(?<={_LETTER})[{_HY}](?={_LETTER})")
_SPACE = re.compile(r"\s+")


def normalize_text(text: str) -> str:
    """Normalise for quote matching: NFKC (ligatures), line-break hyphenation joined,
    in-word hyphens removed, other punctuation and symbols turned into spaces,
    whitespace collapsed, case folded.

    Both sides of every comparison in the QA eval (gold quote vs parsed page, gold quote
    vs retrieved passage, claim quote vs cited passage, claim quote vs gold quote) go
    through this function.
    """
    text = unicodedata.normalize("NFKC", text)
    text = _LINE_HYPHEN.sub(r"\1\2", text)
    text = _WORD_HYPHEN.sub("", text)
    out = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat[0] in "PS" or cat in ("Cc", "Cf", "Zl", "Zp"):
            out.append(" ")
        else:
            out.append(ch)
    return _SPACE.sub(" ", "".join(out)).strip().casefold()
