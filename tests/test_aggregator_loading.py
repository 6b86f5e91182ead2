"""Which aggregator verification reads: the shipped one per NLI, with the units per passage it was fitted on; an
explicitly given file that is missing or lacks the NLI is an error, never a silent fall back to the raw NLI."""

from __future__ import annotations

import json

import pytest

from veriground.config import VerificationConfig, load_config
from veriground.errors import ConfigError
from veriground.schema.vocabulary import HARD_REJECTIONS
from veriground.verdicts.aggregator import fitted_entry, load_aggregator, resolve_thresholds


def test_the_shipped_aggregators_carry_the_units_they_were_fitted_on():
    lexical, model = load_aggregator("lexical-nli.v1"), load_aggregator("veriground-nli.v3")
    assert (lexical.units_per_passage, model.units_per_passage) == (1, 1)
    assert lexical.name.endswith("/units1") and model.name.endswith("/units1")
    assert resolve_thresholds(VerificationConfig(), lexical).units_per_passage == 1
    assert resolve_thresholds(VerificationConfig(units_per_passage=3), lexical).units_per_passage == 3
    assert resolve_thresholds(VerificationConfig(), load_aggregator("lexical-nli.v1", "raw")).units_per_passage == 2


def test_a_missing_aggregator_file_is_an_error(tmp_path):
    with pytest.raises(ConfigError, match="is not a file"):
        load_aggregator("lexical-nli.v1", path=tmp_path / "typo.json")


def test_a_file_without_this_nli_is_an_error_that_names_what_it_has(tmp_path):
    path = tmp_path / "aggregator.json"
    path.write_text(json.dumps({"aggregators": {"other-nli.v1": {}}}), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"no aggregator for NLI lexical-nli.v1 \(it has: other-nli.v1\)"):
        load_aggregator("lexical-nli.v1", path=path)


def test_a_hard_rejections_confidence_is_its_fitted_support_rate_unless_configured():
    lexical = load_aggregator("lexical-nli.v1")
    fitted = fitted_entry("lexical-nli.v1")
    assert fitted is not None
    records = fitted["hard_rejection_support"]
    # a hard rule the fit saw reject no row gets the rate of every row it saw rejected, not a certainty of 0
    pooled = round(
        (sum(r["supported"] for r in records.values()) + 0.5) / (sum(r["rows"] for r in records.values()) + 1), 3
    )
    unseen = {str(rule): pooled for rule in HARD_REJECTIONS if rule not in records}
    assert "misquoted" in unseen and 0 < pooled < 0.5
    rates = {**unseen, **{rule: record["support_prob"] for rule, record in records.items()}}
    assert lexical.hard_rejection_support == rates and 0 < rates["numeric-mismatch"] < 0.5
    assert resolve_thresholds(VerificationConfig(), lexical).hard_rejection_support == rates
    mine = VerificationConfig(hard_rejection_support={"numeric-mismatch": 0.0})
    assert resolve_thresholds(mine, lexical).hard_rejection_support == {"numeric-mismatch": 0.0}
    raw = load_aggregator("lexical-nli.v1", "raw")
    assert resolve_thresholds(VerificationConfig(), raw).hard_rejection_support == {}


def test_hard_rejection_rates_read_from_a_flag_or_the_environment_and_unknown_rules_are_refused(monkeypatch):
    monkeypatch.setenv("VERIGROUND_VERIFICATION__HARD_REJECTION_SUPPORT", "numeric-mismatch=0.2, no-evidence=0")
    assert load_config(None).verification.hard_rejection_support == {"numeric-mismatch": 0.2, "no-evidence": 0.0}
    with pytest.raises(ConfigError, match=r"\['quoted'\]: not a rule that rejects a claim outright"):
        load_config(None, {"verification.hard_rejection_support": "quoted=0.5"}, environ={})
    with pytest.raises(ConfigError, match="rule=probability pairs"):
        load_config(None, {"verification.hard_rejection_support": "0.5"}, environ={})
    with pytest.raises(ConfigError, match="hard_rejection_support"):
        load_config(None, {"verification.hard_rejection_support": "numeric-mismatch=1.5"}, environ={})


