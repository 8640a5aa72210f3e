import json
from pathlib import Path

import pytest

from marginalia.knowledge.concept_graph import analyze
from marginalia.knowledge.concepts import (
    merge_concepts,
    normalize_concept,
    singularize,
    workspace_level,
)
from marginalia.knowledge.extraction import combined_acronyms, extract_offline
from marginalia.knowledge.schemas import ExtractedConcept

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def C(name: str, **kw: object) -> ExtractedConcept:
    return ExtractedConcept.model_validate({"name": name, **kw})


@pytest.mark.parametrize(
    ("word", "singular"),
    [
        ("transformers", "transformer"),
        ("studies", "study"),
        ("approaches", "approach"),
        ("biases", "bias"),
        ("processes", "process"),
        ("corpora", "corpus"),
        ("analyses", "analysis"),
        ("caches", "cache"),
        ("analysis", "analysis"),
        ("bias", "bias"),
        ("corpus", "corpus"),
        ("process", "process"),
        ("series", "series"),
        ("class", "class"),
        ("continuous", "continuous"),
        ("means", "means"),
    ],
)
def test_singularize_does_not_mangle(word: str, singular: str) -> None:
    assert singularize(word) == singular


def test_normalize_concept() -> None:
    assert normalize_concept("Multi-Head Attentions") == "multi head attention"
    assert normalize_concept("multi head attention") == "multi head attention"
    assert normalize_concept("LLMs") == "llm"
    assert normalize_concept("Corpus Analysis") == "corpus analysis"


def test_plural_case_and_hyphen_variants_merge() -> None:
    graph = merge_concepts(
        {
            "s1": [C("Language Models"), C("pre-training")],
            "s2": [C("language model"), C("pretraining")],
            "s3": [C("language-model")],
        }
    )
    names = {c.key: c for c in graph.concepts}
    assert len(graph.concepts) == 2
    lm = names["language model"]
    assert lm.source_ids == ("s1", "s2", "s3")
    assert set(lm.aliases) == {"Language Models", "language-model"}
    assert graph.source_concepts["s2"] == tuple(sorted(c.slug for c in graph.concepts))


def test_a_spelling_tie_names_the_concept_by_its_phrase_not_a_plain_word() -> None:
    # each source keeps one plain single word of its own (keyphrases.MAX_PLAIN_WORDS); a
    # merge with another source's closed compound must not give it a second one
    graph = merge_concepts({"s1": [C("band gap"), C("thiophene")], "s2": [C("bandgap")]})
    names = {c.name for c in graph.concepts}
    assert names == {"band gap", "thiophene"}
    plain_of_s1 = [c.name for c in graph.concepts if "s1" in c.source_ids and " " not in c.name]
    assert plain_of_s1 == ["thiophene"]
    # more sources still decide
    graph = merge_concepts({"s1": [C("band gap")], "s2": [C("bandgap")], "s3": [C("bandgap")]})
    assert [c.name for c in graph.concepts] == ["bandgap"]


def test_acronym_and_expansion_merge() -> None:
    graph = merge_concepts(
        {
            "s1": [C("BERT")],
            "s2": [C("bidirectional encoder representations from transformers")],
            "s3": [C("BERT"), C("GloVe")],
        },
        {"BERT": "bidirectional encoder representations from transformers"},
    )
    bert = [c for c in graph.concepts if c.name == "BERT"]
    assert len(bert) == 1
    assert bert[0].source_ids == ("s1", "s2", "s3")
    assert "bidirectional encoder representations from transformers" in bert[0].aliases
    assert len(graph.concepts) == 2


def test_initials_heuristic_merges_only_when_unambiguous() -> None:
    graph = merge_concepts(
        {
            "s1": [C("LLMs"), C("large language models")],
            "s2": [C("large language models")],
            "s3": [C("ML")],
        },
        {},
    )
    llm = [c for c in graph.concepts if "s1" in c.source_ids]
    assert len(llm) == 1 and llm[0].source_ids == ("s1", "s2")

    ambiguous = merge_concepts(
        {"s1": [C("ML")], "s2": [C("machine learning")], "s3": [C("maximum likelihood")]}, {}
    )
    assert len(ambiguous.concepts) == 3


def test_initials_alone_do_not_merge_across_sources() -> None:
    # SPECTER's [CLS] token and another paper's "COVID-19 literature search" share initials
    # only; no source names both or defines one as the other.
    graph = merge_concepts({"s1": [C("CLS")], "s2": [C("COVID-19 literature search")]}, {})
    assert sorted(c.name for c in graph.concepts) == ["CLS", "COVID-19 literature search"]
    # A source that defines the acronym still merges it for the whole workspace.
    defined = merge_concepts(
        {"s1": [C("LLMs")], "s2": [C("large language models")]}, {"LLMs": "large language models"}
    )
    assert len(defined.concepts) == 1 and defined.concepts[0].source_ids == ("s1", "s2")


