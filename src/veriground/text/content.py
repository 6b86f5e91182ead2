"""A text's content as alignment, coverage and citation checks count it: its content stems with numbers left out (the
numbers are compared as quantities, text/quantities.py)."""

from __future__ import annotations

from veriground.text.memo import text_memo
from veriground.text.quantities import extract_quantities, may_hold_numbers, remove_quantities
from veriground.text.sentences import sentence_spans
from veriground.text.terms import extract_terms

# (start, end, content stems, number values) of one sentence of a text
SentenceContent = tuple[int, int, frozenset[str], frozenset[float]]


@text_memo(maxsize=65_536)  # claims, evidence sentences and passages are read again and again
def content_stems(text: str) -> frozenset[str]:
    """The Snowball stems of the text's content words (stopwords and negations dropped), numbers left out."""
    return frozenset(term.stem for term in extract_terms(remove_quantities(text)))


@text_memo(maxsize=65_536)  # a passage is retrieved for many claims: its sentences are read once
def sentence_numbers(sentence: str) -> frozenset[float]:
    """The values of the sentence's numbers, as written."""
    return frozenset(quantity.value for quantity in extract_quantities(sentence))


@text_memo(maxsize=16_384)  # a passage is retrieved for many claims: its sentences are read once
def sentence_contents(text: str) -> tuple[SentenceContent, ...]:
    """(start, end, content stems, number values) of each sentence of the text."""
    contents = []
    for start, end in sentence_spans(text):
        sentence = text[start:end]
        contents.append((start, end, content_stems(sentence), sentence_numbers(sentence)))
    return tuple(contents)


@text_memo(maxsize=16_384)  # the coverage signal asks it of every passage of every claim
def passage_stems(text: str) -> frozenset[str]:
    """content_stems(text). Without a digit it is the union of the text's sentences' (sentence_contents, usually read
    already by alignment): sentences are cut at whitespace, and no word spans whitespace. With one, the whole text is
    read, since a number can take its unit from across a paragraph break ("5\n\nkg")."""
    if not may_hold_numbers(text):
        return frozenset().union(*(stems for _, _, stems, _ in sentence_contents(text)))
    return content_stems(text)
