"""compute_numeric and the quantity reader: scientific notation, unit conversion, percentages, mismatches."""

from __future__ import annotations

import pytest

from veriground.schema import SignalStatus
from veriground.signals.numeric import compute_numeric, unit_numbers
from veriground.text.quantities import extract_quantities, format_value, normalise_quantity

LIGHT = "The speed of light in vacuum is 3.0 × 10⁸ m/s."


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("c = 3.0 × 10⁸ m/s", 3.0e8, "m/s"),
        ("c = 3.0 x 10^8 m/s", 3.0e8, "m/s"),
        ("c ≈ 3e8 m/s", 3.0e8, "m/s"),
        ("c = 3.0 \\times 10^{8} m/s", 3.0e8, "m/s"),
        ("a scale of 10⁸", 1e8, None),
        ("q = 1.6 × 10⁻¹⁹ C", 1.6e-19, "C"),
        ("g = 9.8 m/s²", 9.8, "m/s^2"),
        ("half of it, 1/2, is kept", 0.5, None),
        ("over $10,000 requires a second quote", 10000.0, None),
        ("up to 45% of salary", 45.0, "%"),
        ("a car at 100 km/h", 100.0, "km/h"),
        ("water boils at 100 °C", 100.0, "°C"),
        ("5 meters per second", 5.0, "meters per second"),
        ("Earth is 4.54 billion years old", 4.54e9, "years"),
        # a one-letter unit stays a unit before a word, a times sign or an article
        ("a 5 m rod", 5.0, "m"),
        ("walks 5 m a day", 5.0, "m"),
    ],
)
def test_quantities_are_read_with_their_units(text: str, value: float, unit: str | None):
    [quantity] = extract_quantities(text)
    assert quantity.value == pytest.approx(value)
    assert quantity.unit == unit


@pytest.mark.parametrize(
    "text",
    [
        "Quicksort is O(n^2) in the worst case",
        "E = mc²",
        "see [1] and [2]",
        "a 2n-step loop",
        "x_1 and x2",
        "KE = 1/2 m v^2",  # m is the mass: a coefficient of symbols, not 0.5 metres
        "p = 3 m v",
    ],
)
def test_exponents_citations_and_symbols_are_not_numbers(text: str):
    assert extract_quantities(text) == []


def test_words_after_a_number_are_not_taken_for_units():
    [year] = extract_quantities("Newton published the Principia in 1687 at Cambridge.")
    assert (year.value, year.unit, year.label) == (1687.0, None, None)
    [cases] = extract_quantities("There are 3 cases in the proof.")
    assert (cases.unit, cases.label) == (None, "count:case")


def test_format_value_is_short_scientific_for_extremes():
    assert [format_value(v) for v in (3.0e9, 2.998e8, 9.8, 1.6e-19, 0.0)] == ["3.0e9", "2.998e8", "9.8", "1.6e-19", "0"]


def test_seed_t1_order_of_magnitude_is_a_mismatch():
    signal = compute_numeric("The speed of light in vacuum is 3.0 × 10⁹ m/s", [LIGHT])
    assert signal.status == SignalStatus.COMPUTED and signal.outcome == "mismatch"
    assert signal.mismatches == ("claim 3.0e9 m/s vs evidence 3.0e8 m/s",)
    assert signal.claim_quantities == ("3.0e9 m/s",)
    assert signal.evidence_quantities == ("3.0e8 m/s",)


def test_other_notation_same_value_matches():
    assert compute_numeric("Light travels at 3e8 m/s.", [LIGHT]).outcome == "match"


def test_unit_conversion_matches():
    assert compute_numeric("g is 980 cm/s^2.", ["Near the surface, g = 9.8 m/s²."]).outcome == "match"
    assert compute_numeric("The car drives at 100 km/h.", ["Its speed is 27.78 m/s."]).outcome == "match"
    assert compute_numeric("Water boils at 373.15 K.", ["Water boils at 100 °C at sea level."]).outcome == "match"


