"""A column's question: checked, keyed, and read for what kind of answer it wants (pure).

Every column is a question asked of each source. Its *profile* says what a good answering
sentence looks like, from the words of the question alone:

- ``count`` — "how many", "number of", "sample size": a number of countable things
  (participants, papers, samples …), the answer being that number with its noun;
- ``dataset`` — "dataset", "data source", "corpus", "database", "benchmark": the named
  data the paper uses;
- ``method`` — "method", "approach", "technique", "methodology", "design";
- ``result`` — "result", "finding", "outcome", "conclusion", "performance";
- ``limitation`` — "limitation", "weakness", "shortcoming", "drawback", "caveat";
- ``generic`` — anything else; the answer type of
  :func:`marginalia.answer.answer_types.expected_type` still applies (a number for "how
  much", a name for "which", a date for "when").

A profile adds words to the retrieval query, a cue pattern a sentence earns a bonus for,
and the kinds of section its answer usually sits in. The suggested columns are the
fields extraction already fills (methodology, key results, limitations, datasets) and the
sample size.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from marginalia.answer.answer_types import AnswerType, expected_type

#: Longest column question accepted (characters, after trimming).
MAX_COLUMN_CHARS = 300
#: Most columns a table may have, and most sources (rows).
MAX_COLUMNS = 20
MAX_ROWS = 500

ProfileKind = Literal["count", "dataset", "method", "result", "limitation", "generic"]


@dataclass(frozen=True)
class SuggestedColumn:
    key: str
    label: str
    question: str


SUGGESTED_COLUMNS: tuple[SuggestedColumn, ...] = (
    SuggestedColumn("datasets", "Datasets", "Which dataset or data source is used?"),
    SuggestedColumn(
        "sample_size", "Sample size", "How many samples, participants or documents are studied?"
    ),
    SuggestedColumn("methodology", "Methodology", "What method or approach is proposed or used?"),
    SuggestedColumn("key_results", "Key results", "What is the main result?"),
    SuggestedColumn("limitations", "Limitations", "What limitation is stated?"),
)


def clean_question(text: str) -> str:
    """The column text as stored: NFC, whitespace collapsed, trimmed."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def question_key(question: str) -> str:
    """The cache key of a column's text: SHA-256 of its case-folded clean form, so the
    same question written twice (or re-cased) shares its cells."""
    return hashlib.sha256(clean_question(question).casefold().encode("utf-8")).hexdigest()


def column_problem(text: str) -> str | None:
    """Why ``text`` cannot be a column (None when it can)."""
    cleaned = clean_question(text)
    if not cleaned:
        return "the column text is empty"
    if len(cleaned) > MAX_COLUMN_CHARS:
        return f"the column text is {len(cleaned)} characters; at most {MAX_COLUMN_CHARS}"
    if not any(c.isalnum() for c in cleaned):
        return "the column text has no letter or digit"
    return None


# ------------------------------------------------------------------------------ profiles

_COUNT_Q = re.compile(r"\bhow\s+many\b|\bnumber\s+of\b|\bsample\s+sizes?\b|\bcount\b", re.I)
_DATASET_Q = re.compile(
    r"\bdata\s*sets?\b|\bdata\s+sources?\b|\bcorpus\b|\bcorpora\b|\bdatabases?\b|\bbenchmarks?\b"
    r"|\bwhat\s+data\b|\bwhich\s+data\b",
    re.I,
)
_LIMITATION_Q = re.compile(
    r"\blimitations?\b|\bweakness(?:es)?\b|\bshortcomings?\b|\bdrawbacks?\b|\bcaveats?\b"
    r"|\bthreats?\s+to\s+validity\b",
    re.I,
)
_RESULT_Q = re.compile(
    r"\bresults?\b|\bfindings?\b|\boutcomes?\b|\bconclu\w*|\bperformance\b|\beffects?\b", re.I
)
_METHOD_Q = re.compile(
    r"\bmethods?\b|\bmethodology\b|\bapproach(?:es)?\b|\btechniques?\b|\bstudy\s+design\b"
    r"|\bdesign\b|\bprocedures?\b",
    re.I,
)

#: Plurals that do not end in "s" (any other counted thing is a plural noun: "100
#: outpatients", "7,918 gene families"; see :mod:`marginalia.tables.short_answer`).
IRREGULAR_PLURALS = (
    "people|men|women|children|persons|mice|geese|teeth|feet|data|criteria|phenomena"
)


