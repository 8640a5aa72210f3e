"""What a claim and another source's passage must share before the offline engine links
them as "related" (issue 35): a salient term — a name (``SciBERT``, ``S2ORC``, ``33RE``),
a word general English does not use ("thromboprophylaxis", "enoxaparin"), a two-word
term with such a word or a name in it, or one of the workspace's concepts that is not a
topic of the whole workspace ("citation graph" between two papers of a workspace that is
not all about citation graphs). Words every paper of a field uses ("dataset",
"summaries", "papers") are topic words: two passages sharing only those are near in
embedding space because they are on one topic, not because one bears on the other (an
S2ORC claim and a passage about SQuALITY)."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from marginalia.knowledge.background import is_everyday_english
from marginalia.knowledge.concept_filter import is_named_token
from marginalia.knowledge.text import STOP_WORDS

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9]*(?:[-'][A-Za-z0-9]+)*")
MIN_RARE_WORD = 4


def _rare(word: str) -> bool:
    if not word.isalpha() or len(word) < MIN_RARE_WORD:
        return False
    return not is_everyday_english(word.casefold())


def _named(tok: str) -> bool:
    # two letters at least: "81.1M" and "1M" are amounts, not names
    return sum(ch.isalpha() for ch in tok) >= 2 and is_named_token(tok)


# Citations name authors, not what the text is about: "(Beltagy et al., 2019)", "[12]",
# "Smith and Jones (2020)".
_CITATION = re.compile(
    r"\([^()]*\b(?:19|20)\d\d[a-z]?\)|\[[\d,;\s–-]+\]|"
    r"\b[A-Z][\w'-]+(?:\s+(?:and|&)\s+[A-Z][\w'-]+|\s+et\s+al\.?)"
)


def salient_terms(text: str) -> frozenset[str]:
    """The salient terms of ``text``, case-folded (module docs)."""
    text = _CITATION.sub(" , ", text)
    matches = list(_TOKEN.finditer(text))
    tokens = [m.group() for m in matches]
    out: set[str] = set()
    salient = [_named(t) or any(_rare(p) for p in t.split("-")) for t in tokens]
    for tok, is_salient in zip(tokens, salient, strict=True):
        if is_salient:
            out.add(tok.casefold())
    for i in range(len(tokens) - 1):
        a, b = tokens[i], tokens[i + 1]
        if a.casefold() in STOP_WORDS or b.casefold() in STOP_WORDS:
            continue
        if text[matches[i].end() : matches[i + 1].start()].strip():
            continue  # punctuation between them: not one term
        if salient[i] or salient[i + 1]:
            out.add(f"{a.casefold()} {b.casefold()}")
    return frozenset(out)


@functools.lru_cache(maxsize=16384)
def _mention_pattern(form: str) -> re.Pattern[str] | None:
    # compiled once per form (the re module's own cache is smaller than a library's concepts)
    words = [re.escape(w) for w in re.split(r"[\s\-]+", form.strip()) if w]
    pattern = r"(?<![\w-])" + r"[\s\-]+".join(words) + r"(?:s|es)?(?![\w-])"
    return re.compile(pattern, re.IGNORECASE) if words else None


def _mentions(form: str, text: str) -> bool:
    pattern = _mention_pattern(form)
    return pattern is not None and pattern.search(text) is not None


def shared_salient_terms(claim: str, passage: str, concepts: Sequence[str] = ()) -> list[str]:
    """The salient terms ``claim`` and ``passage`` share, longest first (a two-word term
    before the words in it), at most five; ``concepts``: forms of the workspace's concepts
    that are no topic of the whole workspace."""
    claim_text, passage_text = _CITATION.sub(" , ", claim), _CITATION.sub(" , ", passage)
    shared = salient_terms(claim) & salient_terms(passage)
    shared |= {
        " ".join(f.casefold().split())
        for f in concepts
        if _mentions(f, claim_text) and _mentions(f, passage_text)
    }
    words_in_pairs = {w for term in shared if " " in term for w in term.split()}
    kept = [t for t in shared if " " in t or t not in words_in_pairs]
    return sorted(kept, key=lambda t: (-len(t.split()), t))[:5]
