"""Near copies with a word swapped (text/substitution.py), and the verdict they get against a real corpus."""

import pytest

from veriground.backends.registry import build_nli
from veriground.config import load_config
from veriground.engine import verify_text
from veriground.evidence.gather import PackEvidence
from veriground.schema import EvidencePack, PackPassage
from veriground.text.substitution import closest_swaps, restates, substituted_words, swapped_words

SWAPPED = [
    # claim, evidence sentence, the swaps found
    ("The SI unit of force is the joule.", "The SI unit of force is the newton (N).", (("joule", "newton"),)),
    (  # a connective is no content beside another word ("therefore expressed"), but a word put for it alone is a swap
        "The wavelength of a sound, forth, is the distance between adjacent identical parts of a sound wave.",
        "The wavelength of a sound, therefore, is the distance between adjacent identical parts of a sound wave.",
        (("forth", "therefore"),),
    ),
    (  # a word put for the sentence's symbol is a swap
        "The wavelength of a sound, forth, is the distance between adjacent identical parts of a sound wave.",
        "The wavelength of a sound, λ, is the distance between adjacent identical parts of a sound wave.",
        (("forth", "λ"),),
    ),
    (
        "The cycle of the tides from the Moon's magnetic pull plays a small role in creating waves.",
        "The cycle of the tides from the Moon's gravitational pull plays a small role in creating waves.",
        (("magnetic", "gravitational"),),
    ),
    (
        "The tides come from the Moon's attraction pull.",
        "The tides come from the Moon's gravitational pull.",
        (("attraction", "gravitational"),),  # "a" and other one-letter words relate to nothing
    ),
    (
        "An isomorphism is a function which renames the edges.",
        "An isomorphism is a function which renames the vertices. The renamed vertices are joined by edges.",
        (("edges", "vertices"),),  # the sentence copied, not the window: the next one's "edges" excuses nothing
    ),
    (
        "The sum of the degrees of the edges is twice the number of vertices.",
        "The sum of the degrees of the vertices is twice the number of edges.",
        (("edges", "vertices"), ("vertices", "edges")),  # two words trade roles
    ),
    (
        "Heat flows spontaneously from colder objects to hotter objects.",
        "Heat flows spontaneously from hotter objects to colder objects.",
        (),  # the same words in another order: the NLI's to read, not a swap
    ),
    # a verb of SAME_MEANING put for another set's is still a swap
    (
        "The total momentum of the system rises steadily.",
        "The total momentum of the system falls steadily.",
        (("rises", "falls"),),
    ),
    (  # one clause of a sentence that joins two: "attract" is in the sentence, not in the clause the claim copies
        "Like charges attract each other.",
        "Like charges repel each other, whereas unlike charges attract.",
        (("attract", "repel"),),
    ),
    (  # ", and" between two statements joins them as "whereas" does (v3 read the claim as entailed, 0.92)
        "Like charges attract each other.",
        "Like charges repel each other, and unlike charges attract each other.",
        (("attract", "repel"),),
    ),
    (  # a word the sentence says twice and the claim once: the claim put another word for one of them
        "Only a net force can policies a change in motion, so a net force must cause an acceleration.",
        "Only a net force can cause a change in motion, so a net force must cause an acceleration.",
        (("policies", "cause"),),
    ),
    (  # the statement that keeps the claim's subject is the one compared, not the one it copies more tightly
        "Unlike charges repel each other.",
        "Like charges repel each other, and unlike charges attract each other.",
        (("repel", "attract"),),
    ),
]
NOT_SWAPPED = [
    # the other clause, word for word
    ("Unlike charges attract each other.", "Like charges repel each other, whereas unlike charges attract each other."),
    ("Unlike charges attract each other.", "Like charges repel each other, and unlike charges attract each other."),
    (  # the claim may say a word twice where its source says it once
        "The binomial coefficient n choose k counts the k-element subsets of an n-element set.",
        "The binomial coefficient n choose k counts the number of subsets of an n element set that have size k.",
    ),
    # ", and" closing a list joins no statements: the sentence is compared whole
    ("Velocity can be treated as a scalar.", "Instead, we treat displacement, velocity, and acceleration as scalars."),
    ("Merge sort runs in O(n log n) time.", "Merge sort runs in O(n log n) time in the worst case."),  # words left out
    ("Heat flows from hot objects to cold objects.", "Heat flows from hotter objects to colder objects."),  # forms
    ("The pull of gravity shapes the tides.", "The gravitational pull shapes the tides."),  # a form, 5 letters shared
    ("Momentum is conserved in all collisions.", "Momentum is conserved in every collision."),  # stopwords only
    ("Delete some edges and vertices of the graph.", "Delete some vertices and edges of the graph."),  # coordinated
    ("A body travels 32 m.", "A body travels 320 m."),  # numbers are the numeric check's
    (  # the same quantity in other units: read in the sentence's ("cm" is no word swapped for "m")
        "Near Earth's surface, objects fall with an acceleration of about 980 cm/s2.",
        "All objects near Earth's surface fall with an acceleration of about 9.80 m/s2.",
    ),
    ("Paris is nice.", "Rome is nice."),  # too short to be a near copy
    ("Kinetic energy is the energy of motion.", "The work done on an object changes its kinetic energy."),  # not a copy
    ("It was described by Darwin.", "It was described by Darwin and Wallace in 1858."),
    # the verbs read as the same: a way to give a name, a plain verb put for its synonym
    (
        "Newton's first law of motion is also called the law of inertia.",
        "Newton's first law of motion is also known as the law of inertia.",
    ),
    ("The total momentum of the system stays constant.", "The total momentum of the system remains constant."),
    ("Mass is measured in kilograms.", "Mass is therefore expressed in kilograms."),  # a way to give a unit
    # where the sentence names its quantity by a symbol, the claim says where it holds: no word swapped out
    (
        "The speed of light in a vacuum is about 3.00 × 10^8 m/s.",
        "We know the speed of light, c, is 3.00 × 10^8 m/s, and we are given v.",
    ),
]


