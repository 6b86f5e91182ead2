"""The verdict vocabulary, defined once: what a rule decides (seed 000 status and reason code), what the user reads
(seed 001 display verdict), how sure it is (confidence band) and what an answer's confidence is (seed 003 §7).

Every value is a `StrEnum`, so a record serialises it as its plain string ("Supported", "REJECTED") and reports
are unchanged; code compares members (`status is DisplayVerdict.SUPPORTED`), never string literals. The
derivations between the levels live here too, so nothing downstream re-derives them:

    status + reason   --display_verdict_of-->   DisplayVerdict   --is_passing / is_hallucinated-->   gates
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum


class SignalStatus(StrEnum):
    COMPUTED = "computed"
    NOT_APPLICABLE = "not_applicable"
    UNAVAILABLE = "unavailable"


class VerificationStatus(StrEnum):
    """Seed 000 statuses, plus UNVERIFIED when a needed signal could not be computed."""

    VERIFIED = "VERIFIED"
    LOW_CONFIDENCE = "LOW_CONFIDENCE"
    REJECTED = "REJECTED"
    UNVERIFIED = "UNVERIFIED"


class RejectionReason(StrEnum):
    """Seed 000 reason codes (`RejectionReason`), plus the codes of the verified and unverified paths."""

    NO_EVIDENCE = "no_evidence"
    LOW_ENTAILMENT = "low_entailment"
    INSUFFICIENT_SOURCES = "insufficient_sources"
    HIGH_CONTRADICTION = "high_contradiction"
    CONFLICTING_VERDICTS = "conflicting_verdicts"
    SUFFICIENT_EVIDENCE = "sufficient_evidence"
    SIGNAL_UNAVAILABLE = "signal_unavailable"
    DANGLING_CITATION = "dangling_citation"
    NUMERIC_MISMATCH = "numeric_mismatch"
    EVIDENCE_CONFLICT = "evidence_conflict"
    FORMAL_MISMATCH = "formal_mismatch"  # units, dimensions, an equation or a complexity bound disagree
    OUT_OF_SCOPE = "out_of_scope"  # beyond the domain profile's scope
    DEPENDENCY_WARNING = "dependency_warning"  # uses a term before or without its definition (strict mode)
    SUPERSEDED_CITATION = "superseded_citation"  # cites a passage its document has since changed or removed
    SUBSTITUTED_WORDS = "substituted_words"  # a near copy of its source with a word swapped for another
    SCRAMBLED_WORDS = "scrambled_words"  # its source's words in another order
    PIECED_SUPPORT = "pieced_support"  # held only by sentences that each state something else, read together
    DROPPED_RESTRICTION = "dropped_restriction"  # its source says it only with a restriction it leaves out
    MISQUOTED = "misquoted"  # it quotes words its source states otherwise
    QUOTATION_NOT_FOUND = "quotation_not_found"  # it quotes words no evidence passage holds
    SWAPPED_TERM = "swapped_term"  # another day, colour, ordinal or name where its source sentence has one
    UNSTATED_FORMULA = "unstated_formula"  # the sentences that support it do not state its formula


class DisplayVerdict(StrEnum):
    """Seed 001 display verdicts: what a report, the page and the CLI show for a claim. Declared best first."""

    SUPPORTED = "Supported"
    LOW_CONFIDENCE = "Low Confidence"
    UNVERIFIED = "Unverified"
    UNSUPPORTED = "Unsupported"
    CONTRADICTORY = "Contradictory"


class ConfidenceBand(StrEnum):
    """The band of a claim's overall confidence (verdicts/explain.py sets the cut points)."""

    HIGH = "High"
    MEDIUM = "Medium"
    LOW = "Low"


