"""Claim and signal records: claims, their evidence spans, each signal family's output, tier-2 judgements,
evidence conflicts, domain profiles and dependency warnings."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from veriground.schema.base import ClaimType, DocId, PassageId, Record, SignalStatus


class Claim(Record):
    claim_id: str
    answer_id: str
    text: str
    answer_char_span: tuple[int, int]
    extraction_method: str
    claim_type: ClaimType | None = None
    parent_claim_id: str | None = None
    atomicity_rule: str | None = None
    cited_ids: tuple[str, ...] = ()


class EvidenceSpan(Record):
    """An evidence sentence; unlike EvidenceChunk, its char offsets index the passage text, not the document."""

    doc_id: DocId
    sent_id: int
    text: str
    rank: int
    passage_id: PassageId | None = None
    char_start: int | None = None
    char_end: int | None = None


class AlignedSpan(Record):
    """An evidence sentence and the share of the claim's content stems and numbers it contains
    (evidence/spans.py); shared by the engine and the evidence-conflict signal."""

    span: EvidenceSpan
    alignment: float = Field(ge=0, le=1)


class ClaimEvidencePair(Record):
    claim_id: str
    evidence_candidates: tuple[PassageId, ...]
    top_evidence: PassageId | None
    evidence_spans: tuple[EvidenceSpan, ...]


class NLIScores(Record):
    entail: float = Field(ge=0, le=1)
    contradict: float = Field(ge=0, le=1)
    neutral: float = Field(ge=0, le=1)


class SignalRecord(Record):
    """Base of one signal family's output: computed, not applicable, or unavailable with the reason."""

    status: SignalStatus
    reason: str | None = None  # why it is not_applicable or unavailable


class UnitJudgement(Record):
    """One evidence unit (a sentence or a 2-3-sentence window of a passage) read against a claim: the NLI's raw
    probabilities, the signal values the aggregator combined, and the calibrated probabilities it gave."""

    char_start: int = Field(ge=0)  # offsets into the passage text
    char_end: int = Field(ge=0)
    alignment: float = Field(ge=0, le=1)  # share of the claim's content stems and numbers the unit contains
    sentences: int = Field(1, ge=1)  # a sentence, or a window of 2-3
    shared_terms: int = Field(0, ge=0)  # how many of the claim's content stems and numbers the unit contains
    entailment_prob: float = Field(ge=0, le=1)  # the NLI model's, raw
    contradiction_prob: float = Field(ge=0, le=1)
    features: dict[str, float] = Field(default_factory=dict)  # what the aggregator read, by name
    support_prob: float = Field(ge=0, le=1)  # calibrated P(the unit supports the claim)
    refute_prob: float = Field(ge=0, le=1)  # calibrated P(the unit contradicts it); 0 for a unit not about the claim


class NLISignal(SignalRecord):
    """Entailment evidence for one claim (hypothesis) against one passage (premise): the raw NLI probabilities of
    its best-supporting unit, and the calibrated support and refutation of the passage (its units' maxima)."""

    passage_id: PassageId | None = None
    entailment_prob: float | None = Field(None, ge=0, le=1)
    neutral_prob: float | None = Field(None, ge=0, le=1)
    contradiction_prob: float | None = Field(None, ge=0, le=1)
    model: str  # backend name, e.g. "lexical-nli.v1"; reports show which NLI judged
    support_prob: float | None = Field(None, ge=0, le=1)
    refute_prob: float | None = Field(None, ge=0, le=1)
    aggregator: str | None = None  # what turned unit signals into support/refute probabilities
    units: tuple[UnitJudgement, ...] = ()  # the units read, best-supporting first


class CoverageSignal(SignalRecord):
    """How much of the claim's content the evidence mentions."""

    entity_coverage: float | None = Field(None, ge=0, le=1)
    number_coverage: float | None = Field(None, ge=0, le=1)
    token_coverage: float | None = Field(None, ge=0, le=1)
    jaccard: float | None = Field(None, ge=0, le=1)
    missing_terms: tuple[str, ...] = ()


class NumericSignal(SignalRecord):
    """Numbers with units in the claim, compared with those in the evidence after unit normalisation."""

    outcome: Literal["match", "mismatch", "absent"] | None = None
    claim_quantities: tuple[str, ...] = ()
    evidence_quantities: tuple[str, ...] = ()
    mismatches: tuple[str, ...] = ()  # "claim 3.0e9 m/s vs evidence 3.0e8 m/s"


class CitationSignal(SignalRecord):
    """Whether a claim's own citations resolve, are in the evidence pack and overlap the claim."""

    cited_ids: tuple[str, ...] = ()
    dangling_ids: tuple[str, ...] = ()
    outside_pack_ids: tuple[str, ...] = ()
    overlap_ratio: float | None = Field(None, ge=0, le=1)
    superseded_ids: tuple[str, ...] = ()  # cited passages the latest version of their document no longer holds


FormalOutcome = Literal[
    "ok", "dimension_mismatch", "unit_dimension_mismatch", "equation_mismatch", "complexity_mismatch", "out_of_range"
]


