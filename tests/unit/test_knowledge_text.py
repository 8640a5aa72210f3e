from marginalia.knowledge.schemas import EvidenceJudgement, Extraction, extraction_json_schema
from marginalia.knowledge.text import (
    STOP_WORDS,
    jaccard,
    sentence_spans,
    slugify,
    split_sentences,
    title_tokens,
)


def test_title_tokens_strip_case_punctuation_and_stop_words() -> None:
    assert title_tokens("Attention Is All You Need!") == {"attention", "need"}
    assert title_tokens("BERT: Pre-training of Deep Bidirectional Transformers") == {
        "bert",
        "pre",
        "training",
        "deep",
        "bidirectional",
        "transformers",
    }
    assert title_tokens(None) == set()
    assert "the" in STOP_WORDS and "attention" not in STOP_WORDS


def test_jaccard() -> None:
    assert jaccard({"a", "b"}, {"b", "c"}) == 1 / 3
    assert jaccard(set(), set()) == 0.0
    assert jaccard(["a"], ["a"]) == 1.0


def test_sentence_splitting_is_abbreviation_aware() -> None:
    text = (
        "We use BERT (Devlin et al., 2019) as the encoder. It gains 3.5 points, e.g. on SQuAD, "
        "i.e. a large margin. See Fig. 2 for details. Results show it works! J. Smith agrees."
        "\n\nA new paragraph starts here"
    )
    assert split_sentences(text) == [
        "We use BERT (Devlin et al., 2019) as the encoder.",
        "It gains 3.5 points, e.g. on SQuAD, i.e. a large margin.",
        "See Fig. 2 for details.",
        "Results show it works!",
        "J. Smith agrees.",
        "A new paragraph starts here",
    ]
    for start, end in sentence_spans(text):
        assert text[start:end] == text[start:end].strip()


def test_single_letter_names_still_end_sentences() -> None:
    assert split_sentences("We propose X. Results show X works.") == [
        "We propose X.",
        "Results show X works.",
    ]
    assert split_sentences("Done. J. R. R. Tolkien wrote.") == ["Done.", "J. R. R. Tolkien wrote."]


def test_slugify() -> None:
    assert slugify("Multi-Head Attention") == "multi-head-attention"
    assert slugify("  Café  au lait ") == "cafe-au-lait"
    assert slugify("!!!") == "untitled"


def test_extraction_schema_is_json_schema_for_llms() -> None:
    schema = extraction_json_schema()
    properties = schema["properties"]
    assert isinstance(properties, dict)
    assert set(Extraction.model_fields) <= set(properties)
    assert EvidenceJudgement(relation="supports", rationale="same effect").relation == "supports"
