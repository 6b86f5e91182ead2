"""The one tokenizer of text/terms.py: its presets give BM25 tokens (pinned by TOKENIZER_NAME), cue words and content
terms; each option does what its documentation says."""

from __future__ import annotations

from veriground.text.terms import (
    BM25_TOKENS,
    CONTENT_WORDS,
    TOKENIZER_NAME,
    WORDS,
    TokenOptions,
    extract_terms,
    normalise_text,
    tokenize,
    tokenize_words,
)

TEXT = "The runners weren't running; Einstein's E = mc² isn't the “only” result of 10⁸ tests_x."


def test_bm25_tokens_are_pinned_by_the_tokenizer_name() -> None:
    # Word characters of the lower-cased text, bm25s's stopwords dropped, Snowball stems. If this changes, change
    # TOKENIZER_NAME too: saved indexes record it and rebuild.
    assert TOKENIZER_NAME == "word-lower-stopwords_en-snowball_en.v1"
    expected = ["runner", "weren", "t", "run", "einstein", "s", "e", "mc²", "isn", "t", "onli", "result", "10⁸"]
    assert tokenize(TEXT) == [*expected, "tests_x"]
    assert tokenize(TEXT, BM25_TOKENS) == tokenize(TEXT)


def test_words_read_normalised_text_and_keep_contractions() -> None:
    expected = ["the", "runners", "weren't", "running", "einstein", "e", "mc", "2", "isn't", "the", "only"]
    assert tokenize_words(TEXT) == [*expected, "result", "of", "10", "8", "tests", "x"]
    assert tokenize(TEXT, WORDS) == tokenize_words(TEXT)


def test_content_words_drop_function_words_and_negations() -> None:
    words = tokenize(TEXT, CONTENT_WORDS)
    assert words == ["runners", "running", "einstein", "e", "mc", "2", "only", "result", "10", "8", "tests", "x"]
    assert [term.surface for term in extract_terms(TEXT)] == words
    assert [term.stem for term in extract_terms(TEXT)][:3] == ["runner", "run", "einstein"]


def test_each_option_is_one_step() -> None:
    plain = TokenOptions(words="word-chars", stop="none", stem=False)
    assert tokenize("The Cats' toys", plain) == ["the", "cats", "toys"]
    assert tokenize("The Cats' toys", TokenOptions(words="word-chars", stop="bm25s", stem=False)) == ["cats", "toys"]
    assert tokenize("The Cats' toys", TokenOptions(words="word-chars", stop="none", stem=True)) == ["the", "cat", "toy"]


def test_cached_readings_hand_out_fresh_lists() -> None:
    first = tokenize_words("kinetic energy")
    first.append("changed")
    assert tokenize_words("kinetic energy") == ["kinetic", "energy"]


def test_normalise_text_changes_only_non_ascii_characters():
    """normalise_text returns ASCII text as it is: every character its tables change lies outside ASCII."""
    from veriground.text.terms import _PLAIN_CHARS, _SUPERSCRIPTS

    assert all(code > 127 for code in (*_PLAIN_CHARS, *_SUPERSCRIPTS))
    assert normalise_text("a 10^8 m/s 'quote'") == "a 10^8 m/s 'quote'"
    assert normalise_text("3.00×10⁸ m/s, “it’s” −4 µm") == '3.00×10^8 m/s, "it\'s" -4 μm'


def test_words_drop_possessives_with_or_without_the_fast_path():
    assert tokenize_words("Newton's second law") == ["newton", "second", "law"]
    assert tokenize_words("the law isn't broken") == ["the", "law", "isn't", "broken"]
