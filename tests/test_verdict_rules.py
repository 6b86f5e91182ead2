"""The decision rules as a table: each row of seed 000's Conflict Resolution Policy, then every rule."""

from __future__ import annotations

import pytest

from veriground.config import VerificationConfig
from veriground.schema import (
    EvidenceJudgement,
    RejectionReason,
    SignalStatus,
    SourceType,
    SupportJudgement,
    VerificationStatus,
)
from veriground.verdicts.evidence_summary import QuotationFinding, summarize_evidence
from veriground.verdicts.rules import RULES, decide

# Seed 000's decision tree: the thresholds its conflict table was written for (the shipped defaults read calibrated
# probabilities with thresholds chosen on dev data; test_verdict_semantics.py covers them).
SEED = VerificationConfig(
    min_entailment_prob=0.60, weak_entailment_prob=0.60, max_contradiction_prob=0.30, min_supporting_sources=2
)

VERIFIED, LOW, REJECTED = VerificationStatus.VERIFIED, VerificationStatus.LOW_CONFIDENCE, VerificationStatus.REJECTED


def judged(*rows: tuple[str, float, float]) -> list[EvidenceJudgement]:
    """(source_id, entailment, contradiction) per passage; passage ids p0, p1, ..."""
    return [
        EvidenceJudgement(
            passage_id=f"p{index}",
            source_id=source,
            source_type=SourceType.TEXTBOOK,
            entailment_prob=entail,
            contradiction_prob=contra,
        )
        for index, (source, entail, contra) in enumerate(rows)
    ]


SEED_TABLE = [
    # scenario, evidence, status, reason  (seed 000 "Conflict Resolution Policy", same numbers)
    (
        "strong consensus",
        judged(("a", 0.85, 0.10), ("b", 0.80, 0.05), ("c", 0.70, 0.02)),
        VERIFIED,
        RejectionReason.SUFFICIENT_EVIDENCE,
    ),
    ("weak consensus", judged(("a", 0.65, 0.15), ("b", 0.62, 0.10)), VERIFIED, RejectionReason.SUFFICIENT_EVIDENCE),
    ("single source", judged(("a", 0.90, 0.05), ("a", 0.70, 0.01)), LOW, RejectionReason.INSUFFICIENT_SOURCES),
    (
        "conflicting evidence",
        judged(("a", 0.75, 0.05), ("b", 0.70, 0.10), ("c", 0.10, 0.45)),
        LOW,
        RejectionReason.CONFLICTING_VERDICTS,
    ),
    ("no strong support", judged(("a", 0.50, 0.20), ("b", 0.40, 0.10)), REJECTED, RejectionReason.LOW_ENTAILMENT),
    ("no evidence", [], REJECTED, RejectionReason.NO_EVIDENCE),
]


@pytest.mark.parametrize(("scenario", "evidence", "status", "reason"), SEED_TABLE, ids=[row[0] for row in SEED_TABLE])
def test_seed_conflict_resolution_table(scenario, evidence, status, reason):
    config = SEED
    decision = decide(summarize_evidence(evidence, config), config)
    assert (decision.status, decision.reason) == (status, reason)


def test_the_summary_keeps_the_values_the_rules_read():
    config = SEED
    inputs = summarize_evidence(judged(("a", 0.75, 0.05), ("b", 0.70, 0.10), ("c", 0.10, 0.45)), config)
    assert (inputs.max_entailment, inputs.max_contradiction, inputs.entailing_sources) == (0.75, 0.45, 2)
    assert (inputs.strongest_entailment_passage, inputs.strongest_contradiction_passage) == ("p0", "p2")


def test_same_source_cited_twice_counts_once_but_source_type_distinguishes():
    config = SEED
    evidence = judged(("a", 0.9, 0.0), ("a", 0.8, 0.0))
    assert summarize_evidence(evidence, config).entailing_sources == 1
    relabelled = [evidence[0], evidence[1].model_copy(update={"source_type": SourceType.LECTURE_NOTES})]
    assert summarize_evidence(relabelled, config).entailing_sources == 2


def test_unavailable_nli_gives_unverified_never_supported():
    config = SEED
    inputs = summarize_evidence(
        judged(("a", 0.9, 0.0), ("b", 0.9, 0.0)), config, nli_status=SignalStatus.UNAVAILABLE, nli_reason="timeout"
    )
    decision = decide(inputs, config)
    assert (decision.rule, decision.status, decision.reason) == (
        "nli-unavailable",
        VerificationStatus.UNVERIFIED,
        RejectionReason.SIGNAL_UNAVAILABLE,
    )
    assert decision.inputs.nli_reason == "timeout"


