"""A cell's short answer, cut from its quote (pure; nothing is paraphrased).

- a **count** ("how many …"): each number of the sentence that counts things — a figure
  or a number word followed, within a few words, by a countable noun ("146K query
  papers", "100 outpatients", "7,918 homologous gene families", "fifteen participants");
  not a percentage, a unit of measure, a year or a table/figure number;
- a **name** ("which dataset …"): the names the sentence gives that the question does
  not — dataset names next to "dataset/corpus/benchmark", then runs of capitalised words
  or acronyms ("Semantic Scholar", "Kamuzu Central Hospital", "Wireless InSite"); not a
  citation ("Ammar et al.", "(Lopez, 2009)") or a table/figure label;
- a **date** ("when …"): the years and dates the sentence states;
- data ("which dataset …") without a name: what the sentence says the data is or comes
  from ("focus groups with patients");
- anything else: the sentence itself, whitespace collapsed.

Every piece is text of the sentence, so the answer is always checkable against its quote.
"""

from __future__ import annotations

import re
from functools import lru_cache

from marginalia.answer.quotes import normalize
from marginalia.knowledge.datasets import detect_datasets
from marginalia.tables.columns import IRREGULAR_PLURALS, Profile

#: At most this many pieces (counts, names) make one short answer.
MAX_PIECES = 3
#: Words a sentence answer keeps (a longer sentence is cut at a word, with "…").
MAX_SENTENCE_WORDS = 60

_NUMBER_WORD = (
    r"two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|"
    r"fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|"
    r"eighty|ninety|hundred|hundreds|thousands|millions|dozens"
)
_FIGURE = r"(?:~|≈|about\s+|approximately\s+|around\s+|over\s+|more\s+than\s+|nearly\s+)?"
_NUM = (
    rf"(?<![\w.,$€£-]){_FIGURE}(?:\d{{1,3}}(?:,\d{{3}})+|\d+(?:\.\d+)?)"
    r"(?:\s?[KMB](?![A-Za-z])|\s(?:thousand|million|billion)\b)?"
)
_COUNT = re.compile(
    rf"(?P<num>{_NUM}|\b(?:{_NUMBER_WORD})\b)"
    r"(?P<noun>(?:\s+(?!(?:of|in|and|or|with|for|per|to|from|by|at|on|the|a|an)\b)"
    r"[A-Za-z][\w-]*){1,4})",
    re.IGNORECASE,
)
_COUNT_NOUN = re.compile(rf"^(?:{IRREGULAR_PLURALS})$", re.IGNORECASE)
# Units and words after a number that make it a measure, not a count.
_UNIT = re.compile(
    r"^(?:%|percent|per|times|fold|x|hours?|h|minutes?|min|seconds?|s|ms|days?|weeks?|"
    r"months?|years?|cm|mm|m|km|kg|g|mg|ml|l|nm|nM|mM|µM|uM|hz|khz|mhz|ghz|thz|db|dbm|w|"
    r"kw|mw|v|ev|kev|mev|k|°c|degrees?|points?|gb|mb|kb|tb|cpu|gpu|epochs?|iterations?|"
    r"steps?|layers?|dimensions?|dimensional|bits?|bytes?|fps|mg/kg|μm|µm|fold|rounds?)$",
    re.IGNORECASE,
)
_NOT_COUNT_BEFORE = re.compile(
    r"(?:table|tables|fig\.?|figure|figures|section|sections|eq\.?|equation|appendix|step|"
    r"phase|version|release|chapter|page|pp\.?|ref\.?|v)\s*$",
    re.IGNORECASE,
)
_YEAR = re.compile(r"^(?:1[6-9]|20)\d\d$")

