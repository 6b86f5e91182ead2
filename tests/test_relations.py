"""text/relations.py: a claim that states its source's comparison or dependence the other way round, and the ones that
are not reversals (the same one, restated, negated, supposed, a bound, a thing picked out, another scale, another
subject)."""

from __future__ import annotations

import pytest

from veriground.evidence.gather import with_reversing_passage
from veriground.evidence.pack import complete_pack, pack_chunks
from veriground.schema import EvidencePack, PackPassage
from veriground.text.comparisons import stated_comparisons
from veriground.text.dependences import stated_dependences
from veriground.text.relations import reversed_relation

FRICTION = "The maximum static friction is usually greater than the kinetic friction between the objects."

REVERSED = [
    # the things swapped, the scale read the same way
    ("Kinetic friction is usually greater than static friction.", FRICTION),
    ("Sound travels faster than light.", "Light travels faster than sound."),
    ("Earth has more moons than Mercury.", "Mercury has more moons than Earth."),
    # a prepositional thing between the comparative and "than"
    ("Sound travels faster in air than in steel.", "Sound travels faster in steel than in air."),
    # the things kept, the scale read the other way
    ("Static friction is usually smaller than kinetic friction.", FRICTION),
    ("A proton is lighter than an electron.", "A proton is much heavier than an electron."),
    ("Mercury has fewer moons than Earth.", "Mercury has more moons than Earth."),
    # both: swapped and read the other way round is the same comparison; swapped alone is not
    ("An electron is heavier than a proton.", "A proton is heavier than an electron."),
    # after a relative pronoun, the thing is the noun before it
    (
        "The mirror forms an image that is smaller than the object.",
        "The mirror forms an image that is larger than the object.",
    ),
    # each list item states its own
    ("Cold air has lower pressure than warm air.", "- Cold air has higher pressure than warm air.\n- Warm air rises."),
]

PENDULUM = (
    "The only things that affect the period of a simple pendulum are its length and the acceleration due to gravity. "
    "The period is completely independent of other factors, such as mass or amplitude."
)
MASS = "Unlike weight (which changes if the gravitational force changes), mass does not depend on gravity."
REVERSED += [
    # a dependence denied, or one asserted that the source denies; the subject may be named by the sentence before
    ("Mass depends on gravity.", MASS),
    ("The period of a simple pendulum depends on its mass.", PENDULUM),
    ("The period of a simple pendulum depends on its amplitude.", PENDULUM),
    ("The period of a simple pendulum is affected by its mass.", PENDULUM),
    ("The period of a pendulum is not affected by its length.", "The period of a pendulum depends on its length."),
    (
        "The speed of sound does not depend on the temperature.",
        "The speed of sound depends on the temperature of the air.",
    ),
]

KINETIC = "Recall that kinetic energy is the energy of motion, and that it increases in proportion to velocity squared."
GRAVITY = (
    "Newton's law says the gravitational force between two masses is inversely proportional to the square of the "
    "distance between them."
)
REVERSED += [
    # a proportion with another power: the subject may be "it", named earlier in the sentence or the one before
    ("Kinetic energy is proportional to velocity.", KINETIC),
    ("Kinetic energy is proportional to the cube of velocity.", KINETIC),
    ("The gravitational force between two masses is proportional to the distance between them.", GRAVITY),
    ("The gravitational force is inversely proportional to the distance.", GRAVITY),
    ("The force F is proportional to r.", "The force F is proportional to r^2."),
]

TREES = "A tree is a connected graph containing no cycles."
REVERSED += [
    # a count where one of the two is none; a Latin plural counts its singular; the claim's other words in the sentence
    ("A tree has exactly one cycle.", TREES),
    ("A tree has two cycles.", TREES),
    ("A tree has exactly one cycle.", "Graphs that are connected and contain no cycles are called trees."),
    ("The empty graph has one vertex.", "The empty graph has no vertices and no edges."),
    ("The empty graph has no edges.", "The empty graph has exactly one edge."),
]

SEARCHES = (
    "Another way to think of depth-first-search is by saying that it is similar to breadth-first search except that it "
    "uses a stack instead of a queue."
)
IMAGES = "The existence of these images is a consequence rather than a source of our understanding of atoms."
REVERSED += [
    # the alternative a sentence rejects; "it" is what the sentence names before its first pronoun
    ("Depth-first search uses a queue.", SEARCHES),
    ("The existence of these images is a source of our understanding of atoms.", IMAGES),
    ("The treap uses heights.", "The treap uses random priorities rather than heights to keep itself balanced."),
]

