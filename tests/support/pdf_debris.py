"""PDF debris of the 9 shared PDFs that users read before the text-hygiene step (issue 35),
shared by the hygiene unit test (found in the parsed text, gone after the step) and the
9-PDF knowledge test (in no claim, wiki page or answer quote)."""

from __future__ import annotations

import re

# Debris found in the 9 PDFs' stored text before this step (each string occurred in a
# sentence a claim, a wiki page or an answer could quote): running heads and page
# numbers, footnote text and markers, words split at a line end, equation fragments.
PDF_DEBRIS: dict[str, list[str]] = {
    "specter-acl2020": [
        "state- 2 SPECTER: Scientific Paper Embeddings",  # footnote inside a sentence
        "TransformERs 2271 of-the-art",  # ... and the next page's number
        "release SCIDOCS3",  # footnote marker
        "the benchmark.1",
        "ingre- dient",  # line-break hyphenation
        "o (2) where d is",  # equation fragment
    ],
    "s2orc-acl2020": ["pronounced “stork” 8The papers", "We introduce S2ORC,1"],
    "literature-graph-naacl2018": ["PDFBox library3", "1Due to space constraints"],
    "longeval-eacl2023": ["chal- lenging"],
    "vespa-peerj2017": ["peerj-cs.118 2/16"],
    "health-bmc2014": ["BMC Health Services Research 2014, 14:1 Page"],
    "rehab-hindawi2010": ["Rehabilitation Research and Practice 3"],
    "clinsci2014": ["The author(s) has paid for this article"],
    "trauma-bmc2010": ["Journal of Trauma Management & Outcomes 2010, 4:1"],
}

#: A footnote marker glued to the next sentence ("8The papers", "1Due to space").
FOOTNOTE_GLUED = re.compile(r"(?<![\w.])\d[A-Z][a-z]{2,}\b")
#: A word split at a line end ("chal- lenging"), not "pre- and post-training".
LINE_SPLIT_WORD = re.compile(r"\b[a-z]{2,}- (?!and\b|or\b|to\b|as\b)[a-z]{2,}")
#: An equation number and the "where" that explains it ("o (2) where d is").
EQUATION_TAIL = re.compile(r"\(\d{1,2}\)\s+where\b")


def debris_in(text: str) -> list[str]:
    """Every piece of known debris in ``text`` (whitespace normalised)."""
    flat = " ".join(text.split())
    found = [d for strings in PDF_DEBRIS.values() for d in strings if d in flat]
    for pattern in (FOOTNOTE_GLUED, LINE_SPLIT_WORD, EQUATION_TAIL):
        found += [m.group(0) for m in pattern.finditer(flat)]
    return found