def test_unit_conversion_catches_a_wrong_value():
    signal = compute_numeric("The car drives at 100 km/h.", ["Its speed is 100 m/s."])
    assert signal.outcome == "mismatch"
    assert signal.mismatches == ("claim 100 km/h vs evidence 100 m/s",)


def test_percentages_compare_with_percentages_only():
    policy = ["The employer pays 60% of salary during leave, for at most 12 weeks."]
    assert compute_numeric("Leave is paid at 60 percent of salary.", policy).outcome == "match"
    assert compute_numeric("Leave is paid at 70% of salary.", policy).outcome == "mismatch"
    assert compute_numeric("Leave is paid at 0.6 of salary.", ["The employer pays 60% of salary."]).outcome == "absent"


def test_currency_thresholds():
    policy = ["Procurements over $10,000 need three written quotes."]
    assert compute_numeric("Purchases above $10,000 need three quotes.", policy).outcome == "match"
    assert compute_numeric("Purchases above $5,000 need three quotes.", policy).outcome == "mismatch"


def test_different_dimensions_are_absent_not_mismatched():
    signal = compute_numeric("A 2 kg mass is dropped.", [LIGHT])
    assert (signal.status, signal.outcome, signal.mismatches) == (SignalStatus.COMPUTED, "absent", ())


def test_one_unevidenced_number_keeps_the_claim_from_matching():
    evidence = ["A 2 kg mass falls with g = 9.8 m/s²."]
    assert compute_numeric("A 2 kg mass falls at 9.8 m/s².", evidence).outcome == "match"
    assert compute_numeric("A 2 kg mass falls for 3 s at 9.8 m/s².", evidence).outcome == "absent"
    assert compute_numeric("A 2 kg mass falls for 3 s at 9.0 m/s².", evidence).outcome == "mismatch"


def test_claim_without_numbers_is_not_applicable():
    signal = compute_numeric("Merge sort is stable.", ["Merge sort is a stable sort."])
    assert (signal.status, signal.reason, signal.outcome) == (SignalStatus.NOT_APPLICABLE, "claim has no numbers", None)


def test_no_evidence_is_not_applicable():
    signal = compute_numeric("g is 9.8 m/s².", ["", "  "])
    assert (signal.status, signal.reason) == (SignalStatus.NOT_APPLICABLE, "no evidence")


def test_pint_failure_is_unavailable_not_a_crash(monkeypatch: pytest.MonkeyPatch):
    import veriground.text.quantities as quantities

    def broken(value: float, expression: str) -> tuple[float, str]:
        raise AttributeError(f"'{expression}' is not defined in the unit registry")

    monkeypatch.setattr(quantities, "to_base_units", broken)
    signal = compute_numeric("g is 9.8 m/s².", ["g = 9.8 m/s²."])
    assert signal.status == SignalStatus.UNAVAILABLE
    assert signal.reason.startswith("cannot normalise '9.8 m/s^2'")
    assert "is not defined in the unit registry" in signal.reason


def test_normalised_values_are_si_base():
    [quantity] = extract_quantities("980 cm/s²")
    normal = normalise_quantity(quantity)
    assert normal.base_value == pytest.approx(9.8)
    assert normal.dimension == "[length] / [time] ** 2"


def test_a_decade_is_not_seconds():
    [decade] = extract_quantities("Quicksort was published in the 1960s.")
    assert (decade.text, decade.unit, decade.label) == ("1960s", None, "count:decade")


