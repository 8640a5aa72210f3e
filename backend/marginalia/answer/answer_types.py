"""The kind of answer a question asks for, and whether a sentence offers one.

- ``quantity`` — "how many", "how much", "what share/percentage/proportion/rate", "number
  of", "by how much", "more often … or …", …: the sentence states a figure standing on its
  own ("37M", "15-20$", "0.89") or a number word ("seven", "twice") — not the digit of a
  name ("S2ORC", "v3-8"), a year, a citation, a table/figure/section reference, or a
  figure the question itself states.
- ``time`` — "when", "what year", "how long ago": the sentence states a year or a date.
- ``named`` — "which …", "who …", "what is the name of", "what <thing> (model, dataset,
  database, tool, GPU, …)": the sentence names something — a capitalised word or an
  acronym past its first word, or a mixed letter/digit token ("BERT-base", "V100") — that
  the question does not already name; a citation ("Feldman et al.", "(Lopez, 2009)") is
  not one.
- ``none`` — anything else (why/how/what-does questions): no type to prefer.

The offline engine uses it to choose among well-supported sentences (the type never
changes a sentence's support or the evidence score).
"""

from __future__ import annotations

import re
from typing import Literal

AnswerType = Literal["quantity", "time", "named", "none"]

_QUANTITY = re.compile(
    r"\bhow\s+(?:many|much|often|large|long|big|high|fast|old|far|small|low)\b"
    r"|\b(?:percentage|percent|proportion|fraction|share|rate|ratio|number\s+of|size|amount"
    r"|cost|pay|wage|dose|duration|accuracy|score|count)\b"
    # a comparison between two options is answered by the figures ("more often by day or
    # overnight?")
    r"|\b(?:more|less)\s+(?:often|frequent(?:ly)?|common(?:ly)?)\b[^?]*\bor\b",
    re.IGNORECASE,
)
_TIME = re.compile(r"^\s*when\b|\bwhat\s+year\b|\bin\s+which\s+year\b", re.IGNORECASE)
_NAMED = re.compile(
    r"^\s*(?:(?:and|so|then|but)\s+)?(?:which|who|whom|whose)\b"
    r"|\b(?:which|what)\s+(?:\w+\s+)?(?:model|models|dataset|"
    r"datasets|database|databases|corpus|corpora|tool|tools|software|library|framework|"
    r"system|systems|method|algorithm|architecture|checkpoint|gpu|gpus|hardware|language|"
    r"languages|benchmark|benchmarks|baseline|baselines|journal|venue|encoder|metric|"
    r"metrics|measure|organisation|organization|institution|country|city|hospital|"
    r"company|instrument|telescope|package|protocol|platform|species|drug|compound)\b"
    r"|\bwhat\s+is\s+the\s+name\b|\bnamed?\b",
    re.IGNORECASE,
)
# Numbers that are not answers: years (citations), table/figure/section numbers, [12].
_NOT_A_QUANTITY = re.compile(
    r"\b(?:19|20)\d\d[a-z]?\b"
    r"|\b(?:tables?|fig(?:ure)?s?|sections?|eq(?:uation)?s?|appendix|ref)\.?\s*\d+[a-z]?\b"
    r"|\[\d+(?:\s*[,–-]\s*\d+)*\]",
    re.IGNORECASE,
)
_YEAR = re.compile(r"\b(?:1[6-9]|20)\d\d\b")
_MONTH = re.compile(
    r"\b(?:january|february|march|april|may|june|july|august|september|october|november|"
    r"december)\b",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[^\W_][\w\-.]*[^\W_]|[^\W_]")


def expected_type(question: str) -> AnswerType:
    """The answer type ``question`` asks for (see the module doc)."""
    if _TIME.search(question):
        return "time"
    if _QUANTITY.search(question):
        return "quantity"
    if _NAMED.search(question):
        return "named"
    return "none"


# A number standing as a word of its own: "37M", "16.4B", "15-20$", "90%", "0.89", "~5k",
# "7,918" — not a digit inside a name ("S2ORC", "GPT2", "v3-8", a footnote mark "code15").
_NUMBER = re.compile(r"^[~≈<>≤≥±$€£+−-]?\d[\d,.]*(?:[-–/]\d[\d,.]*)?(?:%|[kKmMbB]|x|×|\$|-fold)?$")
_NUMBER_WORD = re.compile(
    r"\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|"
    r"forty|fifty|sixty|seventy|eighty|ninety|hundred|hundreds|thousand|thousands|million|"
    r"millions|billion|billions|twice|half|dozen|percent)\b",
    re.IGNORECASE,
)
_ONE_UNIT = re.compile(
    r"\b(?:one|a\s+single)\s+(?:second|minute|hour|day|week|month|year|gpu|tpu|node)s?\b",
    re.IGNORECASE,
)
_STRIP = "()[]{},;:.!?\"'“”‘’"


def _numbers(text: str) -> list[str]:
    return [
        core
        for t in text.split()
        if (core := t.strip(_STRIP)) and _NUMBER.match(core) and any(c.isdigit() for c in core)
    ]


def states_quantity(sentence: str, question: str = "") -> bool:
    """Does ``sentence`` state a number — a figure standing on its own or a number word —
    other than a year, a citation or a table/figure reference, and other than a figure the
    question itself states (``question``)?"""
    cleaned = _NOT_A_QUANTITY.sub(" ", sentence)
    asked = set(_numbers(question))
    if any(n not in asked for n in _numbers(cleaned)):
        return True
    return bool(_NUMBER_WORD.search(cleaned) or _ONE_UNIT.search(cleaned))


def states_time(sentence: str) -> bool:
    return bool(_YEAR.search(sentence) or _MONTH.search(sentence))


def _is_name(token: str) -> bool:
    core = token.strip(".-")
    if len(core) < 2:
        return False
    has_digit = any(c.isdigit() for c in core)
    has_alpha = any(c.isalpha() for c in core)
    if has_digit and has_alpha:
        return True  # V100, BERT-base, GPT-2
    return core[0].isupper() and has_alpha


# Names that cite rather than answer: "Feldman et al. (2019)", "(Lopez, 2009)", "Table 3".
_CITATION = re.compile(
    r"\b[A-Z][\w'’-]+(?:\s+(?:and|&)\s+[A-Z][\w'’-]+)?\s+et\s+al\.?(?:\s*\(\d{4}[a-z]?\))?"
    r"|\([^()]*\b(?:19|20)\d\d[a-z]?\)"
    r"|\b[A-Z][\w'’-]+\s*\((?:19|20)\d\d[a-z]?\)"
    r"|\b(?:Tables?|Fig(?:ure)?s?|Sections?|Appendix|Eq(?:uation)?s?)\.?\s*[\dA-Z]+\b"
)


def names_something(sentence: str, question: str) -> bool:
    """Does ``sentence`` name a thing past its first word that ``question`` does not (a
    citation — "Feldman et al.", "(Lopez, 2009)" — or a table/figure label is not one)?"""
    asked = {t.casefold() for t in _TOKEN.findall(question)}
    tokens = _TOKEN.findall(_CITATION.sub(" ", sentence))
    return any(_is_name(t) and t.casefold() not in asked for t in tokens[1:])


def offers(kind: AnswerType, sentence: str, question: str) -> bool:
    """Does ``sentence`` offer an answer of ``kind`` to ``question``?"""
    if kind == "quantity":
        return states_quantity(sentence, question)
    if kind == "time":
        return states_time(sentence)
    if kind == "named":
        return names_something(sentence, question)
    return False