_NAME_TOKEN = re.compile(r"(?<![\w.])(?:[A-Za-z][\w.+&'’-]*[\w+]|[A-Za-z])")
_CITATION = re.compile(
    r"\b[A-Z][\w'’-]+(?:\s+(?:and|&)\s+[A-Z][\w'’-]+)?\s+et\s+al\.?(?:,?\s*\(?\d{4}[a-z]?\)?)?"
    r"|\([^()]*\b(?:19|20)\d\d[a-z]?\)"
    r"|\b[A-Z][\w'’-]+\s*\((?:19|20)\d\d[a-z]?\)"
    r"|\b(?:Tables?|Fig(?:ure)?s?|Sections?|Appendix|Eq(?:uation)?s?)\.?\s*[\dA-Z]+\b"
    r"|\[[\d,\s–-]+\]"
)
# Words that open a sentence or a clause in capitals without naming anything.
_NOT_NAMES = frozenset(
    [
        "a",
        "an",
        "the",
        "this",
        "these",
        "those",
        "that",
        "we",
        "our",
        "it",
        "its",
        "in",
        "on",
        "at",
        "for",
        "from",
        "to",
        "of",
        "by",
        "with",
        "as",
        "and",
        "or",
        "but",
        "if",
        "when",
        "while",
        "although",
        "however",
        "thus",
        "therefore",
        "moreover",
        "furthermore",
        "here",
        "there",
        "then",
        "also",
        "all",
        "each",
        "every",
        "both",
        "such",
        "one",
        "two",
        "first",
        "second",
        "third",
        "finally",
        "overall",
        "table",
        "figure",
        "section",
        "appendix",
        "fig",
        "eq",
        "data",
        "dataset",
        "datasets",
        "study",
        "studies",
        "results",
        "method",
        "methods",
        "approach",
        "model",
        "models",
        "paper",
        "work",
        "analysis",
        "using",
        "based",
        "after",
        "before",
        "during",
        "since",
        "because",
        "following",
        "given",
        "unlike",
        "like",
        "note",
        "release",
        "version",
        "i",
        "ii",
        "iii",
        "iv",
        "v",
    ]
)
_NAME_JOINERS = frozenset({"of", "de", "for", "and", "&", "van", "der", "von", "la"})


def _plural(word: str) -> bool:
    """A lower-case plural noun that is not a unit ("vignettes", not "homologous")."""
    return (
        word.islower()
        and len(word) > 3
        and word.endswith("s")
        and not word.endswith(("ous", "ss", "us", "is", "ics"))
        and not _UNIT.match(word)
    )


def _count_pieces(sentence: str) -> list[str]:
    out: list[str] = []
    for m in _COUNT.finditer(sentence):
        raw_num = m.group("num").strip()
        digits = re.sub(r"[^\d]", "", raw_num)
        if _YEAR.match(digits) and not re.search(r"[KMB]|thousand|million|billion", raw_num):
            continue
        if _NOT_COUNT_BEFORE.search(sentence[: m.start()]):
            continue
        words = m.group("noun").split()
        if not words or _UNIT.match(words[0].strip(".,;:()")):
            continue
        kept: list[str] = []
        counted = False
        for w in words:
            core = w.strip(".,;:()[]")
            if not core:
                break
            kept.append(core)
            if _COUNT_NOUN.match(core) or _plural(core):
                counted = True
                break
            if w != core:  # punctuation closes the phrase
                break
        if counted:
            out.append(f"{raw_num} {' '.join(kept)}")
    return list(dict.fromkeys(out))


def counts_in(sentence: str) -> list[str]:
    """The count phrases of ``sentence`` ("146K query papers"), in order, at most
    :data:`MAX_PIECES`."""
    return _count_pieces(normalize(sentence))[:MAX_PIECES]


def _name_runs(sentence: str, asked: set[str]) -> list[str]:
    cleaned = _CITATION.sub(" | ", sentence)
    tokens = [(m.group(), m.start()) for m in _NAME_TOKEN.finditer(cleaned)]
    runs: list[str] = []
    current: list[str] = []
    last_end = -1

    def close() -> None:
        while current and current[-1].casefold() in _NAME_JOINERS:
            current.pop()
        if current:
            name = " ".join(current)
            if name.casefold() not in asked and not all(
                t.casefold() in _NOT_NAMES for t in current
            ):
                runs.append(name)
        current.clear()

    for tok, start in tokens:
        gap = cleaned[last_end:start] if last_end >= 0 else " "
        if current and gap.strip() not in ("", "-"):
            close()
        is_name = (tok[0].isupper() or any(c.isdigit() for c in tok)) and (
            tok.casefold() not in _NOT_NAMES
        )
        if is_name or (current and tok.casefold() in _NAME_JOINERS):
            current.append(tok)
        else:
            close()
        last_end = start + len(tok)
    close()
    return [r for r in runs if not _ordinary_word(r)]