@pytest.mark.parametrize(
    "expression",
    ["meter/second**2", "kilometer/hour", "kilogram*meter/second**2", "electron_volt", "degree_Celsius",
     "degree_Fahrenheit", "micrometer", "light_year"],
)  # fmt: skip
def test_base_units_by_factor_equal_pints_own_reading(expression):
    """to_base_units multiplies by the unit's factor: bit for bit what pint gives value by value (offset units such
    as °C have no factor and go through pint)."""
    from veriground.text.si_units import dimension_text, to_base_units, unit_registry

    for value in (0.0, 1.0, 9.8, -40.0, 3.0e8, 1.6e-19, 6.674e-11, 123456.789):
        base = unit_registry().Quantity(value, expression).to_base_units()
        dimension = str(base.units) if base.dimensionless else dimension_text(base.dimensionality)
        assert to_base_units(value, expression) == (float(base.magnitude), dimension)


@pytest.mark.parametrize(
    ("claim", "evidence", "outcome"),
    [
        ("The treaty was signed in 1649.", "The treaty was signed in 1648.", "mismatch"),  # within 0.1 %, still wrong
        ("The club had 1,001 members.", "The club had 1,000 members.", "mismatch"),
        ("The band formed in 2019.", "The band has 75 members.", "absent"),  # a year is no rival for a count
        ("The band has 70 members.", "The band formed in 2019 with 75 members.", "mismatch"),
        ("The band formed in 2019.", "Formed in 2019, the band has 75 members.", "match"),
        ("It has 1 million members.", "It has 1,000,000 members.", "match"),
        ("It moves at 100 km/h.", "It moves at 27.78 m/s.", "match"),  # converted values keep the tolerance
    ],
)
def test_whole_numbers_without_units_are_equal_only_when_equal_and_years_meet_only_years(claim, evidence, outcome):
    assert compute_numeric(claim, [evidence]).outcome == outcome


def test_a_value_the_passage_states_elsewhere_matches_but_is_no_rival():
    aligned = ["The sales forecast for 2021 remains $1.7 billion to $1.8 billion, against $1.67 billion before."]
    passage = ["Consolidated sales were $441 million, up from $437 million. " + aligned[0]]
    claim = "Sales were $441 million, and the forecast for 2021 stays at $1.7 billion to $1.8 billion."
    assert compute_numeric(claim, aligned).outcome == "mismatch"  # $441 million read against the forecast alone
    assert compute_numeric(claim, aligned, passage).outcome == "match"
    wrong = "Sales were $451 million, and the forecast for 2021 stays at $1.7 billion to $1.8 billion."
    assert compute_numeric(wrong, aligned, passage).outcome == "mismatch"  # still read against the aligned sentence
    assert compute_numeric("Sales were $437 billion.", ["Revenue was $1 billion."], passage).outcome == "mismatch"


@pytest.mark.parametrize(
    ("claim", "outcome"),
    [
        ("Poseidon grossed less than $1 million worldwide.", "match"),  # $181,674 meets the bound
        ("Poseidon grossed more than $1 million worldwide.", "mismatch"),
        ("Poseidon grossed at least $181,674 worldwide.", "match"),
        ("Poseidon grossed under $100,000 worldwide.", "mismatch"),
    ],
)
def test_a_bound_is_met_by_a_value_that_satisfies_it(claim: str, outcome: str):
    assert compute_numeric(claim, ["Poseidon grossed $181,674 at the worldwide box office."]).outcome == outcome


def test_a_bound_the_evidence_states_too_matches_and_another_bound_does_not():
    same = compute_numeric("Groups of fewer than 15 need no action.", ["Groups of fewer than 15 need none."])
    assert same.outcome == "match"
    assert compute_numeric("Buys over $5,000 need quotes.", ["Buys over $10,000 need quotes."]).outcome == "mismatch"


@pytest.mark.parametrize(
    ("claim", "outcome"),
    [
        ("A purchase of $12,000 needs the Office of Acquisition.", "absent"),  # meets the threshold: no rival
        ("A purchase of $5,000 needs the Office of Acquisition.", "mismatch"),  # below it
        ("A purchase of $10,000 needs the Office of Acquisition.", "match"),  # the number itself
    ],
)
def test_a_plain_value_that_meets_a_bound_the_evidence_states_is_no_rival(claim: str, outcome: str):
    evidence = ["Buying something over $10,000 means that the Office of Acquisition needs to be involved."]
    assert compute_numeric(claim, evidence).outcome == outcome
    # "over 30 years" is a span of time, not a bound
    assert (
        compute_numeric("The loan is repaid in 40 years.", ["The loan is repaid over 30 years."]).outcome == "mismatch"
    )


