"""Text → normalised text, word tokens, Snowball stems, stopwords and content terms (surface word, stem).

One tokenizer, `tokenize(text, options)`; its `TokenOptions` say how words are read, which are dropped and
whether they are stemmed. Each preset is pinned by what depends on it:
- BM25_TOKENS (the default; index and query alike): word characters (`\\w`) of the lower-cased text, bm25s's
  English stopword list removed, Snowball-stemmed. Changing it changes TOKENIZER_NAME, which the saved index
  records, so old indexes rebuild.
- WORDS (`tokenize_words`: cues, coverage, alignment): words of normalised text (apostrophes kept inside a word,
  a possessive 's dropped); CONTENT_WORDS drops STOPWORDS and negations too, and `extract_terms` stems them.

Content terms drop English function words and negation words; negations are kept apart because the
lexical NLI reads them as a polarity cue, not as content that two texts can share.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, NamedTuple

from veriground.text.memo import text_memo

# Superscripts become caret exponents so "10⁸", "mc²" and "m/s²" read like "10^8", "mc^2", "m/s^2".
_SUPERSCRIPTS = str.maketrans(
    {
        "⁰": "0",
        "¹": "1",
        "²": "2",
        "³": "3",
        "⁴": "4",
        "⁵": "5",
        "⁶": "6",
        "⁷": "7",
        "⁸": "8",
        "⁹": "9",
        "⁻": "-",
        "⁺": "+",
    }
)
SUPERSCRIPT_RUN = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+")  # each run gains one "^": text/quantity_spans maps offsets back
_PLAIN_CHARS = str.maketrans(
    {
        "’": "'",
        "‘": "'",
        "“": '"',
        "”": '"',
        "−": "-",  # U+2212 minus sign
        "–": "-",
        "µ": "μ",  # micro sign → Greek mu, so "µm" and "μm" are one unit
        "\u00a0": " ",
    }
)

# Function words: a compact English list (close to the Snowball English stop list) that deliberately keeps
# the words the antonym table and the coverage of scope claims need: more/less, all, first/last,
# before/after, above/below, over/under, always, most/few, only.
_STOPWORD_LIST = """
    a an the and or but if then else of in on at by for with from to into onto as is are was were be been
    being am do does did doing done has have had having it its itself this that these those there here
    their theirs they them themselves he she him her his hers himself herself we us our ours you your yours
    i me my mine which who whom whose what where when why how such so than too very can could may might
    must shall should will would also just each both any some other others own same about through during
    while because until via per etc let lets
"""
STOPWORDS: frozenset[str] = frozenset(_STOPWORD_LIST.split())

# Negation words and contractions (the "n't" family is matched by suffix in `is_negation`).
_NEGATION_LIST = """
    not no never cannot none neither nor without false nobody nothing nowhere cant wont dont doesnt isnt
    arent wasnt werent didnt hasnt havent hadnt shouldnt wouldnt couldnt mustnt neednt