def test_an_aggregator_fitted_for_other_weights_under_the_same_name_is_refused(tmp_path):
    """A retrained model is named like the shipped one; the shipped entry's scaling and thresholds were fitted on the
    shipped weights' scores, so reading another model through them is an error that says how to fit its own."""
    from veriground.backends.shipped_nli import ShippedNLIModel
    from veriground.engine import verify_text
    from veriground.evidence.gather import PackEvidence
    from veriground.schema import EvidencePack, PackPassage

    shipped = ShippedNLIModel()
    assert fitted_entry(shipped.name)["nli_checksum"] == shipped.checksum
    assert load_aggregator(shipped.name, nli_checksum=shipped.checksum).calibrated
    with pytest.raises(ConfigError, match=r"fitted for weights b4a4573eeea8…, and this model's are 000000000000…"):
        load_aggregator(shipped.name, nli_checksum="0" * 64)
    assert not load_aggregator(shipped.name, "raw", nli_checksum="0" * 64).calibrated  # raw reads no fitted entry

    class Retrained:  # the shipped model's name over other weights
        name, model_id, checksum = shipped.name, shipped.model_id, "0" * 64

        def predict(self, pairs):
            return shipped.predict(pairs)

    config = load_config(environ={})
    pack = EvidencePack(passages=(PackPassage(passage_id="p1", text="Merge sort runs in O(n log n) time."),))
    with pytest.raises(ConfigError, match="fit one for it with `veriground calibrate"):
        verify_text("Merge sort runs in O(n log n) time.", config=config, source=PackEvidence(pack, config.retrieval),
                    nli=Retrained())  # fmt: skip


@pytest.mark.parametrize("aggregator", ["calibrated", "raw"])
def test_a_unit_about_another_algorithms_bounds_neither_supports_nor_refutes(aggregator):
    from veriground.schema import NLIScores

    judge = load_aggregator("veriground-nli.v3", aggregator).judge_unit
    unit = "The add(x) and remove(x) operations on a red-black tree run in $O(\\log n)$ worst-case time."
    reads = NLIScores(entail=0.1, neutral=0.1, contradict=0.8), NLIScores(entail=0.8, neutral=0.1, contradict=0.1)
    for nli in reads:  # the shipped model read this pair as 0.83 contradiction; another pair like it, entailment
        judged = judge("Quicksort runs in O(n^2) time in the worst case.", unit, (0, len(unit)), 1.0, nli)
        assert (judged.support_prob, judged.refute_prob) == (0.0, 0.0)
        assert judged.features["bounds_bar_support"] == judged.features["bounds_bar_refutation"] == 1.0
    about_it = "Quicksort runs in $O(n^2)$ time in the worst case, when every pivot is the smallest element."
    judged = judge("Quicksort runs in O(n^2) time in the worst case.", about_it, (0, len(about_it)), 1.0, reads[1])
    assert judged.support_prob > 0.5


def test_a_unit_that_opens_with_a_pronoun_and_never_names_the_claims_subject_never_refutes():
    from veriground.schema import NLIScores

    judge = load_aggregator("veriground-nli.v3", "calibrated").judge_unit
    unit = "She also starred in the films The Cat in the Hat, Old Dogs, and Broken Bridges."
    contradicting = NLIScores(entail=0.35, neutral=0.12, contradict=0.53)  # v3's reading of this pair
    judged = judge("Kelly Preston starred in the film Broken Bridges.", unit, (0, len(unit)), 0.67, contradicting)
    assert judged.features["pronoun_subject"] == 1.0 and judged.refute_prob == 0.0
    named = "Kelly Preston also starred in the films The Cat in the Hat, Old Dogs, and Broken Bridges."
    judged = judge("Kelly Preston never starred in Broken Bridges.", named, (0, len(named)), 0.8, contradicting)
    assert judged.features["pronoun_subject"] == 0.0


@pytest.mark.parametrize(
    ("claim", "unit", "elsewhere"),
    [
        # each subject has a word the other lacks: the unit is about another thing, whatever the NLI reads
        (
            "Every prime number greater than 2 is odd.",
            "Every even number greater than 2 can be expressed as the sum of two primes.",
            True,
        ),
        (
            "Kinetic energy cannot be negative.",
            "However, electrons are negative charges, gaining kinetic energy.",
            True,
        ),
        # the same subject, a wider one, or one past an opening phrase: the unit may refute
        (
            "In an elastic collision, kinetic energy is lost.",
            "Kinetic energy is conserved in elastic collisions.",
            False,
        ),
        ("Annual leave at 18F cannot be carried over.", "Annual leave can be carried over.", False),
    ],
)
def test_a_unit_about_another_subject_never_refutes(claim, unit, elsewhere):
    from veriground.schema import NLIScores

    judge = load_aggregator("veriground-nli.v3", "calibrated").judge_unit
    contradicting = NLIScores(entail=0.05, neutral=0.05, contradict=0.9)
    judged = judge(claim, unit, (0, len(unit)), 1.0, contradicting)
    assert judged.features["subject_elsewhere"] == float(elsewhere)
    assert (judged.refute_prob == 0.0) is elsewhere


