from marginalia.knowledge.wiki import (
    CitedSentence,
    WikiConcept,
    broken_links,
    extract_citations,
    extract_links,
    resolve_links,
    write_concept_pages,
)

CONCEPTS = [
    WikiConcept(
        "attention",
        "attention",
        "Attention weighs inputs.",
        ("s1", "s2"),
        related=("transformer", "ghost"),
    ),
    WikiConcept("transformer", "transformer", None, ("s1",), related=("attention",)),
    WikiConcept("dropout", "dropout", None, ("s2",), related=("attention",)),  # no evidence
]
SENTENCES = {
    "s1": [
        CitedSentence("The Transformer uses attention everywhere.", "s1", 0),
        CitedSentence("Transformers replace recurrence.", "s1", 2),
        CitedSentence("A transformer is a stack of attention layers.", "s1", 3),
    ],
    "s2": [
        CitedSentence("Sparse attention [[evil]] cuts memory.", "s2", None),
        CitedSentence("Nothing relevant here.", "s2", 1),
    ],
}


def test_pages_cite_and_links_resolve() -> None:
    pages = write_concept_pages(CONCEPTS, SENTENCES)
    assert [p.slug for p in pages] == ["attention", "transformer"]  # dropout has no evidence
    known = {p.slug for p in pages}
    for page in pages:
        assert resolve_links(page.body_markdown, known) == list(page.links)
        assert broken_links(page.body_markdown, known) == []
        assert extract_citations(page.body_markdown) == list(page.cited)
    attention = pages[0]
    assert attention.links == ("transformer",)  # "ghost" has no page
    assert "[source:s1#0]" in attention.body_markdown
    assert "[source:s2]" in attention.body_markdown
    assert "[[evil]]" not in attention.body_markdown
    assert attention.cited == (("s1", 0), ("s1", 3), ("s2", None), ("s1", 0), ("s2", None))
    transformer = pages[1]
    # the lead is the sentence that says what it is, cited, and not repeated as a bullet
    assert transformer.body_markdown.count("A transformer is a stack of attention layers.") == 1
    assert transformer.cited == (("s1", 3), ("s1", 0), ("s1", 2))
    assert "Related: [[attention|Attention]]" in transformer.body_markdown


def test_thin_concepts_get_no_page_and_the_lead_is_no_bullet() -> None:
    """Issue 35: two sentences and no definition make no page; a definition repeated
    by a source is the lead, not also the first bullet."""
    concepts = [
        WikiConcept("thin", "thin", None, ("s1",)),
        WikiConcept("dense", "dense", "Dense retrieval ranks by vectors.", ("s1", "s2")),
    ]
    sentences = {
        "s1": [
            CitedSentence("The thin idea appears once.", "s1", 0),
            CitedSentence("The thin idea appears twice.", "s1", 1),
            CitedSentence("Dense retrieval ranks by vectors.", "s1", 2),
        ],
        "s2": [CitedSentence("Dense retrieval beats BM25 on MS MARCO.", "s2", 0)],
    }
    pages = write_concept_pages(concepts, sentences)
    assert [p.slug for p in pages] == ["dense"]
    body = pages[0].body_markdown
    assert body.count("Dense retrieval ranks by vectors.") == 1
    assert "- Dense retrieval beats BM25" in body


def test_max_pages_keeps_links_resolvable() -> None:
    pages = write_concept_pages(CONCEPTS, SENTENCES, centrality={"transformer": 1.0}, max_pages=1)
    assert [p.slug for p in pages] == ["transformer"]
    assert pages[0].links == ()
    assert extract_links(pages[0].body_markdown) == []


def test_link_helpers() -> None:
    body = "See [[a]], [[b|Bee]] and [[a]] again, and [[c]]."
    assert extract_links(body) == ["a", "b", "c"]
    assert resolve_links(body, {"a", "c"}) == ["a", "c"]
    assert broken_links(body, {"a", "c"}) == ["b"]


