"""Render unarXive full-text papers to Markdown documents the product ingests.

    uv run --frozen python eval/qa/render_unarxive.py --out /tmp/unarxive-docs
        [--source ../shared/data/catalog/unarxive/arXiv_src_2212_086.jsonl] [--ids ID ...]

The documents of the keyed test set ``eval/qa/test.jsonl`` are the ``TEST_PAPERS`` below,
rendered by this script; the data stays in ``../shared`` and the output goes to
``--out``, which must lie outside the repository. Only papers whose arXiv licence is
CC BY 4.0 are rendered. The rendering is deterministic (same input → same bytes):

- YAML front matter with ``title``, ``authors`` (``First Last; …`` from
  ``authors_parsed``), ``arxiv``, ``license``, ``categories``; then ``# <title>``;
- ``## Abstract`` and the arXiv abstract as one paragraph (whitespace collapsed);
- for each run of ``body_text`` entries with the same section: ``## <section name>``
  (unarXive's section numbers are not reliable enough to nest headings, so every
  section is a level-2 heading and the number is left out);
- each paragraph's lines as paragraphs; entries of content type ``list`` as ``- `` items;
- inline placeholders: ``{{cite:ID}}`` → ``[n]`` (n = order of first citation),
  ``{{formula:ID}}`` → ``$<latex>$`` from ``ref_entries`` (``[formula]`` when absent),
  ``{{figure:ID}}`` / ``{{table:ID}}`` (where a float sat) → removed; unarXive's own
  ``REF`` markers for cross-references ("Fig. REF") are left as they are;
- ``## References``: ``[n] <bib_entry_raw>`` for every cited entry, in number order.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DEFAULT_SOURCE = (
    REPO.parent / "shared" / "data" / "catalog" / "unarxive" / "arXiv_src_2212_086.jsonl"
)
CC_BY = "http://creativecommons.org/licenses/by/4.0/"

#: The 12 papers of the test set (all CC BY 4.0), chosen for prose a researcher would
#: query: several fields, none of them the dev set's (NLP tooling and biomedicine).
TEST_PAPERS: tuple[str, ...] = (
    "2212.11765",  # ESG ratings from news articles (q-fin / IR)
    "2212.11770",  # S-Graphs+ (robotics, SLAM)
    "2212.11772",  # self-adjusting fusion for text-audio sentiment (CL)
    "2212.11774",  # review of bug localization techniques (SE)
    "2212.11790",  # normalized contrastive learning for text-video retrieval (IR/CV)
    "2212.11803",  # EuclidNets (efficient inference, ML)
    "2212.11808",  # mutation-based text generation for adversarial ML (CL)
    "2212.11809",  # the retrosynthesis gap (chemistry / ML)
    "2212.11813",  # FieldView software (physics education)
    "2212.11816",  # transmission spectroscopy of GJ 486b (astrophysics)
    "2212.11850",  # a covert channel over recent legitimate traffic (security)
    "2212.11874",  # partially disaggregated optical network control (photonics)
)

#: The 10 papers of the second held-out concept set (``eval/concepts/heldout2.jsonl``):
#: the first 10 that :func:`concept_set_papers`' fixed rule gives, not picked by hand.
SECOND_CONCEPT_PAPERS: tuple[str, ...] = (
    "2212.11764",  # normalization and coherence for infinity-type theories (logic)
    "2212.11766",  # the two-armed Futurity bandit (probability, finance)
    "2212.11780",  # first-order sentences in random groups (group theory)
    "2212.11783",  # relaxation in models of soil mechanics (analysis)
    "2212.11791",  # integer-only recurrent networks (ML; a reply to reviewers)
    "2212.11798",  # analyticity of stationary spacetimes (general relativity)
    "2212.11807",  # Pauli's electron in Ehrenfest and Bohm theories (quantum physics)
    "2212.11817",  # electron transport in nuclear pasta (nuclear astrophysics)
    "2212.11825",  # mesonic screening masses in hot QCD (particle physics)
    "2212.11826",  # the quantum path kernel (quantum machine learning)
)
#: The 10 papers of the second development concept set (``eval/concepts/dev2.jsonl``): the
#: next 10 by the same rule.
DEV_CONCEPT_PAPERS: tuple[str, ...] = (
    "2212.11831",  # hopping matrix elements between nearby molecules (chemical physics)
    "2212.11839",  # multiple Mellin-Barnes integrals with straight contours (math physics)
    "2212.11846",  # perturbative to non-perturbative splittings in QCD jets
    "2212.11858",  # multi-frequency mmWave/THz channel modelling with a GAN
    "2212.11861",  # radiative decays of charmed mesons (quark model)
    "2212.11862",  # reduce-and-chop: shallow quantum circuits
    "2212.11863",  # laser cooling of trapped ions in inhomogeneous magnetic fields
    "2212.11867",  # zeros of derivatives of random polynomials
    "2212.11884",  # the central limit theorem via doubling of variables
    "2212.11886",  # recurrent flow patterns as a basis for turbulence
)


def concept_set_papers(papers: dict[str, dict[str, Any]], n: int = 20) -> list[str]:
    """The first ``n`` CC BY 4.0 papers by id, outside the test set, with 20-150 body
    paragraphs (long enough to have concepts, short enough to read in one sitting)."""
    return _cc_by_papers(papers, set(TEST_PAPERS), 20, 150)[:n]


#: The 10 papers of the third held-out concept set (``eval/concepts/heldout3.jsonl``): the
#: first 10 that :func:`third_concept_set_papers`' fixed rule gives.
THIRD_CONCEPT_PAPERS: tuple[str, ...] = (
    "2212.11773",  # a mapping approach to surface hopping (chemical physics)
    "2212.11797",  # global Kuranishi charts, Gromov-Witten invariants (symplectic geometry)
    "2212.11800",  # solitons in open N=2 string theory (mathematical physics)
    "2212.11802",  # broken symmetries in microfluidic pillar arrays (fluid dynamics)
    "2212.11827",  # differential dynamic microscopy on DIC images (statistical mechanics)
    "2212.11843",  # two-loop kernels for colour-dependent double parton distributions
    "2212.11883",  # BSE-property of tensor product Banach algebras (functional analysis)
    "2212.11887",  # spin wave dispersion of hematite (materials science)
    "2212.11889",  # the solar corona during the 2019 total eclipse (solar physics)
    "2212.11895",  # excitonic absorption of twisted bilayer WSe2 (condensed matter)
)


def third_concept_set_papers(papers: dict[str, dict[str, Any]], n: int = 10) -> list[str]:
    """The rule for the third concept set, once the first rule had no 10 papers left: the
    first ``n`` CC BY 4.0 papers by id outside the test set and the first two concept
    sets, with 10-250 body paragraphs."""
    taken = set(TEST_PAPERS) | set(SECOND_CONCEPT_PAPERS) | set(DEV_CONCEPT_PAPERS)
    return _cc_by_papers(papers, taken, 10, 250)[:n]


def _cc_by_papers(
    papers: dict[str, dict[str, Any]], taken: set[str], fewest: int, most: int
) -> list[str]:
    """The CC BY 4.0 papers by id, outside ``taken``, with ``fewest``-``most`` body
    paragraphs."""
    return [
        pid
        for pid in sorted(papers)
        if pid not in taken
        and papers[pid]["metadata"].get("license") == CC_BY
        and fewest <= len(papers[pid].get("body_text") or []) <= most
    ]


_PLACEHOLDER = re.compile(r"\{\{(cite|formula|figure|table):([^}]*)\}\}")
_SPACES = re.compile(r"[ \t]+")


def load_papers(source: Path) -> dict[str, dict[str, Any]]:
    papers: dict[str, dict[str, Any]] = {}
    with source.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                paper = json.loads(line)
                papers[paper["paper_id"]] = paper
    return papers


class _Inline:
    """Replaces a paper's inline placeholders; numbers citations in first-use order."""

    def __init__(self, paper: dict[str, Any]) -> None:
        self.refs: dict[str, Any] = paper.get("ref_entries") or {}
        self.bib: dict[str, Any] = paper.get("bib_entries") or {}
        self.cite_numbers: dict[str, int] = {}

    def _replace(self, match: re.Match[str]) -> str:
        kind, ref_id = match.group(1), match.group(2)
        if kind == "cite":
            if ref_id not in self.cite_numbers:
                self.cite_numbers[ref_id] = len(self.cite_numbers) + 1
            return f"[{self.cite_numbers[ref_id]}]"
        if kind == "formula":
            latex = (self.refs.get(ref_id) or {}).get("latex")
            latex = " ".join(str(latex).split()) if latex else ""
            return f"${latex}$" if latex else "[formula]"
        return ""  # a figure or table float: its caption is not body text

    def __call__(self, text: str) -> str:
        out = _PLACEHOLDER.sub(self._replace, text)
        return _SPACES.sub(" ", out).strip()


