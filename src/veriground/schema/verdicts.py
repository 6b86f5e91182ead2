"""Verdict and report records: the values the rules read, each claim's decision, the annotated answer (seed 001),
citations, the manifest and the verification report."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from veriground.schema.base import PassageId, Record, SourceType
from veriground.schema.claims import Claim, ClaimEvidencePair, ClaimSignals, DependencyWarning, EvidenceConflict
from veriground.schema.corpus import EvidenceChunk
from veriground.schema.vocabulary import (
    ConfidenceBand,
    DisplayVerdict,
    RejectionReason,
    RuleName,
    SignalStatus,
    VerificationStatus,
)


class DecisionConfidence(Record):
    support_prob: float | None = Field(None, ge=0, le=1)
    contradict_prob: float | None = Field(None, ge=0, le=1)
    overall_confidence: float | None = Field(None, ge=0, le=1)
    band: ConfidenceBand | None = None


class EvidenceJudgement(Record):
    """One passage's NLI verdict on a claim, with the source it counts towards."""

    passage_id: PassageId
    source_id: str
    source_type: SourceType
    entailment_prob: float = Field(ge=0, le=1)  # calibrated support (raw NLI entailment without an aggregator)
    contradiction_prob: float = Field(ge=0, le=1)
    content_sha256: str | None = None  # the document's bytes: byte-identical files are one source


class DecisionInputs(Record):
    """The values the decision rules read for one claim, kept so a report can say why."""

    evidence_count: int = Field(ge=0)
    nli_status: SignalStatus
    nli_reason: str | None = None
    max_entailment: float | None = Field(None, ge=0, le=1)
    max_contradiction: float | None = Field(None, ge=0, le=1)
    entailing_sources: int = Field(0, ge=0)  # independent sources (same content = one source) that entail
    supporting_passages: tuple[PassageId, ...] = ()  # passages at or above verification.min_entailment_prob
    contradiction_from_other_source: bool = False  # the most contradicting passage is independent of the supporters
    # Passages that state the sentence the claim comes from word for word, and the independent sources among them.
    quoting_passages: tuple[PassageId, ...] = ()
    quoting_sources: int = Field(0, ge=0)
    contradiction_outside_quotes: bool = False  # the most contradicting passage is independent of every quoting one
    # Passages that give every equation the claim states, the same for the same left side, or every complexity bound,
    # the same for the same algorithm, case and resource (signals/formal.py), and the independent sources among them.
    formal_match_passages: tuple[PassageId, ...] = ()
    formal_match_sources: int = Field(0, ge=0)
    contradiction_outside_formal_match: bool = False  # the most contradicting passage is independent of all of them
    formal_mismatches: tuple[str, ...] = ()  # one line per failed formal check (signals/formal.py)
    out_of_scope: str | None = None  # why the claim is beyond the domain profile's scope
    dependency_warning: str | None = None  # the first term it uses before or without a definition
    superseded_citations: tuple[str, ...] = ()  # cited passages of an older version or a removed document
    # (claim words, source words) the claim swaps into a near copy of one of its units (text/substitution.py): its
    # best-supporting unit, or another when no unit holds the claim unbroken; and that unit's passage
    substituted_words: tuple[tuple[str, str], ...] = ()
    substituted_passage: PassageId | None = None
    scrambled_words: bool = False  # the claim is its best-supporting unit's words in another order (text/word_order.py)
    # An evidence sentence that states a comparison of the claim's the other way round (text/relations.py), its
    # passage and its offsets in that passage's text.
    reversed_relation: str | None = None
    reversed_relation_passage: PassageId | None = None
    reversed_relation_span: tuple[int, int] | None = None
    # The strongest unit that supports the claim enough, and its passage, when every such unit is a window whose
    # sentences each state something of their own (evidence/units.py states_apart): the claim mixes them.
    pieced_support_passage: PassageId | None = None
    pieced_support_span: tuple[int, int] | None = None
    # What the claim leaves out of every unit that supports it enough: the words from a restrictor on ("only in a
    # vacuum", text/restrictions.py), the first such unit's passage and the sentence's offsets in that passage's text.
    dropped_restriction: str | None = None
    dropped_restriction_passage: PassageId | None = None
    dropped_restriction_span: tuple[int, int] | None = None
    # A quotation of the claim's (text/quotations.py) that no evidence passage holds word for word; and, when a
    # passage holds words close to it (MISQUOTED_SIMILARITY), that passage, the offsets of those words, the words and
    # how close they are.
    unfound_quotation: str | None = None
    misquoted_passage: PassageId | None = None
    misquoted_span: tuple[int, int] | None = None
    misquoted_words: str | None = None
    misquoted_similarity: float | None = Field(None, ge=0, le=1)
    # A term of the claim's that no evidence passage uses, where the evidence sentence about the claim has another of
    # the same kind (text/term_swaps.py): (the claim's words, the sentence's words), their kind ("weekday", "colour",
    # ..., "name"), that sentence's passage and its offsets in the passage.
    swapped_term: tuple[str, str] | None = None
    swapped_term_kind: str | None = None
    swapped_term_passage: PassageId | None = None
    swapped_term_span: tuple[int, int] | None = None
    # A formula of the claim's ("n!", "2^n", text/formulas.py) that no unit supporting it states, and the strongest
    # such unit's passage.
    unstated_formula: str | None = None
    unstated_formula_passage: PassageId | None = None
    strongest_entailment_passage: PassageId | None = None
    strongest_contradiction_passage: PassageId | None = None
    numeric_outcome: Literal["match", "mismatch", "absent"] | None = None  # None: no numbers or not computed
    dangling_citations: tuple[str, ...] = ()
    high_evidence_conflicts: int = Field(0, ge=0)  # counted only under contradiction_policy abstain_on_high
    # Tier 2 (seed 004 §3.6), None when no LLM judge ran: "contradicted" when the judge read any judged passage
    # as contradicting the claim, else its label for the strongest-entailment passage; and the passage it is about.
    llm_judge_label: Literal["supported", "unsupported", "contradicted", "unavailable"] | None = None
    llm_judge_passage: PassageId | None = None