@pytest.mark.parametrize(("claim", "sentence", "expected"), SWAPPED)
def test_a_near_copy_with_a_word_swapped_names_both_words(claim, sentence, expected):
    assert substituted_words(claim, sentence) == expected


@pytest.mark.parametrize(("claim", "sentence"), NOT_SWAPPED)
def test_left_out_words_other_forms_stopwords_numbers_and_non_copies_are_no_swap(claim, sentence):
    assert substituted_words(claim, sentence) == ()


def test_swapped_words_reads_as_a_sentence_part():
    assert swapped_words([("joule", "newton"), ("a", "b")]) == (
        '"joule" where the source says "newton"; "a" where the source says "b"'
    )


@pytest.mark.parametrize(
    ("claim", "evidence", "expected"),
    [
        ("The SI unit of force is the newton.", "The SI unit of force is called the newton (N).", True),
        ("Velocity is a vector quantity.", "- Speed is a scalar.\n- Velocity is a vector quantity of motion.", True),
        # every word, in order, but bound to other subjects far apart
        (
            "Velocity is a scalar quantity.",
            "The variable v for velocity is bold because it is a vector, in contrast to the variable v for speed "
            "which is italicized because it is a scalar quantity.",
            False,
        ),
        ("Speed is a vector quantity.", "Velocity is a vector quantity that describes speed.", False),  # no "speed"
        ("Merge sort is stable.", "Merge sort is not stable.", False),  # a negation inserted
        ("Merge sort is not stable.", "Merge sort is not stable.", True),
    ],
)
def test_a_sentence_restates_a_claim_only_with_all_its_content_words_close_and_in_order(claim, evidence, expected):
    assert restates(claim, evidence) is expected


def test_the_closest_list_item_or_sentence_is_compared_and_a_tie_keeps_the_claims_subject():
    listed = "- Average speed is a scalar quantity.\n- Velocity is a vector quantity."
    assert closest_swaps("Speed is a vector quantity.", listed) == (("vector", "scalar"),)
    assert closest_swaps("Velocity is a scalar quantity.", listed) == (("scalar", "vector"),)
    # a tie in words copied goes to the sentence that copies more content words ("every set", not "is also an")
    empty = (
        "Everything in the empty set (nothing) is also an element of $A$. "
        "Notice that the empty set is a subset of every set."
    )
    assert closest_swaps("The empty set is an element of every set.", empty) == (("an element", "subset"),)
    # the sentence that states the claim is closer than the one that shares its frame: no swap
    handshake = (
        "In general, if we know the degrees of all the vertices in a graph, we can find the number of edges. The sum "
        "of the degrees of all vertices will always be twice the number of edges, since each edge adds to the degree "
        "of two vertices."
    )
    assert (
        closest_swaps("The sum of the degrees of all vertices in a graph is twice the number of edges.", handshake)
        == ()
    )


def test_an_acronym_for_the_claims_words_is_no_substitution():
    source = "The DM or LRAC will acknowledge all RA requests within three calendar days of receipt."
    claim = "The DM will acknowledge all reasonable accommodation requests within three calendar days of receipt."
    assert closest_swaps(claim, source) == ()
    other = source.replace("RA requests", "medical requests")
    assert closest_swaps(claim, other) == (("reasonable accommodation", "medical"),)


def test_a_claim_that_swaps_a_word_of_one_of_two_joined_statements_is_not_supported():
    # the physics corpus: Supported (0.87) before ", and" joined statements, the model reading 0.92 entailment
    config = load_config(None, {"verification.min_supporting_sources": 1}, environ={})
    passages = (
        PackPassage(passage_id="charges", text="Like charges repel each other, and unlike charges attract each other."),
        PackPassage(
            passage_id="rod",
            text="Because the glass and silk have opposite charges, they attract one another like clothes that have "
            "rubbed together in a dryer.",
        ),
    )
    source = PackEvidence(EvidencePack(passages=passages), config.retrieval)
    report = verify_text("Like charges attract each other.", config=config, source=source, nli=build_nli(config.models))
    (claim,) = report.claims
    assert claim.decision.rule == "substituted-words" and str(claim.decision.status) == "Low Confidence"
    assert claim.inputs.substituted_words == (("attract", "repel"),)


def test_a_near_copy_with_a_word_the_passages_never_use_is_a_swap_though_another_sentence_supports_it():
    # v3 read the claim as 0.84 entailment of the first passage; the word put for "friction" is in no passage
    config = load_config(None, {"verification.min_supporting_sources": 1}, environ={})
    passages = (
        PackPassage(
            passage_id="constant",
            text="For any two surfaces that are in contact with one another, the coefficient of friction is a constant "
            "that depends on the nature of the surfaces.",
        ),
        PackPassage(
            passage_id="copy", text="The coefficient of friction depends on the two surfaces that are in contact."
        ),
    )
    source = PackEvidence(EvidencePack(passages=passages), config.retrieval)
    claim_text = "The coefficient of the engagement depends on the two surfaces that are in contact."
    (claim,) = verify_text(claim_text, config=config, source=source, nli=build_nli(config.models)).claims
    assert str(claim.decision.status) != "Supported"
