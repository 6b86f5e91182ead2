"""Issue 15's property, on the shipped defaults: 500 sentences sampled (fixed seed) from the ingested domain corpora
are verified against that corpus: none is Contradictory and at least 95 % are Supported; the same sentences with one
number changed (units kept) or a negation inserted are at least 90 % not Supported, and so are the same sentences with
one word swapped for another word of the sample (0.962 measured with the shipped model; 0.734 without the
substituted-words rule)."""

from __future__ import annotations

from pathlib import Path

import pytest

from veriground.backends.registry import build_nli
from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.evaluation.property_check import check_property, sample_sentences, swap_vocabulary, swap_word

SENTENCES = 500


@pytest.fixture(scope="module")
def domain_store(tmp_path_factory) -> CorpusStore:
    corpora = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "domain-corpora"
    if not corpora.is_dir():
        pytest.skip(f"{corpora} is not present (it sits beside the checkout in CI)")
    store = CorpusStore(tmp_path_factory.mktemp("property") / "corpus")
    report = ingest_paths([corpora], store, load_config(None, environ={}).ingest)
    assert not report.failed
    yield store
    store.close()


@pytest.mark.slow
def test_true_sentences_are_supported_and_edited_ones_are_not(domain_store):
    config = load_config(None, environ={})
    sentences = sample_sentences(domain_store, SENTENCES)
    assert len(sentences) == SENTENCES
    result = check_property(sentences, domain_store, config=config, nli=build_nli(config.models))
    shown = "\n".join(f"{kind}: {verdict}: {text}" for kind, text, verdict in result.failures[:20])
    assert result.true_verdicts["Contradictory"] == 0, shown
    assert result.supported_share >= 0.95, shown
    assert sum(result.edited_verdicts.values()) >= 0.6 * SENTENCES  # most sentences have a number or a verb to negate
    assert result.edited_not_supported_share >= 0.90, shown
    assert sum(result.swapped_verdicts.values()) >= 0.9 * SENTENCES  # nearly every sentence has a word to swap
    assert result.swapped_not_supported_share >= 0.90, shown


def test_swap_word_replaces_one_long_lower_case_word_with_another_the_text_lacks():
    texts = ["The tides come from the Moon's gravitational pull.", "Heat flows from hotter objects."]
    vocabulary = swap_vocabulary(texts)
    assert vocabulary == ["flows", "gravitational", "hotter", "objects", "tides"]  # "Heat", "Moon's", "come": not
    swapped = swap_word(texts[0], vocabulary)
    assert swapped is not None and swapped != texts[0]
    assert swapped == swap_word(texts[0], vocabulary)  # deterministic in the text
    changed = [a for a, b in zip(swapped.split(), texts[0].split(), strict=True) if a != b]
    assert len(changed) == 1 and changed[0] in {"flows", "hotter", "objects"}
    assert swap_word("A cat sat.", vocabulary) is None  # no word of 5 lower-case letters or more
    assert swap_word(texts[1], ["flows", "hotter", "objects"]) is None  # every other word is already in it
