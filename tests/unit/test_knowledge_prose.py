"""What the knowledge layer shows is prose: line-break hyphenation undone, front matter,
licence text, running headers, reference entries, equations and tables refused.

The junk and prose strings are sentences as the PDF parser gives them for the shared PDFs
(../shared/data/pdfs): the test of the wiring reads those PDFs when they are present."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from marginalia.ingest.pdf import parse_pdf
from marginalia.knowledge.extraction import extract_offline
from marginalia.knowledge.sentences import ChunkText
from marginalia.knowledge.text import (
    dehyphenate,
    display_text,
    is_prose,
    prose_problem,
    vocabulary,
)

JUNK = {
    "front matter": "Correspondence: Professor Edward D. Sturrock (email edward.sturrock@uct.ac.za) "
    "or Professor K. Ravi Acharya.",
    "keywords": "Keywords: Healthcare quality improvement, Patient care, Barriers to quality "
    "improvement, Healthcare in resource-limited settings.",
    "licence": "The author(s) has paid for this article to be freely available under the terms "
    "of the Creative Commons Attribution Licence (CC-BY).",
    "copyright": "© 2014 Agyeman-Duah et al.; licensee BioMed Central Ltd. This is an open "
    "access article distributed under the terms of the licence.",
    "running header": "Agyeman-Duah et al. BMC Health Services Research 2014, 14:1 Page 3 of 10 "
    "http://www.biomedcentral.com/1472-6963/14/1",
    "affiliation": "Allen School of Computer Science & Engineering, University of Washington "
    "{kylel, lucyw}@allenai.org",
    "affiliation lines": "2 Department of Surgery, University of British Columbia, Vancouver, "
    "Canada.",
    "reference (Vancouver)": "Geerts WH, Code KI, Jay RM, Chen E, Szalai JP: A prospective study "
    "of venous thromboembolism after major trauma.",
    "reference (ACL)": "Kyle Lo, Lucy Lu Wang, Mark Neumann, Rodney Kinney, and Daniel Weld. "
    "2020. S2ORC: The semantic scholar open research corpus. In Proceedings of the 58th "
    "Annual Meeting of the Association for Computational Linguistics.",
    "reference (arXiv)": "Iz Beltagy, Kyle Lo, and Arman Cohan. SciBERT: A pretrained language "
    "model for scientific text. arXiv preprint arXiv:1903.10676.",
    "equation": "For FINE, we collect binary judgments of individual units in the summary and "
    "average them, Fsumm = 1 |Csumm| X c∈Csumm Fc, Fc ∈ {0, 1}.",
    "garbled math": "That is, g! k D LSTM.xk; g! k1 /; gk D Œg! k I g k ; h! k D LSTM.ŒgkI lmk.",
    "table row": "Dataset COARSE FINE SQuALITY 18.5 6.8 PubMed 11.8 7.3 PubMed + ngram block "
    "11.7 9.3 Average 14.0 7.8.",
    "caption": "Table 1 Overview of the 5 Phases in the VESPA software package.",
    "letter-spaced heading": "R E S EAR CH A R TIC L E Open Access Understanding the barriers "
    "to quality.",
    "mid-sentence": "site is identical for the two inhibitors through hydrogen bonds with "
    "residues Lys489 and Tyr498.",
    "cut at a page break": "Overall, we observe that across all settings, FINE annotations "
    "have lower 1654",
    "footnote URL": "The ScienceParse libraries can be found at http://allenai.org/software/.",
    "author list": "Authors’ contributions ID - Study design, data analysis, manuscript writing "
    "& editing.",
}

PROSE = [
    "The Medical Department of Kamuzu Central Hospital in Malawi set out to improve the "
    "quality of care provided to its patients.",
    "Without thromboprophylaxis, overall DVT rates exceed 50% [1-3].",
    "Thr496 is located on the border of the S2 and S1 subsites [6].",
    "A molecule incorporating a tetrazole moiety in the P2 position (compound 33RE) displayed "
    "potent inhibition (Ki = 11.21 +− 0.74 nM).",
    "We then pretrain the model on a large corpus of citations using this objective.",
    "Word embeddings are initialized with GloVe (Pennington et al., 2014).",
    "The study protocol was approved by the Research Ethics Committee of the Royal College of "
    "Surgeons in Ireland.",
    "We empiri- cally evaluate LONGEVAL using human annotation studies on two long-form "
    "summarization datasets.",
    "Table 2 shows the results based on 500 papers using our entity extraction components.",
]


@pytest.mark.parametrize("kind", sorted(JUNK))
def test_junk_is_not_prose(kind: str) -> None:
    assert prose_problem(JUNK[kind]) is not None, kind


@pytest.mark.parametrize("sentence", PROSE)
def test_prose_is_prose(sentence: str) -> None:
    assert prose_problem(sentence) is None


def test_dehyphenation() -> None:
    assert dehyphenate("a large cor- pus of pa- pers") == "a large corpus of papers"
    assert dehyphenate("cor-\npus") == "corpus"
    # the document writes the compound with its hyphen elsewhere
    assert dehyphenate("inter- annotator agreement", {"inter-annotator"}) == (
        "inter-annotator agreement"
    )
    # the document knows the joined word
    assert dehyphenate("meta- data", {"metadata"}) == "metadata"
    # a compound that goes on, or a function word after the break, keeps its hyphen
    assert dehyphenate("state-of-the- art results") == "state-of-the-art results"
    assert dehyphenate("state- of-the-art") == "state-of-the-art"
    # suspended hyphens stay, dashes with spaces stay, capitalised second halves keep it
    assert dehyphenate("pre- and post-training") == "pre- and post-training"
    assert dehyphenate("results - as shown") == "results - as shown"
    assert dehyphenate("BERT- Base") == "BERT-Base"
    assert dehyphenate("SQuAL- ITY") == "SQuALITY"
    assert vocabulary(["Inter-annotator agreement"]) >= {"inter-annotator", "agreement"}


def test_display_text_drops_a_heading_run_into_the_sentence() -> None:
    assert display_text("RESULTS The SHOP  modelling\nprocedure yielded frag- ments.") == (
        "The SHOP modelling procedure yielded fragments."
    )
    assert display_text("DISCUSSION ACE inhibitors remain effective.") == (
        "ACE inhibitors remain effective."
    )
    assert display_text("Abstract We introduce S2ORC,1 a large corpus.") == (
        "We introduce S2ORC, a large corpus."
    )
    assert display_text("Objectives. Patient experiences were examined.") == (
        "Patient experiences were examined."
    )
    assert display_text("We beat the baselines on the benchmark.1") == (
        "We beat the baselines on the benchmark."
    )
    # a word that only looks like a heading stays
    assert display_text("Abstract representations help.") == "Abstract representations help."
    assert display_text("It reaches version 3.1") == "It reaches version 3.1"


def test_offline_extraction_shows_prose_only(shared_data: Path) -> None:
    pdfs = sorted((shared_data / "pdfs").glob("*.pdf"))
    if not pdfs:
        pytest.skip(f"no PDFs in {shared_data / 'pdfs'}")
    hyphen_breaks = 0
    shown_total = 0
    for path in pdfs:
        doc = parse_pdf(path.read_bytes(), max_pages=30)
        texts = [p.text for p in doc.pages]
        chunks = [ChunkText(i, t) for i, t in enumerate(texts)]
        ex = extract_offline(doc.title, None, chunks)
        shown = [
            *(c.text for c in ex.claims),
            *ex.key_results,
            *ex.limitations,
            *ex.contributions,
        ]
        shown_total += len(shown)
        for text in shown:
            assert is_prose(text), (path.name, prose_problem(text), text)
            hyphen_breaks += len(re.findall(r"[a-z]- (?!and\b|or\b|nor\b|to\b)[a-z]", text))
        for claim in ex.claims:
            # the claim is shown clean, its quote stays verbatim in the chunk
            assert claim.chunk_index is not None
            assert claim.quote in texts[claim.chunk_index]
    assert shown_total > 20
    assert hyphen_breaks == 0
