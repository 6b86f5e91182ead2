"""Every record that crosses a stage, the CLI, the API or a report: frozen pydantic models.

Field names follow the seeds where they define a record (seed 001 "Data Structures", seed 003 §4.2,
seed 000 LearningClaim / DomainProfile / RejectionReason); fields the seeds lack are added, never renamed.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

PassageId = str
DocId = str
MetadataValue = str | int | float | bool | None | list[str]


class Record(BaseModel):
    """Base of every record: immutable, unknown fields rejected."""

    model_config = ConfigDict(frozen=True, extra="forbid")


# --- vocabularies -------------------------------------------------------------------------------


class SourceType(StrEnum):
    """What kind of source a document is; drives independent-source counting (seed 000)."""

    TEXTBOOK = "textbook"
    LECTURE_NOTES = "lecture_notes"
    TRANSCRIPT = "transcript"
    POLICY = "policy"
    PAPER = "paper"
    WEB = "web"
    DATASET = "dataset"
    UNKNOWN = "unknown"


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


class ClaimType(StrEnum):
    DEFINITIONAL = "definitional"
    EQUATION = "equation"
    NUMERIC = "numeric"
    CONCEPTUAL = "conceptual"
    THEOREM = "theorem"
    PROOF_STEP = "proof_step"
    ALGORITHMIC = "algorithmic"
    COMPLEXITY = "complexity"
    FACTUAL = "factual"
    COMPARATIVE = "comparative"
    SCOPE = "scope"
    HISTORICAL = "historical"


class AnswerClaimClass(StrEnum):
    """Seed 003 §6.1 claim classes of a generated answer; scope and comparative claims are the higher risk."""

    FACTUAL = "factual_lit_claim"
    COMPARATIVE = "comparative_claim"
    SCOPE = "scope_claim"
    HISTORICAL = "historical_claim"


class AnswerConfidence(StrEnum):
    """Seed 003 §7 answer-level confidence labels."""

    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"
    INSUFFICIENT_EVIDENCE = "insufficient_evidence"


# --- corpus -------------------------------------------------------------------------------------


PassageKind = Literal["text", "heading", "exercise", "quiz", "glossary"]
# Only `text` passages are evidence by default (config retrieval.evidence_kinds): exercises, quiz items and their
# multiple-choice options, glossary lists and bare headings state no facts a claim can rest on.
PASSAGE_KINDS: tuple[str, ...] = get_args(PassageKind)


class PageSpan(Record):
    """Where one PDF page lies in the normalised document text."""

    page: int = Field(ge=1)
    char_start: int = Field(ge=0)
    char_end: int = Field(ge=0)


class LoadedDocument(Record):
    """A loader's output: the normalised text of one document, its metadata and page map."""

    text: str
    loader: Literal["txt", "md", "html", "pdf", "tex", "ptx", "jsonl"]
    record_key: str | None = None  # the record id inside a multi-document file (JSONL)
    title: str | None = None
    metadata: dict[str, MetadataValue] = Field(default_factory=dict)
    pages: tuple[PageSpan, ...] = ()


class Passage(Record):
    """One paragraph of one document version; `text == document_text[char_start:char_end]`."""

    passage_id: PassageId
    doc_id: DocId
    version: int = Field(ge=1)
    ordinal: int = Field(ge=0)
    text: str
    char_start: int = Field(ge=0)
    char_end: int = Field(ge=0)
    page: int | None = None
    source_id: str
    source_type: SourceType
    kind: PassageKind = "text"  # what the block is (corpus/passage_kinds.py); only evidence kinds are retrieved
    doc_sha256: str | None = None  # SHA-256 of the document version's file bytes (of the record, for JSONL)


class DocumentInfo(Record):
    """One version of a document as the store holds it."""

    doc_id: DocId
    version: int = Field(ge=1)
    versions: int = Field(ge=1)  # how many versions the store holds
    source_key: str
    source_id: str
    source_type: SourceType
    loader: str
    title: str | None = None
    sha256: str
    n_passages: int = Field(ge=0)
    n_chars: int = Field(ge=0)
    metadata: dict[str, MetadataValue] = Field(default_factory=dict)
    # A tombstone: `corpus remove` or `ingest --prune` deleted the document in this version; it has no text or
    # passages, search and verification no longer see the document, and older versions stay readable.
    deleted: bool = False


