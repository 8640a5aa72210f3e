"""Non-prose never becomes a claim; answer-type aware sentence choice; the lead line."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from marginalia.answer import answer_types, offline
from marginalia.answer.prose import is_prose, non_prose_reason
from marginalia.answer.quotes import lead_line, validate_claims
from marginalia.answer.schemas import AnswerClaim, Passage

PROSE = [
    "We initialize the model from SciBERT pretrained weights since it is the state of the art.",
    "The most populated category is Neoplasms (cancer) with 5.4K instances (23.3% of the total).",
    "Patients admitted to the emergency department of the hospital were more often men.",
    "We identify 8.1M of the 28.9M PDFs as open access, and we provide full text for them.",
    "As shown by Wang et al. (2013), the effect holds for all three cohorts we studied.",
    "We set $\\lambda = 0.5$ for all experiments and train for 10 epochs.",
]

NOT_PROSE = {
    "R E S EAR CH A R TIC L E Open Access": "letter_spaced",
    "L = maxn d ( x , y ) + m": "formula",
    "$\\mathcal{L} = \\sum_{i=1}^{N} \\max(0, d(q_i, p_i) - d(q_i, n_i) + m)$ for the loss": "formula",
    "BMC Health Services Research 2014, 14:123 Page 3 of 10": "header",
    "Available at http://www.biomedcentral.com/1472-6963/14/123 for all readers": "header",
    "INTERNATIONAL JOURNAL OF CLINICAL PRACTICE AND RESEARCH METHODS": "header",
    "Department of Surgery, University of Malawi, Lilongwe, Malawi; jdoe@example.org": "affiliation",
    "1 Department of Computer Science, University of Washington, Seattle, WA": "affiliation",
    "This is an Open Access article distributed under the terms of the Creative Commons "
    "Attribution License, which permits unrestricted use": "licence",
    "[12] Cohan, A., Feldman, S., Beltagy, I. SPECTER: Document-level representation "
    "learning. In Proceedings of ACL, pp. 2270-2282, 2020.": "reference",
    "Beltagy, I., Lo, K., Cohan, A. (2019). SciBERT: a pretrained language model. In "
    "Proceedings of EMNLP, pp. 3615-3620.": "reference",
}


@pytest.mark.parametrize("sentence", PROSE)
def test_prose_is_prose(sentence: str) -> None:
    assert is_prose(sentence), non_prose_reason(sentence)


@pytest.mark.parametrize(("sentence", "reason"), NOT_PROSE.items())
def test_non_prose_is_recognised(sentence: str, reason: str) -> None:
    assert non_prose_reason(sentence) == reason


class BagEmbedder:
    """Bag-of-words vectors over a fixed vocabulary: cosine tracks shared words."""

    name = "bag"
    dim = 64
    max_tokens = 256

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def _vec(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        for w in text.lower().replace(".", " ").replace(",", " ").split():
            v[zlib.crc32(w.encode()) % self.dim] += 1.0
        n = np.linalg.norm(v)
        return v / n if n else v

    async def embed_documents(self, texts: list[str]) -> list[np.ndarray]:
        return [self._vec(t) for t in texts]

    async def embed_query(self, text: str) -> np.ndarray:
        return self._vec(text)


async def _claims(question: str, passages: list[Passage]) -> list[AnswerClaim]:
    emb = BagEmbedder()
    scored = await offline.score_sentences(
        query=question,
        query_vector=await emb.embed_query(question),
        passages=passages,
        embedder=emb,  # type: ignore[arg-type]
        lexer=offline.python_lexer(),
    )
    return offline.select_claims(scored, passages, threshold=0.0, question=question)


async def test_a_header_or_equation_is_never_a_claim() -> None:
    header = "R E S EAR CH A R TIC L E Open Access triplet loss training"
    equation = "L = maxn d ( triplet , loss ) + m"
    text = (
        f"{header}\n{equation}\nBMC Health Services Research 2014, 14:123 Page 3 of 10 triplet loss\n"
        "We train the encoder with a triplet margin loss over citing and cited papers."
    )
    passages = [Passage(n=1, document="d", text=text, score=1.0)]
    claims = await _claims("What triplet loss is used to train the encoder?", passages)
    assert claims, "the prose sentence answers"
    for claim in claims:
        assert claim.quote is not None and is_prose(claim.quote)
        assert (
            "R E S" not in claim.quote and "maxn" not in claim.quote and "Page 3" not in claim.quote
        )
    kept, dropped = validate_claims(claims, passages)
    assert len(kept) == len(claims) and not dropped


async def test_a_how_many_question_is_answered_by_a_sentence_with_a_number() -> None:
    text = (
        "The training triplets of the model are built from the citation links between papers. "
        "Hard negative triplets are papers cited by a cited paper but not by the query. "
        "In total, 684K training triplets are built from the links."
    )
    passages = [Passage(n=1, document="d", text=text, score=1.0)]
    question = "How many training triplets are built from the citation links?"
    claims = await _claims(question, passages)
    assert answer_types.states_quantity(claims[0].text)
    assert "684K" in claims[0].text


async def test_the_neighbour_with_the_number_is_quoted_with_the_best_sentence() -> None:
    # The sentence that matches the question names no number; the next one does, and no
    # other sentence close to it in support offers a number.
    text = (
        "Annotators labelled the faithfulness of every summary in the benchmark collection. "
        "They took 41 hours in all."
    )
    passages = [Passage(n=1, document="d", text=text, score=1.0)]
    claims = await _claims(
        "How long did annotators take to label the faithfulness of every summary?", passages
    )
    assert claims[0].quote == text  # both sentences, verbatim, as one quote
    kept, _ = validate_claims(claims, passages)
    assert kept == claims


def test_answer_types() -> None:
    assert answer_types.expected_type("How many papers does S2ORC cover?") == "quantity"
    assert answer_types.expected_type("What share of patients were men?") == "quantity"
    assert answer_types.expected_type("Which checkpoint is SPECTER initialised from?") == "named"
    assert answer_types.expected_type("What GPU was used?") == "named"
    assert answer_types.expected_type("When was the cohort recruited?") == "time"
    assert answer_types.expected_type("Why does the citation signal help?") == "none"
    assert answer_types.names_something(
        "We initialize the model from SciBERT weights.", "Which checkpoint is it initialised from?"
    )
    assert not answer_types.names_something(
        "We initialize the model from pretrained weights.", "Which checkpoint is SPECTER from?"
    )
    assert not answer_types.states_quantity("As shown in Table 6 and Fig. 2 (Wang, 2013).")


def test_the_lead_line_says_where() -> None:
    passages = [
        Passage(n=1, document="SPECTER", section_title="Method", page=4, text="x", score=1.0),
        Passage(n=2, document="S2ORC", page=2, text="y", score=1.0),
        Passage(n=3, document="SPECTER", page=5, text="z", score=1.0),
    ]
    one = [AnswerClaim(text="a", citations=[1], quote="x")]
    two = [*one, AnswerClaim(text="b", citations=[3], quote="z")]
    three = [*two, AnswerClaim(text="c", citations=[2], quote="y")]
    assert lead_line(one, passages) == "From “SPECTER” (Method, p. 4):"
    assert lead_line(two, passages) == "From “SPECTER” (Method, p. 4):"
    assert lead_line(three, passages) == "From “SPECTER” (Method, p. 4) and “S2ORC” (p. 2):"
    assert lead_line([], passages) == ""


def test_a_number_is_a_figure_standing_on_its_own() -> None:
    # A digit inside a name, a footnote mark or a year is not a quantity; a figure is.
    assert not answer_types.states_quantity("We also release S2ORC-SCIBERT as a baseline.")
    assert not answer_types.states_quantity("It uses the original BERT code15 and GPT2 weights.")
    assert answer_types.states_quantity("This results in 37M unique paper nodes.")
    assert answer_types.states_quantity("Freelancers were paid at a rate of 15-20$ per hour.")
    assert answer_types.states_quantity("The codeML runs took 36,180 CPU hours in total.")
    assert answer_types.states_quantity("The staff included seven medical doctors.")
    assert answer_types.states_quantity("It was pretrained on a single TPU v3-8 for one week.")
    # A figure the question already states does not answer it.
    question = "Of the 7,918 gene families, how many showed selection?"
    assert not answer_types.states_quantity("We analysed 7,918 gene families.", question)
    assert answer_types.states_quantity("Of the 7,918 genes, 80 showed selection.", question)


def test_a_citation_is_not_a_named_answer() -> None:
    question = "Which tool do they rely on?"
    assert not answer_types.names_something(
        "We follow the approach of Feldman et al. (2019) in mapping it.", question
    )
    assert not answer_types.names_something("This is described in (Lopez, 2009).", question)
    assert answer_types.names_something("Detection depends on GROBID (Lopez, 2009).", question)


def test_follow_ups_and_comparisons_have_an_answer_type() -> None:
    assert answer_types.expected_type("And which of those groups is the most common?") == "named"
    assert (
        answer_types.expected_type("Were patients more often admitted by day or overnight?")
        == "quantity"
    )


def test_journal_footers_are_not_prose() -> None:
    assert (
        non_prose_reason(
            "Sci., DOI 10.7717/peerj-cs.118 11/16 the command we ran restricted the sequences"
        )
        == "header"
    )
    assert (
        non_prose_reason(
            "Proceedings of the 58th Annual Meeting of the Association for Computational "
            "Linguistics, pages 4969–4983 July 5 - 10, 2020."
        )
        == "header"
    )


def test_a_stored_sentence_that_is_not_prose_is_not_a_candidate() -> None:
    # Stored at ingest before a prose rule existed (scored there): skipped at question time.
    from marginalia.answer import sentences

    footer = "Sci., DOI 10.7717/peerj-cs.118 11/16 the command we ran restricted the sequences."
    prose = "The codeML runs took 36,180 CPU hours in total to complete."
    text = f"{footer} {prose}"
    spans = [
        sentences.SentenceSpan(0, len(footer), True, True),
        sentences.SentenceSpan(len(footer) + 1, len(text), True, True),
    ]
    passages = [Passage(n=1, document="d", text=text, score=1.0)]
    chosen = sentences.select_candidates(passages, {1: spans})
    assert [c[3] for c in chosen] == [prose]


def test_section_headings_glued_above_a_sentence_are_not_quoted() -> None:
    from marginalia.answer.prose import skip_headings

    for text, body in [
        ("Methods\nSetting\nThe Medical Department serves 5 million.", "The Medical"),
        ("3 The S2ORC dataset\nThe resulting corpus consists of 81.1M papers.", "The resulting"),
        ("MATERIALS AND METHODS\nSHOP search\nThe methodology has several steps.", "The method"),
    ]:
        assert skip_headings(text, 0, len(text)) == text.index(body), text
    # A sentence the layout broke before a name or a reference keeps its first line.
    for text in [
        "In\nTable 4, we find that SuperPAL performs best.",
        "Inspired by\nCulotta et al. (2007), we train a classifier.",
        "The distribution of disciplines in\nS2ORC is given in Figure 2.",
        "When comparing\nSPECTER embeddings with SciBERT, we observe a gain.",
        "A molecule incorporating a tetrazole\nmoiety displayed potent inhibition.",
    ]:
        assert skip_headings(text, 0, len(text)) == 0, text


async def test_a_claim_quotes_the_sentence_without_its_heading() -> None:
    text = (
        "Document review and participatory observations\nStaffing\n"
        "The medical staff of the department included seven medical doctors and 24 nurses."
    )
    passages = [Passage(n=1, document="d", text=text, score=1.0)]
    claims = await _claims("How many medical doctors were on the staff?", passages)
    assert claims and claims[0].quote is not None
    assert claims[0].quote.startswith("The medical staff")
    assert len(claims) == len({c.quote for c in claims})  # each sentence once
    kept, dropped = validate_claims(claims, passages)
    assert kept == claims and not dropped
