"""Two tiny random cross-encoders (1 layer, 16-d, the all-MiniLM-L6-v2 vocabulary) exported
to int8 ONNX exactly as ``export.py`` exports the real one: test fixtures for the rerank
loader (tests/fixtures/tiny_cross_encoders/seed-<n>/model.onnx). They rank nothing well;
they differ from each other, so a test can tell which folder the stage loaded.

    eval/.venv-train/bin/python eval/reranker/make_test_models.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
from onnxruntime.quantization import QuantType, quantize_dynamic
from torch import nn
from transformers import BertConfig, BertModel

sys.path.insert(0, str(Path(__file__).resolve().parent))
from export import export_onnx

OUT = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "tiny_cross_encoders"


class Tiny(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        cfg = BertConfig(
            vocab_size=30522,
            hidden_size=16,
            num_hidden_layers=1,
            num_attention_heads=2,
            intermediate_size=32,
            max_position_embeddings=512,
        )
        self.bert = BertModel(cfg, add_pooling_layer=False)
        self.head = nn.Linear(16, 1)

    def forward(self, input_ids, attention_mask, token_type_ids):  # type: ignore[no-untyped-def]
        out = self.bert(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(out.dtype)
        return self.head((out * mask).sum(1) / mask.sum(1).clamp(min=1.0))


def main() -> None:
    for seed in (1, 2):
        torch.manual_seed(seed)
        model = Tiny().eval()
        folder = OUT / f"seed-{seed}"
        folder.mkdir(parents=True, exist_ok=True)
        ids = torch.tensor([[101, 2054, 102, 1996, 102, 0], [101, 2054, 102, 1996, 2003, 102]])
        mask = (ids > 0).long()
        types = torch.tensor([[0, 0, 0, 1, 1, 0], [0, 0, 0, 1, 1, 1]])
        fp32 = folder / "fp32.onnx"
        export_onnx(
            model, {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}, fp32
        )
        quantize_dynamic(str(fp32), str(folder / "model.onnx"), weight_type=QuantType.QInt8)
        fp32.unlink()
        print(folder, (folder / "model.onnx").stat().st_size)


if __name__ == "__main__":
    main()