def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_NEVER = re.compile(r"(?!x)x")
_OWN = r"(?:we|this\s+(?:paper|work|study|article|report)|the\s+(?:present|current)\s+study)"

#: A sentence that says outright what the column asks ("Results:", "a limitation of",
#: "we propose") earns the strong bonus; one with the column's vocabulary the weak one; a
#: sentence the column's words appear in for another reason (code and data availability,
#: others' methods) the penalty.
_STRONG: dict[ProfileKind, re.Pattern[str]] = {
    "count": _rx(
        r"\b(?:consist(?:s|ed|ing)?\s+of|compris(?:es|ed|ing)|total\s+of|in\s+total"
        r"|n\s*=\s*\d|were\s+(?:recruited|enrolled|interviewed|included|sampled|selected"
        r"|surveyed|annotated|analy[sz]ed|collected)"
        rf"|{_OWN}\s+(?:\w+ly\s+)?(?:use[ds]?|collect(?:s|ed)?|stud(?:y|ied)|interview(?:s|ed)?"
        r"|sample[ds]?|include[ds]?|gather(?:s|ed)?|train(?:s|ed)?|survey(?:s|ed)?"
        r"|annotate[ds]?|assemble[ds]?|analy[sz]e[ds]?|recruit(?:s|ed)?))\b"
    ),
    "dataset": _rx(
        rf"\b(?:{_OWN}\s+(?:\w+ly\s+)?(?:use[ds]?|collect(?:s|ed)?|obtain(?:s|ed)?"
        r"|assemble[ds]?|construct(?:s|ed)?|draw|drew|generate[ds]?|gather(?:s|ed)?"
        r"|train(?:s|ed)?\s+on|evaluate[ds]?\s+on)"
        r"|data\s+(?:were|was)\s+(?:collected|obtained|drawn|gathered|extracted|retrieved)"
        r"|(?:collected|obtained|drawn|sourced|retrieved|extracted)\s+from"
        r"|generat\w*\s+(?:the\s+)?data|data\s+collection)\b"
    ),
    "method": _rx(
        rf"\b{_OWN}\s+(?:\w+ly\s+)?(?:propose|present|introduce|develop|describe|design"
        r"|build|conduct|perform|adopt|employ)(?:s|d|ed)?\b|^\s*methods?\s*:"
        r"|\b(?:was|were)\s+(?:used|applied|conducted|performed|carried\s+out)\b"
    ),
    "result": _rx(
        r"^\s*(?:results?|findings?|conclusions?)\s*:"
        rf"|\b{_OWN}\s+(?:\w+ly\s+)?(?:show|find|found|demonstrate|observe|report)(?:s|ed)?\b"
        r"|\b(?:results?|findings?|experiments?|analys[ie]s)\s+(?:\w+ly\s+)?(?:show|shows|showed"
        r"|indicate[ds]?|suggest(?:s|ed)?|demonstrate[ds]?|reveal(?:s|ed)?|confirm(?:s|ed)?)\b"
        r"|\boutperform\w*|\bin\s+conclusion\b|\bwere\s+identified\s+as\b"
    ),
    "limitation": _rx(
        r"\blimitations?\b|\bshortcomings?\b|\bdrawbacks?\b|\bcaveats?\b|\bweakness(?:es)?\b"
        r"|\bthreats?\s+to\s+validity\b|\bis\s+limited\s+(?:to|by|in)\b"
    ),
    "generic": _NEVER,
}
_WEAK: dict[ProfileKind, re.Pattern[str]] = {
    "count": _rx(
        r"\b(?:includ(?:es|ed|ing)|sampled|recruited|enrolled|collected|participated"
        r"|selected|assembled|annotated|surveyed|analy[sz]ed|our)\b"
    ),
    "dataset": _rx(
        r"\b(?:data\s*sets?|corpus|corpora|databases?|benchmarks?|treebanks?|registers?"
        r"|registry|records|archives?|repositor(?:y|ies)|simulat(?:ed|ions?)|observations?"
        r"|surveys?|interviews?|questionnaires?)\b"
    ),
    "method": _rx(
        r"\b(?:approach|method|methodology|framework|pipeline|algorithm|technique|procedure"
        r"|model|architecture|software|tool|system|study\s+design)\b"
    ),
    "result": _rx(
        r"\b(?:improv\w*|achiev\w*|significant(?:ly)?|substantial(?:ly)?|overall"
        r"|state[- ]of[- ]the[- ]art|better\s+than|compared\s+(?:to|with)|largest|major"
        r"|main|key|able\s+to)\b"
    ),
    "limitation": _rx(
        r"\blimited\b|\bfuture\s+(?:work|research|studies)\b|\bwe\s+leave\b"
        r"|\bleft\s+(?:for|as)\s+future\b|\bremains?\s+(?:unclear|open|challenging|difficult)\b"
        r"|\b(?:does|do|did|could|can)\s+not\b|\bcannot\b|\bfail(?:s|ed)?\s+to\b"
        r"|\bunable\s+to\b|\brestricted\s+to\b|\bsmall\s+(?:sample|number)\b|\bonly\b"
        r"|\bslow\b|\bbias(?:ed)?\b|\bnot\s+(?:possible|available|generali[sz]able)\b"
        r"|\bhowever\b|\bdepend(?:s|ent)?\s+on\b"
    ),
    "generic": _NEVER,
}
_AGAINST: dict[ProfileKind, re.Pattern[str]] = {
    "count": _NEVER,
    "dataset": _rx(
        r"\b(?:can\s+be\s+(?:accessed|downloaded|found)|(?:is|are)\s+(?:publicly\s+)?available"
        r"|github|upon\s+request|implemented\s+in)\b"
    ),
    "method": _rx(r"\bet\s+al\b|\bprevious(?:ly)?\b|\bprior\s+work\b"),
    "result": _rx(r"\bet\s+al\b|\bprevious(?:ly)?\b|\bprior\s+work\b|^\s*table\b"),
    "limitation": _NEVER,
    "generic": _NEVER,
}

