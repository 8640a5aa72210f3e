"""Dataset names in a source's text: capitalised names right before or after "dataset",
"corpus", "benchmark" or "treebank" (pure; no model)."""

from __future__ import annotations

from collections.abc import Iterable

from marginalia.knowledge import keyphrase_words as vocab
from marginalia.knowledge.sentences import WORD_SPAN_RE
from marginalia.knowledge.text import STOP_WORDS

MAX_DATASETS = 10


def _is_name_token(tok: str, initial: bool) -> bool:
    if tok.casefold() in vocab.DATASET_SKIP or tok.casefold() in STOP_WORDS:
        return False
    if any(c.isdigit() for c in tok) and any(c.isalpha() for c in tok):
        return True
    if sum(c.isupper() for c in tok) >= 2:
        return True
    return tok[:1].isupper() and not initial


def detect_datasets(sentences: Iterable[str]) -> list[str]:
    """Capitalised names right before/after "dataset", "corpus", "benchmark" or "treebank"."""
    names: list[str] = []
    seen: set[str] = set()
    for sent in sentences:
        words = [(m.group().rstrip(".’'"), m.start()) for m in WORD_SPAN_RE.finditer(sent)]
        for i, (w, _pos) in enumerate(words):
            if w.casefold() not in vocab.DATASET_KEYWORDS:
                continue
            name_tokens: list[str] = []
            j = i - 1
            while j >= 0 and len(name_tokens) < 4 and _is_name_token(words[j][0], j == 0):
                name_tokens.insert(0, words[j][0])
                j -= 1
            if name_tokens and w.casefold() == "treebank" and w[:1].isupper():
                name_tokens.append(w)
            if not name_tokens and i + 1 < len(words) and _is_name_token(words[i + 1][0], False):
                k = i + 1
                while (
                    k < len(words) and len(name_tokens) < 4 and _is_name_token(words[k][0], False)
                ):
                    name_tokens.append(words[k][0])
                    k += 1
            if not name_tokens:
                continue
            name = " ".join(name_tokens)
            if name.casefold() not in seen:
                seen.add(name.casefold())
                names.append(name)
    return names[:MAX_DATASETS]
