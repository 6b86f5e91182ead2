"""Formal checks (signals/formal.py): issue 17's table, true statements never flagged, spans, reasons, and parse
failures as a status."""

from __future__ import annotations

import pytest

from veriground.domains import compute_formal
from veriground.schema import FormalSignal
from veriground.signals.complexity import find_bounds
from veriground.signals.math_parse import MathParseError, parse_equation, parse_math
from veriground.text.quantity_spans import normalise_with_offsets
from veriground.text.terms import normalise_text

# The corpus of issue 17's walkthrough, as one evidence text and as separate passages.
EVIDENCE = [
    "Einstein showed that E = mc², where c is the speed of light.",
    "Near the surface of the Earth, g = 9.8 m/s².",
    "Quicksort runs in O(n log n) time on average, but quicksort worst case O(n²) occurs on sorted input.",
    "Kinetic energy is KE = ½mv².",
    "Merge sort runs in $O(n \\log n)$ time in every case.",
]


def outcomes(signal: FormalSignal) -> set[str]:
    return {check.outcome for check in signal.checks}


def spanned(text: str, signal: FormalSignal, outcome: str) -> str:
    check = next(check for check in signal.checks if check.outcome == outcome)
    return text[check.claim_span[0] : check.claim_span[1]]


@pytest.mark.parametrize(
    ("claim", "profile", "expected", "span"),
    [
        ("E = mc^3", "physics", {"dimension_mismatch", "equation_mismatch"}, "E = mc^3"),
        (
            "Objects fall with an acceleration of 9.8 kg.",
            "physics",
            {"unit_dimension_mismatch"},
            "acceleration of 9.8 kg",
        ),
        ("Quicksort has worst-case time complexity O(n log n).", "algorithms", {"complexity_mismatch"}, "O(n log n)"),
        ("KE = 1/2 m v^3", "physics", {"dimension_mismatch", "equation_mismatch"}, "KE = 1/2 m v^3"),
        ("The speed of light is 3.0 × 10^9 m/s.", "physics", {"out_of_range"}, "speed of light is 3.0 × 10^9 m/s"),
    ],
)
@pytest.mark.parametrize("domain_override", [None, "general"])
def test_issue_table_rows_give_the_expected_outcome(claim, profile, expected, span, domain_override):
    signal = compute_formal(claim, EVIDENCE, domain_override or profile)
    assert signal.status == "computed"
    assert outcomes(signal) - {"ok"} == expected
    first = sorted(expected)[0]
    assert spanned(claim, signal, first) == span
    assert signal.reason and "\n" not in signal.reason


def test_complexity_reason_names_both_bounds_algorithm_case_and_evidence_span():
    claim = "Quicksort has worst-case time complexity O(n log n)."
    signal = compute_formal(claim, EVIDENCE, "algorithms")
    check = signal.mismatches[0]
    assert check.reason == "the evidence gives O(n^2) for quicksort's worst case; the claim says O(n log n)"
    assert check.evidence_index == 2
    assert EVIDENCE[2][check.evidence_span[0] : check.evidence_span[1]] == "O(n²)"


def test_equation_mismatch_points_at_the_evidence_equation_with_the_same_left_side():
    signal = compute_formal("KE = 1/2 m v^3", EVIDENCE, "physics")
    check = next(check for check in signal.checks if check.outcome == "equation_mismatch")
    assert check.evidence_index == 3
    assert EVIDENCE[3][check.evidence_span[0] : check.evidence_span[1]] == "KE = ½mv²"
    assert check.reason == "the evidence gives KE = ½mv² for KE; the claim says KE = 1/2 m v^3"


def test_out_of_range_needs_no_evidence_and_says_the_accepted_range():
    signal = compute_formal("The speed of light is 3.0 × 10^9 m/s.", [], "physics")
    assert outcomes(signal) == {"out_of_range"}
    assert "2.97e8–3.03e8 m/s" in signal.reason