# "removed": `ingest --prune` found the document's file gone and recorded a tombstone version.
IngestOutcome = Literal["added", "new_version", "unchanged", "skipped", "failed", "removed"]


class IngestItem(Record):
    """What happened to one document (or one failed file) during an ingest."""

    path: str
    outcome: IngestOutcome
    doc_id: DocId | None = None
    version: int | None = None
    n_passages: int = 0
    passages_changed: int = 0  # passage ids in this version that the previous version lacked
    problem: str | None = None


class IngestReport(Record):
    items: tuple[IngestItem, ...]
    added: int
    new_version: int
    unchanged: int
    skipped: int
    failed: int
    passages_indexed: int
    removed: int = 0  # documents `ingest --prune` marked deleted (a tombstone version each)


# --- seed 001 data structures ------------------------------------------------------------------


class Query(Record):
    id: str
    text: str
    timestamp: str | None = None  # kept from seed 001, left empty so records stay deterministic


class EvidenceChunk(Record):
    """A retrieved passage; `sent_id` is the paragraph ordinal inside its document version."""

    doc_id: DocId
    sent_id: int
    passage_id: PassageId
    text: str
    char_start: int
    char_end: int
    score_bm25: float | None = None
    score_dense: float | None = None
    score_hybrid: float | None = None  # reciprocal-rank fusion of the bm25 and dense ranks
    score_rerank: float | None = None  # the cross-encoder's score, when a reranker ordered the list
    rank: int = Field(ge=1)
    source: str  # the source_id
    source_type: SourceType = SourceType.UNKNOWN
    version: str  # "<doc_id>@v<version>"
    page: int | None = None
    kind: PassageKind = "text"  # the passage's kind (text, heading, exercise, quiz, glossary)
    # SHA-256 of the document version's file bytes: byte-identical files ingested under two paths share it.
    doc_sha256: str | None = None


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


class ClaimEvidencePair(Record):
    claim_id: str
    evidence_candidates: tuple[PassageId, ...]
    top_evidence: PassageId | None
    evidence_spans: tuple[EvidenceSpan, ...]


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


class NLIScores(Record):
    entail: float = Field(ge=0, le=1)
    contradict: float = Field(ge=0, le=1)
    neutral: float = Field(ge=0, le=1)


class CoverageScores(Record):
    entities: float | None = Field(None, ge=0, le=1)
    numbers: float | None = Field(None, ge=0, le=1)
    tokens_overlap: float | None = Field(None, ge=0, le=1)


class UncertaintyScores(Record):
    mean_entropy: float | None = None


class ConsistencyScores(Record):
    variance: float | None = None


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


class ProfileSignal(Record):
    """A domain profile hook's finding for one claim (issue 17): before verification (claim type, scope), on the
    evidence (the kind of evidence the claim type needs), or after it (units present, equations parse)."""

    hook: Literal["pre_verification", "evidence_match", "quality_gate"]
    status: Literal["computed", "not_applicable"]
    outcome: Literal[
        "ok", "claim_type_not_allowed", "out_of_scope", "evidence_type_missing", "units_missing", "equation_unparsed"
    ]
    reason: str  # one line
    domain: str
    claim_type: ClaimType | None = None
    claim_span: tuple[int, int] | None = None  # the words that decided it, offsets into the claim text


class VerifierSignal(Record):
    """Raw output of the detectors for one claim-evidence pair; None means not computed (see status)."""

    claim_id: str
    doc_id: DocId | None
    sent_id: int | None
    passage_id: PassageId | None = None
    status: SignalStatus = SignalStatus.COMPUTED
    reason: str | None = None
    nli: NLIScores | None = None
    coverage: CoverageScores | None = None
    uncertainty: UncertaintyScores | None = None
    consistency: ConsistencyScores | None = None
    citation_span_match: float | None = Field(None, ge=0, le=1)
    numeric_check: bool | None = None


