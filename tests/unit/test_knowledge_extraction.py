import json
import re
from pathlib import Path

import pytest

from marginalia.knowledge.acronyms import detect_acronyms
from marginalia.knowledge.datasets import detect_datasets
from marginalia.knowledge.extraction import CLAIM_CHUNK_LIMIT, extract_offline, finding_score
from marginalia.knowledge.keyphrases import MAX_CONCEPTS
from marginalia.knowledge.sentences import ChunkText

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"

ABSTRACT = (
    "Long documents are hard for standard attention. "
    "We propose sparse block attention, a method for long inputs. "
    "Results show that sparse block attention improves accuracy by 2.1 points on the "
    "arXiv summarization benchmark."
)


def test_summary_and_tldr_come_from_the_abstract() -> None:
    ex = extract_offline("Sparse Block Attention", ABSTRACT, [])
    assert ex.summary == ABSTRACT
    assert ex.tldr == (
        "Long documents are hard for standard attention. "
        "We propose sparse block attention, a method for long inputs."
    )
    assert ex.thesis == "We propose sparse block attention, a method for long inputs."
    assert [c.chunk_index for c in ex.claims] == [None]
    assert ex.claims[0].quote is not None and ex.claims[0].quote in ABSTRACT


def test_claims_only_from_first_15_chunks_with_verbatim_quotes() -> None:
    chunks = [
        ChunkText(
            index=i,
            text=(
                f"Section text  number {i}, e.g. with   odd spacing.\n"
                f"We show that variant V{i} improves recall by {i + 1}.5 points (Fig. 3).  "
                "This sentence is just context."
            ),
            section_type="results" if i % 2 else "introduction",
        )
        for i in range(25)
    ]
    ex = extract_offline(None, None, list(reversed(chunks)))  # order of the list is irrelevant
    assert ex.claims, "expected claims"
    indices = {c.chunk_index for c in ex.claims}
    assert indices <= set(range(CLAIM_CHUNK_LIMIT))
    assert len(indices) == CLAIM_CHUNK_LIMIT
    by_index = {c.index: c.text for c in chunks}
    for claim in ex.claims:
        assert claim.chunk_index is not None and claim.quote is not None
        assert claim.quote in by_index[claim.chunk_index]
        assert claim.text == " ".join(claim.quote.split())


def test_no_abstract_uses_central_sentences_in_document_order() -> None:
    chunks = [
        ChunkText(
            0,
            "Graph neural networks learn node representations. They use message "
            "passing between neighbouring nodes.",
            "introduction",
        ),
        ChunkText(
            1,
            "Message passing aggregates neighbour features in graph neural networks. "
            "The weather was pleasant during the conference.",
            "methods",
        ),
        ChunkText(
            2,
            "We find that deeper graph neural networks oversmooth node representations.",
            "results",
        ),
    ]
    ex = extract_offline("Graph Networks", None, chunks)
    sentences = [s for c in chunks for s in re.split(r"(?<=\.) ", c.text)]
    assert ex.summary
    assert "weather" not in ex.tldr
    assert (
        ex.methodology == "Message passing aggregates neighbour features in graph neural networks. "
        "The weather was pleasant during the conference."
    )
    picked = [s for s in sentences if s in ex.summary]
    assert picked == sorted(picked, key=sentences.index)
    assert ex.key_results == [
        "We find that deeper graph neural networks oversmooth node representations."
    ]
    assert extract_offline("Graph Networks", None, chunks) == ex


def test_acronyms_and_concepts() -> None:
    text = (
        "We fine-tune bidirectional encoder representations from transformers (BERT) on "
        "news. BERT is a pretrained encoder. Large language models (LLMs) are larger."
    )
    assert detect_acronyms(text) == {
        "BERT": "bidirectional encoder representations from transformers",
        "LLM": "Large language models",
    }
    assert detect_acronyms("The model (BERT; Devlin et al.) works.") == {}
    ex = extract_offline("Fine-tuning BERT for News", text, [])
    names = [c.name for c in ex.concepts]
    assert "BERT" in names
    bert = next(c for c in ex.concepts if c.name == "BERT")
    assert bert.description == "BERT is a pretrained encoder."
    # honest: the offline engine states no parent and no relations
    assert all(c.parent is None and c.related == [] for c in ex.concepts)


def test_datasets_limitations_cues() -> None:
    sents = [
        "We evaluate on the SQuAD dataset and the Penn Treebank.",
        "Our dataset is new.",
        "Results on the GLUE benchmark are strong.",
    ]
    assert detect_datasets(sents) == ["SQuAD", "Penn Treebank", "GLUE"]
    chunks = [
        ChunkText(0, "A limitation of our study is the small sample of languages.", "discussion")
    ]
    ex = extract_offline(None, None, chunks)
    assert ex.limitations == ["A limitation of our study is the small sample of languages."]
    assert finding_score("Our model outperforms the baseline.") > 0
    assert finding_score("The treatment is associated with lower mortality (p < 0.05).") > 0
    assert finding_score("Large models have achieved great success.") == 0  # background
    assert finding_score("In Section 4 we show the results.") == 0  # roadmap


def _sections(name: str) -> str:
    low = name.lower()
    for key, section in [
        ("abstract", "abstract"),
        ("intro", "introduction"),
        ("method", "methods"),
        ("approach", "methods"),
        ("experiment", "results"),
        ("result", "results"),
        ("discussion", "discussion"),
        ("conclusion", "conclusion"),
    ]:
        if key in low:
            return section
    return "other"


def test_real_papers_invariants() -> None:
    path = DATA / "catalog" / "unarxive" / "arXiv_src_2212_086.jsonl"
    if not path.exists():
        pytest.skip(f"shared data not found at {path} (a user's clone without ../shared/data)")
    papers = [json.loads(line) for line in path.open(encoding="utf-8")][:12]
    n_claims = 0
    for paper in papers:
        chunks = [
            ChunkText(i, p["text"], _sections(p.get("section") or ""))
            for i, p in enumerate(paper["body_text"])
            if p.get("text", "").strip()
        ]
        abstract = paper["abstract"]["text"] if isinstance(paper.get("abstract"), dict) else None
        ex = extract_offline(paper["metadata"]["title"], abstract, chunks)
        texts = {c.index: c.text for c in chunks}
        first = {c.index for c in chunks[:CLAIM_CHUNK_LIMIT]}
        for claim in ex.claims:
            if claim.chunk_index is None:
                assert abstract is not None and claim.quote in abstract
            else:
                assert claim.chunk_index in first
                assert claim.quote is not None and claim.quote in texts[claim.chunk_index]
        n_claims += len(ex.claims)
        assert len(ex.concepts) <= MAX_CONCEPTS
        assert ex.summary and ex.tldr
    assert n_claims > 0