NOT_REVERSED = [
    # the chosen alternative; another subject; a negated verb; a claim with an alternative of its own
    ("Depth-first search uses a stack.", SEARCHES),
    ("Breadth-first search uses a queue.", SEARCHES),
    ("Depth-first search does not use a queue.", SEARCHES),
    ("Depth-first search uses a queue rather than a list.", SEARCHES),
    # the same count; a bound; another subject; a count in a condition; no count on either side
    ("A tree has no cycles.", TREES),
    ("A tree has at least one leaf.", "A tree has no leaves only when it is empty."),
    ("A forest has exactly one cycle.", TREES),
    ("A graph with one vertex has no edges.", "The empty graph has no vertices and no edges."),
    ("A tree has exactly one cycle.", "If a graph contains no cycles, it is a forest."),
    ("A tree has two cycles.", "A tree has three cycles."),
    ("The office has no longer any printers.", "The office has one printer."),
    # the same power said otherwise; another subject or object; a negated proportion; a number that counts
    ("Kinetic energy is proportional to the square of velocity.", KINETIC),
    ("Kinetic energy is proportional to velocity squared.", KINETIC),
    ("Momentum is proportional to velocity.", KINETIC),
    ("The gravitational force is inversely proportional to the square of the distance.", GRAVITY),
    ("The gravitational force is proportional to the masses.", GRAVITY),
    (
        "Kinetic energy is proportional to velocity squared.",
        "The kinetic energy of an object is proportional to its mass, and its momentum is proportional to velocity.",
    ),
    ("The current is proportional to the voltage.", "The current is not proportional to the voltage squared."),
    ("The force is proportional to the masses.", "The force is proportional to 2 masses."),
    # the same comparison, and the same one said with the other comparative
    ("Static friction is usually greater than kinetic friction.", FRICTION),
    ("Kinetic friction is usually smaller than static friction.", FRICTION),
    ("An electron is lighter than a proton.", "A proton is heavier than an electron."),
    # negated, supposed, a question
    ("Earth has more moons than Mercury.", "Mercury does not have more moons than Earth."),
    ("Earth has more moons than Mercury.", "If Mercury has more moons than Earth, the table is wrong."),
    ("Earth has more moons than Mercury.", "Does Mercury have more moons than Earth?"),
    # bounds on a number or a variable are the numeric signal's
    ("The mass is more than 3 kg.", "The mass is less than 3 kg."),
    ("Each factor is smaller than n.", "Each factor is larger than n."),
    # a comparison that only picks things out ("keys smaller than the root's") asserts nothing
    (
        "Nodes with keys larger than the root are stored in the left subtree.",
        "Nodes with keys smaller than the root are stored in the left subtree.",
    ),
    # another scale, or another thing compared on it
    ("A proton is heavier than an electron.", "A proton is slower than an electron."),
    ("Earth has more moons than Mercury.", "Mercury has more craters than Earth."),
    ("A neutron is heavier than an electron.", "A proton is lighter than a neutron."),
    # the same dependence; another subject; what "depends only on" leaves out; a pronoun for a subject
    ("Mass does not depend on gravity.", MASS),
    ("The mass of an object is independent of gravity.", MASS),
    ("Weight depends on gravity.", MASS),
    ("The period of a mass on a spring depends on its mass.", PENDULUM),
    ("The period of a simple pendulum depends on its length.", PENDULUM),
    (
        "Capacitance depends on the voltage.",
        "Capacitance depends only on the geometry. It is independent of the voltage.",
    ),
    ("Capacitance depends on the area.", "Capacitance depends only on the geometry."),
    # "rather than", "other than" compare nothing
    ("Light is a wave rather than a particle.", "Light is a particle rather than a wave."),
]


@pytest.mark.parametrize(("claim", "evidence"), REVERSED)
def test_a_claim_that_states_its_sources_relation_the_other_way_round_is_found(claim, evidence):
    span = reversed_relation(claim, evidence)
    assert span is not None
    assert any(
        word in evidence[span[0] : span[1]]
        for word in (" than ", "depend", "affect", "proportion", " no ", " one ", "instead")
    )


@pytest.mark.parametrize(("claim", "evidence"), NOT_REVERSED)
def test_the_same_a_negated_a_supposed_or_another_comparison_is_no_reversal(claim, evidence):
    assert reversed_relation(claim, evidence) is None


