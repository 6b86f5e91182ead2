"""Atomic claim enforcement, seed 000 §2.3.2 R2-R6: each rule splits its positive case and leaves its
negative case whole; every piece keeps its parent, its rule and an exact span."""

from __future__ import annotations

import pytest

from veriground.claims import extract_claims
from veriground.claims.atomicity import MIN_CLAIM_WORDS


def split(text: str) -> list[tuple[str, str | None]]:
    return [(claim.text, claim.atomicity_rule) for claim in extract_claims(text, answer_id="a")]


def test_seed_compound_claim_splits_into_two_with_the_subject_copied() -> None:
    text = "Merge sort has O(n log n) complexity and is stable."
    first, second = extract_claims(text, answer_id="a")
    assert (first.text, second.text) == ("Merge sort has O(n log n) complexity.", "Merge sort is stable.")
    assert first.parent_claim_id == second.parent_claim_id == "c_0001"
    assert first.atomicity_rule == second.atomicity_rule == "R3"
    assert text[slice(*first.answer_char_span)] == "Merge sort has O(n log n) complexity"
    assert text[slice(*second.answer_char_span)] == "is stable."  # the copied subject is not in the span


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # R3: two clauses, each with its own subject
            "Time is measured in seconds and distance is measured in meters.",
            [("Time is measured in seconds.", "R3"), ("distance is measured in meters.", "R3")],
        ),
        (
            "Quicksort is fast on average, but it is slow in the worst case.",
            [("Quicksort is fast on average.", "R3"), ("Quicksort is slow in the worst case.", "R3")],
        ),
        (  # R3: a demonstrative with a noun is a subject of its own
            "Quicksort and merge sort are fast, and these algorithms are popular.",
            [("Quicksort and merge sort are fast.", "R3"), ("these algorithms are popular.", "R3")],
        ),
        (  # R3: ", and" between two clauses whose verbs are not in the closed list, guessed by their shape
            "The theory of relativity was developed by Albert Einstein in 1905, and quantum mechanics deals with the "
            "very small.",
            [
                ("The theory of relativity was developed by Albert Einstein in 1905.", "R3"),
                ("quantum mechanics deals with the very small.", "R3"),
            ],
        ),
        (
            "Kinetic energy depends on mass, and potential energy depends on height.",
            [("Kinetic energy depends on mass.", "R3"), ("potential energy depends on height.", "R3")],
        ),
        (
            "The lens bends the light, and the screen shows an image of the object.",
            [("The lens bends the light.", "R3"), ("the screen shows an image of the object.", "R3")],
        ),
        (
            "A magnet attracts iron, but copper resists the flow of charge.",
            [("A magnet attracts iron.", "R3"), ("copper resists the flow of charge.", "R3")],
        ),
        (  # R3: a ", and" after a "between" phrase still joins two clauses
            "The force acts between the two charges, and it decreases with distance.",
            [("The force acts between the two charges.", "R3"), ("The force decreases with distance.", "R3")],
        ),
        (  # R3: one "and" closes "between 0 and 1"; the next joins two clauses
            "The edge weight is between 0 and 1 and it equals the probability of the edge.",
            [
                ("The edge weight is between 0 and 1.", "R3"),
                ("The edge weight equals the probability of the edge.", "R3"),
            ],
        ),
        (  # R3: the first ", and" is the list's, the second joins the clauses (AttributionBench: "such as oil, coal."
            # was a claim)
            "PAHs are found in sources such as oil, coal, and tar deposits, and are produced by burning fuel.",
            [
                ("PAHs are found in sources such as oil, coal, and tar deposits.", "R3"),
                ("PAHs are produced by burning fuel.", "R3"),
            ],
        ),
        (  # R4: semicolons between clauses, a "; and" included
            "Energy is conserved; momentum is conserved too; and charge is conserved as well.",
            [
                ("Energy is conserved.", "R4"),
                ("momentum is conserved too.", "R4"),
                ("charge is conserved as well.", "R4"),
            ],
        ),
        (  # R2: each equation keeps the words that interpret it
            "Kinetic energy is $KE = \\frac{1}{2}mv^2$ and potential energy is $U = mgh$.",
            [("Kinetic energy is $KE = \\frac{1}{2}mv^2$.", "R2"), ("potential energy is $U = mgh$.", "R2")],
        ),
        (
            "F = ma, where m is the mass, and p = mv, where v is the velocity.",
            [("F = ma, where m is the mass.", "R2"), ("p = mv, where v is the velocity.", "R2")],
        ),
        (  # R5: steps of one procedure in one sentence
            "First, sort the array, then remove the duplicates, and finally count the items.",
            [
                ("First, sort the array.", "R5"),
                ("then remove the duplicates.", "R5"),
                ("finally count the items.", "R5"),
            ],
        ),
        (
            "Step 1: sort the input list; Step 2: scan it from left to right.",
            [("Step 1: sort the input list.", "R5"), ("Step 2: scan it from left to right.", "R5")],
        ),
        (  # R6: a definition and its application
            "Velocity is defined as displacement per unit time, so a parked car has zero velocity.",
            [("Velocity is defined as displacement per unit time.", "R6"), ("a parked car has zero velocity.", "R6")],
        ),
        (
            "A prime is defined as a number with exactly two divisors, which means that 7 is prime.",
            [("A prime is defined as a number with exactly two divisors.", "R6"), ("7 is prime.", "R6")],
        ),
    ],
)
def test_compound_sentences_split_by_their_rule(text: str, expected: list[tuple[str, str]]) -> None:
    assert split(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Salt and pepper are seasonings.",  # R3: no verb on the left of "and"
        "The compiler compares and swaps adjacent elements.",  # R3: two verbs share one object
        "x is greater than 0 and less than 1.",  # R3: no verb on the right
        "It is given by $KE = mv^2/2$, where $m$ is the mass and $v$ is the speed.",  # R3: inside "where"
        # R3: the right side's verb is its where-clause's ("compares inertial." was a claim)
        "The Reynolds number compares inertial and viscous forces, where ρ is the fluid density.",
        "The first law states that energy is conserved and heat is a form of energy.",  # R3: inside "that"
        "Binary relations can be reflexive, symmetric, transitive, or combinations thereof.",
        "Salt and pepper, and other spices keep well.",  # R3: no verb on the left of either "and"
        "The values lie between 0 and 1.",  # R3: "between A and B"
        # R3: "between A and B" even when the right side has a verb of its own (a relative clause here)
        "They expect revenue to be between $11,100 million and $11,250 million, which is an increase of $125 million.",
        "The lecture covers kinematics, dynamics, and fluid mechanics of liquids.",  # R3: a list, no verb guessed
        "Physics studies matter, energy, and the interactions between them.",  # R3: a list
        # R3: an "and" inside a condition no comma has closed yet ("If A." was a claim)
        "If the family does not want resuscitation and the physician agrees, then palliative care is provided.",
        # R3: a left side that waits for its object ("similar to") is no clause ("... similar to." was a claim)
        "Schiller practiced a philosophy that was very similar to, and often aligned with the pragmatism of James.",
        "The sample contains iron, and traces of nickel in small amounts.",  # R3: the right side has no verb
        "Mix salt and pepper, and serve the soup.",  # R3: imperatives have no subject
        "If a tuner hears two beats per second, and the fork hums at 256 Hz, the piano needs tuning.",  # "If A, and B"
        "Knowing the mass of the cart, and the force applied to it, we can find its acceleration.",  # participle
        "Newton's Third Law states that forces occur in equal and opposite pairs.",
        "Examples include apples; oranges; pears.",  # R4: the pieces would be one or two words
        "The array (sorted; unique) is searched with binary search.",  # R4: semicolon inside parentheses
        "Kinetic energy is given by KE = ½mv².",  # R2: one equation
        "Let $n$ be the number of vertices and $m$ the number of edges.",  # R2: symbols, not equations
        "If the list is empty then the function returns zero.",  # R5: a condition, not steps
        "Merge sort divides the array into halves, recursively sorts each half, then merges.",  # one marker
        "Velocity is defined as displacement per unit time.",  # R6: no application
        "The norm is defined as the square root of the sum so that it is never negative.",  # purpose
        "The content can vary depending on the region and type of cider being consumed.",  # "being": no clause
        # R3: a right clause whose subject, "this" or "that" alone, is the left clause ("this does not hold for open
        # systems." was a claim no source could support)
        "Energy is conserved in isolated systems, but this does not hold for open systems.",
        "Merge sort runs in O(n log n) time, and that is why it is popular.",
        "The algorithm sorts the array in place, and this makes it memory efficient.",
        "Energy is conserved in isolated systems; this is the first law of thermodynamics.",  # R4: the same
    ],
)
def test_atomic_sentences_stay_whole(text: str) -> None:
    (claim,) = extract_claims(text, answer_id="a")
    assert claim.text == text
    assert claim.atomicity_rule is None and claim.parent_claim_id is None