class DecisionConfidence(Record):
    support_prob: float | None = Field(None, ge=0, le=1)
    contradict_prob: float | None = Field(None, ge=0, le=1)
    overall_confidence: float | None = Field(None, ge=0, le=1)
    band: Literal["High", "Medium", "Low"] | None = None


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
    formal_mismatches: tuple[str, ...] = ()  # one line per failed formal check (signals/formal.py)
    out_of_scope: str | None = None  # why the claim is beyond the domain profile's scope
    dependency_warning: str | None = None  # the first term it uses before or without a definition
    superseded_citations: tuple[str, ...] = ()  # cited passages of an older version or a removed document
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
    rule: str


DisplayVerdict = Literal["Supported", "Low Confidence", "Contradictory", "Unsupported", "Unverified"]


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


# --- verification report (issue 3): the AnnotatedAnswer with everything needed to explain it -------


class PackPassage(Record):
    """One passage of a user-given evidence pack: its text, or the id of a corpus passage to read it from."""

    passage_id: PassageId | None = None
    text: str | None = None
    doc_id: DocId | None = None
    title: str | None = None
    source_id: str | None = None
    source_type: SourceType | None = None


class EvidencePack(Record):
    """`veriground verify --evidence PACK.json`: check against exactly these passages (seed 003 /qa/verify)."""

    query: str | None = None
    passages: tuple[PackPassage, ...] = Field(min_length=1)


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


class ChatMessage(Record):
    """One turn of an OpenAI-style chat."""

    role: Literal["system", "user", "assistant"]
    content: str


class LLMCompletion(Record):
    """One answer of an LLM call. `request_sha256` keys the call in the cache (model, messages, parameters);
    token log-probabilities and per-token entropies (over the returned top alternatives, in nats) are None when
    the server does not offer them."""

    text: str
    finish_reason: str | None = None
    request_sha256: str
    sample_index: int = Field(0, ge=0)
    token_logprobs: tuple[float, ...] | None = None
    token_entropies: tuple[float, ...] | None = None


class BackendInfo(Record):
    role: Literal["nli", "retriever", "embedder", "reranker", "llm", "aggregator"]
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


class VerificationReport(Record):
    """`veriground verify` output: the AnnotatedAnswer (seed 001), per-claim explanations, the mitigated
    answer, its citation formatting and the CiteEval export."""

    manifest: ReportManifest
    annotated_answer: AnnotatedAnswer
    claims: tuple[ClaimReport, ...]
    final_response: str
    citations: CitationFormatterOutput
    citeeval: CiteEvalSystemExample


# --- seed 003 §4.2 ------------------------------------------------------------------------------


class SupportingCitation(Record):
    work_id: DocId
    passage_id: PassageId | None = None


class GroundedClaim(Record):
    text: str
    supporting_citations: tuple[SupportingCitation, ...]
    support_level: Literal["direct", "indirect"]


class Reference(Record):
    work_id: DocId
    title: str | None = None
    source_id: str | None = None
    passage_ids: tuple[PassageId, ...] = ()


class DraftClaim(Record):
    """One sentence a generator proposes, with the passage ids it cites, before verification."""

    text: str
    cited_ids: tuple[str, ...] = ()
    claim_class: AnswerClaimClass = AnswerClaimClass.FACTUAL


class DraftAnswer(Record):
    """What a generator (extractive, LLM, baseline) returned for a question and an evidence pack."""

    claims: tuple[DraftClaim, ...] = ()
    abstained: bool = False  # the generator itself said the evidence does not answer the question
    abstain_reason: str | None = None
    # Seed 001 uncertainty signals of an LLM draft; None when not computable (no logprobs, one sample, offline).
    mean_token_entropy: float | None = None
    consistency: float | None = Field(None, ge=0, le=1)


class EvidenceGate(Record):
    """Seed 004 §3.6 abstention gate over the top retrieved passages, before anything is generated.
    `score_kind` says which score was read: a reranker's probability, or the lexical query coverage (the
    idf-weighted share of the question's content words a passage contains) when no reranker is configured."""

    score_kind: Literal["rerank", "query_coverage"]
    max_top5: float
    mean_top3: float
    threshold: float
    passed: bool


