"""A source's level for a concept from generality: the background, citations, introduction."""

from __future__ import annotations

from marginalia.knowledge.background import load_background
from marginalia.knowledge.concept_levels import is_cited, is_introduced, provisional_level
from marginalia.knowledge.sentences import ChunkText, collect_sentences

TITLE = "SPECTER: Document-level Representation Learning"
BODY = (
    "We introduce SCIDOCS, a new benchmark. We initialise the encoder with SciBERT "
    "(Beltagy et al., 2019) and train with a triplet loss [12]. Named entity recognition "
    "and a systematic review are common. The hard negatives help SPECTER."
)
SENTENCES = collect_sentences(TITLE, None, [ChunkText(0, BODY, "introduction")])


def test_citation_and_introduction_signals() -> None:
    assert is_cited(["SciBERT"], SENTENCES)
    assert is_cited(["triplet loss"], SENTENCES)
    assert not is_cited(["SPECTER"], SENTENCES)
    assert is_introduced(["SPECTER"], SENTENCES)  # in the title
    assert is_introduced(["SCIDOCS"], SENTENCES)  # "we introduce"
    assert not is_introduced(["hard negatives"], SENTENCES)


def test_levels_follow_generality() -> None:
    bg = load_background()
    level = lambda name, key: provisional_level([name], key, SENTENCES, bg)  # noqa: E731
    assert level("SPECTER", "specter") == 2  # its own, never cited, unknown to the background
    assert level("SCIDOCS", "scidoc") == 2
    assert level("SciBERT", "scibert") == 1  # used with a citation
    assert level("hard negatives", "hard negative") == 1
    assert level("named entity recognition", "named entity recognition") == 0  # field-wide
    assert level("systematic review", "systematic review") == 0