def test_pieces_are_split_again_by_later_rules() -> None:
    text = "Merge sort has O(n log n) complexity and is stable; quicksort is not stable in general."
    assert split(text) == [
        ("Merge sort has O(n log n) complexity.", "R3"),
        ("Merge sort is stable.", "R3"),
        ("quicksort is not stable in general.", "R4"),
    ]
    assert [claim.claim_id for claim in extract_claims(text, answer_id="a")] == ["c_0001.1", "c_0001.2", "c_0001.3"]


def test_piece_spans_lie_inside_their_sentence_in_order() -> None:
    text = "Intro sentence is here. Energy is conserved [1]; momentum is conserved too and is a vector [2]."
    claims = extract_claims(text, answer_id="a")[1:]
    spans = [claim.answer_char_span for claim in claims]
    assert spans == sorted(spans)
    assert all(text.index("Energy") <= start < end <= len(text) for start, end in spans)
    assert [text[slice(*span)] for span in spans] == [
        "Energy is conserved",
        "momentum is conserved too",
        "is a vector [2].",
    ]


def test_no_piece_is_shorter_than_three_words() -> None:
    text = (
        "Energy is conserved; yes. Mass is conserved and so is charge. A is B; C is D; E is F and G. "
        "First, do it, then go, finally stop."
    )
    for claim in extract_claims(text, answer_id="a"):
        if claim.parent_claim_id is not None:
            assert len(claim.text.split()) >= MIN_CLAIM_WORDS, claim.text