class AnswerClaimTrace(Record):
    """What verification made of one draft claim: kept or removed, and why."""

    text: str
    claim_class: AnswerClaimClass
    cited_ids: tuple[str, ...]
    kept: bool
    verdict: DisplayVerdict | None = None  # of the verification core; None when never verified
    rule: str | None = None
    reason: str
    support_level: Literal["direct", "indirect"] | None = None
    supporting_passages: tuple[PassageId, ...] = ()
    entailment_prob: float | None = None


class AnswerTrace(Record):
    """Everything behind a GroundedAnswer: the gate, the generator, each claim's verification, the evidence."""

    mode: Literal["brief", "detailed"]
    baseline: Literal["B1", "B2", "B3"]
    filters: dict[str, str] = Field(default_factory=dict)
    gate: EvidenceGate | None = None  # None for the baselines that skip it
    draft: DraftAnswer | None = None
    claims: tuple[AnswerClaimTrace, ...] = ()
    verified_share: float | None = Field(None, ge=0, le=1)
    citation_problems: tuple[str, ...] = ()
    evidence: tuple[EvidenceChunk, ...] = ()
    manifest: ReportManifest


class GroundedAnswer(Record):
    """Seed 003 §4.2, plus the question, why it abstained (when it did), filter suggestions and the trace."""

    query: str = ""
    answer_summary: str
    claims: tuple[GroundedClaim, ...]
    references: tuple[Reference, ...]
    confidence: AnswerConfidence
    limitations: tuple[str, ...] = ()
    query_refinements: tuple[str, ...] = ()
    abstention_reason: str | None = None
    filter_suggestions: tuple[str, ...] = ()
    trace: AnswerTrace | None = None


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


# --- seed 000 -----------------------------------------------------------------------------------


class LearningClaim(Record):
    """An atomic, testable proposition (seed 000 §2.3.2)."""

    claim_id: str
    claim_text: str
    claim_type: ClaimType
    status: VerificationStatus | None = None
    confidence: float | None = Field(None, ge=0, le=1)
    evidence_ids: tuple[PassageId, ...] = ()
    metadata: dict[str, MetadataValue] = Field(default_factory=dict)


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



# --- HTTP API (issue 6): request bodies and the answers that are not records above -----------------

MAX_REQUEST_QUERY_CHARS = 2_000


class RequestRecord(Record):
    """A request body: every string in it must be encodable text (JSON lets a lone surrogate like \\ud800
    through, and it would fail later when hashed or stored)."""

    @model_validator(mode="before")
    @classmethod
    def _text_only(cls, data: Any) -> Any:
        where = _lone_surrogate(data, "")
        if where is not None:
            raise ValueError(f"{where or 'the body'} holds a lone UTF-16 surrogate, which is not text; send UTF-8 text")
        return data