#: A single capitalised word at least this common in general English (wordfreq's Zipf
#: scale: 3.5 is about three times in a million words) is an ordinary word set in capitals
#: (a heading, a sentence's first word: "Training", "Release"), not a name.
ORDINARY_ZIPF = 3.5


@lru_cache(maxsize=8192)
def _ordinary_word(run: str) -> bool:
    if " " in run or any(c.isdigit() for c in run) or sum(c.isupper() for c in run) > 1:
        return False
    from wordfreq import zipf_frequency  # imported here: a quarter second every CLI start

    return zipf_frequency(run, "en") >= ORDINARY_ZIPF


def names_in(sentence: str, question: str) -> list[str]:
    """The names ``sentence`` gives that ``question`` does not, dataset names first, at
    most :data:`MAX_PIECES`."""
    text = normalize(sentence)
    asked = {t.casefold() for t in re.findall(r"[\w-]+", question)}
    found = [d for d in detect_datasets([text]) if d.casefold() not in asked]
    for run in _name_runs(text, asked):
        if not any(run.casefold() in f.casefold() or f.casefold() in run.casefold() for f in found):
            found.append(run)
    return found[:MAX_PIECES]


_DATE = re.compile(
    r"\b(?:(?:\d{1,2}\s+)?(?:January|February|March|April|May|June|July|August|September|"
    r"October|November|December)(?:\s+\d{1,2})?,?\s+)?(?:1[6-9]|20)\d\d\b"
)


def dates_in(sentence: str) -> list[str]:
    return list(dict.fromkeys(m.group() for m in _DATE.finditer(normalize(sentence))))[:MAX_PIECES]


_DATA_PHRASE = re.compile(
    r"\b(?:data(?:\s*sets?)?|corpus|sample|records|observations)\s+(?:of|from|on|consisting\s+of"
    r"|comprising|including|were\s+(?:collected|obtained|drawn|gathered)\s+(?:from|through|via"
    r"|with|using|in|at))\s+(?P<what>[^.;:]{3,120})"
    r"|\b(?:collected|obtained|drawn|gathered|extracted|retrieved|sourced)\s+(?:from|through|via"
    r"|with|using)\s+(?P<source>[^.;:]{3,120})",
    re.IGNORECASE,
)


def data_phrase(sentence: str) -> str | None:
    """What a sentence says its data is or comes from ("data were collected through focus
    groups with patients" → "focus groups with patients"), cut at the clause's end and at
    most 12 words; None when it says neither."""
    m = _DATA_PHRASE.search(normalize(sentence))
    if m is None:
        return None
    words = (m.group("what") or m.group("source") or "").split(",")[0].split()
    return " ".join(words[:12]).rstrip(")(") or None


def sentence_answer(sentence: str) -> str:
    words = normalize(sentence).split()
    if len(words) <= MAX_SENTENCE_WORDS:
        return " ".join(words)
    return " ".join(words[:MAX_SENTENCE_WORDS]) + " …"


def short_answer(profile: Profile, sentence: str, question: str) -> str | None:
    """The short answer ``sentence`` gives to ``question`` (see the module doc); None when
    the question wants a count, a name or a date and the sentence has none."""
    if profile.wants_count:
        pieces = counts_in(sentence)
    elif profile.wants_name:
        pieces = names_in(sentence, question)
    elif profile.answer_type == "time":
        pieces = dates_in(sentence)
    else:
        return sentence_answer(sentence)
    return "; ".join(pieces) if pieces else None
