"""Strings that recur in papers but that no page could be written about (issue 35):
amino-acid residues and mutations ("Arg381", "N-acetyl-Ser", "Y369F"), labels of the
paper's own parts ("RQ1", "Table 3", "H2"), licence names ("CC-BY"), file formats
("PDF"), chemical formulas ("CDCl3"), number-words ("30K", "8.1M"), tokenizer
symbols ("CLS") and people named with a title ("Professor Kelly Chibale"). Pure; :func:`marginalia.knowledge.concept_filter.concept_allowed`
refuses them for the offline extractor and for an LLM alike."""

from __future__ import annotations

import re
from collections.abc import Iterable

from marginalia.knowledge.text import wordset

_RESIDUES = (
    "Ala|Arg|Asn|Asp|Cys|Gln|Glu|Gly|His|Ile|Leu|Lys|Met|Phe|Pro|Ser|Thr|Trp|Tyr|Val|Sec|Pyl"
)
_RESIDUE = re.compile(rf"(?:[A-Za-z]+-)*(?:{_RESIDUES})(?:\d+|-\w+)?")
_MUTATION = re.compile(r"[ACDEFGHIKLMNPQRSTVWY]\d{2,4}[ACDEFGHIKLMNPQRSTVWY]")
_LABEL = re.compile(
    r"(?:RQ|H|Q|RO|C|E|Exp|Study|Table|Tab|Fig|Figure|Eq|Equation|Section|Sec|Appendix|"
    r"Phase|Step|Stage|Task|Case|Scheme|Lemma|Theorem|Def|Definition|Prop|Example)"
    r"[ .-]?\d+[a-z]?",
    re.IGNORECASE,
)
_LICENCE = re.compile(
    r"CC[- ]?(?:BY|0)(?:[- ](?:SA|NC|ND))*(?:[- ]\d(?:\.\d)?)?|(?:A|L)?GPL(?:v?\d)?|"
    r"MIT licen[cs]e|Apache(?: licen[cs]e)?(?: 2\.0)?|BSD(?:-\d-Clause)?",
    re.IGNORECASE,
)
_FILE_FORMATS = wordset(
    "PDF PDFs HTML XML JSON JSONL CSV TSV TXT DOC DOCX XLS XLSX PNG JPEG JPG GIF SVG TIFF "
    "ZIP GZ TAR PS EPS YAML"
)
_NUMBER_WORD = re.compile(r"\d+(?:[.,]\d+)?\s?[KMBkmb]")
_HONORIFICS = wordset("Professor Prof Dr Mr Mrs Ms Sir Dame")
_TOKENIZER_SYMBOLS = frozenset({"CLS", "SEP", "PAD", "UNK", "MASK", "BOS", "EOS"})
# Element symbols (and D, deuterium) for chemical formulas.
_ELEMENTS = wordset(
    "H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge "
    "As Se Br Kr Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pt Au Hg "
    "Tl Pb Bi U D"
)
_FORMULA_PART = re.compile(r"([A-Z][a-z]?)(\d*)")


def is_chemical_formula(token: str) -> bool:
    """ "CDCl3", "H2O", "CO2", "CH3OH": element symbols with counts, at least two symbols
    and one count (so "SciBERT", "S2ORC" or "T5" are not)."""
    parts = _FORMULA_PART.findall(token)
    if "".join(sym + n for sym, n in parts) != token or len(parts) < 2:
        return False
    return all(sym in _ELEMENTS for sym, _ in parts) and any(n for _, n in parts)


def non_concept_kind(surface: str) -> str | None:
    """What kind of non-concept ``surface`` is, or None when it may be a concept."""
    text = " ".join(surface.split())
    if not text:
        return None
    if _LICENCE.fullmatch(text):
        return "licence"
    if _LABEL.fullmatch(text):
        return "label"
    if _NUMBER_WORD.fullmatch(text):
        return "number-word"
    if " " in text:
        if text.split(" ", 1)[0].rstrip(".") in _HONORIFICS:
            return "person"  # "Professor Kelly Chibale"
        last = text.rsplit(" ", 1)[1]  # "N-domain-specific Tyr369": a residue, modified
        numbered = any(ch.isdigit() for ch in last)
        if numbered and (_RESIDUE.fullmatch(last) or _MUTATION.fullmatch(last)):
            return "residue or mutation"
        return None
    if text in _FILE_FORMATS or (text.upper() in _FILE_FORMATS and text.isupper()):
        return "file format"
    if text in _TOKENIZER_SYMBOLS:
        return "tokenizer symbol"
    if _RESIDUE.fullmatch(text) or _MUTATION.fullmatch(text):
        return "residue or mutation"
    if is_chemical_formula(text):
        return "chemical formula"
    return None


_UPPER_COMPOUND = re.compile(r"\b([A-Z]{3,})-[a-z]{3,}\b")


def upper_compounds(texts: Iterable[str]) -> frozenset[str]:
    """Upper-case words a source uses as the first part of a compound: "FINE" and
    "COARSE" of "FINE-grained" and "COARSE-grained"."""
    return frozenset(m.group(1) for text in texts for m in _UPPER_COMPOUND.finditer(text))


def undefined_short_form(surface: str, compounds: frozenset[str] = frozenset()) -> bool:
    """A form that, left undefined by its source, names nothing a page could be written
    about: an initialism of at most two letters ("CS", "GP", "KB"; "GPs"), or an
    upper-case word the source also writes as a compound's first part ("COARSE" of
    "COARSE-grained", which is the concept)."""
    core = surface[:-1] if len(surface) == 3 and surface.endswith("s") else surface
    if 1 <= len(core) <= 2 and core.isalpha() and core.isupper():
        return True
    return surface in compounds