"""
NEGATION_WORDS: frozenset[str] = frozenset(_NEGATION_LIST.split())

# How `tokenize` reads words (TokenOptions.words): BM25's runs of word characters, and words of normalised text.
_WORD_CHARS = re.compile(r"\w+")
_NORMALISED_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")


@dataclass(frozen=True, slots=True)
class TokenOptions:
    """How `tokenize` reads a text: one step a field, applied in this order."""

    # "word-chars": runs of `\\w` in the lower-cased text. "normalised-words": `normalise_text`, lower-cased,
    # then letters and digits with apostrophes inside a word ("isn't" is one word) and a possessive 's dropped.
    words: Literal["word-chars", "normalised-words"]
    # Which words to drop: none; bm25s's English stopword list; STOPWORDS and negations (`is_negation`).
    stop: Literal["none", "bm25s", "content"]
    stem: bool  # Snowball (Porter 2) English stems


BM25_TOKENS = TokenOptions(words="word-chars", stop="bm25s", stem=True)
WORDS = TokenOptions(words="normalised-words", stop="none", stem=False)
CONTENT_WORDS = TokenOptions(words="normalised-words", stop="content", stem=False)
# The BM25 tokenizer (BM25_TOKENS); the index manifest records its name.
TOKENIZER_NAME = "word-lower-stopwords_en-snowball_en.v1"


class Term(NamedTuple):
    """One content word: as written (lower-cased) and its Snowball stem. A named tuple: a verifier makes tens of
    thousands of them a note, and a tuple is built several times faster than a frozen dataclass."""

    surface: str
    stem: str


@text_memo(maxsize=16_384)
def normalise_text(text: str) -> str:
    """Plain quotes and minus signs, micro sign → μ, superscripts → caret exponents."""
    if text.isascii():  # every character either table changes is outside ASCII
        return text
    plain = text.translate(_PLAIN_CHARS)
    return SUPERSCRIPT_RUN.sub(lambda run: "^" + run.group(0).translate(_SUPERSCRIPTS), plain)


def is_negation(word: str) -> bool:
    """True for a negation word or an n't contraction (lower-cased input)."""
    return word in NEGATION_WORDS or word.endswith("n't")


def tokenize(text: str, options: TokenOptions = BM25_TOKENS) -> list[str]:
    """The tokens of `text` as `options` read them; by default BM25's (index and query alike)."""
    normalised = options.words == "normalised-words"
    words: Sequence[str] = _words_of(text) if normalised else _WORD_CHARS.findall(text.lower())
    if options.stop == "bm25s":
        stopwords = _bm25_stopwords()
        words = [word for word in words if word not in stopwords]
    elif options.stop == "content":
        words = [word for word in words if word not in STOPWORDS and not is_negation(word)]
    return stem_words(words) if options.stem else list(words)


def tokenize_words(text: str) -> list[str]:
    """`tokenize` with WORDS: lower-cased words of normalised text; a possessive 's is dropped, "isn't" stays one
    word."""
    return tokenize(text, WORDS)


# Cached: a verifier reads the same claim and evidence sentences again and again. BM25's word-chars reading is not:
# ingest reads each passage once, and a cache of whole passages would only hold memory.
@text_memo(maxsize=16_384)
def _words_of(text: str) -> tuple[str, ...]:
    lowered = normalise_text(text).lower()
    if "'" not in lowered and "_" not in lowered:  # then a word is a run of word characters, found faster
        return tuple(_WORD_CHARS.findall(lowered))
    if "'s" not in lowered:  # no possessive to drop (a word is never empty)
        return tuple(_NORMALISED_WORD.findall(lowered))
    words = []
    for word in _NORMALISED_WORD.findall(lowered):
        if word.endswith("'s"):
            word = word[:-2]
        if word:
            words.append(word)
    return tuple(words)


def stem_words(words: Sequence[str]) -> list[str]:
    """Snowball (Porter 2) English stems, one per word."""
    stems: list[str] = _stemmer().stemWords(words)
    return stems


def extract_terms(text: str) -> list[Term]:
    """Content terms in order: stopwords and negations removed."""
    return list(_terms_of(text))


@text_memo(maxsize=16_384)  # a verifier reads the same claim and evidence sentences again and again
def _terms_of(text: str) -> tuple[Term, ...]:
    return tuple(map(_term, tokenize(text, CONTENT_WORDS)))


@text_memo(maxsize=65_536)  # a vocabulary: the same few thousand words make every sentence
def _term(word: str) -> Term:
    stem: str = _stemmer().stemWord(word)
    return Term(word, stem)


@lru_cache(maxsize=1)
def _stemmer() -> Any:  # PyStemmer ships no type stubs
    import Stemmer

    return Stemmer.Stemmer("english")


@lru_cache(maxsize=1)
def _bm25_stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN  # bm25s is imported only when BM25 tokens are asked for

    return frozenset(STOPWORDS_EN)
