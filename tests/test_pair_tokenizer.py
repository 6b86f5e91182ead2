"""The shipped NLI model's tokenizer without transformers (backends/pair_tokenizer.py) gives transformers' own ids
for every call SequencePairNLIModel makes: whole pairs, one text without special tokens, overlapping premise windows
and padding; and the shipped model loads without importing transformers."""

from __future__ import annotations

import random
import subprocess
import sys

import numpy as np
import pytest
import transformers

from veriground.backends.pair_tokenizer import FEATURES, PairTokenizer
from veriground.backends.shipped_nli import shipped_model_folder

TEXT = (
    "kinetic energy depends on the mass and velocity of an object; merge-sort runs in O(n log n) time, "
    "café naïve 9.80 m/s² 10^8 K_n $n(n-1)/2$ Westphalia 1648 isn't don't “quoted” — dash [3] (brackets)"
)
WORDS = TEXT.split(" ")


@pytest.fixture(scope="module")
def tokenizers_pair() -> tuple[object, PairTokenizer]:
    folder = shipped_model_folder()
    return transformers.AutoTokenizer.from_pretrained(str(folder), local_files_only=True), PairTokenizer(folder)


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def test_whole_pairs_and_single_texts_get_transformers_ids(tokenizers_pair):
    theirs, ours = tokenizers_pair
    rng = random.Random(3)
    premises = [_text(rng, rng.randint(1, 60)) for _ in range(80)]
    hypotheses = [_text(rng, rng.randint(1, 20)) for _ in range(80)]
    expected = theirs(premises, hypotheses, truncation=False, verbose=False)
    got = ours(premises, hypotheses, truncation=False)
    assert all(expected[name] == got[name] for name in FEATURES)
    for text in hypotheses[:20]:
        assert ours(text, add_special_tokens=False)["input_ids"] == theirs(text, add_special_tokens=False)["input_ids"]
    for premise, hypothesis in zip(premises[:20], hypotheses[:20], strict=True):
        expected_pair, got_pair = theirs(premise, hypothesis), ours(premise, hypothesis)
        assert all(expected_pair[name] == got_pair[name] for name in FEATURES)
    assert ours.num_special_tokens_to_add(pair=True) == theirs.num_special_tokens_to_add(pair=True)
    assert ours.model_max_length == theirs.model_max_length


def test_overlapping_premise_windows_get_transformers_ids(tokenizers_pair):
    theirs, ours = tokenizers_pair
    rng = random.Random(5)
    for _ in range(15):
        premise, hypothesis = _text(rng, rng.randint(200, 600)), _text(rng, rng.randint(3, 30))
        stride = rng.randint(10, 100)
        options = {"truncation": "only_first", "max_length": 256, "stride": stride, "return_overflowing_tokens": True}
        expected = theirs(premise, hypothesis, verbose=False, **options)
        got = ours(premise, hypothesis, **options)
        assert len(got["input_ids"]) > 1
        assert all(expected[name] == got[name] for name in FEATURES)


def test_padding_matches_transformers(tokenizers_pair):
    theirs, ours = tokenizers_pair
    rng = random.Random(7)
    encoded = ours([_text(rng, n) for n in (3, 9, 1)], [_text(rng, n) for n in (2, 5, 8)], truncation=False)
    windows = [{name: encoded[name][row] for name in FEATURES} for row in range(3)]
    expected, got = theirs.pad(windows, return_tensors="np"), ours.pad(windows)
    assert all(np.array_equal(expected[name], got[name]) for name in FEATURES)


def test_the_shipped_model_loads_and_scores_without_importing_transformers():
    code = (
        "import sys\n"
        "from veriground.backends.shipped_nli import ShippedNLIModel\n"
        "(scores,) = ShippedNLIModel().predict([('The cat sat on the mat.', 'A cat is sitting on a mat.')])\n"
        "assert scores.entail > scores.contradict, scores\n"
        "print('transformers' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