def test_contradiction_from_the_entailing_passage_itself_is_high_contradiction():
    config = SEED
    decision = decide(summarize_evidence(judged(("a", 0.70, 0.40), ("b", 0.65, 0.10)), config), config)
    assert (decision.rule, decision.reason) == ("high-contradiction", RejectionReason.HIGH_CONTRADICTION)


def test_thresholds_come_from_config():
    evidence = judged(("a", 0.65, 0.15), ("b", 0.62, 0.10))
    strict = SEED.model_copy(update={"min_entailment_prob": 0.7, "weak_entailment_prob": 0.7})
    lenient = SEED.model_copy(update={"min_supporting_sources": 1})
    assert decide(summarize_evidence(evidence, strict), strict).reason == RejectionReason.LOW_ENTAILMENT
    single = judged(("a", 0.90, 0.05))
    assert decide(summarize_evidence(single, lenient), lenient).status == VERIFIED


SUPPORTED = judged(("a", 0.85, 0.10), ("b", 0.80, 0.05))
FINDINGS_TABLE = [
    # rule, evidence, findings, status, reason  (the rules seed 000's tree lacks)
    (
        "dangling-citation",
        SUPPORTED,
        {"dangling_citations": ["doc#000000000000"]},
        REJECTED,
        RejectionReason.DANGLING_CITATION,
    ),
    ("numeric-mismatch", SUPPORTED, {"numeric_outcome": "mismatch"}, REJECTED, RejectionReason.NUMERIC_MISMATCH),
    ("contradicted", judged(("a", 0.10, 0.75), ("b", 0.30, 0.05)), {}, REJECTED, RejectionReason.HIGH_CONTRADICTION),
    ("evidence-conflict", SUPPORTED, {"high_evidence_conflicts": 1}, LOW, RejectionReason.EVIDENCE_CONFLICT),
    (
        "substituted-words",
        SUPPORTED,
        {"substituted": ([("joule", "newton")], "a")},
        LOW,
        RejectionReason.SUBSTITUTED_WORDS,
    ),
    ("scrambled-words", SUPPORTED, {"scrambled_words": True}, LOW, RejectionReason.SCRAMBLED_WORDS),
    (
        "dropped-restriction",
        SUPPORTED,
        {"dropped_restriction": ("only in a vacuum", "a", (0, 47))},
        LOW,
        RejectionReason.DROPPED_RESTRICTION,
    ),
    ("pieced-support", SUPPORTED, {"pieced_support": ("a", (0, 40))}, LOW, RejectionReason.PIECED_SUPPORT),
    # Support read only across statements is none against a sentence that contradicts the claim more strongly ...
    (
        "contradicted",
        judged(("a", 0.85, 0.10), ("a", 0.30, 0.90)),
        {"pieced_support": ("a", (0, 40))},
        REJECTED,
        RejectionReason.HIGH_CONTRADICTION,
    ),
    # ... where support a statement gives outweighs it (the same source's misreading: listed, not counted; one source
    # is too few under the seed's two).
    (
        "insufficient-sources",
        judged(("a", 0.85, 0.10), ("a", 0.30, 0.90)),
        {},
        LOW,
        RejectionReason.INSUFFICIENT_SOURCES,
    ),
    # Sources that give the claim's equations or bounds outweigh a reading of windows, as a quotation does.
    (
        "formal-match",
        SUPPORTED,
        {"pieced_support": ("a", (0, 40)), "formal_matches": SUPPORTED},
        VERIFIED,
        RejectionReason.SUFFICIENT_EVIDENCE,
    ),
    # A sentence stating the claim's comparison the other way round contradicts it, however well the NLI reads it ...
    (
        "reversed-relation",
        SUPPORTED,
        {"reversed_relation": ("B is greater than A.", "b", (0, 20))},
        REJECTED,
        RejectionReason.HIGH_CONTRADICTION,
    ),
    # ... unless a source states the claim word for word: a quotation outweighs a reading of another sentence.
    (
        "quoted",
        SUPPORTED,
        {"reversed_relation": ("B is greater than A.", "b", (0, 20)), "quoting": SUPPORTED},
        VERIFIED,
        RejectionReason.SUFFICIENT_EVIDENCE,
    ),
    # A sentence that sources state word for word is no swap of them, whatever unit the NLI liked best.
    (
        "quoted",
        judged(("a", 0.2, 0.0), ("b", 0.2, 0.0)),
        {
            "substituted": ([("joule", "newton")], "a"),
            "scrambled_words": True,
            "quoting": judged(("a", 0.2, 0.0), ("b", 0.2, 0.0)),
        },
        VERIFIED,
        RejectionReason.SUFFICIENT_EVIDENCE,
    ),
    # Sources that give every equation of the claim support it, as a quotation does, whatever the NLI reads ...
    (
        "formal-match",
        judged(("a", 0.2, 0.0), ("b", 0.2, 0.0)),
        {"formal_matches": judged(("a", 0.2, 0.0), ("b", 0.2, 0.0))},
        VERIFIED,
        RejectionReason.SUFFICIENT_EVIDENCE,
    ),
    # ... but not from fewer sources than a Supported claim needs ...
    (
        "low-entailment",
        judged(("a", 0.2, 0.0)),
        {"formal_matches": judged(("a", 0.2, 0.0))},
        REJECTED,
        RejectionReason.LOW_ENTAILMENT,
    ),
    # ... nor against a source independent of them that contradicts the claim ...
    (
        "contradicted",
        judged(("a", 0.2, 0.0), ("b", 0.2, 0.0), ("c", 0.1, 0.9)),
        {"formal_matches": judged(("a", 0.2, 0.0), ("b", 0.2, 0.0))},
        REJECTED,
        RejectionReason.HIGH_CONTRADICTION,
    ),
    # ... while a passage of a source that gives the equation is a misreading.
    (
        "formal-match",
        judged(("a", 0.2, 0.0), ("b", 0.2, 0.0), ("a", 0.1, 0.9)),
        {"formal_matches": judged(("a", 0.2, 0.0), ("b", 0.2, 0.0))},
        VERIFIED,
        RejectionReason.SUFFICIENT_EVIDENCE,
    ),
    # A swapped word lowers only a claim that would be Supported: unsupported stays unsupported.
    (
        "low-entailment",
        judged(("a", 0.10, 0.05)),
        {"substituted": ([("joule", "newton")], "a")},
        REJECTED,
        RejectionReason.LOW_ENTAILMENT,
    ),
    # A quotation no passage holds: words close to it in a passage are what it misquotes, however well the NLI reads
    # the claim; with none close, nothing holds what it quotes. A quotation outweighs no quotation check.
    (
        "misquoted",
        SUPPORTED,
        {
            "quotation": QuotationFinding(
                "specific battery issue that", "b", (4, 41), "specific electrical issue that", 0.8
            )
        },
        REJECTED,
        RejectionReason.MISQUOTED,
    ),
    (
        "quotation-not-found",
        SUPPORTED,
        {"quotation": QuotationFinding("a marked man for life")},
        REJECTED,
        RejectionReason.QUOTATION_NOT_FOUND,
    ),
    (
        "quotation-not-found",
        SUPPORTED,
        {"quotation": QuotationFinding("a marked man for life"), "quoting": SUPPORTED},
        REJECTED,
        RejectionReason.QUOTATION_NOT_FOUND,
    ),
    # Another term of the same kind where the sentence about the claim has one: whatever the NLI reads.
    (
        "swapped-term",
        SUPPORTED,
        {"swapped_term": (("Friday", "Thursday"), "weekday", "a", (0, 57))},
        REJECTED,
        RejectionReason.SWAPPED_TERM,
    ),
    # Supported, but no supporting unit states the claim's formula: weak; a source quoting the claim states it.
    (
        "unstated-formula",
        SUPPORTED,
        {"unstated_formula": ("n!", "a")},
        LOW,
        RejectionReason.UNSTATED_FORMULA,
    ),
    (
        "quoted",
        SUPPORTED,
        {"unstated_formula": ("n!", "a"), "quoting": SUPPORTED},
        VERIFIED,
        RejectionReason.SUFFICIENT_EVIDENCE,
    ),
    ("sufficient-evidence", SUPPORTED, {"numeric_outcome": "match"}, VERIFIED, RejectionReason.SUFFICIENT_EVIDENCE),
    ("no-evidence", [], {"numeric_outcome": "mismatch"}, REJECTED, RejectionReason.NO_EVIDENCE),
    (
        "llm-judge-contradicted",
        SUPPORTED,
        {"llm_judgements": [SupportJudgement(claim="c", passage_id="p1", label="contradicted")]},
        REJECTED,
        RejectionReason.HIGH_CONTRADICTION,
    ),
    (
        "llm-judge-disagrees",
        SUPPORTED,
        {"llm_judgements": [SupportJudgement(claim="c", passage_id="p0", label="unsupported")]},
        LOW,
        RejectionReason.CONFLICTING_VERDICTS,
    ),
]


