"""Is a claim its evidence sentence with words left out, none of which could turn its meaning around?

Leaving words out of a sentence makes a weaker statement or a vaguer one ("all objects fall" -> "objects fall",
"runs in O(n log n) time in the worst case" -> "runs in O(n log n) time"), never its opposite, unless a word left
out reverses, bounds or counts what the rest says: a negation ("not", "never", "n't"), a word of scope or degree
("only", "almost", "at most", "less"), a negative predicate ("false", "failed"), or a number. So such a claim can
be unsupported by the sentence (a restrictor of "all" left out), but the sentence cannot contradict it. Quantities
are compared by value, not spelling: "980 cm/s2" restates "9.8 m/s2" (pint), and a quantity of the sentence that the
claim leaves out counts as a number left out. The NLI
models we can run read some of these near copies as contradictions (a quantifier that differs was seen in training
mostly in edits that change the meaning); the verdict layer does not let them (verdicts/aggregator.py).
"""

from __future__ import annotations

from veriground.text.memo import text_memo
from veriground.text.quantities import (
    NormalQuantity,
    extract_quantities,
    normalise_leniently,
    remove_quantities,
    same_quantity,
)
from veriground.text.terms import is_negation, tokenize_words

# Words whose absence can reverse or bound what the rest of a sentence says (lower-cased, as tokenize_words reads).
_MEANING_LIST = """
    only just solely merely except unless but although though however yet rather instead opposite
    almost nearly hardly barely scarcely approximately roughly about around
    few fewer little less least more most than at over under above below up down beyond within
    former previously once formerly ex no longer anymore
    false untrue wrong incorrect myth lie deny denies denied fail fails failed failure refuse refused
    lack lacks lacked absence absent prevent prevents prevented avoid unlike impossible unlikely
    doubt doubtful disputed alleged allegedly supposedly claimed reportedly if whether may might could
    million millions billion billions thousand thousands hundred hundreds trillion percent dozen
    zero one two three four five six seven eight nine ten eleven twelve twice half double triple
"""
_MEANING_WORDS = frozenset(_MEANING_LIST.split())


@text_memo(maxsize=8_192)
def leaves_words_out(claim: str, evidence: str) -> bool:
    """True when the claim's words are the evidence sentence's words in order with some left out (or none), its
    quantities are the sentence's quantities (in any unit), and no word left out is a negation, a word of scope,
    degree or count, a negative predicate or a number."""
    claim_quantities, evidence_quantities = _quantities(claim), _quantities(evidence)
    if claim_quantities or evidence_quantities:
        if not _restated(claim_quantities, evidence_quantities) or not _restated(evidence_quantities, claim_quantities):
            return False
        claim, evidence = remove_quantities(claim), remove_quantities(evidence)
    claim_words = tokenize_words(claim)
    evidence_words = tokenize_words(evidence)
    if not claim_words or len(claim_words) > len(evidence_words):
        return False
    left_out: list[str] = []
    position = 0
    for word in evidence_words:
        if position < len(claim_words) and word == claim_words[position]:
            position += 1
        else:
            left_out.append(word)
    if position < len(claim_words):
        return False
    return not any(_may_turn_meaning(word) for word in left_out)


def _quantities(text: str) -> list[NormalQuantity]:
    return [normalise_leniently(quantity) for quantity in extract_quantities(text)]


def _restated(quantities: list[NormalQuantity], others: list[NormalQuantity]) -> bool:
    """Every one of `quantities` has the same value (in base units) among `others`."""
    return all(any(same_quantity(quantity, other) for other in others) for quantity in quantities)


def _may_turn_meaning(word: str) -> bool:
    return is_negation(word) or word in _MEANING_WORDS or any(ch.isdigit() for ch in word)
