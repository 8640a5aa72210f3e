"""Acronym detection (Schwartz–Hearst: a parenthesised short form and its long form
before it) for the offline engine: pure functions, no database, no model."""

from __future__ import annotations

import re

from marginalia.knowledge.concepts import is_acronym
from marginalia.knowledge.text import (
    STOP_WORDS,
    sentence_spans,
)

_PAREN_RE = re.compile(r"\(([^()]{1,120})\)")
_LINE_BREAK_HYPHEN = re.compile(r"([a-z])[-\u00ad]\s+([a-z])")
"""A long form broken across lines ("Medi- cal Subject Headings") is read joined."""


def best_long_form(short: str, long: str) -> str | None:
    s_idx, l_idx = len(short) - 1, len(long) - 1
    while s_idx >= 0:
        c = short[s_idx].lower()
        if not c.isalnum():
            s_idx -= 1
            continue
        while (l_idx >= 0 and long[l_idx].lower() != c) or (
            s_idx == 0 and l_idx > 0 and long[l_idx - 1].isalnum()
        ):
            l_idx -= 1
        if l_idx < 0:
            return None
        l_idx -= 1
        s_idx -= 1
    start = long.rfind(" ", 0, l_idx + 1) + 1
    return long[start:].strip()


def strip_plural(short: str) -> str:
    return short[:-1] if short.endswith("s") and short[:-1].isupper() else short


_COLON_RE = re.compile(
    r"(?:\d{1,2}\s+|[*†‡§¶]\s*)?([A-Za-z0-9][\w-]{1,11}):\s+([^:;,.()\n]{3,160})"
)
"""``SF: Long Form`` — how a paper's title or a footnote names its system ("S2ORC: The
Semantic Scholar Open Research Corpus", "VESPA: Very large-scale Evolutionary and
Selective Pressure Analyses")."""
_LEADING_ARTICLES = frozenset({"the", "a", "an"})


def _letters_spelled(short: str) -> str:
    """``S2ORC`` → ``SSORC``: a digit after a letter repeats it (S², W3C)."""
    out: list[str] = []
    for i, ch in enumerate(short):
        if ch.isdigit() and i > 0 and short[i - 1].isalpha() and not short[i + 1 :].isdigit():
            out.append(short[i - 1] * (int(ch) - 1))
        else:
            out.append(ch)
    return "".join(out)


def colon_definition(text: str) -> tuple[str, str] | None:
    """The ``SF: Long Form`` pair that starts ``text`` (a title or a sentence), if any.

    The long form must spell the short form's letters (Schwartz–Hearst, a digit repeating
    the letter before it) from its first word on, after an optional article; the shortest
    such run of words, with the capitalised words that follow it, is the long form. The
    definition of "CLS: classification" counts, "Abstract: we …" does not."""
    m = _COLON_RE.match(text.strip())
    if not m or not is_acronym(m.group(1)):
        return None
    short = strip_plural(m.group(1))
    words = _LINE_BREAK_HYPHEN.sub(r"\1\2", m.group(2)).split()
    if words and words[0].casefold() in _LEADING_ARTICLES:
        words = words[1:]
    letters = sum(c.isalnum() for c in short)
    max_words = min(letters + 5, 2 * letters)
    for spelled in dict.fromkeys((short, _letters_spelled(short))):
        for n in range(1, min(len(words), max_words) + 1):
            candidate = " ".join(words[:n])
            long = best_long_form(spelled, candidate)
            if (
                long == candidate
                and len(long) > len(short)
                and short.casefold() not in long.casefold()
                and long.split()[-1].casefold() not in STOP_WORDS
            ):
                # a title-cased name runs on ("Semantic Scholar Open Research Corpus")
                while n < min(len(words), max_words) and words[n][:1].isupper():
                    n += 1
                return short, " ".join(words[:n])
    return None


def detect_acronyms(text: str) -> dict[str, str]:
    """Short forms defined in ``text`` → their long forms.

    Recognises ``long form (SF)`` and ``SF (long form)``; a long form must match the short
    form's letters in order with its first letter starting a word, and be at most
    ``min(|SF| + 5, 2·|SF|)`` words long; and a sentence that opens with ``SF: Long Form``
    (:func:`colon_definition`). The first definition of a short form wins.
    """
    found: dict[str, str] = {}
    for s, e in sentence_spans(text):
        sent = text[s:e]
        lines = _LINE_BREAK_HYPHEN.sub(r"\1\2", sent).splitlines()
        for i in range(len(lines)):
            # a definition may run on to the next lines (a footnote broken by the layout)
            pair = colon_definition(" ".join(lines[i : i + 3]))
            if pair and pair[0] not in found:
                found[pair[0]] = pair[1]
        for m in _PAREN_RE.finditer(sent):
            inner = re.split(r"[;,]", m.group(1))[0].strip()
            before = sent[: m.start()].rstrip()
            pair = _pair_from(inner, before)
            if pair and pair[0] not in found:
                found[pair[0]] = " ".join(_LINE_BREAK_HYPHEN.sub(r"\1\2", pair[1]).split())
    return found


def _pair_from(inner: str, before: str) -> tuple[str, str] | None:
    if is_acronym(inner):
        short = strip_plural(inner)
        letters = sum(c.isalnum() for c in short)
        max_words = min(letters + 5, 2 * letters)
        words = before.split()[-max_words:]
        candidate = " ".join(words)
        long = best_long_form(short, candidate)
        if long and _valid_long(short, long, max_words):
            return short, long
        return None
    words_before = before.split()
    if words_before and len(inner.split()) >= 2:
        token = words_before[-1].strip("\"'“”")
        if is_acronym(token):
            short = strip_plural(token)
            letters = sum(c.isalnum() for c in short)
            max_words = min(letters + 5, 2 * letters)
            long = best_long_form(short, inner)
            if long and long == inner and _valid_long(short, long, max_words):
                return short, long
    return None


def _valid_long(short: str, long: str, max_words: int) -> bool:
    words = long.split()
    if not words or len(words) > max_words or len(long) <= len(short):
        return False
    if short.casefold() in long.casefold():
        return False
    if words[0].casefold() in STOP_WORDS or words[-1].casefold() in STOP_WORDS:
        return False  # "right-hand side of (REF)": a label after a phrase, not a definition
    return not any(ch in long for ch in "().;:")