@pytest.mark.parametrize(
    ("rule", "evidence", "findings", "status", "reason"), FINDINGS_TABLE, ids=[row[0] for row in FINDINGS_TABLE]
)
def test_citation_numeric_and_conflict_findings(rule, evidence, findings, status, reason):
    config = SEED
    decision = decide(summarize_evidence(evidence, config, **findings), config)
    assert (decision.rule, decision.status, decision.reason) == (rule, status, reason)


def test_every_rule_is_reachable_and_the_table_ends_with_a_catch_all():
    fired = set()
    config = SEED
    cases = [row[1] for row in SEED_TABLE] + [judged(("a", 0.70, 0.40), ("b", 0.65, 0.10))]
    for evidence in cases:
        fired.add(decide(summarize_evidence(evidence, config), config).rule)
    for _, evidence, findings, _, _ in FINDINGS_TABLE:
        fired.add(decide(summarize_evidence(evidence, config, **findings), config).rule)
    unavailable = summarize_evidence(judged(("a", 0.9, 0.0)), config, nli_status=SignalStatus.UNAVAILABLE)
    fired.add(decide(unavailable, config).rule)
    banded = SEED.model_copy(update={"weak_entailment_prob": 0.4})
    fired.add(decide(summarize_evidence(judged(("a", 0.5, 0.1)), banded), banded).rule)
    for extra in (
        {"formal_mismatches": ("E = mc^3 is dimensionally inconsistent",)},
        {"out_of_scope": "'quantum tunneling' is beyond the profile"},
        {"substituted": ([("joule", "newton")], "a")},
        {"scrambled_words": True},
        {"pieced_support": ("a", (0, 40))},
        {"dropped_restriction": ("only in a vacuum", "a", (0, 47))},
        {"quoting": judged(("a", 0.2, 0.1), ("b", 0.2, 0.1))},
        {"quotation": QuotationFinding("four words in quotes", "a", (0, 19), "four words in quote", 0.875)},
        {"quotation": QuotationFinding("four words in quotes")},
        {"swapped_term": (("Moscow", "London"), "name", "a", (0, 30))},
        {"unstated_formula": ("2^n", "a")},
    ):
        fired.add(decide(summarize_evidence(judged(("a", 0.9, 0.0), ("b", 0.9, 0.0)), config, **extra), config).rule)
    quotes = judged(("a", 0.2, 0.0), ("b", 0.2, 0.0))
    disputed = summarize_evidence([*quotes, *judged(("c", 0.1, 0.9))], config, quoting=quotes)
    fired.add(decide(disputed, config).rule)
    strict = SEED.model_copy(update={"strict_dependencies": True})
    supported = judged(("a", 0.9, 0.0), ("b", 0.9, 0.0))
    warned = summarize_evidence(supported, strict, dependency_warning="'Re' is undefined")
    fired.add(decide(warned, strict).rule)
    stale = summarize_evidence(supported, config, superseded_citations=("d#000000000001",))
    fired.add(decide(stale, config).rule)
    assert fired == {rule.name for rule in RULES}
    assert RULES[-1].name == "sufficient-evidence"


