"""Heading detection, title→type mapping and reference splitting (no data needed)."""

from __future__ import annotations

import pytest

from marginalia.ingest.documents import Page
from marginalia.ingest.sections import (
    build_sections,
    classify_title,
    detect_headings,
    markdown_headings,
    split_references,
)

BODY = "This sentence is body text that goes on for a while.\n"


def headings_of(text: str) -> list[tuple[str | None, str, str]]:
    return [(h.number, h.title, h.section_type) for h in detect_headings([Page(1, text)])]


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Introduction", "introduction"),
        ("RELATED WORK", "related_work"),
        ("Background", "related_work"),
        ("Materials and methods", "methods"),
        ("Our Approach", "methods"),
        ("Experiments", "results"),
        ("Evaluation", "results"),
        ("Results and Discussion", "results"),
        ("Discussion", "discussion"),
        ("Conclusions and Future Work", "conclusion"),
        ("Limitations", "conclusion"),
        ("Acknowledgments", "other"),
        ("Appendix", "other"),
        ("References", "references"),
        ("Bibliography", "references"),
        ("Abstract", "abstract"),
        ("Statistical analysis", "methods"),
        ("Overview", None),
    ],
)
def test_classify_title(title: str, expected: str | None) -> None:
    assert classify_title(title) == expected


def test_numbered_headings_and_subsection_inheritance() -> None:
    text = (
        "Abstract\n"
        + BODY
        + "1 Introduction\n"
        + BODY
        + "2 Model\n"
        + "2.1 Overview\n"
        + BODY
        + "2.2 Background: Pretrained Transformers\n"
        + BODY
        + "3 Experiments\n"
        + BODY
        + "4 Conclusion\n"
        + BODY
        + "References\n"
        + "A. Author. 2019. A paper. In ACL.\n"
    )
    assert headings_of(text) == [
        (None, "Abstract", "abstract"),
        ("1", "Introduction", "introduction"),
        ("2", "Model", "methods"),
        ("2.1", "Overview", "methods"),  # inherits from "2 Model"
        ("2.2", "Background: Pretrained Transformers", "related_work"),  # own title maps
        ("3", "Experiments", "results"),
        ("4", "Conclusion", "conclusion"),
        (None, "References", "references"),
    ]


def test_dotted_and_roman_numbering() -> None:
    dotted = "1. Introduction\n" + BODY + "2. Methods\n" + BODY + "3. Results\n" + BODY
    assert [h[1] for h in headings_of(dotted)] == ["Introduction", "Methods", "Results"]
    roman = "I. INTRODUCTION\n" + BODY + "II. RELATED WORK\n" + BODY + "IV. RESULTS\n" + BODY
    assert headings_of(roman) == [
        ("I", "INTRODUCTION", "introduction"),
        ("II", "RELATED WORK", "related_work"),
        ("IV", "RESULTS", "results"),  # one missed number is tolerated
    ]


def test_numbered_lines_that_are_not_headings() -> None:
    text = (
        "1 Introduction\n"
        "We train for\n"
        "10 Epochs with a batch size of 32 and then stop.\n"  # number in running text
        "2 Method\n"
        + BODY
        + "3 0.91 0.87 0.45\n"  # table row
        + "5 Results are reported below for all the datasets we had access to\n"  # sentence
        + "1.2 Out of order heading\n"  # numbering goes backwards
        + "32. Each training epoch takes approximately two hours.\n"
        + "3 Results\n"
        + BODY
    )
    assert [h[1] for h in headings_of(text)] == ["Introduction", "Method", "Results"]


def test_unnumbered_documents_ignore_numbered_lists() -> None:
    # BMC style: unnumbered section names; numbered lines are list items or table rows.
    text = (
        "Background\n"
        + BODY
        + "Methods\n"
        + BODY
        + "1. Patients complained about the wrong prescription\n"
        + "2. Weak Patient Involvement\n"
        + "Results\n"
        + BODY
        + "results.\n"  # lower case: not a heading
        + "Results. We run our final tests inline.\n"  # run-in paragraph heading
        + "Conclusions\n"
        + BODY
    )
    assert headings_of(text) == [
        (None, "Background", "introduction"),  # BMC "Background" opens the paper
        (None, "Methods", "methods"),
        (None, "Results", "results"),
        (None, "Conclusions", "conclusion"),
    ]