@pytest.mark.parametrize(
    ("claim", "checks"),
    [
        ("E = mc²", {"dimensions", "equation"}),
        ("KE = ½mv²", {"dimensions", "equation"}),
        ("Merge sort runs in O(n log n) time.", {"complexity"}),
        ("Quicksort worst case O(n²).", {"complexity"}),
        ("9.8 m/s² = 980 cm/s²", {"dimensions"}),
        ("$KE = \\frac{1}{2} m v^2$", {"dimensions", "equation"}),
        ("The acceleration due to gravity is 9.8 m/s².", {"constants"}),
        ("Objects fall with an acceleration of 9.8 m/s².", {"unit_dimension"}),
        ("In the worst case, quicksort takes O(n^2) time, but on average it runs in O(n log n) time.", {"complexity"}),
        ("The speed of light is 3.00 × 10⁸ m/s.", {"constants"}),
    ],
)
@pytest.mark.parametrize("profile", ["general", "physics", "algorithms"])
def test_true_statements_are_never_flagged(claim, checks, profile):
    signal = compute_formal(claim, EVIDENCE, profile)
    assert signal.mismatches == ()
    if profile == "general":  # every check runs under general, so each listed one must have judged the claim
        assert {check.check for check in signal.checks} == checks
        assert signal.status == "computed"


def test_a_claim_with_nothing_formal_is_not_applicable():
    signal = compute_formal("Newton's third law says forces come in pairs.", EVIDENCE, "physics")
    assert (signal.status, signal.checks) == ("not_applicable", ())
    assert "physics" in signal.reason


@pytest.mark.parametrize(
    ("claim", "named"),
    [
        ("E = mc^", "cannot read 'mc^'"),
        ("KE = \\unknowncommand{m}", "\\unknowncommand is not read"),
        ("Merge sort is O(n log) in the worst case.", "bound 'O(n log)'"),
    ],
)
def test_a_parse_failure_is_an_unparsed_status_with_the_reason_never_an_exception(claim, named):
    signal = compute_formal(claim, EVIDENCE, "general")
    assert signal.status == "unparsed"
    assert signal.unparsed and signal.reason == signal.unparsed[0]
    assert named in signal.reason


def test_parse_failure_beside_a_checked_equation_keeps_status_computed_and_lists_the_failure():
    signal = compute_formal("E = mc^3 and KE = \\weird{m}", EVIDENCE, "physics")
    assert signal.status == "computed"
    assert "dimension_mismatch" in outcomes(signal)
    assert len(signal.unparsed) == 1 and "\\weird" in signal.unparsed[0]


def test_only_the_profile_checks_run():
    policy = compute_formal("E = mc^3", EVIDENCE, "policy")
    algorithms = compute_formal("Objects fall with an acceleration of 9.8 kg.", EVIDENCE, "algorithms")
    assert policy.status == algorithms.status == "not_applicable"


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("KE = ½mv²", "KE - m*v**2/2"),
        ("$E = mc^{2}$", "E - c**2*m"),
        ("KE = \\frac{1}{2}mv^2", "KE - m*v**2/2"),
        ("KE = \\dfrac12 m v^2", "KE - m*v**2/2"),
        ("F = G\\frac{m_1 m_2}{r^2}", "F - G*m_1*m_2/r**2"),
        ("\\Delta x = v \\Delta t", "Δx - v*Δt"),
        ("v = √(2gh)", "v - sqrt(2)*sqrt(g*h)"),
        ("p = m·v", "p - m*v"),
        ("KE = p^2/2m", "KE - p**2/(2*m)"),
    ],
)
def test_equations_parse_from_unicode_and_latex(written, expected):
    import sympy

    parsed = parse_equation(written)
    left, right = parsed.expressions
    assert sympy.simplify(left - right - sympy.sympify(expected, locals=_symbols(left, right))) == 0


def _symbols(*expressions):
    return {str(symbol): symbol for expression in expressions for symbol in expression.free_symbols}


def test_symbols_never_become_sympy_constants():
    expression = parse_math("E I N S O Q")
    assert {str(symbol) for symbol in expression.free_symbols} == {"E", "I", "N", "S", "O", "Q"}


def test_a_word_is_not_a_product_of_symbols():
    with pytest.raises(MathParseError, match="the word 'distance'"):
        parse_math("distance/time")


def test_inequalities_are_not_equations():
    assert parse_equation("x ≤ 3") is None