def test_levels_rule() -> None:
    # half of the workspace (three sources or more): foundational
    assert workspace_level([2, 1, 1], df=3, n_sources=6) == 0
    assert workspace_level([2, 2], df=2, n_sources=3) == 1  # shared: no longer one paper's own
    assert workspace_level([2], df=1, n_sources=6) == 2  # the source's own concept
    assert workspace_level([0], df=1, n_sources=6) == 0  # field-wide per the background
    assert workspace_level([], df=1, n_sources=1) == 1


def test_edges_specialization_prerequisite_related_with_evidence() -> None:
    per_source = {
        "s1": [C("attention"), C("transformer"), C("multi-head attention")],
        "s2": [C("attention"), C("transformer"), C("multi-head attention"), C("paged kv cache")],
        "s3": [C("attention"), C("transformer"), C("paged kv cache")],
        "s4": [C("attention"), C("rotary position embedding", level=2)],
    }
    graph = merge_concepts(per_source)
    levels = {c.slug: c.level for c in graph.concepts}
    assert levels["attention"] == 0 and levels["transformer"] == 0
    assert levels["rotary-position-embedding"] == 2
    edges = {(e.source, e.target): e for e in graph.edges}
    spec = edges[("attention", "multi-head-attention")]
    assert spec.type == "specialization" and spec.evidence.startswith("a kind of")
    assert ("multi-head-attention", "attention") not in edges
    rel = edges[("attention", "transformer")]
    assert rel.type == "related" and rel.evidence.startswith("co-occur in 3 sources")
    pre = edges[("transformer", "paged-kv-cache")]
    assert pre.type == "prerequisite" and pre.weight == 2.0
    # nothing links concepts that co-occur in one source only
    assert not any("rotary-position-embedding" in k for k in edges)
    analysis = analyze(graph)
    assert analysis.components[0][0] == "attention"
    assert max(analysis.pagerank, key=lambda s: analysis.pagerank[s]) == "attention"
    assert analysis.degree["rotary-position-embedding"] == 0


def test_specialization_only_for_a_kind_of() -> None:
    per_source = {
        "s1": [C("full"), C("full text"), C("heparin"), C("low molecular weight heparin")],
        "s2": [C("BERT"), C("BERT fine-tuning"), C("families"), C("gene families")],
    }
    graph = merge_concepts(per_source)
    spec = {(e.source, e.target): e for e in graph.edges if e.type == "specialization"}
    # the general concept is the head of the specific one
    assert ("heparin", "low-molecular-weight-heparin") in spec
    assert ("families", "gene-families") in spec
    assert (
        "'heparin' is the head of 'low molecular weight heparin'"
        in spec[("heparin", "low-molecular-weight-heparin")].evidence
    )
    # a word the specific concept merely contains is not its genus
    assert ("full", "full-text") not in spec
    assert ("bert", "bert-fine-tuning") not in spec


def test_prerequisite_names_its_generality_evidence() -> None:
    per_source = {
        "s1": [C("deep learning", level=0), C("flash attention", level=2)],
        "s2": [C("deep learning", level=0), C("flash attention", level=2)],
        "s3": [C("deep learning", level=0)],
        "s4": [C("dropout")],
    }
    graph = merge_concepts(per_source)
    (pre,) = [e for e in graph.edges if e.type == "prerequisite"]
    assert (pre.source, pre.target) == ("deep-learning", "flash-attention")
    assert "co-occur in 2 sources" in pre.evidence
    assert "'deep learning' is more general (level 0, 3 sources)" in pre.evidence


def test_stated_parent_becomes_prerequisite() -> None:
    graph = merge_concepts(
        {
            "s1": [C("gradient descent"), C("adam optimizer", parent="gradient descent")],
            "s2": [C("dropout")],
        }
    )
    (edge,) = [e for e in graph.edges if e.type == "prerequisite"]
    assert (edge.source, edge.target) == ("gradient-descent", "adam-optimizer")
    assert edge.evidence == "parent stated by the extraction of s1"


