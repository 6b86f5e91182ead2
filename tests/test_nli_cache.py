"""The NLI score cache: a pair is scored once per model, a cached score equals a fresh one, repeats within a call
are scored once, the memory is bounded, and models whose scores depend on their batch are never cached; and pairs
scored on several threads score as on one."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from veriground.backends.nli_cache import NLIScoreCache
from veriground.backends.sequence_pair_nli import SequencePairNLIModel
from veriground.backends.shipped_nli import ShippedNLIModel
from veriground.schema import NLIScores

PAIRS = [
    ("Velocity is the rate of change of position.", "Velocity is how fast position changes."),
    ("Water boils at 100 degrees Celsius at sea level.", "Water boils at 50 degrees Celsius at sea level."),
    ("A heap keeps its smallest key at the root.", "The root of a heap holds the smallest key."),
]


class CountingScorer:
    """Scores a pair by its premise length; records every batch it is asked for."""

    def __init__(self) -> None:
        self.batches: list[list[tuple[str, str]]] = []

    def __call__(self, pairs):
        self.batches.append(list(pairs))
        return [NLIScores(entail=len(p) % 10 / 10, neutral=1 - len(p) % 10 / 10, contradict=0.0) for p, _ in pairs]


def test_each_distinct_pair_is_scored_once_in_first_seen_order_and_answers_keep_the_input_order():
    cache, scorer = NLIScoreCache("model-a"), CountingScorer()
    asked = [PAIRS[1], PAIRS[0], PAIRS[1], PAIRS[2], PAIRS[0]]
    first = cache.predict(asked, scorer)
    assert scorer.batches == [[PAIRS[1], PAIRS[0], PAIRS[2]]]
    assert first == CountingScorer()(asked)  # same scores, same order as scoring every pair
    again = cache.predict(list(reversed(asked)), scorer)
    assert again == list(reversed(first))
    assert len(scorer.batches) == 1  # the second call was answered from memory
    assert (cache.hits, cache.misses) == (7, 3)


def test_the_key_holds_the_model_so_two_models_never_share_a_score():
    one, other = NLIScoreCache("model-a"), NLIScoreCache("model-b")
    assert one.key(*PAIRS[0]) != other.key(*PAIRS[0])
    assert one.key("ab", "c") != one.key("a", "bc")  # where the premise ends is part of the key


def test_the_least_recently_used_scores_are_dropped_beyond_the_bound():
    cache, scorer = NLIScoreCache("model-a", max_entries=2), CountingScorer()
    cache.predict([PAIRS[0], PAIRS[1]], scorer)
    cache.predict([PAIRS[0]], scorer)  # PAIRS[0] is now the most recent
    cache.predict([PAIRS[2]], scorer)  # evicts PAIRS[1]
    assert len(cache) == 2
    cache.predict([PAIRS[0], PAIRS[1]], scorer)
    assert scorer.batches[-1] == [PAIRS[1]]


def test_a_scorer_that_loses_pairs_is_an_error_not_a_silent_gap():
    with pytest.raises(ValueError, match="returned 1 scores for 2 pairs"):
        NLIScoreCache("model-a").predict(PAIRS[:2], lambda pairs: [NLIScores(entail=1, neutral=0, contradict=0)])


@pytest.fixture(scope="module")
def shipped() -> ShippedNLIModel:
    return ShippedNLIModel()


def test_the_shipped_model_caches_and_a_cached_score_equals_a_fresh_one_pair_by_pair(shipped):
    shipped.score_cache.clear()
    cached = shipped.predict([*PAIRS, PAIRS[0]])
    assert (shipped.score_cache.hits, shipped.score_cache.misses) == (1, 3)
    assert cached == shipped.predict([*PAIRS, PAIRS[0]])
    assert shipped.score_cache.misses == 3
    fresh = [shipped._score_pairs([pair])[0] for pair in [*PAIRS, PAIRS[0]]]
    together = shipped._score_pairs(list(reversed(PAIRS)))
    assert cached == fresh  # what one pair alone scores, whatever else was asked with it
    assert list(reversed(together)) == cached[:3]


def test_a_model_run_in_batches_is_not_cached(shipped):
    batched = object.__new__(ShippedNLIModel)
    batched.__dict__.update(shipped.__dict__)
    config = SimpleNamespace(max_position_embeddings=512, model_type="bert")
    SequencePairNLIModel.__init__(
        batched, shipped.tokenizer, config, label_map=shipped.label_map, batch_size=8, input_names=shipped.input_names
    )
    assert batched.score_cache is None
    assert batched.predict(PAIRS[:1]) and shipped.score_cache is not None


def test_a_claim_too_long_for_one_window_is_scored_in_parts_the_same_cached_or_not(shipped):
    long_claim = ", ".join(["the acceleration stays the same"] * 60)  # more than the model reads (256 tokens)
    pairs = [*PAIRS, (PAIRS[0][0], long_claim)]
    shipped.score_cache.clear()
    shipped.predict(PAIRS)  # the first pairs are cached, so only the long one is left to score
    assert shipped.predict(pairs) == shipped._score_pairs(pairs)
    assert len(shipped._hypothesis_parts(long_claim)) > 1


def test_pairs_scored_on_several_threads_score_as_one_thread_does(shipped, monkeypatch):
    many = [(premise, f"{hypothesis} {number}") for number in range(6) for premise, hypothesis in PAIRS]
    monkeypatch.setattr(shipped, "workers", 1)
    alone = shipped._score_pairs(many)
    monkeypatch.setattr(shipped, "workers", 3)
    calls = []
    real_logits = shipped._logits
    monkeypatch.setattr(shipped, "_logits", lambda features: calls.append(1) or real_logits(features))
    assert shipped._score_pairs(many) == alone
    assert len(calls) == len(many)  # still one pair per run