@pytest.mark.parametrize(
    ("text", "order", "algorithm", "case"),
    [
        ("Quicksort has worst-case time complexity O(n log n).", "n log n", "quicksort", "worst"),
        ("quicksort worst case O(n^2)", "n^2", "quicksort", "worst"),
        ("Merge-sort runs in $\\Theta(n\\log_2 n)$ time.", "n log n", "mergesort", "unspecified"),
        ("Insertion sort has quadratic running time on average.", "n^2", "insertionsort", "average"),
        ("Binary search runs in logarithmic time.", "log n", "binary search", "unspecified"),
        ("The expected running time of quicksort is O(3n lg n + 7n).", "n log n", "quicksort", "average"),
        ("Bubble sort is O(N²) in the best case? No: it is O(n) in the best case.", "n", "bubblesort", "best"),
        ("The amortized cost of an ArrayStack's add(i,x) operation is O(1).", "1", "ArrayStack.add", "amortized"),
    ],
)
def test_bounds_are_normalised_with_algorithm_and_case(text, order, algorithm, case):
    bounds, problems = find_bounds(text)
    assert problems == []
    bound = bounds[-1]
    assert (bound.order, bound.algorithm, bound.case) == (order, algorithm, case)


def test_a_binary_search_tree_is_no_binary_search_even_across_a_line_break():
    bounds, _ = find_bounds("Ways of avoiding unbalanced binary search\ntrees lead to $O(\\log n)$ time operations.")
    assert [bound.algorithm for bound in bounds] == [None]


def test_omega_bounds_compare_only_with_lower_bounds():
    evidence = ["Any comparison sort takes Ω(n log n) comparisons; merge sort runs in O(n log n) time."]
    signal = compute_formal("Merge sort runs in Ω(n) time.", evidence, "algorithms")
    assert signal.status == "not_applicable"


def test_space_bounds_are_not_compared_with_time_bounds():
    evidence = ["Merge sort runs in O(n log n) time and uses O(n) extra space."]
    assert compute_formal("Merge sort uses O(n) extra space.", evidence, "algorithms").mismatches == ()
    flagged = compute_formal("Merge sort uses O(1) extra space.", evidence, "algorithms")
    assert outcomes(flagged) == {"complexity_mismatch"}
    assert "(space)" in flagged.reason


RESTATED_EVIDENCE = [
    "Some structures need rebalancing. All of them lead to data structures that have $O(\\log n)$ time "
    "operations. The operation takes $O(n)=O(i)=O(n-i)$ time here."
]


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("All of them lead to data structures that have $O(n)$ time operations.", "complexity_mismatch"),
        ("All of them lead to data structures that have $O(\\log n)$ time operations.", "ok"),
        ("The operation takes $O(n)=O(i)=O(n-i)$ time here.", "ok"),
        # a chain states its last bound; the ones before it are steps of the derivation
        ("The operation takes $O(n)=O(n^2)=O(n-i)$ time here.", "ok"),
        ("The operation takes $O(n)=O(i)=O(n^2)$ time here.", "complexity_mismatch"),
    ],
)
def test_a_bound_of_no_named_algorithm_is_compared_with_the_evidence_sentence_the_claim_restates(claim, expected):
    signal = compute_formal(claim, RESTATED_EVIDENCE, "algorithms")
    complexity = {check.outcome for check in signal.checks if check.check == "complexity"}
    assert expected in complexity and (expected == "complexity_mismatch") == ("complexity_mismatch" in complexity)
    reasons = [check.reason for check in signal.checks if check.outcome == "complexity_mismatch"]
    assert all(reason.startswith("the evidence sentence the claim restates gives") for reason in reasons)


def test_a_bound_in_a_sentence_that_restates_no_evidence_sentence_is_not_judged():
    signal = compute_formal("Balanced trees give $O(n)$ operations.", RESTATED_EVIDENCE, "algorithms")
    assert [check for check in signal.checks if check.check == "complexity"] == []


def test_two_evidence_passages_with_different_bounds_for_one_case_are_an_evidence_conflict():
    evidence = ["Quicksort worst case O(n²).", "Quicksort has worst-case running time O(n log n)."]
    signal = compute_formal("Quicksort runs in O(n^2) time in the worst case.", evidence, "algorithms")
    assert signal.evidence_conflicts == (
        "evidence 0 gives O(n^2) and evidence 1 gives O(n log n) for quicksort's worst case",
    )
    assert signal.mismatches == ()  # one passage agrees with the claim


