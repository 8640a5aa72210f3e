"""Evidence tables' pure parts: what a column asks, short answers cut from quotes, the
offline cell (typed answers, "not reported" with what was searched, verified quotes with
their page), exports, and the table eval's matching rules."""

from __future__ import annotations

import csv
import io
import uuid
from datetime import UTC, datetime

import pytest

from marginalia.evaluation.tables_scoring import (
    GoldCell,
    GoldQuote,
    ShownQuote,
    aggregate,
    cell_matches,
    numbers_in,
    score_cell,
)
from marginalia.ingest.documents import Page
from marginalia.tables.cells import CellQuote
from marginalia.tables.columns import (
    MAX_COLUMN_CHARS,
    column_problem,
    profile_of,
    question_key,
)
from marginalia.tables.evidence import Evidence, SearchedPassage, Sentence
from marginalia.tables.export import exported_rows, to_csv, to_markdown
from marginalia.tables.offline_engine import confidence_of, fill_cell
from marginalia.tables.schemas import CellOut, ColumnOut, RowOut, TableOut
from marginalia.tables.short_answer import counts_in, names_in, short_answer

# ------------------------------------------------------------------------------ columns


@pytest.mark.parametrize(
    ("question", "kind", "answer_type"),
    [
        ("How many samples, participants or documents are studied?", "count", "quantity"),
        ("What is the sample size?", "count", "quantity"),
        ("Which dataset or data source is used?", "dataset", "named"),
        ("What corpus do they train on?", "dataset", "named"),
        ("What method or approach is proposed or used?", "method", "none"),
        ("What is the main result?", "result", "none"),
        ("What limitation is stated?", "limitation", "none"),
        ("Which GPU was used?", "generic", "named"),
        ("When was the data collected?", "generic", "time"),
        ("Why does it matter?", "generic", "none"),
    ],
)
def test_a_column_is_read_for_what_it_asks(question: str, kind: str, answer_type: str) -> None:
    profile = profile_of(question)
    assert (profile.kind, profile.answer_type) == (kind, answer_type)


def test_column_text_is_checked_and_keyed_by_its_clean_form() -> None:
    assert column_problem("") == "the column text is empty"
    assert column_problem(" \t\n") == "the column text is empty"
    assert column_problem("?!") == "the column text has no letter or digit"
    assert "at most" in (column_problem("x" * (MAX_COLUMN_CHARS + 1)) or "")
    assert column_problem("x" * MAX_COLUMN_CHARS) is None
    assert question_key("How many  patients?") == question_key("  how many patients? ")
    assert question_key("How many patients?") != question_key("How many papers?")


# ------------------------------------------------------------------------------ short answers


def test_counts_are_numbers_of_countable_things() -> None:
    assert counts_in("we interviewed 100 outpatients as they exited") == ["100 outpatients"]
    assert counts_in("a novel dataset of 7,918 homologous gene families (each)") == [
        "7,918 homologous gene families"
    ]
    assert counts_in("consisting of about 146K query papers with") == ["about 146K query papers"]
    assert counts_in("Fifteen participants (12 men) joined") == ["Fifteen participants", "12 men"]
    # Measures, percentages, years and table numbers are not counts.
    assert counts_in("The analyses took 36,180 CPU hours in total.") == []
    assert counts_in("We use 80% of the links for training.") == []
    assert counts_in("Data were collected in 2010 (see Table 3 results).") == []


def test_names_are_what_the_question_does_not_name() -> None:
    q = "Which dataset or data source is used?"
    assert names_in(
        "we use a subset of the Semantic Scholar corpus (Ammar et al., 2018) of 146K papers", q
    ) == ["Semantic Scholar"]
    assert names_in(
        "we use a ray tracing tool, Wireless InSite by Remcom [27] to generate data", q
    ) == [
        "Wireless InSite",
        "Remcom",
    ]
    # Ordinary words in capitals (a heading, a sentence's first word) are not names.
    assert names_in("Training Data We collected reviews from the web.", q) == []


def test_short_answer_by_what_the_column_wants() -> None:
    count = profile_of("How many participants?")
    assert short_answer(count, "We recruited 15 participants.", "How many participants?") == (
        "15 participants"
    )
    assert short_answer(count, "The method is simple.", "How many participants?") is None
    method = profile_of("What method is used?")
    sentence = "We propose SPECTER, a new method."
    assert short_answer(method, sentence, "What method is used?") == sentence