class FormalCheck(Record):
    """One formal check of a claim (issue 17): what was compared, its outcome and why, in one line."""

    check: Literal["dimensions", "unit_dimension", "equation", "complexity", "constants"]
    outcome: FormalOutcome
    reason: str  # "the evidence gives O(n^2) for quicksort's worst case; the claim says O(n log n)"
    claim_span: tuple[int, int]  # character offsets into the claim text
    claim_value: str | None = None  # "O(n log n)", "kg·m^3/s^3", "3.0e9 m/s"
    evidence_index: int | None = Field(None, ge=0)  # position in the evidence texts compared with
    evidence_span: tuple[int, int] | None = None  # character offsets into that evidence text
    evidence_value: str | None = None


class FormalSignal(Record):
    """Formal checks (units, dimensions, equations, complexity bounds, constants) of one claim under a domain
    profile. `unparsed` means the claim holds an equation or bound that could not be read: a status, never a verdict."""

    status: Literal["computed", "not_applicable", "unparsed"]
    reason: str | None = None  # one line: the first mismatch, what was checked, why nothing applied or what failed
    domain: str = "general"
    checks: tuple[FormalCheck, ...] = ()
    unparsed: tuple[str, ...] = ()  # one line per equation or bound that could not be read
    evidence_conflicts: tuple[str, ...] = ()  # seed T5: two evidence texts give different bounds for one case

    @property
    def mismatches(self) -> tuple[FormalCheck, ...]:
        return tuple(check for check in self.checks if check.outcome != "ok")


ProfileHook = Literal["pre_verification", "evidence_match", "quality_gate"]
ProfileOutcome = Literal[
    "ok", "claim_type_not_allowed", "out_of_scope", "evidence_type_missing", "units_missing", "equation_unparsed"
]


class ProfileSignal(Record):
    """A domain profile hook's finding for one claim (issue 17): before verification (claim type, scope), on the
    evidence (the kind of evidence the claim type needs), or after it (units present, equations parse)."""

    hook: ProfileHook
    status: Literal["computed", "not_applicable"]
    outcome: ProfileOutcome
    reason: str  # one line
    domain: str
    claim_type: ClaimType | None = None
    claim_span: tuple[int, int] | None = None  # the words that decided it, offsets into the claim text


class SupportJudgement(Record):
    """Tier-2 (seed 004 §3.6): an LLM's judgement of whether one passage supports one claim. On any error the
    judgement is `unavailable` with the reason, and the tier-1 signals decide alone."""

    claim: str
    passage_id: PassageId
    label: Literal["supported", "unsupported", "contradicted", "unavailable"]
    rationale: str = ""
    fallback_reason: str | None = None


class ConflictJudgement(Record):
    """Tier-2: an LLM's judgement of whether two evidence passages contradict each other."""

    passage_a: PassageId
    passage_b: PassageId
    label: Literal["conflict", "no_conflict", "unavailable"]
    rationale: str = ""
    fallback_reason: str | None = None


class EvidenceConflict(Record):
    """Two evidence sentences for one claim that disagree with each other (seed 004 §3.6)."""

    claim_id: str
    passage_a: PassageId
    passage_b: PassageId
    sentence_a: str
    sentence_b: str
    kind: Literal["negation", "antonym", "numeric", "nli"]
    contradiction_prob: float = Field(ge=0, le=1)
    severity: Literal["high", "low"]


class ClaimSignals(Record):
    """Every signal computed for one claim; each carries its own status and reason."""

    nli: tuple[NLISignal, ...]
    coverage: CoverageSignal
    numeric: NumericSignal
    citation: CitationSignal
    llm_judgements: tuple[SupportJudgement, ...] = ()  # tier 2; empty when no LLM judge ran
    llm_conflict_judgements: tuple[ConflictJudgement, ...] = ()  # tier 2 on this claim's evidence conflicts
    formal: FormalSignal | None = None  # units, dimensions, equations, bounds, constants (domain profile)
    profile: tuple[ProfileSignal, ...] = ()  # the domain profile's hooks: scope, evidence type, quality gates


class DomainProfile(Record):
    name: str
    display_name: str
    allowed_claim_types: tuple[ClaimType, ...]
    evidence_type_expectations: dict[ClaimType, list[str]]
    require_units: bool
    require_proof_steps: bool
    require_pseudocode: bool
    require_equations: bool
    strict_dependencies: bool


class DependencyWarning(Record):
    """A term a claim uses before the text defines it, or that the text never defines (claims/dependencies.py).
    `first_definition_claim_id` is the defining claim of a forward reference, None when the text defines nothing;
    `info` marks a term only the corpus defines."""

    claim_id: str
    term: str
    first_definition_claim_id: str | None = None
    kind: Literal["forward_reference", "undefined", "defined_in_corpus_only"]
    severity: Literal["info", "warning"] = "warning"
    reason: str  # one line, e.g. "Re is used here but first defined in claim c_0042"
