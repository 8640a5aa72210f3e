"""A Zotero-style export folder built for tests: the same five works as BibTeX (Better
BibTeX fields), RIS and CSL-JSON — metadata-only entries, an abstract-only one, a local
PDF attachment under ``files/`` (copied from the shared SPECTER PDF), and an attachment
path that escapes the folder (pointing at a real PDF outside it) — plus an entry with
no title."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

BERT_DOI = "10.18653/v1/n19-1423"
ATTENTION_ARXIV = "1706.03762"
SCIBERT_ARXIV = "1903.10676"
SPECTER_DOI = "10.18653/v1/2020.acl-main.207"
ATTENTION_ABSTRACT = (
    "The dominant sequence transduction models are based on complex recurrent or "
    "convolutional neural networks that include an encoder and a decoder."
)


@dataclass
class ZoteroExport:
    folder: Path
    bib: Path
    ris: Path
    csl: Path
    outside_pdf: Path


def make_export(folder: Path, specter_pdf: Path, outside_pdf: Path) -> ZoteroExport:
    (folder / "files" / "7").mkdir(parents=True)
    shutil.copy(specter_pdf, folder / "files" / "7" / "Cohan - 2020 - SPECTER.pdf")
    escape = Path("..") / ".." / outside_pdf.relative_to("/")
    escape_rel = "../" * (len(folder.resolve().parts) + 1) + str(outside_pdf).lstrip("/")
    bib = folder / "library.bib"
    bib.write_text(
        rf"""
@inproceedings{{devlin_bert_2019,
  title = {{{{BERT}}: Pre-training of Deep Bidirectional Transformers for Language Understanding}},
  author = {{Devlin, Jacob and Chang, Ming-Wei and Lee, Kenton and Toutanova, Kristina}},
  booktitle = {{Proceedings of the 2019 Conference of the North American Chapter of the Association for Computational Linguistics}},
  year = {{2019}},
  doi = {{10.18653/v1/N19-1423}},
  annote = {{Read for the masked LM objective.}},
}}
@misc{{vaswani_attention_2017,
  title = {{Attention Is All You Need}},
  author = {{Vaswani, Ashish and Shazeer, Noam and Parmar, Niki}},
  date = {{2017-06-12}},
  eprinttype = {{arxiv}},
  eprint = {{1706.03762}},
  doi = {{10.48550/arXiv.1706.03762}},
  abstract = {{{ATTENTION_ABSTRACT}}},
  keywords = {{Computer Science - Computation and Language}},
}}
@article{{beltagy_scibert_2019,
  title = {{{{SciBERT}}: A Pretrained Language Model for Scientific Text}},
  author = {{Beltagy, Iz and Lo, Kyle and Cohan, Arman}},
  year = {{2019}},
  journal = {{arXiv:1903.10676 [cs]}},
  note = {{arXiv: 1903.10676}},
  file = {{Snapshot:{escape_rel}:application/pdf}},
}}
@inproceedings{{cohan_specter_2020,
  title = {{{{SPECTER}}: Document-level Representation Learning using Citation-informed Transformers}},
  author = {{Cohan, Arman and Feldman, Sergey and Beltagy, Iz and Downey, Doug and Weld, Daniel}},
  booktitle = {{Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics}},
  year = {{2020}},
  doi = {{10.18653/v1/2020.acl-main.207}},
  file = {{Full Text PDF:files/7/Cohan - 2020 - SPECTER.pdf:application/pdf}},
}}
@misc{{untitled_2021,
  author = {{Nobody, A.}},
  year = {{2021}},
}}
""",
        encoding="utf-8",
    )
    ris = folder / "library.ris"
    ris.write_text(
        f"""TY  - CONF
TI  - BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding
AU  - Devlin, Jacob
AU  - Chang, Ming-Wei
T2  - Proceedings of the 2019 Conference of the North American Chapter of the Association for Computational Linguistics
PY  - 2019
DO  - 10.18653/v1/N19-1423
N1  - Read for the masked LM objective.
ID  - devlin_bert_2019
ER  - 

TY  - GEN
TI  - Attention Is All You Need
AU  - Vaswani, Ashish
AU  - Shazeer, Noam
PY  - 2017
DO  - 10.48550/arXiv.1706.03762
UR  - http://arxiv.org/abs/1706.03762
AB  - {ATTENTION_ABSTRACT}
ER  - 

TY  - JOUR
TI  - SciBERT: A Pretrained Language Model for Scientific Text
AU  - Beltagy, Iz
AU  - Lo, Kyle
PY  - 2019
N1  - arXiv: 1903.10676
L1  - file://{outside_pdf}
ER  - 

TY  - CONF
TI  - SPECTER: Document-level Representation Learning using Citation-informed Transformers
AU  - Cohan, Arman
AU  - Feldman, Sergey
PY  - 2020
DO  - 10.18653/v1/2020.acl-main.207
L1  - files/7/Cohan - 2020 - SPECTER.pdf
ER  - 

TY  - GEN
AU  - Nobody, A.
PY  - 2021
ER  - 
""",
        encoding="utf-8",
    )
    csl = folder / "library.json"
    csl.write_text(
        json.dumps(
            [
                {
                    "id": "devlin_bert_2019",
                    "type": "paper-conference",
                    "title": "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding",
                    "author": [
                        {"family": "Devlin", "given": "Jacob"},
                        {"family": "Chang", "given": "Ming-Wei"},
                    ],
                    "issued": {"date-parts": [[2019, 6]]},
                    "DOI": "10.18653/v1/N19-1423",
                    "note": "Read for the masked LM objective.",
                },
                {
                    "id": "vaswani_attention_2017",
                    "type": "article",
                    "title": "Attention Is All You Need",
                    "author": [{"family": "Vaswani", "given": "Ashish"}],
                    "issued": {"date-parts": [[2017]]},
                    "number": "arXiv:1706.03762",
                    "publisher": "arXiv",
                    "abstract": ATTENTION_ABSTRACT,
                },
                {
                    "id": "beltagy_scibert_2019",
                    "type": "article",
                    "title": "SciBERT: A Pretrained Language Model for Scientific Text",
                    "author": [{"family": "Beltagy", "given": "Iz"}],
                    "issued": {"date-parts": [[2019]]},
                    "URL": "http://arxiv.org/abs/1903.10676",
                    "file": [str(escape)],
                },
                {
                    "id": "cohan_specter_2020",
                    "type": "paper-conference",
                    "title": "SPECTER: Document-level Representation Learning using Citation-informed Transformers",
                    "author": [{"family": "Cohan", "given": "Arman"}],
                    "issued": {"date-parts": [[2020]]},
                    "DOI": SPECTER_DOI,
                    "file": ["files/7/Cohan - 2020 - SPECTER.pdf"],
                },
                {"id": "untitled_2021", "type": "article", "issued": {"date-parts": [[2021]]}},
            ],
            indent=2,
        ),
        encoding="utf-8",
    )
    return ZoteroExport(folder, bib, ris, csl, outside_pdf)