def _lone_surrogate(value: Any, path: str) -> str | None:
    """The dotted path of the first string holding a lone surrogate, or None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path
        return None
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list | tuple) else ()
    for key, item in items:
        found = _lone_surrogate(key, path) if isinstance(key, str) else None
        found = found if found is not None else _lone_surrogate(item, f"{path}.{key}" if path else str(key))
        if found is not None:
            return found
    return None


class QARequest(RequestRecord):
    """`POST /qa`: a question, optional filters (doc, source, source_type) and the output mode."""

    query: str = Field(min_length=1, max_length=MAX_REQUEST_QUERY_CHARS)
    filters: dict[str, str] = Field(default_factory=dict)
    mode: Literal["brief", "detailed"] | None = None  # None: config answer.mode


class VerifyRequest(RequestRecord):
    """`POST /verify`: a text checked claim by claim against the served corpus."""

    text: str = Field(min_length=1)
    query: str | None = None


class QAVerifyRequest(RequestRecord):
    """`POST /qa/verify` (seed 003 §12): a candidate answer (its text, or a GroundedAnswer from /qa) and the
    evidence pack it must be checked against, and nothing else."""

    answer: str | GroundedAnswer
    evidence: EvidencePack
    query: str | None = None
    # The question the answer answers: a short answer ("Arthur's Magazine") is verified as the answer to it.
    question: str | None = None


class QAVerifyResult(Record):
    """Pass when every claim is Supported; reason codes are the seed 000 reasons of the rest."""

    passed: bool
    reason_codes: tuple[str, ...]
    report: VerificationReport


class ServiceHealth(Record):
    status: Literal["ok"]
    version: str
    documents: int = Field(ge=0)
    passages_indexed: int = Field(ge=0)
    nli: str
    retrieval: str
    llm: str | None


class ServiceReadiness(Record):
    """`GET /ready`: whether the server can take work now, answered without queueing for the engine."""

    ready: bool
    engine_loaded: bool
    jobs_running: int = Field(ge=0)
    jobs_queued: int = Field(ge=0)
    estimated_wait_s: float = Field(ge=0)  # queued work at the measured rate
    seconds_per_unit: float = Field(ge=0)  # measured cost of one claim x evidence passage
    request_deadline_s: float = Field(gt=0)


# --- evaluation (issue 7): golden queries and labelled pairs ----------------------------------------


class GoldenQuery(Record):
    """One golden-set row (seed 004 §2.5): answerable rows name the passages that answer them; contradiction
    probes name at least two passages that disagree."""

    query_id: str = Field(min_length=1)
    query: str = Field(min_length=1)
    split: Literal["dev", "test"]
    kind: Literal["answerable", "unanswerable", "contradiction"]
    gold_paragraph_ids: tuple[PassageId, ...] = ()
    conflicting_ids: tuple[PassageId, ...] = ()
    reference_answer: str | None = None
    note: str | None = None  # why the row is labelled as it is (for the hand check)

    @model_validator(mode="after")
    def _ids_fit_kind(self) -> GoldenQuery:
        if self.kind == "answerable" and not self.gold_paragraph_ids:
            raise ValueError("an answerable query needs gold_paragraph_ids (the passages that answer it)")
        if self.kind == "contradiction" and len(set(self.conflicting_ids)) < 2:
            raise ValueError("a contradiction probe needs at least 2 distinct conflicting_ids")
        if self.kind == "unanswerable" and self.gold_paragraph_ids:
            raise ValueError("an unanswerable query must not have gold_paragraph_ids")
        return self


class LabelledPair(Record):
    """`veriground eval pairs`: a text, exactly the evidence to check it against (texts or corpus passage ids),
    and its gold label; `group` splits the metrics (a domain, an in/out-of-domain flag)."""

    id: str = Field(min_length=1)
    text: str = Field(min_length=1)
    evidence: tuple[str, ...] = ()
    evidence_ids: tuple[PassageId, ...] = ()
    label: Literal["supported", "unsupported", "contradicted"]
    group: str | None = None
    # The question `text` answers: a short answer ("Arthur's Magazine") is verified as the answer to it.
    question: str | None = None

    @model_validator(mode="after")
    def _one_kind_of_evidence(self) -> LabelledPair:
        if bool(self.evidence) == bool(self.evidence_ids):
            raise ValueError("give exactly one of evidence (passage texts) or evidence_ids (corpus passage ids)")
        return self

SCHEMA_RECORDS: tuple[type[Record], ...] = (
    LoadedDocument,
    Passage,
    DocumentInfo,
    IngestReport,
    Query,
    EvidenceChunk,
    Claim,
    ClaimEvidencePair,
    CitationFormatterOutput,
    CiteEvalSystemExample,
    VerifierSignal,
    ClaimDecision,
    AnnotatedAnswer,
    EvidencePack,
    VerificationReport,
    GroundedAnswer,
    SupportJudgement,
    ConflictJudgement,
    LearningClaim,
    DomainProfile,
    DependencyWarning,
    QARequest,
    VerifyRequest,
    QAVerifyRequest,
    QAVerifyResult,
    ServiceHealth,
    ServiceReadiness,
    GoldenQuery,
    LabelledPair,
)


def export_json_schema() -> dict[str, Any]:
    """One JSON Schema document whose $defs hold every record."""
    from pydantic.json_schema import models_json_schema

    _, top = models_json_schema(
        [(record, "serialization") for record in SCHEMA_RECORDS],
        title="veriground records",
        ref_template="#/$defs/{model}",
    )
    top["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return top


# --- critic mode (issue 19, seed 004 §3.7): policy-language findings L1-L6 ----------------------------------

CriticLabel = Literal["L1", "L2", "L3", "L4", "L5", "L6"]
CRITIC_LABELS: tuple[str, ...] = ("L1", "L2", "L3", "L4", "L5", "L6")


class CriticFinding(Record):
    """One label on one span of a draft: `span` indexes the draft text; `rule` names the lexicon entry, pattern or
    check that fired; `related_span` is the other sentence of an L4 contradiction."""

    label: CriticLabel
    sentence_index: int = Field(ge=1)
    span: tuple[int, int]
    trigger: str
    rationale: str
    tier: Literal[1, 2]
    confidence: float = Field(ge=0, le=1)
    rule: str
    related_span: tuple[int, int] | None = None


class CriticSentence(Record):
    """A sentence of the draft (1-based index) and the labels of the findings that the report keeps on it."""

    index: int = Field(ge=1)
    span: tuple[int, int]
    text: str
    labels: tuple[CriticLabel, ...] = ()


class CriticLabelCheck(Record):
    """How a label was looked for, and whether it could be: `not_checked` (e.g. L3 without a corpus) and
    `unavailable` (a backend failed) mean its absence says nothing."""

    label: CriticLabel
    name: str
    method: str
    status: Literal["checked", "not_checked", "unavailable"]
    reason: str | None = None


class CriticTierResult(Record):
    """One tier's findings. Tier 2 `fallback`: the LLM could not answer, so the report keeps tier 1's findings."""

    tier: Literal[1, 2]
    status: Literal["ran", "fallback"]
    findings: tuple[CriticFinding, ...] = ()
    labels: tuple[CriticLabel, ...] = ()
    added_labels: tuple[CriticLabel, ...] = ()  # tier 2 only: labels tier 1 did not find
    dropped_labels: tuple[CriticLabel, ...] = ()  # tier 2 only: tier-1 labels tier 2 did not keep
    reason: str | None = None


class CriticSummary(Record):
    sentences: int = Field(ge=0)
    flagged_sentences: int = Field(ge=0)
    labels: tuple[CriticLabel, ...]
    findings_by_label: dict[str, int]
    final_tier: Literal[1, 2]


class CriticManifest(Record):
    """What produced a critique: no timestamps, only versions and content hashes."""

    package_version: str
    critic_version: str
    tier_requested: Literal[1, 2]
    lexicon_sha256: dict[str, str]
    backends: tuple[BackendInfo, ...]
    corpus_checked: bool
    input_sha256: str
    thresholds: dict[str, float]
    warnings: tuple[str, ...] = ()


class CriticReport(Record):
    """`veriground critic` output: the draft's sentences, each label's check, tier 1's findings, tier 2's when it
    was asked for, and `findings`, the final list (tier 2's when it ran, else tier 1's)."""

    draft_id: str
    text: str
    sentences: tuple[CriticSentence, ...]
    checks: tuple[CriticLabelCheck, ...]
    tier1: CriticTierResult
    tier2: CriticTierResult | None = None
    findings: tuple[CriticFinding, ...]
    summary: CriticSummary
    manifest: CriticManifest


class CriticRequest(RequestRecord):
    """`POST /critic`: a draft and the tier (2 asks the configured LLM, falling back to tier 1)."""

    text: str = Field(min_length=1)
    tier: Literal[1, 2] = 1


class CriticExample(Record):
    """One row of the labelled critic set: a policy snippet, its gold labels (empty: neutral), and where the text
    comes from (`source`, `license`)."""

    id: str = Field(min_length=1)
    text: str = Field(min_length=1)
    labels: tuple[CriticLabel, ...] = ()
    split: Literal["dev", "test"]
    source: str = Field(min_length=1)
    license: str = Field(min_length=1)
    note: str | None = None


SCHEMA_RECORDS = (*SCHEMA_RECORDS, CriticReport, CriticRequest, CriticExample)