#: Sections an answer of each profile usually sits in (``chunks.section_type``).
_SECTIONS: dict[ProfileKind, frozenset[str]] = {
    "count": frozenset({"abstract", "methods", "results"}),
    "dataset": frozenset({"abstract", "methods", "results"}),
    "method": frozenset({"abstract", "introduction", "methods"}),
    "result": frozenset({"abstract", "conclusion", "results", "discussion"}),
    "limitation": frozenset({"discussion", "conclusion", "results"}),
    "generic": frozenset(),
}

#: Words added to the retrieval query of each profile.
_EXPANSION: dict[ProfileKind, str] = {
    "count": "total number of participants samples papers collected",
    "dataset": "dataset data corpus database collected from",
    "method": "we propose approach method",
    "result": "results show outperforms improvement conclusion",
    "limitation": "limitations limited future work however",
    "generic": "",
}


@dataclass(frozen=True)
class Profile:
    kind: ProfileKind
    #: The answer type the question asks for (``count`` is always a quantity).
    answer_type: AnswerType

    def cue(self, sentence: str) -> float:
        """How strongly ``sentence`` reads as this column's answer: 1 (says it outright),
        0.5 (the column's vocabulary), 0, or -1 (the words for another reason)."""
        if _AGAINST[self.kind].search(sentence):
            return -1.0
        if _STRONG[self.kind].search(sentence):
            return 1.0
        return 0.5 if _WEAK[self.kind].search(sentence) else 0.0

    @property
    def sections(self) -> frozenset[str]:
        return _SECTIONS[self.kind]

    def retrieval_query(self, question: str) -> str:
        extra = _EXPANSION[self.kind]
        return f"{question} {extra}" if extra else question

    @property
    def wants_count(self) -> bool:
        return self.kind == "count" or self.answer_type == "quantity"

    @property
    def wants_name(self) -> bool:
        return self.kind == "dataset" or self.answer_type == "named"


def profile_of(question: str) -> Profile:
    """What ``question`` asks for (see the module doc)."""
    kind_type = expected_type(question)
    kind: ProfileKind
    if _COUNT_Q.search(question):
        kind = "count"
    elif _DATASET_Q.search(question):
        kind = "dataset"
    elif _LIMITATION_Q.search(question):
        kind = "limitation"
    elif _RESULT_Q.search(question):
        kind = "result"
    elif _METHOD_Q.search(question):
        kind = "method"
    else:
        kind = "generic"
    if kind == "count":
        kind_type = "quantity"
    elif kind == "dataset" and kind_type == "none":
        kind_type = "named"
    elif kind in ("method", "result", "limitation") and kind_type == "named":
        # "What method …" names a method, but the answer is a description of it.
        kind_type = "none"
    return Profile(kind, kind_type)
