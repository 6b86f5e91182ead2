"""A text's content as alignment, coverage and citation checks count it: its content stems with numbers left out (the
numbers are compared as quantities, text/quantities.py)."""

from __future__ import annotations

from veriground.text.memo import text_memo
from veriground.text.quantities import remove_quantities
from veriground.text.terms import extract_terms


@text_memo(maxsize=65_536)  # claims, evidence sentences and passages are read again and again
def content_stems(text: str) -> frozenset[str]:
    """The Snowball stems of the text's content words (stopwords and negations dropped), numbers left out."""
    return frozenset(term.stem for term in extract_terms(remove_quantities(text)))