@pytest.mark.parametrize(
    "claim",
    [
        "The speed of light in water is 2.25 × 10^8 m/s.",
        "The acceleration due to gravity on the Moon is 1.6 m/s².",
        "A force of 10 pounds was applied.",
        "The pilots felt accelerations of 45 g.",
        "the temperature of 1.00 kg of gold rose",
        "A speed of 30 m/s for 10 s.",
        "Take g = 10 m/s² for simplicity.",
    ],
)
def test_contexts_that_move_a_constant_or_reuse_a_unit_are_not_flagged(claim):
    assert compute_formal(claim, [], "physics").mismatches == ()


def test_quantity_equation_with_different_dimensions_is_a_dimension_mismatch():
    signal = compute_formal("9.8 m/s² = 980 cm", [], "physics")
    assert outcomes(signal) == {"dimension_mismatch"}


def test_an_ambiguous_symbol_is_consistent_when_any_reading_is():
    assert compute_formal("The circumference is c = 2πr.", [], "physics").mismatches == ()
    assert compute_formal("A photon carries E = hf.", [], "physics").mismatches == ()


def test_offsets_map_back_through_superscripts():
    text = "a = 9.8 m/s² and c = 3×10⁸ m/s"
    normal, offsets = normalise_with_offsets(text)
    assert normal == normalise_text(text)
    assert text[offsets[normal.index("m/s^2")] :].startswith("m/s²")
    assert offsets[-1] == len(text)


@pytest.mark.parametrize(
    "claim",
    [
        "O(" * 1000,
        "=" * 1000,
        "a=" * 400 + "a",
        "x^^^2 = y",
        "E = mc^(2^(2^(2^2)))",
        "c = 10^999999 m/s",
        "v = " + "(" * 300 + "a" + ")" * 300,
        "O(n!) for quicksort",
        "E = m/0",
    ],
)
def test_hostile_input_never_raises(claim):
    signal = compute_formal(claim, [claim, *EVIDENCE], "general")
    assert signal.status in {"computed", "not_applicable", "unparsed"}


def test_the_signal_round_trips_through_json():
    signal = compute_formal("KE = 1/2 m v^3", EVIDENCE, "physics")
    assert FormalSignal.model_validate_json(signal.model_dump_json()) == signal


def test_general_profile_reads_symbols_as_physics_only_in_a_physics_context():
    sequence = "The geometric sequence has $a_1 = a_0 r^2$ for every term."
    assert compute_formal(sequence, ["A geometric sequence multiplies by r."], "general").status == "not_applicable"
    assert outcomes(compute_formal(sequence, [], "physics")) == {"dimension_mismatch"}
    energy = compute_formal("E = mc^3", ["The energy of a mass at rest."], "general")
    assert "dimension_mismatch" in outcomes(energy)


@pytest.mark.parametrize(
    ("text", "order"),
    [
        ("Insertion sort has quadratic running time.", "n^2"),
        ("For heapsort, the time complexity is linearithmic.", "n log n"),
        ("Merge sort makes n log n comparisons.", "n log n"),
        ("Hashing gives constant-time lookups on average, so the cost is constant.", "1"),
    ],
)
def test_bounds_written_in_words_are_found(text, order):
    """Each spelling of _WORD_BOUND passes the cheap look before the scan (an order word and what it is of)."""
    bounds, _ = find_bounds(text)
    assert [bound.order for bound in bounds][:1] == [order]


# Open Data Structures' merge-sort analysis, as ingested: a per-level cost, then the total the next sentence names.
MERGE_SORT_DERIVATION = (
    "Merge-sort turns the problem of sorting n elements into two problems. For each subproblem of size $n/2^{i}$, "
    "the time spent merging and copying data is $O(n/2^i)$. Since there are $2^i$ subproblems, the total time is\n"
    "\\[\n       2^i\\times O(n/2^i) = O(n) \\enspace .\n\\]\n\n"
    "Therefore, the total amount of time taken by merge-sort is\n\n"
    "\\[\n   \\sum_{i=0}^{\\log n} O(n) = O(n\\log n) \\enspace .\n\\]\n"
)