# ------------------------------------------------------------------------------ offline cell

PASSAGE = (
    "2 Methods\nWe interviewed 100 outpatients as they left the clinic. The interviews were "
    "recorded and transcribed."
)
PAGES = [Page(1, "Title page"), Page(2, "Intro text\n" + PASSAGE)]


def evidence(question: str, sentences: list[tuple[str, float]]) -> Evidence:
    passage = SearchedPassage(
        n=1,
        chunk_id=7,
        chunk_index=3,
        text=PASSAGE,
        section_type="methods",
        section_title="Methods",
        page=2,
        page_end=2,
        char_start=len("Intro text\n"),
        retrieval_rank=1,
    )
    out = Evidence(question=question, query=question, passages=[passage])
    for text, support in sentences:
        start = PASSAGE.index(text)
        out.sentences.append(Sentence(1, start, start + len(text), text, support, False))
    return out


def test_an_offline_count_cell_is_cut_from_a_verified_quote_on_its_page() -> None:
    question = "How many participants are studied?"
    ev = evidence(
        question,
        [
            ("2 Methods\nWe interviewed 100 outpatients as they left the clinic.", 0.5),
            ("The interviews were recorded and transcribed.", 0.6),
        ],
    )
    cell = fill_cell(ev, profile_of(question), PAGES)
    assert not cell.not_reported and cell.answer == "100 outpatients"
    [quote] = cell.quotes
    # The heading the layout glued above the sentence is not quoted.
    assert quote.text == "We interviewed 100 outpatients as they left the clinic."
    assert (quote.page, quote.page_end, quote.chunk_index) == (2, 2, 3)
    page_text = PAGES[1].text
    assert page_text[quote.char_start : quote.char_end] == quote.text
    assert cell.confidence is not None and 0 < cell.confidence < 1


def test_a_cell_without_a_count_is_not_reported_with_what_was_searched() -> None:
    question = "How many participants are studied?"
    ev = evidence(question, [("The interviews were recorded and transcribed.", 0.9)])
    cell = fill_cell(ev, profile_of(question), PAGES)
    assert cell.not_reported and cell.answer == "" and not cell.quotes
    assert cell.note and "count" in cell.note
    assert [(s.chunk_index, s.page, s.section) for s in cell.searched] == [(3, 2, "Methods")]
    empty = fill_cell(Evidence(question=question, query=question), profile_of(question), PAGES)
    assert empty.not_reported and "no text" in (empty.note or "")


def test_confidence_rises_with_the_rank() -> None:
    assert confidence_of(0.6) == pytest.approx(0.5)
    assert confidence_of(0.3) < confidence_of(0.6) < confidence_of(0.9) < 1.0


# ------------------------------------------------------------------------------ exports


def table() -> TableOut:
    now = datetime.now(UTC)
    c1, c2 = uuid.uuid4(), uuid.uuid4()
    quote = CellQuote(
        text="We interviewed 100 | outpatients\nat exit.", page=2, page_end=2, chunk_index=3
    )
    return TableOut(
        id=uuid.uuid4(),
        workspace_id=uuid.uuid4(),
        name="Health",
        created_at=now,
        updated_at=now,
        engine="offline:v1",
        columns=[
            ColumnOut(
                id=c1, position=0, question="How many?", kind="count", answer_type="quantity"
            ),
            ColumnOut(id=c2, position=1, question="Limits?", kind="limitation", answer_type="none"),
        ],
        rows=[
            RowOut(
                source_id=uuid.uuid4(),
                title="A study",
                file_name="a.pdf",
                status="ready",
                cells=[
                    CellOut(column_id=c1, state="filled", answer="100 outpatients", quotes=[quote]),
                    CellOut(column_id=c2, state="filled", not_reported=True, note="none"),
                ],
            )
        ],
        pending=0,
    )


