"""text/deletion.leaves_words_out: a claim that is its evidence sentence with words left out, none of which could
turn the meaning around, cannot be contradicted by that sentence (the verdict layer's guard against NLI models that
read near copies as contradictions)."""

from __future__ import annotations

import pytest

from veriground.text.deletion import leaves_negation_out, leaves_words_out

PHYSICS = "Near Earth's surface, all objects fall with an acceleration of about 9.80 m/s2."

CASES = [
    # (claim, evidence, leaves words out harmlessly)
    ("Near Earth's surface, objects fall with an acceleration of about 9.80 m/s2.", PHYSICS, True),
    (PHYSICS, PHYSICS, True),  # nothing left out
    ("Merge sort runs in O(n log n) time.", "Merge sort runs in O(n log n) time in the worst case.", True),
    ("The handbook requires two approvals.", "The handbook, revised in June, requires two approvals.", True),
    ("A heap is simple.", "A heap is very simple.", True),
    # a quantity restated in another unit is the same quantity (pint); one left out is a number left out
    ("Objects fall with an acceleration of 980 cm/s2.", "Objects fall with an acceleration of 9.8 m/s2.", True),
    ("The package weighs 2500 g.", "The package weighs 2.5 kg.", True),
    ("The package weighs 2.5 g.", "The package weighs 2.5 kg.", False),
    ("The package weighs.", "The package weighs 2.5 kg.", False),
    ("The package weighs 2.5 kg.", "The package weighs 2.5 kg and costs 5 dollars.", False),
    # a word that can turn the meaning is left out
    ("Merge sort runs in O(n log n) time.", "Merge sort does not run in O(n log n) time.", False),
    ("Merge sort runs in O(n log n) time.", "Merge sort doesn't run in O(n log n) time.", False),
    ("X is a prime.", "It is false that X is a prime.", False),
    ("The tree has n edges.", "The tree has at most n edges.", False),
    ("Only the root is black.", "Not only the root is black.", False),
    ("Objects fall with an acceleration of 9.80 m/s2.", "Objects fall with an acceleration of about 9.80 m/s2.", False),
    ("The bridge is meters long.", "The bridge is 320 meters long.", False),  # a number
    ("The city has people.", "The city has two million people.", False),
    ("The substance is toxic.", "The substance is non-toxic.", False),  # a prefix split off at the hyphen
    ("The drug is inflammatory.", "The drug is anti-inflammatory.", False),
    ("The claim is true.", "The claim is partly true.", False),
    # review findings: quantities in order and written the same without a unit; clauses; more meaning words
    ("Water boils at 0 C and freezes at 100 C.", "Water boils at 100 C and freezes at 0 C.", False),
    ("The war lasted from 1914 to 1918.", "The war lasted from 1918 to 1914.", False),
    ("Einstein was born in 1878.", "Einstein was born in 1879.", False),
    ("The fee is 1,000 dollars.", "The fee is 1,001 dollars.", False),
    ("It was added in Python 3.1.", "It was added in Python 3.10.", False),
    ("Paris is the capital of Italy.", "Paris is the capital of France, and Rome is the capital of Italy.", False),
    ("He won.", "He lost, and she won.", False),
    ("She won.", "He lost, and she won.", True),  # the leading clause left out whole: what is left is entailed
    ("Bulls are enraged by red.", "It is a common misconception that bulls are enraged by red.", False),
    ("Vaccines cause autism.", "Scientists rejected the claim that vaccines cause autism.", False),
    ("Saturn is the largest planet.", "Saturn is the second-largest planet.", False),
    ("The car is safe.", "The car is far from safe.", False),
    ("The sum is not positive.", "The sum is not always positive.", False),  # inside a negation's scope
    ("Cats can fly.", "Cats can´t fly.", False),
    # an aside in brackets left out whole says its own thing, unless it restricts the rest
    (
        "Winter is the coldest season in polar and temperate zones.",
        "Winter is the coldest season in polar and temperate zones (winter does not occur in the tropical zone).",
        True,
    ),
    ("Tom was born in Paris.", "Tom -LRB- born 1961 , not in Rome -RRB- was born in Paris.", True),
    ("The drug is safe.", "The drug is safe (except for children).", False),
    ("The drug is safe.", "The drug is safe (not for children).", False),
    ("The metal expands.", "The metal expands (if heated).", False),
    # not a deletion at all: a word added, changed or moved
    ("The bridge is 32 meters long.", "The bridge is 320 meters long.", False),
    ("All objects fall slowly.", PHYSICS, False),
    ("Objects all fall.", "All objects fall.", False),
    ("", PHYSICS, False),
]