def test_a_derivation_states_only_the_last_bound_of_each_chain_and_a_display_belongs_to_its_lead_in():
    bounds = [(bound.text, bound.algorithm, bound.carried) for bound in find_bounds(MERGE_SORT_DERIVATION)[0]]
    # "2^i \times O(n/2^i)" is a factor and "\sum O(n)" a summand, both left of "=": steps, not stated bounds
    assert bounds == [
        ("O(n/2^i)", "mergesort", True),  # its sentence names no algorithm: carried from the first one
        ("O(n)", "mergesort", True),
        ("O(n\\log n)", "mergesort", False),  # the open sentence before the display names merge-sort
    ]


@pytest.mark.parametrize(
    ("claim", "expected", "cited"),
    [
        ("Merge sort runs in O(n) time.", "complexity_mismatch", "O(n log n)"),  # not the per-level cost's O(n)
        ("Merge sort runs in O(n^2) time.", "complexity_mismatch", "O(n log n)"),  # not the step's O(n/2^i)
        ("Merge sort runs in O(n log n) time.", "ok", "O(n log n)"),
    ],
)
def test_a_bound_stated_of_the_named_algorithm_outranks_carried_steps(claim, expected, cited):
    signal = compute_formal(claim, [MERGE_SORT_DERIVATION], "algorithms")
    (check,) = [check for check in signal.checks if check.check == "complexity"]
    assert (check.outcome, check.evidence_value) == (expected, cited)
    assert signal.evidence_conflicts == ()  # carried steps never make the evidence disagree with itself


@pytest.mark.parametrize(
    ("claim", "span", "consistent"),
    [
        ("Work is measured in watts.", "Work is measured in watts", False),
        ("The SI unit of force is the joule (J).", "force is the joule", False),
        ("The watt is the unit of energy.", "watt is the unit of energy", False),
        ("Weight is measured in kilograms.", "Weight is measured in kilograms", False),  # a force, not a mass
        ("Power is measured in watts.", "Power is measured in watts", True),
        ("Speed is usually expressed in meters per second.", "Speed is usually expressed in meters per second", True),
        ("Acceleration is measured in meters per second squared.", None, True),
        ("Momentum has units of kg m/s.", "Momentum has units of kg m/s", True),
        ("Weight is measured in pounds.", None, True),  # pound-force, in everyday usage
        ("The joule is the SI unit of energy.", None, True),
        # the quantity with what it is of
        ("The frequency of a wave is measured in seconds.", "frequency of a wave is measured in seconds", False),
        ("The period of a pendulum is measured in hertz.", "period of a pendulum is measured in hertz", False),
        ("The speed of light in a vacuum is expressed in meters per second.", None, True),
        ("The energy of a photon is measured in electron volts.", None, True),
        # a word before the quantity's, after "unit of"
        ("The unit of electric charge is the ampere.", "charge is the ampere", False),
        ("The SI unit of electric charge is the coulomb.", None, True),
    ],
)
def test_a_quantity_said_to_be_measured_in_a_named_unit_is_checked_by_dimension(claim, span, consistent):
    signal = compute_formal(claim, [], "physics")
    (check,) = [check for check in signal.checks if check.check == "unit_dimension"]
    assert (check.outcome == "ok") is consistent
    if span is not None:
        assert claim[check.claim_span[0] : check.claim_span[1]] == span
    if not consistent:
        assert "needs a unit of" in check.reason and check.claim_value in check.reason


@pytest.mark.parametrize(
    "claim",
    [
        "Angular velocity is measured in radians per second.",  # another quantity than velocity
        "The unit of angular velocity is the radian per second.",
        "Work is measured in the laboratory.",  # no unit at all
        "Heat is measured in degrees.",  # pint reads degrees as an angle: not judged
        "The charge is measured in dollars.",
        # a loose quantity word with what it is of: another sense ("current" of a river, not an electric current)
        "The current of a river is measured in meters per second.",
    ],
)
def test_named_units_that_cannot_be_read_or_belong_to_another_quantity_are_not_judged(claim):
    assert [check for check in compute_formal(claim, [], "physics").checks if check.check == "unit_dimension"] == []