def test_citations_render_with_title_page_and_reader_link() -> None:
    from marginalia.knowledge.wiki import CitationTarget, render_citations

    sid, gone = "11111111-1111-1111-1111-111111111111", "22222222-2222-2222-2222-222222222222"
    long_title = (
        "SPECTER: Document-level Representation Learning using Citation-informed [Transformers]"
    )
    targets = {
        (sid, 3): CitationTarget(sid, 3, long_title, 4),
        (sid, None): CitationTarget(sid, None, long_title, None),
    }
    body = f"- A claim. [source:{sid}#3]\n- The abstract. [source:{sid}]\n- Old. [source:{gone}#1]"
    out = render_citations(body, targets, "ws")
    assert "[source:" not in out
    assert f"](/w/ws/read/{sid}?page=4&chunk=3))" in out
    assert f"](/w/ws/read/{sid}))" in out
    label = out.split("([", 1)[1].split("](", 1)[0]
    assert label == "SPECTER, p. 4"  # the name before the colon
    assert "Old. (source removed)" in out
    from marginalia.knowledge.wiki import citation_label

    plain = "A very long title without any colon that goes on and on about embeddings [v2]"
    label = citation_label(CitationTarget(sid, 1, plain, 2))
    assert label.endswith("…, p. 2") and len(label) < 70
    assert (
        render_citations(
            f"x [source:{sid}#1]", {(sid, 1): CitationTarget(sid, 1, plain, 2)}, "w"
        ).count("[")
        == 1
    )


def test_named_systems_and_datasets() -> None:
    from marginalia.knowledge.wiki import is_named_entity

    for name in ("SPECTER", "S2ORC", "SciBERT", "GloVe", "MeSH", "SemEval-2017", "LMWH"):
        assert is_named_entity(name), name
    for name in ("document", "Families", "full text", "RE", "Department", "token"):
        assert not is_named_entity(name), name
    assert is_named_entity("citation-informed transformer", ["SPECTER"])


def test_mentions_of_other_pages_are_linked_once() -> None:
    from marginalia.knowledge.wiki import WikiConcept, extract_links, link_mentions

    def concept(name: str, slug: str, *aliases: str) -> WikiConcept:
        return WikiConcept(name, slug, None, (), aliases=aliases)

    body = (
        "# SPECTER\n\nSPECTER uses SciBERT.\n\n## What the sources say\n\n"
        "- SPECTER initialises from SciBERT and beats citation graph baselines. [source:a#1]\n"
        "- SciBERT was pretrained on papers. [source:b#2]\n\nRelated: [[scibert]]\n"
    )
    targets = [
        concept("SPECTER", "specter"),
        concept("SciBERT", "scibert"),
        concept("citation graph", "citation-graph", "citation graphs"),
    ]
    out = link_mentions(body, targets, "specter")
    assert "[[scibert|SciBERT]] and beats [[citation-graph|citation graph]] baselines" in out
    assert "- SciBERT was pretrained" in out  # one link per target
    assert "[[specter" not in out  # never to itself
    assert "SPECTER uses SciBERT." in out  # only sentence lines
    assert "[source:a#1]" in out and set(extract_links(out)) == {"scibert", "citation-graph"}


def test_refusals_are_not_pages() -> None:
    from marginalia.knowledge.wiki import looks_like_refusal

    assert looks_like_refusal("# X\n\nI'm sorry, but I cannot answer from these passages.")
    assert looks_like_refusal("Unfortunately, the passages do not say. Not enough information.")
    assert looks_like_refusal("There is not enough information in the sources to write this.")
    assert not looks_like_refusal("BERT is compressed by [[model-compression]].")
    assert not looks_like_refusal("Sorry scores are low [source:abc#1].")  # it cites


def test_a_page_with_several_sources_says_what_each_adds_and_invents_no_contrast() -> None:
    """Issue 35: how sources agree or differ, offline — which sources name the concept,
    how often, and which other concept each one alone relates it to."""
    concepts = [
        WikiConcept("citation graph", "citation-graph", "A graph of papers.", ("a", "b")),
        WikiConcept("triplet loss", "triplet-loss", "A ranking loss.", ("a",)),
        WikiConcept("PageRank", "pagerank", None, ("b",)),
    ]
    sentences = {
        "a": [
            CitedSentence("The citation graph gives triplets for the triplet loss.", "a", 0),
            CitedSentence("Hard negatives come from the citation graph.", "a", 1),
            CitedSentence("The triplet loss is a margin loss.", "a", 2),
        ],
        "b": [CitedSentence("PageRank runs on the citation graph.", "b", 4)],
    }
    pages = {p.slug: p for p in write_concept_pages(concepts, sentences)}
    body = pages["citation-graph"].body_markdown
    section = body.split("## Across the sources", 1)[1]
    assert "Named in 2 sources." in section
    assert "whether they agree is for the reader to judge" in section
    assert (
        "- [source:a#0]: 2 sentences name it; only this source relates it to [[triplet-loss|Triplet loss]]."
        in section
    )
    assert (
        "- [source:b#4]: 1 sentence names it; only this source relates it to PageRank." in section
    )
    assert not any(w in section.lower() for w in ("contradict", "disagree", "however"))
    # one source: no such section
    assert "## Across the sources" not in pages["triplet-loss"].body_markdown