def test_references_mode_and_appendix() -> None:
    text = (
        "1 Introduction\n"
        + BODY
        + "References\n"
        + "1. Kudsk KA, Fabian TC: Silent deep vein thrombosis. Am J Surg 1989, 158:515-9.\n"
        + "2 Discussion of Things\n"  # numbered lines inside references are not headings
        + "Appendix A - Baseline Details\n"
        + BODY
    )
    assert headings_of(text) == [
        ("1", "Introduction", "introduction"),
        (None, "References", "references"),
        (None, "Appendix A - Baseline Details", "other"),
    ]


def test_wrapped_heading_joins_second_line() -> None:
    text = "1 Introduction\n" + BODY + "2 The LONGEVAL guidelines for\nfaithfulness\n" + BODY
    assert headings_of(text)[1][1] == "The LONGEVAL guidelines for faithfulness"


def test_running_headers_are_not_headings() -> None:
    pages = [
        Page(1, "1. Introduction\n" + BODY * 3),
        Page(2, "2 Rehabilitation Research and Practice\n" + BODY + "2. Methods\n" + BODY),
        Page(3, BODY + "3. Results\n" + BODY),
        Page(4, "4 Rehabilitation Research and Practice\n" + BODY),
    ]
    titles = [h.title for h in detect_headings(pages)]
    assert titles == ["Introduction", "Methods", "Results"]


def test_sections_cover_document_in_page_coordinates() -> None:
    pages = [Page(1, "Title of Paper\nAbstract\n" + BODY), Page(2, "1 Introduction\n" + BODY)]
    sections = build_sections(pages, detect_headings(pages))
    assert [(s.section_type, s.title) for s in sections] == [
        ("other", None),
        ("abstract", "Abstract"),
        ("introduction", "Introduction"),
    ]
    intro = sections[2]
    assert (intro.page_start, intro.char_start) == (2, 0)
    assert intro.page_end == 2 and intro.char_end == len(pages[1].text.rstrip())
    abstract = sections[1]
    assert abstract.page_start == 1 and abstract.page_end == 1


def test_markdown_headings() -> None:
    text = (
        "# A Title\n\n## Abstract\n\nText.\n\n```\n# not a heading\n```\n\n"
        "## 2. Methods\n\n### Data\n"
    )
    got = [(h.level, h.title, h.section_type) for h in markdown_headings(text)]
    assert got == [
        (1, "A Title", "other"),
        (2, "Abstract", "abstract"),
        (2, "2. Methods", "methods"),
        (3, "Data", "methods"),
    ]


def test_split_references_numbered_and_author_year() -> None:
    numbered = (
        "1. Kudsk KA, Fabian TC: Silent deep vein thrombosis in immobilized\n"
        "multiple trauma patients. Am J Surg 1989, 158:515-9.\n"
        "2. Geerts WH, Code KI: A prospective study. N Engl J Med 1994,\n"
        "331:1601-6.\n"
        "3. Third entry: something. J 2000, 1:1-2.\n"
    )
    refs = split_references(numbered)
    assert len(refs) == 3 and refs[1].startswith("2. Geerts WH")
    author_year = (
        "Sanjeev Arora, Yingyu Liang, and Tengyu Ma. 2017.\n"
        "A simple but tough-to-beat baseline for sentence em-\n"
        "beddings. In ICLR.\n"
        "Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. SciB-\n"
        "ERT: A Pretrained Language Model for Scientific Text.\n"
        "In EMNLP.\n"
        "2279\n"
        "Jimmy J. Lin. 2008. Is searching full text more effec-\n"
        "tive than searching abstracts? BMC Bioinformatics.\n"
    )
    refs = split_references(author_year)
    assert [r.split(",")[0].split(".")[0] for r in refs] == [
        "Sanjeev Arora",
        "Iz Beltagy",
        "Jimmy J",
    ]
    assert "2279" not in " ".join(refs)