@pytest.mark.parametrize(("claim", "evidence", "expected"), CASES, ids=[str(i) for i in range(len(CASES))])
def test_leaves_words_out(claim, evidence, expected):
    assert leaves_words_out(claim, evidence) is expected


NEGATION_LEFT_OUT = [
    # claim, sentence, whether the claim is the sentence less a negation (and so says its opposite)
    (
        "As a result, the momentum of the electron is affected.",
        "As a result, the momentum of the electron is not affected.",
        True,
    ),
    ("The momentum of the electron is affected.", "As a result, the momentum of the electron is not affected.", True),
    ("Credit hours can be converted to cash.", "Credit hours cannot be converted to cash.", True),
    ("The mass of an object changes.", "The mass of an object never changes.", True),
    ("Shear waves can travel through a liquid.", "Shear waves can't travel through a liquid.", True),
    ("The ball is moving.", "The ball isn't moving.", True),
    # the clause a negation stands in, and an alternative it also negates left out
    (
        "Energy can be created.",
        "Recall that the principle of conservation of energy states that energy cannot be created or destroyed, but it "
        "can be altered from one form to another.",
        True,
    ),
    ("Charge can be created.", "The law says that electrical charge cannot be created or destroyed.", True),
    # a word the sentence writes in another form of the same stem
    ("Electric charge can be created.", "The law says that electrical charge cannot be created or destroyed.", True),
    # a generalisation of what the sentence negates for one case only
    ("Kinetic energy is conserved.", "Kinetic energy is not conserved in inelastic collisions.", False),
    ("Kinetic energy is conserved.", "Kinetic energy is not conserved in inelastic collisions or explosions.", False),
    ("Kinetic energy is conserved.", "Kinetic energy is not conserved, in inelastic collisions.", False),
    # a negation that bounds a word of degree, a condition, a clause the claim leaves out
    ("Momentum is conserved.", "Momentum is not only conserved but also shared.", False),
    ("Objects fall at the same rate.", "Objects do not always fall at the same rate.", False),
    # the word of degree kept, the negation alone left out: the opposite ("always" for "not always")
    ("Objects always fall at the same rate.", "Objects do not always fall at the same rate.", True),
    ("But that will always be the case.", "But that will not always be the case.", True),
    ("Momentum is only conserved.", "Momentum is not only conserved.", True),
    ("The rule applies.", "If the rule does not apply, ask.", False),
    (
        "Winter is the coldest season in polar zones.",
        "Winter is the coldest season in polar zones (winter does not occur in the tropics).",
        False,
    ),
    ("Energy is transferred in the process.", "Energy is transferred—not created or destroyed—in the process.", False),
    # the sentence itself, another subject, a claim that keeps its own negation
    ("The momentum of the electron is not affected.", "The momentum of the electron is not affected.", False),
    ("The momentum of the proton is affected.", "The momentum of the electron is not affected.", False),
]


@pytest.mark.parametrize(("claim", "sentence", "expected"), NEGATION_LEFT_OUT)
def test_a_claim_that_is_its_sentence_less_a_negation_says_its_opposite(claim, sentence, expected):
    assert leaves_negation_out(claim, sentence) is expected