def test_exports_put_the_quote_and_page_beside_each_value() -> None:
    t = table()
    lines = list(csv.reader(io.StringIO(to_csv(t))))
    assert lines[0] == [
        "source_id",
        "title",
        "How many?",
        "How many? — quote",
        "How many? — page",
        "Limits?",
        "Limits? — quote",
        "Limits? — page",
    ]
    assert lines[1][1:] == [
        "A study",
        "100 outpatients",
        "We interviewed 100 | outpatients at exit.",
        "2",
        "not reported",
        "",
        "",
    ]
    md = to_markdown(t)
    assert "| Source | How many? | Limits? |" in md
    assert "**100 outpatients** — “We interviewed 100 \\| outpatients at exit.” (p. 2)" in md
    assert md.rstrip().endswith("| not reported |")
    [row] = exported_rows(t)
    assert row.cells[0].quotes[0].page == 2 and row.cells[1].not_reported


# ------------------------------------------------------------------------------ eval rules


def gold(answer_type: str, answer: str, accept: list[str], nr: bool = False) -> GoldCell:
    return GoldCell(
        source="x.pdf",
        kind="pdf",
        column="q",
        answer=answer,
        answer_type=answer_type,  # type: ignore[arg-type]
        not_reported=nr,
        accept=tuple(accept),
        quotes=()
        if nr
        else (GoldQuote("we interviewed one hundred outpatients as they left the clinic", 2),),
        split="dev",
    )


def test_numbers_compare_as_numbers() -> None:
    assert numbers_in("about 146K query papers (684K triples)") == {146000.0, 684000.0}
    assert numbers_in("81.1 million papers") == numbers_in("81.1M") == {81100000.0}
    assert numbers_in("7,918 families, fifteen people in 2010") == {7918.0, 15.0}
    assert numbers_in("S2ORC and 3NXQ") == set()
    g = gold("number", "100 outpatients", ["100"])
    assert cell_matches(g, answer="one hundred? no: 100 patients", not_reported=False, quotes=[])
    assert not cell_matches(g, answer="98 respondents", not_reported=False, quotes=[])
    assert not cell_matches(g, answer="100 outpatients", not_reported=True, quotes=[])


def test_names_match_whole_words_in_a_short_answer() -> None:
    g = gold("name", "Semantic Scholar corpus", ["Semantic Scholar", "SciDocs"])
    assert cell_matches(g, answer="Semantic Scholar; SciBERT", not_reported=False, quotes=[])
    assert not cell_matches(g, answer="SemanticScholarX", not_reported=False, quotes=[])
    long = "we use the Semantic Scholar corpus to train " + "word " * 10
    assert not cell_matches(g, answer=long, not_reported=False, quotes=[])


def test_not_reported_and_text_cells() -> None:
    nr = gold("number", "", [], nr=True)
    assert cell_matches(nr, answer="", not_reported=True, quotes=[])
    assert not cell_matches(nr, answer="3 runs", not_reported=False, quotes=["we ran 3 runs"])
    text = gold("text", "Mixed methods", ["mixed methods"])
    assert cell_matches(text, answer="A study of mixed methods.", not_reported=False, quotes=[])
    quote = "Methods: we interviewed one hundred outpatients as they left the clinic today"
    assert cell_matches(text, answer="x", not_reported=False, quotes=[quote])
    scored = [
        score_cell(nr, answer="", not_reported=True, quotes=[]),
        score_cell(
            text, answer="x", not_reported=False, quotes=[ShownQuote(quote, 2, 2, verbatim=True)]
        ),
        score_cell(gold("name", "Kamuzu", ["Kamuzu"]), answer="", not_reported=True, quotes=[]),
    ]
    report = aggregate(scored)
    assert report["not_reported_precision"]["k"] == 1 and report["not_reported_precision"]["n"] == 2
    assert report["quote_verbatim"]["value"] == 1.0 and report["quote_page"]["value"] == 1.0
    assert report["accuracy"]["k"] == 2 and report["accuracy"]["ci95"] is not None


def test_data_without_a_name_is_what_the_sentence_says_it_is() -> None:
    from marginalia.tables.short_answer import data_phrase

    assert data_phrase("Data were collected through focus groups with patients, in 2009.") == (
        "focus groups with patients"
    )
    assert data_phrase("We analysed records obtained from two hospitals; then") == "two hospitals"
    assert data_phrase("The method is fast.") is None