WORKSPACE = {
    "p1": (
        "Attention Is What Transformers Need",
        "The transformer architecture relies on attention. We propose a transformer with "
        "multi-head attention for machine translation. Results show that multi-head attention "
        "improves translation quality by 2.0 BLEU over recurrent networks.",
    ),
    "p2": (
        "Sparse Attention Patterns for Long Documents",
        "Attention in the transformer scales quadratically with sequence length. We introduce "
        "block sparse attention patterns that reduce memory by 60%. Our transformer with "
        "multi-head attention handles long documents on the arXiv summarization benchmark.",
    ),
    "p3": (
        "Linear Attention Transformers",
        "We present a transformer whose attention is computed with kernel feature maps. "
        "Kernelized linear attention achieves linear complexity in sequence length while "
        "matching softmax attention on language modeling.",
    ),
    "p4": (
        "FlashAttention: IO-Aware Exact Attention",
        "Attention is slow and memory-hungry on long sequences. We show that an IO-aware "
        "tiling algorithm computes exact attention in the transformer with fewer memory reads, "
        "and it speeds up training by 3x.",
    ),
    "p5": (
        "Pretraining Transformers with Masked Language Modeling",
        "Bidirectional encoder representations from transformers (BERT) pretrain a transformer "
        "encoder with masked language modeling. We find that BERT fine-tuning with attention "
        "outperforms feature-based transfer on question answering.",
    ),
    "p6": (
        "Distilling BERT into Small Students",
        "Knowledge distillation compresses BERT into a smaller transformer. We show that "
        "attention transfer between teacher and student improves accuracy by 1.5 points "
        "on the GLUE benchmark.",
    ),
}


def test_synthetic_workspace_yields_all_three_levels() -> None:
    extractions = {sid: extract_offline(t, a, []) for sid, (t, a) in WORKSPACE.items()}
    acronyms = combined_acronyms(extractions.values())
    assert acronyms["BERT"].lower() == "bidirectional encoder representations from transformers"
    graph = merge_concepts({sid: ex.concepts for sid, ex in extractions.items()}, acronyms)
    by_slug = graph.by_slug()
    assert {c.level for c in graph.concepts} == {0, 1, 2}
    # everyday single words are never concepts by themselves
    assert "attention" not in by_slug and "transformer" not in by_slug
    assert by_slug["bert"].df == 2
    assert by_slug["multi-head-attention"].df == 2
    assert by_slug["kernel-feature-maps"].level == 2
    # determinism
    again = merge_concepts({sid: ex.concepts for sid, ex in extractions.items()}, acronyms)
    assert again == graph


def test_acl_bert_papers_merge_and_level() -> None:
    path = DATA / "catalog" / "acl2020" / "papers.jsonl"
    if not path.exists():
        pytest.skip(f"shared data not found at {path} (a user's clone without ../shared/data)")
    records = [json.loads(line) for line in path.open(encoding="utf-8")]
    bert = [r for r in records if "BERT" in r["title"] and r.get("abstract")][:12]
    assert len(bert) == 12
    extractions = {r["id"]: extract_offline(r["title"], r["abstract"], []) for r in bert}
    graph = merge_concepts(
        {sid: ex.concepts for sid, ex in extractions.items()},
        combined_acronyms(extractions.values()),
    )
    by_slug = graph.by_slug()
    assert by_slug["bert"].df >= 6 and by_slug["bert"].level == 0
    assert {c.level for c in graph.concepts} == {0, 1, 2}
    assert all(e.evidence for e in graph.edges)


def test_pagerank_is_sparse_and_matches_the_dense_definition() -> None:
    """A 20,000-node chain would need a 3.2 GB dense matrix; the sparse power iteration
    handles it, and on a small graph gives the dense definition's ranks."""
    import numpy as np

    from marginalia.knowledge.concept_graph import weighted_pagerank

    n = 20_000
    ranks = weighted_pagerank(n, ((i, i + 1, 1.0) for i in range(n - 1)))
    assert ranks.shape == (n,) and abs(float(ranks.sum()) - 1.0) < 1e-9
    assert ranks[n // 2] > ranks[0]  # inner nodes of a chain outrank its ends
    # star with a dangling node: centre 0, leaves 1..3, node 4 isolated
    small = weighted_pagerank(5, [(0, 1, 1.0), (0, 2, 1.0), (0, 3, 2.0)])
    w = np.zeros((5, 5))
    for i, j, x in [(0, 1, 1.0), (0, 2, 1.0), (0, 3, 2.0)]:
        w[i, j] = w[j, i] = x
    out = w.sum(axis=1)
    trans = np.divide(w, out[:, None], out=np.zeros_like(w), where=out[:, None] > 0)
    rank = np.full(5, 0.2)
    for _ in range(200):
        rank = 0.85 * (rank @ trans + rank[out == 0].sum() / 5) + 0.15 / 5
    assert np.allclose(small, rank / rank.sum(), atol=1e-9)
