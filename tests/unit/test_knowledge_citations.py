"""Reference matching (knowledge/citations.py): identifiers, titles, near misses, and
what must never match."""

from __future__ import annotations

import uuid

from marginalia.knowledge.citations import (
    CitableSource,
    TitleIndex,
    match_references,
    parse_reference,
    title_query,
)

GRAPH = CitableSource(
    id=uuid.uuid4(),
    title="Construction of the Literature Graph in Semantic Scholar",
    year=2018,
)
SPECTER = CitableSource(
    id=uuid.uuid4(),
    title="SPECTER: Document-level Representation Learning using Citation-informed Transformers",
    year=2020,
    arxiv_id="2004.07180",
)
CLINSCI = CitableSource(
    id=uuid.uuid4(),
    title="Fragment-based design for the development of N-domain-selective ACE inhibitors",
    year=2014,
    doi="10.1042/cs20130403",
)
SHORT = CitableSource(id=uuid.uuid4(), title="Deep Learning", year=2015)
INDEX = TitleIndex([GRAPH, SPECTER, CLINSCI, SHORT])


def _match(text: str, citing: uuid.UUID | None = None) -> tuple[uuid.UUID, str] | None:
    found = match_references(citing or uuid.uuid4(), [parse_reference(0, text)], INDEX)
    return (found[0].cited, found[0].how) if found else None


def test_title_with_line_break_hyphen_matches() -> None:
    ref = (
        "Kyle Lo, Tyler Murray, and Oren Etzioni. 2018. Construction of the liter- ature "
        "graph in semantic scholar. In Proceedings of NAACL-HLT, pages 84–91."
    )
    assert _match(ref) == (GRAPH.id, "title")


def test_title_with_hyphens_split_differently_matches() -> None:
    ref = (
        "Arman Cohan et al. 2020. SPECTER: Document-level representation learning using "
        "citation- informed transformers. In ACL."
    )
    assert _match(ref) == (SPECTER.id, "title")


def test_identifiers_match_without_the_title() -> None:
    assert _match("Cohan A. 2020. A model. arXiv preprint arXiv:2004.07180.") == (
        SPECTER.id,
        "arxiv",
    )
    assert _match("Douglas R. 2014. Clin Sci 126:305. doi:10.1042/CS20130403.") == (
        CLINSCI.id,
        "doi",
    )


def test_a_near_miss_needs_the_year() -> None:
    # One word of eight differs ("Literature" -> "Citation"): below 90%, no match.
    assert _match("Ammar W. 2018. Construction of the citation graph in semantic scholar.") is None
    # One word of twelve dropped ("the"), the year printed: a near miss that counts.
    near = (
        "Douglas RG, Sharma RK. Fragment-based design for development of "
        "N-domain-selective ACE inhibitors. Clin Sci 2014, 126:305-313."
    )
    assert _match(near) == (CLINSCI.id, "title")
    # The same words with another year do not.
    assert _match(near.replace("2014", "2009")) is None


def test_absent_papers_short_titles_and_self_citations_never_match() -> None:
    # A different paper that shares most words with a workspace title.
    assert (
        _match("Roe J. 2019. A semantic graph of the scholarly literature for construction.")
        is None
    )
    # "Deep Learning" (2 words) is in many references; it never matches by title alone.
    assert _match("LeCun Y, Bengio Y, Hinton G. 2015. Deep learning. Nature 521.") is None
    # A paper does not cite itself.
    assert (
        _match("Ammar W. 2018. Construction of the literature graph in semantic scholar.", GRAPH.id)
        is None
    )


def test_title_query_avoids_hyphenated_words_and_short_titles() -> None:
    query = title_query(SPECTER.title)
    assert query is not None
    assert "document" not in query and "citation" not in query and "informed" not in query
    assert "representation" in query and "transformers" in query
    assert title_query("Deep Learning") is None