def test_a_rationale_never_prints_a_value_equal_to_the_threshold_it_fell_short_of():
    from veriground.schema import DecisionInputs, RejectionReason, RuleName, SignalStatus, VerificationStatus
    from veriground.verdicts.explain import rationale
    from veriground.verdicts.rules import Decision

    config = VerificationConfig(min_entailment_prob=0.75, weak_entailment_prob=0.50, max_contradiction_prob=0.50)
    inputs = DecisionInputs(
        evidence_count=1, nli_status=SignalStatus.COMPUTED, max_entailment=0.498, max_contradiction=0.0
    )
    decision = Decision(RuleName.LOW_ENTAILMENT, VerificationStatus.REJECTED, RejectionReason.LOW_ENTAILMENT, inputs)
    assert rationale(decision, config).endswith("best support 0.498 < 0.50")


def test_a_supported_claims_rationale_never_says_a_contradiction_above_the_threshold_is_below_it():
    """A passage of a supporting source that reads as contradicting the claim is listed, not counted: the rationale
    says so rather than "contradiction 0.62 <= 0.50"."""
    from veriground.verdicts.explain import rationale

    config = VerificationConfig(min_entailment_prob=0.75, weak_entailment_prob=0.50, max_contradiction_prob=0.50)
    same_source = summarize_evidence(judged(("a", 0.96, 0.0), ("a", 0.10, 0.62)), config)
    decision = decide(same_source, config)
    assert decision.rule == "sufficient-evidence"
    text = rationale(decision, config)
    assert "p1 reads as contradicting it (0.62 > 0.50), but it is a passage of a source that supports" in text
    assert "<=" not in text
    quiet = decide(summarize_evidence(judged(("a", 0.96, 0.1)), config), config)
    assert rationale(quiet, config).endswith("contradiction 0.10 <= 0.50")