def test_a_claim_negating_plain_evidence_is_not_contradicted_by_another_number():
    evidence = ["In 2018, she signed her first recording contract with Astralwerks."]
    assert compute_numeric("She did not sign her first recording contract in 2014.", evidence).outcome == "absent"
    assert compute_numeric("She signed her first recording contract in 2014.", evidence).outcome == "mismatch"
    negated = ["She did not sign a contract in 2018."]
    assert compute_numeric("She did not sign a contract in 2019.", negated).outcome == "mismatch"


@pytest.mark.parametrize(
    ("claim", "unit", "outcome", "bars"),
    [
        # two bounds that leave a value meeting both agree: a graph's chromatic number is at least 1 and at most n
        (
            "The chromatic number of a bipartite graph is at most 2.",
            "The chromatic number is at least 1.",
            "absent",
            True,
        ),
        ("The chromatic number is at most 2.", "The chromatic number is at least 3.", "mismatch", False),
        ("It costs at least 5 dollars.", "It costs at most 4 dollars.", "mismatch", False),
        ("It costs under 10 dollars.", "It costs under 20 dollars.", "mismatch", False),  # thresholds: _compare
    ],
)
def test_a_claim_bound_against_an_evidence_bound_conflicts_only_when_no_value_meets_both(claim, unit, outcome, bars):
    assert unit_numbers(claim, unit) == (outcome, bars)


def test_business_days_are_days():
    assert [q.unit for q in extract_quantities("Vouchers are reviewed within 5 business days.")] == ["days"]
    assert [q.label for q in extract_quantities("They run 5 business lines.")] == ["count:busi"]
    late = compute_numeric("Vouchers must be filed within 30 days.", ["File vouchers within 5 business days."])
    assert late.outcome == "mismatch"


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("within three calendar days of receipt", [("three calendar days", 3.0)]),
        ("twenty-five people were hurt", [("twenty-five", 25.0)]),
        ("two of the three men", [("two", 2.0), ("three", 3.0)]),
        ("one of them said so", []),  # "one" is a pronoun as often as a count
        ("it reached number one on the chart", [("one", 1.0)]),  # ... but "number one" is a rank
        ("someone said three.", []),  # a number word with nothing after it counts nothing
    ],
)
def test_counts_written_in_words_are_read(text, read):
    assert [(quantity.text, quantity.value) for quantity in extract_quantities(text)] == read


def test_a_count_in_words_is_compared_like_digits():
    evidence = "The DM will acknowledge all requests within three calendar days of receipt."
    assert compute_numeric("The DM acknowledges requests within ten calendar days.", [evidence]).outcome == "mismatch"
    assert compute_numeric("The DM acknowledges requests within 3 calendar days.", [evidence]).outcome == "match"