def _authors(meta: dict[str, Any]) -> str:
    names = []
    for parts in meta.get("authors_parsed") or []:
        last, first = [*parts, "", ""][:2]
        names.append(" ".join(p for p in (first.strip(), last.strip()) if p))
    return "; ".join(n for n in names if n)


def _yaml_value(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a valid YAML scalar


def _lines(text: str) -> Iterable[str]:
    for line in text.split("\n"):
        line = line.strip()
        if line:
            yield line


def render(paper: dict[str, Any]) -> str:
    meta = paper["metadata"]
    inline = _Inline(paper)
    title = " ".join(meta["title"].split())
    out: list[str] = [
        "---",
        f"title: {_yaml_value(title)}",
        f"authors: {_yaml_value(_authors(meta))}",
        f"arxiv: {meta['id']}",
        f"license: {meta['license']}",
        f"categories: {meta.get('categories') or ''}",
        "---",
        "",
        f"# {title}",
        "",
        "## Abstract",
        "",
        " ".join((paper.get("abstract") or {}).get("text", meta.get("abstract", "")).split()),
        "",
    ]
    current: tuple[str, str] | None = None
    for entry in paper.get("body_text") or []:
        section = " ".join(inline(entry.get("section") or "").split()) or "Body"
        key = (str(entry.get("sec_number")), section)
        if key != current:
            out += [f"## {section}", ""]
            current = key
        is_list = entry.get("content_type") == "list"
        for line in _lines(inline(entry.get("text") or "")):
            line = "\\" + line if line.startswith("#") else line  # not a heading
            out += [f"- {line}" if is_list else line, ""]
    if inline.cite_numbers:
        out += ["## References", ""]
        for ref_id, number in sorted(inline.cite_numbers.items(), key=lambda kv: kv[1]):
            raw = (inline.bib.get(ref_id) or {}).get("bib_entry_raw") or ref_id
            out += [f"[{number}] {' '.join(raw.split())}", ""]
    return "\n".join(out).rstrip() + "\n"


def _inside_repo(path: Path) -> bool:
    resolved = path.resolve()
    return resolved == REPO or REPO in resolved.parents


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="directory to write into")
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--ids", nargs="+", default=list(TEST_PAPERS))
    parser.add_argument("--quiet", action="store_true", help="print only the summary line")
    args = parser.parse_args(argv)
    if _inside_repo(args.out):
        print(f"--out {args.out} is inside the repository; write elsewhere", file=sys.stderr)
        return 2
    if not args.source.is_file():
        print(f"no unarXive file at {args.source}", file=sys.stderr)
        return 2
    papers = load_papers(args.source)
    missing = [pid for pid in args.ids if pid not in papers]
    if missing:
        print(f"not in {args.source.name}: {', '.join(missing)}", file=sys.stderr)
        return 2
    not_cc_by = [pid for pid in args.ids if papers[pid]["metadata"].get("license") != CC_BY]
    if not_cc_by:
        print(f"not CC BY 4.0, not rendered: {', '.join(not_cc_by)}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    for pid in args.ids:
        target = args.out / f"{pid}.md"
        target.write_text(render(papers[pid]), encoding="utf-8")
        if not args.quiet:
            print(f"{target.name}  {' '.join(papers[pid]['metadata']['title'].split())}")
    print(f"{len(args.ids)} documents written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