def test_the_span_is_the_reversing_sentence_in_the_evidence():
    evidence = "Friction opposes motion. " + FRICTION + " It depends on the surfaces."
    start, end = reversed_relation("Kinetic friction is usually greater than static friction.", evidence)
    assert evidence[start:end].strip() == FRICTION


def test_a_comparison_is_read_as_its_things_scale_and_direction():
    (comparison,) = stated_comparisons("Mercury has fewer moons than Earth.")
    assert (comparison.left, comparison.right) == ({"mercuri"}, {"earth"})
    assert comparison.scale == ("size", "moon")
    assert comparison.direction == -1


def test_a_dependence_is_read_as_its_subject_object_and_whether_it_holds():
    (denied,) = stated_dependences("The period is completely independent of other factors, such as mass or amplitude.")
    assert (denied.subject, denied.object, denied.holds) == ({"period"}, {"factor", "mass", "amplitud"}, False)
    (negated,) = stated_dependences("Mass does not depend on gravity.")
    assert (negated.subject, negated.object, negated.holds) == ({"mass"}, {"graviti"}, False)
    assert stated_dependences("If the mass depends on gravity, the scale is wrong.") == ()


# The chunks a corpus search would give, built as the package builds an evidence pack's (evidence/pack.py).
DEEPER = pack_chunks(
    complete_pack(
        EvidencePack(
            passages=(
                PackPassage(
                    passage_id="p1",
                    text="Because weight depends on the force of gravity, a mass weighs less on the Moon.",
                ),
                PackPassage(passage_id="p2", text="Inertia is a property of mass."),
                PackPassage(passage_id="p3", text=MASS),
            )
        )
    )
)
TOP = DEEPER[:1]


def test_a_passage_past_the_top_k_that_states_the_claims_relation_the_other_way_round_joins_the_evidence():
    evidence = with_reversing_passage("Mass depends on gravity.", TOP, DEEPER)
    assert [chunk.passage_id for chunk in evidence] == ["p1", "p3"]
    assert evidence[-1].rank == 2


def test_no_passage_joins_when_none_reverses_the_claim_or_the_evidence_already_holds_one():
    assert with_reversing_passage("Weight depends on gravity.", TOP, DEEPER) == TOP
    held = [*TOP, DEEPER[2]]
    assert with_reversing_passage("Mass depends on gravity.", held, DEEPER) == held


def test_a_passage_past_the_top_k_that_states_the_claim_word_for_word_joins_the_evidence():
    from veriground.evidence.gather import with_quoting_passage

    evidence = with_quoting_passage("Inertia is a property of mass.", TOP, DEEPER)
    assert [chunk.passage_id for chunk in evidence] == ["p1", "p2"]
    assert evidence[-1].rank == 2
    assert with_quoting_passage("Inertia is a property of energy.", TOP, DEEPER) == TOP  # no passage quotes it
    held = [*TOP, DEEPER[1]]
    assert with_quoting_passage("Inertia is a property of mass.", held, DEEPER) == held


COLOMBIANA = (
    "Colombiana is a 2011 French action film co-written and produced by Luc Besson and directed by Olivier Megaton."
)


@pytest.mark.parametrize(
    ("claim", "swapped"),
    [
        ("Colombiana was produced by Olivier Megaton.", True),  # FEVER-symmetric: Supported at 0.93 before
        ("Colombiana was directed by Luc Besson.", True),
        ("Colombiana was written by Olivier Megaton.", True),
        ("Colombiana was produced by Luc Besson.", False),
        ("Colombiana was directed by Olivier Megaton.", False),
        ("Colombiana was edited by Olivier Megaton.", False),  # no agent edited it in the sentence: nothing swapped
        ("Colombiana was produced by Europacorp.", False),  # an agent the sentence does not name
        ("The film was written and directed by Jane Doe.", False),  # against "written by Jane Doe and produced by ..."
        ("The report was finished by March.", False),  # a time, not an agent
    ],
)
def test_a_deed_given_to_another_of_the_sentences_agents_states_the_relation_otherwise(claim, swapped):
    evidence = COLOMBIANA if claim.startswith("Colombiana") else "It was written by Jane Doe and produced by John Roe."
    if "March" in claim:
        evidence = "The report was started by Ann Lee and finished by May."
    assert (reversed_relation(claim, evidence) is not None) is swapped
