"""Text → normalised text, word tokens, Snowball stems, stopwords and content terms (surface word, stem).

Two tokenizers, each pinned by what depends on it:
- `tokenize` (BM25, index and query alike): word characters (`\\w`), lower-cased, bm25s's English stopword list removed,
  Snowball-stemmed. Changing it changes TOKENIZER_NAME, which the saved index records, so old indexes rebuild.
- `tokenize_words` (cues, coverage, alignment): words of normalised text (apostrophes kept inside a word,
  a possessive 's dropped); `extract_terms` then drops STOPWORDS and negations and stems the rest.

Content terms drop English function words and negation words; negations are kept apart because the
lexical NLI reads them as a polarity cue, not as content that two texts can share.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

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
_SUPERSCRIPT_RUN = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+")
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

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")


@dataclass(frozen=True)
class Term:
    """One content word: as written (lower-cased) and its Snowball stem."""

    surface: str
    stem: str


@lru_cache(maxsize=16_384)
def normalise_text(text: str) -> str:
    """Plain quotes and minus signs, micro sign → μ, superscripts → caret exponents."""
    plain = text.translate(_PLAIN_CHARS)
    return _SUPERSCRIPT_RUN.sub(lambda run: "^" + run.group(0).translate(_SUPERSCRIPTS), plain)


def is_negation(word: str) -> bool:
    """True for a negation word or an n't contraction (lower-cased input)."""
    return word in NEGATION_WORDS or word.endswith("n't")


def tokenize_words(text: str) -> list[str]:
    """Lower-cased words of normalised text; a possessive 's is dropped, "isn't" stays one word."""
    return list(_words_of(text))


@lru_cache(maxsize=16_384)
def _words_of(text: str) -> tuple[str, ...]:
    words = []
    for word in _WORD.findall(normalise_text(text).lower()):
        if word.endswith("'s"):
            word = word[:-2]
        if word:
            words.append(word)
    return tuple(words)


def stem_words(words: list[str]) -> list[str]:
    """Snowball (Porter 2) English stems, one per word."""
    stems: list[str] = _stemmer().stemWords(words)
    return stems


def extract_terms(text: str) -> list[Term]:
    """Content terms in order: stopwords and negations removed."""
    return list(_terms_of(text))


@lru_cache(maxsize=16_384)  # a verifier reads the same claim and evidence sentences again and again
def _terms_of(text: str) -> tuple[Term, ...]:
    words = [word for word in tokenize_words(text) if word not in STOPWORDS and not is_negation(word)]
    return tuple(Term(surface, stem) for surface, stem in zip(words, stem_words(words), strict=True))


@lru_cache(maxsize=1)
def _stemmer() -> Any:  # PyStemmer ships no type stubs
    import Stemmer

    return Stemmer.Stemmer("english")


# The BM25 tokenizer (see the module docstring); the index manifest records its name.
TOKENIZER_NAME = "word-lower-stopwords_en-snowball_en.v1"
_BM25_WORD = re.compile(r"\w+")


@lru_cache(maxsize=1)
def _stemmer_and_stopwords() -> tuple[Any, frozenset[str]]:  # PyStemmer ships no type stubs
    import Stemmer
    from bm25s.stopwords import STOPWORDS_EN

    return Stemmer.Stemmer("english"), frozenset(STOPWORDS_EN)


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens, English stopwords removed, Snowball-stemmed."""
    stemmer, stopwords = _stemmer_and_stopwords()
    words = [word for word in _BM25_WORD.findall(text.lower()) if word not in stopwords]
    stems: list[str] = stemmer.stemWords(words)
    return stems