class AnswerConfidence(StrEnum):
    """Seed 003 §7 answer-level confidence labels."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    INSUFFICIENT_EVIDENCE = "insufficient_evidence"


class RuleName(StrEnum):
    """The rules of the decision table (verdicts/rules.py), in the order they are tried; a report's `rule`."""

    DANGLING_CITATION = "dangling-citation"
    NO_EVIDENCE = "no-evidence"
    NUMERIC_MISMATCH = "numeric-mismatch"
    FORMAL_MISMATCH = "formal-mismatch"
    MISQUOTED = "misquoted"
    QUOTATION_NOT_FOUND = "quotation-not-found"
    SWAPPED_TERM = "swapped-term"
    UNSTATED_FORMULA = "unstated-formula"
    REVERSED_RELATION = "reversed-relation"
    LLM_JUDGE_CONTRADICTED = "llm-judge-contradicted"
    NLI_UNAVAILABLE = "nli-unavailable"
    OUT_OF_SCOPE = "out-of-scope"
    SUPERSEDED_CITATION = "superseded-citation"
    DEPENDENCY_WARNING = "dependency-warning"
    SUBSTITUTED_WORDS = "substituted-words"
    SCRAMBLED_WORDS = "scrambled-words"
    DROPPED_RESTRICTION = "dropped-restriction"
    PIECED_SUPPORT = "pieced-support"
    QUOTED = "quoted"
    QUOTE_DISPUTED = "quote-disputed"
    FORMAL_MATCH = "formal-match"
    CONTRADICTED = "contradicted"
    LOW_ENTAILMENT = "low-entailment"
    WEAK_SUPPORT = "weak-support"
    INSUFFICIENT_SOURCES = "insufficient-sources"
    CONFLICTING_VERDICTS = "conflicting-verdicts"
    HIGH_CONTRADICTION = "high-contradiction"
    EVIDENCE_CONFLICT = "evidence-conflict"
    LLM_JUDGE_DISAGREES = "llm-judge-disagrees"
    SUFFICIENT_EVIDENCE = "sufficient-evidence"


# Rules that reject a claim whatever the NLI reads. Such a claim's confidence is not the NLI's but how often the rule
# is right: the share of calibration rows it rejected that were supported (verification.hard_rejection_support).
HARD_REJECTIONS = frozenset(
    {
        RuleName.DANGLING_CITATION,
        RuleName.NUMERIC_MISMATCH,
        RuleName.FORMAL_MISMATCH,
        RuleName.MISQUOTED,
        RuleName.QUOTATION_NOT_FOUND,
        RuleName.SWAPPED_TERM,
        RuleName.REVERSED_RELATION,
        RuleName.NO_EVIDENCE,
        RuleName.LLM_JUDGE_CONTRADICTED,
    }
)
# A rejection for one of these reasons means the evidence says otherwise (Contradictory); any other rejection means
# nothing supports the claim (Unsupported).
CONTRADICTING_REASONS = frozenset(
    {
        RejectionReason.HIGH_CONTRADICTION,
        RejectionReason.NUMERIC_MISMATCH,
        RejectionReason.FORMAL_MISMATCH,
        RejectionReason.MISQUOTED,
        RejectionReason.SWAPPED_TERM,
    }
)
# Verdicts a reader must not take as established: a wrong, unbacked or unchecked claim (hallucination metrics).
HALLUCINATED_VERDICTS = frozenset({DisplayVerdict.CONTRADICTORY, DisplayVerdict.UNSUPPORTED, DisplayVerdict.UNVERIFIED})
# Worst first: the verdict a group of claims (a sentence, an answer) takes when its claims disagree.
WORST_FIRST: tuple[DisplayVerdict, ...] = (
    DisplayVerdict.CONTRADICTORY,
    DisplayVerdict.UNVERIFIED,
    DisplayVerdict.UNSUPPORTED,
    DisplayVerdict.LOW_CONFIDENCE,
    DisplayVerdict.SUPPORTED,
)


def display_verdict_of(status: VerificationStatus, reason: RejectionReason) -> DisplayVerdict:
    """Seed 000 status and reason -> seed 001 display verdict: VERIFIED is Supported, LOW_CONFIDENCE Low Confidence,
    UNVERIFIED Unverified; REJECTED is Contradictory when the evidence says otherwise, else Unsupported."""
    if status == VerificationStatus.VERIFIED:
        return DisplayVerdict.SUPPORTED
    if status == VerificationStatus.LOW_CONFIDENCE:
        return DisplayVerdict.LOW_CONFIDENCE
    if status == VerificationStatus.UNVERIFIED:
        return DisplayVerdict.UNVERIFIED
    return DisplayVerdict.CONTRADICTORY if reason in CONTRADICTING_REASONS else DisplayVerdict.UNSUPPORTED


def worst_verdict(verdicts: Iterable[str]) -> DisplayVerdict | None:
    """The worst of `verdicts` in WORST_FIRST order; None for none."""
    present = set(verdicts)
    return next((verdict for verdict in WORST_FIRST if verdict in present), None)