@pytest.mark.parametrize("aggregator", ["calibrated", "raw"])
@pytest.mark.parametrize(
    ("unit", "states_nothing"),
    [
        ("Is work a vector quantity?", True),  # a question asks; it states nothing
        ("This video introduces work as a vector quantity and shows how to add vectors.", True),  # about the document
        ("Is work a vector quantity? This section shows why it is not.", True),
        ("Work is a vector quantity, as this section shows.", False),
        ("Is work a vector quantity? No: work is a scalar quantity.", False),  # one sentence states something
    ],
)
def test_a_unit_that_only_asks_or_speaks_of_the_document_neither_supports_nor_refutes(aggregator, unit, states_nothing):
    from veriground.schema import NLIScores

    judge = load_aggregator("veriground-nli.v3", aggregator).judge_unit
    entailing = NLIScores(entail=0.95, neutral=0.03, contradict=0.02)
    for nli in (entailing, NLIScores(entail=0.02, neutral=0.03, contradict=0.95)):
        judged = judge("Work is a vector quantity.", unit, (0, len(unit)), 1.0, nli)
        assert judged.features["states_nothing"] == float(states_nothing)
        if states_nothing:
            assert (judged.support_prob, judged.refute_prob) == (0.0, 0.0)
        elif nli is entailing:
            assert judged.support_prob > 0.5


@pytest.mark.parametrize("aggregator", ["calibrated", "raw"])
def test_a_unit_the_nli_reads_as_entailing_the_claims_opposite_as_much_does_not_support_it(aggregator):
    from veriground.schema import NLIScores

    judge = load_aggregator("veriground-nli.v3", aggregator).judge_unit
    unit = "The variable v for velocity is bold because it is a vector, unlike speed, which is a scalar quantity."
    claim = "Velocity is a scalar quantity."
    reads = NLIScores(entail=0.90, neutral=0.02, contradict=0.08)  # v3's readings of the claim and of its opposite
    judged = judge(
        claim, unit, (0, len(unit)), 0.67, reads, opposite=NLIScores(entail=0.91, neutral=0.02, contradict=0.07)
    )
    assert judged.features["opposite_reads_alike"] == 1.0
    assert (judged.support_prob, judged.refute_prob) == (0.0, 0.0)
    # an NLI that tells them apart keeps its reading
    judged = judge(
        claim, unit, (0, len(unit)), 0.67, reads, opposite=NLIScores(entail=0.2, neutral=0.1, contradict=0.7)
    )
    assert judged.features["opposite_reads_alike"] == 0.0 and judged.support_prob > 0.0
    # a quotation is told apart by its words
    quoted = "Velocity is a scalar quantity, whereas speed is a vector."
    judged = judge(
        claim, quoted, (0, len(quoted)), 1.0, reads, opposite=NLIScores(entail=0.95, neutral=0.0, contradict=0.05)
    )
    assert judged.features["opposite_reads_alike"] == 0.0


def test_verification_reads_the_claims_opposite_against_a_sentence_that_states_both():
    from veriground.backends.lexical_nli import LexicalNLIModel
    from veriground.engine import verify_text
    from veriground.evidence.gather import PackEvidence
    from veriground.schema import DisplayVerdict, EvidencePack, PackPassage

    config = load_config(None, {"models.nli": "lexical"}, environ={})
    unit = "The variable v for velocity is bold because it is a vector, unlike speed, which is a scalar quantity."
    pack = EvidencePack(passages=(PackPassage(passage_id="p1", text=unit),))
    report = verify_text("Velocity is a scalar quantity.", config=config, source=PackEvidence(pack, config.retrieval),
                         nli=LexicalNLIModel())  # fmt: skip
    (claim,) = report.claims
    units = [unit for signal in claim.signals.nli for unit in signal.units]
    assert any(unit.features["opposite_reads_alike"] == 1.0 for unit in units)
    assert claim.decision.status != DisplayVerdict.SUPPORTED