@pytest.mark.parametrize(
    ("claim", "evidence", "outcome"),
    [
        # a day of the month is no rival for another number of the sentence, and "9th" is read as 9
        ("On August 10, Smith was hired to race the Cheez-It 355.", "Stewart would not start the Cheez-It 355.",
         "absent"),
        ("The title fight at Series 4 was on April 9.", "The title fight at Series 4 is on April 9th.", "match"),
        ("The title fight at Series 4 was on April 8.", "The title fight at Series 4 is on April 9th.", "mismatch"),
        ("It opened on the 10th of August.", "It opened on August 10.", "match"),
        # a day is compared with days of its month: "10 January" is no match for "February 10"
        ("Macmillan was born on February 10, 1894.",
         "Macmillan (20 February 1894 – 29 December 1986) was Prime Minister from 10 January 1957.", "mismatch"),
        ("Macmillan was born on February 20, 1894.",
         "Macmillan (20 February 1894 – 29 December 1986) was Prime Minister from 10 January 1957.", "match"),
        # "2018–19" is the years 2018 and 2019
        ("It takes place during the 2018–19 academic year.", "It takes place over the 2018-2019 academic year.",
         "match"),
        ("It takes place during the 2018–19 academic year.", "It takes place over the 2018-2020 academic years.",
         "mismatch"),
        # a range runs forward: "1915 – 10 December" holds no year 1910 or 2010, and "1999–00" is 1999 and 2000
        ("He died on December 10, 2006.", "Pinochet (25 November 1915 – 10 December 2006) was a Chilean general.",
         "match"),
        ("The 1999–00 season was his last.", "His last season was 1999-2000.", "match"),
        # a time joined to its number by a hyphen is a time: an age is no rival for a count of people
        ("A 12-year-old who attempted suicide needs psychiatric intervention.",
         "Close to 1 million Americans receive treatment for suicidal attempts each year.", "absent"),
        ("The plan runs for 5 years.", "It is a 5-year plan.", "match"),
        # a date that runs into its clock time keeps its year
        ("Meta laid off 11,000 employees in November 2022.",
         "Dec 7, 2022,03:46pm EST Meta laid off 11,000 employees in November.", "match"),
        # "degrees F" is a temperature
        ("Cook the fish to an internal temperature of 145 degrees F.", "Cook fish to 145 °F.", "match"),
    ],
)  # fmt: skip
def test_days_of_the_month_short_years_and_degrees_f_are_read_as_written(claim, evidence, outcome):
    assert compute_numeric(claim, [evidence]).outcome == outcome


@pytest.mark.parametrize(
    ("claim", "evidence", "outcome"),
    [
        # "bn", "mn" and, after a currency sign, "m", "M", "k" scale the number ("5 m" is still five metres)
        ("Sales of $5bn are expected.", "Moderna expects sales of $5 billion.", "match"),
        ("Sales of $6bn are expected.", "Moderna expects sales of $5 billion.", "mismatch"),
        ("Revenue was $3.5m.", "Revenue was $3.5 million.", "match"),
        ("It cost $5M.", "It cost $5 million.", "match"),
        ("The rope is 5 m long.", "The rope is 5 meters long.", "match"),
        # a value rounded to the places the claim writes, with at least two significant digits
        ("The 10-year note yield was 3.97%.", "U.S. 10-year notes touched 3.966%.", "match"),
        ("Revenue was $19.3 billion.", "Revenue was $19.27bn.", "match"),
        ("Revenue was $19.3 billion.", "Revenue was $19.37bn.", "mismatch"),
        ("The rate is 3%.", "The rate is 3.4%.", "mismatch"),
        ("It has 1,000 members.", "It has 1,001 members.", "mismatch"),
    ],
)  # fmt: skip
def test_scale_abbreviations_and_rounded_values_are_read_as_a_reader_does(claim, evidence, outcome):
    assert compute_numeric(claim, [evidence]).outcome == outcome


@pytest.mark.parametrize(
    ("claim", "evidence", "outcome"),
    [
        # WiCE: the evidence writes the age bare, and "3 days" (of work) was the rival of "25 years"
        (
            "Men at least 25 years old paid taxes equal to three days work.",
            "(2) to have reached one's majority [the age was set at 25]; (4) to pay taxes equal to three days of work",
            "absent",
        ),
        ("The car weighs 25 kg.", "The car weighs 30 kg.", "mismatch"),
        ("The car weighs 25 kg.", "The car weighs 30 kg and has 25 seats.", "mismatch"),  # 25 counts seats
    ],
)
def test_a_number_the_evidence_writes_bare_is_no_proof_of_a_mismatch(claim, evidence, outcome):
    assert compute_numeric(claim, [evidence]).outcome == outcome