class ClaimDecision(Record):
    """The verdict for one claim: seed 001 `status` is the display verdict; the seed 000 status and
    reason code are kept beside it with the rule that fired."""

    claim_id: str
    status: DisplayVerdict
    rationale: str
    primary_evidence: PassageId | None
    explanation: str = ""  # the verdict in one plain sentence, read first; `rationale` keeps the numbers
    signals_ref: tuple[str, ...] = ()
    confidence: DecisionConfidence
    verification_status: VerificationStatus
    reason: RejectionReason
    rule: RuleName


class SummaryStats(Record):
    """Seed 001 counts: supported_high = Supported, supported_low = Low Confidence, contradicted =
    Contradictory, insufficient = Unsupported; Unverified (a signal could not run) is counted on its own."""

    claims_total: int
    supported_high: int
    supported_low: int
    contradicted: int
    insufficient: int
    mean_overall_confidence: float | None
    unverified: int = 0


class AnnotatedAnswer(Record):
    answer_id: str
    query_id: str | None
    raw_answer: str
    claims: tuple[ClaimDecision, ...]
    summary_stats: SummaryStats
    mitigation_actions: tuple[str, ...] = ()
    version: str


Mitigation = Literal["kept", "flagged", "suppressed"]


class ClaimReport(Record):
    """One claim, its evidence, its signals and its verdict, with what mitigation did to it."""

    claim: Claim
    decision: ClaimDecision
    inputs: DecisionInputs
    evidence: tuple[EvidenceChunk, ...]
    pair: ClaimEvidencePair
    signals: ClaimSignals
    conflicts: tuple[EvidenceConflict, ...] = ()
    mitigation: Mitigation
    dependency_warnings: tuple[DependencyWarning, ...] = ()  # terms this claim uses before or without a definition


class CitationPassage(Record):
    text: str
    title: str | None = None
    # Where reference [i] points: the passage to open, its source and its document version ("doc@vN").
    passage_id: PassageId | None = None
    source: str | None = None
    version: str | None = None


class CitationFormatterOutput(Record):
    formatted_text: str
    citation_map: dict[str, list[int]]
    passages: tuple[CitationPassage, ...]
    notes: dict[str, Any] | None = None


class CiteEvalSystemExample(Record):
    id: str
    query: str
    passages: tuple[CitationPassage, ...]
    pred: str


# What a backend is in a report's manifest.
BackendRole = Literal["nli", "retriever", "embedder", "reranker", "llm", "aggregator"]


class BackendInfo(Record):
    role: BackendRole
    name: str
    model_id: str
    checksum: str | None = None


class ReportManifest(Record):
    """What produced a report, so it can be reproduced: no timestamps, only content hashes."""

    package_version: str
    config: dict[str, Any]
    backends: tuple[BackendInfo, ...]
    evidence_mode: Literal["corpus", "pack"]
    input_sha256: str
    evidence_sha256: dict[PassageId, str]
    warnings: tuple[str, ...] = ()  # fallbacks taken, e.g. a reranker that failed and was skipped


# Why a sentence of the text makes no claim (claims/extract.py): it asks ("What is work?"), it talks to the reader or
# only replies ("Hope this helps!", "Yes it does."), or it leads in to what follows ("The steps are:").
UncheckedReason = Literal["question", "to-the-reader", "lead-in"]


class UncheckedSentence(Record):
    """A sentence of the verified text that states nothing to check, and why; shown so that nothing is skipped
    silently (a question that asserts something false is listed, not dropped)."""

    text: str
    char_start: int = Field(ge=0)  # offsets into the verified text
    char_end: int = Field(ge=0)
    reason: UncheckedReason


class VerificationReport(Record):
    """`veriground verify` output: the AnnotatedAnswer (seed 001), per-claim explanations, the mitigated
    answer, its citation formatting and the CiteEval export, and the sentences that made no claim."""

    manifest: ReportManifest
    annotated_answer: AnnotatedAnswer
    claims: tuple[ClaimReport, ...]
    final_response: str
    citations: CitationFormatterOutput
    citeeval: CiteEvalSystemExample
    unchecked: tuple[UncheckedSentence, ...] = ()
