"""Plain-text facts of a verification report (labels, table rows, formatted numbers): VerificationReport ->
strings that the Markdown, HTML and terminal views lay out, so the three cannot drift apart in what they show.
"""

from __future__ import annotations

import json
import math
import re

from veriground.mitigation.wording import describe_action
from veriground.reports.evidence_facts import status_text
from veriground.schema import (
    BackendInfo,
    CitationSignal,
    Claim,
    ClaimReport,
    CoverageSignal,
    DecisionConfidence,
    DecisionInputs,
    DisplayVerdict,
    EvidenceConflict,
    NLISignal,
    NumericSignal,
    ReportManifest,
    SignalStatus,
    VerificationReport,
)

# The order a report lists verdict counts in (seed 001's order of the display verdicts; not WORST_FIRST).
DISPLAY_VERDICTS: tuple[DisplayVerdict, ...] = (
    DisplayVerdict.SUPPORTED,
    DisplayVerdict.LOW_CONFIDENCE,
    DisplayVerdict.CONTRADICTORY,
    DisplayVerdict.UNSUPPORTED,
    DisplayVerdict.UNVERIFIED,
)

NOT_AVAILABLE = "n/a"
# Why a sentence of the text was not checked (schema UncheckedReason), as the views say it.
UNCHECKED_WHY = {
    "question": "a question: it asks, it states nothing to check",
    "to-the-reader": "talks to the reader or only replies, naming nothing to check",
    "lead-in": "a lead-in to what follows",
}
UNCHECKED_TITLE = "Not checked"
LEXICAL_NLI_PREFIX = "lexical-nli"
LEXICAL_NLI_NOTE = (
    "This NLI is a transparent lexical heuristic (word overlap, negation, antonym and number cues), "
    "not a trained model."
)

# --- plain-text facts shared by the Markdown, HTML and terminal views ---------------------------------


def unchecked_rows(report: VerificationReport) -> list[tuple[str, str]]:
    """(sentence, why) for each sentence of the text that made no claim."""
    return [(" ".join(item.text.split()), UNCHECKED_WHY[item.reason]) for item in report.unchecked]


def format_number(value: float | int | None) -> str:
    """Three decimals for every probability and ratio; None (or a non-finite float) is "n/a", never "None"/NaN."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return NOT_AVAILABLE
    if isinstance(value, int):
        return str(value)
    return f"{value:.3f}"


def format_list(values: tuple[str, ...] | list[str]) -> str:
    return ", ".join(values) if values else "none"


def verdict_counts(report: VerificationReport) -> list[tuple[DisplayVerdict, int]]:
    """Claims per display verdict, counted from the decisions, in the fixed verdict order."""
    statuses = [item.decision.status for item in report.claims]
    return [(verdict, statuses.count(verdict)) for verdict in DISPLAY_VERDICTS]


def summary_stats_text(report: VerificationReport) -> str:
    stats = report.annotated_answer.summary_stats
    return (
        f"claims_total {stats.claims_total}, supported_high {stats.supported_high}, "
        f"supported_low {stats.supported_low}, contradicted {stats.contradicted}, "
        f"insufficient {stats.insufficient}, unverified {stats.unverified}"
    )


def mean_confidence_text(report: VerificationReport) -> str:
    return format_number(report.annotated_answer.summary_stats.mean_overall_confidence)


def actions_text(report: VerificationReport) -> str:
    """The mitigation actions in words (the record keeps the codes)."""
    # "; " because one action may itself list several claims with commas.
    return "; ".join(describe_action(action) for action in report.annotated_answer.mitigation_actions) or "none"


def backend_text(backend: BackendInfo) -> str:
    weights = f"checksum {backend.checksum}" if backend.checksum else "rule-based, no weights"
    return f"{backend.name} (model {backend.model_id}; {weights})"


def nli_backend_lines(manifest: ReportManifest) -> list[str]:
    """Which NLI judged, and a plain warning when it is the lexical heuristic rather than a trained model."""
    backends = [backend for backend in manifest.backends if backend.role == "nli"]
    if not backends:
        return ["NLI backend: not recorded in the manifest"]
    lines = [f"NLI backend: {backend_text(backend)}" for backend in backends]
    if any(backend.name.startswith(LEXICAL_NLI_PREFIX) for backend in backends):
        lines.append(LEXICAL_NLI_NOTE)
    return lines


def claim_origin(claim: Claim) -> str | None:
    if claim.parent_claim_id is None:
        return None
    return f"split from {claim.parent_claim_id} by {claim.atomicity_rule or 'an unnamed rule'}"


def reference_lines(report: VerificationReport) -> list[str]:
    """The mitigated answer's reference list: "[i] title: passage id (source, version)", in citation order."""
    lines = []
    for number, passage in enumerate(report.citations.passages, start=1):
        where = ", ".join(part for part in (passage.source and f"source {passage.source}", passage.version) if part)
        lines.append(
            f"[{number}] {passage.title or NOT_AVAILABLE}: {passage.passage_id or NOT_AVAILABLE}"
            + (f" ({where})" if where else "")
        )
    return lines


def claim_fact_rows(item: ClaimReport) -> list[tuple[str, str]]:
    decision = item.decision
    return [
        ("Verdict", decision.status),
        ("Claim type", item.claim.claim_type.value if item.claim.claim_type else NOT_AVAILABLE),
        ("Verification status", f"{decision.verification_status.value} (reason {decision.reason.value})"),
        ("Rule", decision.rule),
        ("Why", decision.explanation or decision.rationale),
        ("Rationale", decision.rationale),
        ("Confidence", confidence_text(decision.confidence)),
        ("Mitigation", item.mitigation),
        *(("Dependency", f"{warning.kind}: {warning.reason}") for warning in item.dependency_warnings),
    ]


def confidence_text(confidence: DecisionConfidence) -> str:
    return (
        f"band {confidence.band or NOT_AVAILABLE}, overall {format_number(confidence.overall_confidence)}, "
        f"support {format_number(confidence.support_prob)}, contradiction {format_number(confidence.contradict_prob)}"
    )


def decision_input_rows(inputs: DecisionInputs) -> list[tuple[str, str]]:
    nli = inputs.nli_status.value + (f": {inputs.nli_reason}" if inputs.nli_reason else "")
    return [
        ("evidence_count", str(inputs.evidence_count)),
        ("max_entailment", format_number(inputs.max_entailment)),
        ("max_contradiction", format_number(inputs.max_contradiction)),
        ("entailing_sources", str(inputs.entailing_sources)),
        ("strongest_entailment_passage", inputs.strongest_entailment_passage or NOT_AVAILABLE),
        ("strongest_contradiction_passage", inputs.strongest_contradiction_passage or NOT_AVAILABLE),
        ("numeric_outcome", inputs.numeric_outcome or NOT_AVAILABLE),
        ("dangling_citations", format_list(inputs.dangling_citations)),
        ("high_evidence_conflicts", str(inputs.high_evidence_conflicts)),
        ("nli_status", nli),
    ]


NLI_COLUMNS = ("passage", "entailment", "neutral", "contradiction", "model")


def nli_signal_cells(signal: NLISignal) -> tuple[str, str | tuple[str, str, str], str]:
    """(passage, three probabilities or one status-and-reason text, model)."""
    passage = signal.passage_id or NOT_AVAILABLE
    if signal.status != SignalStatus.COMPUTED:
        return passage, status_text(signal.status, signal.reason), signal.model
    probabilities = (
        format_number(signal.entailment_prob),
        format_number(signal.neutral_prob),
        format_number(signal.contradiction_prob),
    )
    return passage, probabilities, signal.model


def signal_rows(signal: CoverageSignal | NumericSignal | CitationSignal) -> list[tuple[str, str]]:
    """A computed signal's values; any other status shows only its status and reason."""
    if signal.status != SignalStatus.COMPUTED:
        return [("status", status_text(signal.status, signal.reason))]
    if isinstance(signal, CoverageSignal):
        return [
            ("entity_coverage", format_number(signal.entity_coverage)),
            ("number_coverage", format_number(signal.number_coverage)),
            ("token_coverage", format_number(signal.token_coverage)),
            ("jaccard", format_number(signal.jaccard)),
            ("missing_terms", format_list(signal.missing_terms)),
        ]
    if isinstance(signal, NumericSignal):
        return [
            ("outcome", signal.outcome or NOT_AVAILABLE),
            ("claim_quantities", format_list(signal.claim_quantities)),
            ("evidence_quantities", format_list(signal.evidence_quantities)),
            ("mismatches", format_list(signal.mismatches)),
        ]
    return [
        ("cited_ids", format_list(signal.cited_ids)),
        ("dangling_ids", format_list(signal.dangling_ids)),
        ("outside_pack_ids", format_list(signal.outside_pack_ids)),
        ("overlap_ratio", format_number(signal.overlap_ratio)),
    ]


def named_signals(item: ClaimReport) -> list[tuple[str, CoverageSignal | NumericSignal | CitationSignal]]:
    return [("Coverage", item.signals.coverage), ("Numeric", item.signals.numeric), ("Citation", item.signals.citation)]


MITIGATION_TEXT = {
    "kept": "kept with its citations",
    "flagged": "kept with a visible warning in the answer after mitigation",
    "suppressed": "replaced by a warning in the answer after mitigation",
}
# The warnings mitigation/rewrite.py writes into the mitigated answer: "[Warning: ...]" for a removed claim,
# "[<verdict>: <plain words>]" after a flagged one (mitigation/wording.py).
_ANSWER_WARNING = re.compile(
    r"\[(?:Warning: [^\]]*|(?:"
    + "|".join(v for v in DISPLAY_VERDICTS if v != DisplayVerdict.SUPPORTED)
    + r"): [^\]\[]+)\]"
)


def mitigation_summary_text(report: VerificationReport) -> str:
    kinds = [item.mitigation for item in report.claims]
    suppressed = kinds.count("suppressed")
    return (
        f"{suppressed} of {len(kinds)} claims suppressed (replaced by a warning in the answer after mitigation); "
        f"{kinds.count('flagged')} flagged; {kinds.count('kept')} kept"
    )


def answer_warning_segments(text: str) -> list[tuple[str, bool]]:
    """Cut the mitigated answer into (piece, is_warning) runs, so a view can make each warning stand out."""
    segments: list[tuple[str, bool]] = []
    cursor = 0
    for match in _ANSWER_WARNING.finditer(text):
        if match.start() > cursor:
            segments.append((text[cursor : match.start()], False))
        segments.append((match.group(), True))
        cursor = match.end()
    if cursor < len(text):
        segments.append((text[cursor:], False))
    return segments


RAW_SIGNAL_COLUMNS = ("entailment", "contradiction", "coverage", "numeric", "entailing sources", "rule fired", "reason")


def raw_signal_cells(item: ClaimReport) -> tuple[str, ...]:
    """One row of the values behind the verdict: strongest NLI, token coverage, numeric outcome, sources, rule."""
    inputs, coverage, numeric = item.inputs, item.signals.coverage, item.signals.numeric
    computed = SignalStatus.COMPUTED
    return (
        format_number(inputs.max_entailment),
        format_number(inputs.max_contradiction),
        format_number(coverage.token_coverage) if coverage.status == computed else coverage.status.value,
        (numeric.outcome or NOT_AVAILABLE) if numeric.status == computed else numeric.status.value,
        f"{inputs.entailing_sources} of {inputs.evidence_count} passages",
        item.decision.rule,
        item.decision.reason.value,
    )


CONFLICT_COLUMNS = ("passage A", "sentence A", "passage B", "sentence B", "kind", "contradiction", "severity")


def conflict_cells(conflict: EvidenceConflict) -> tuple[str, ...]:
    return (
        conflict.passage_a,
        conflict.sentence_a,
        conflict.passage_b,
        conflict.sentence_b,
        conflict.kind,
        format_number(conflict.contradiction_prob),
        conflict.severity,
    )


LLM_JUDGEMENT_COLUMNS = ("judged", "passage", "label", "rationale", "fallback reason")


def llm_judgement_rows(item: ClaimReport) -> list[tuple[str, ...]]:
    """The tier-2 LLM judge's readings of the claim: support per passage, then each evidence conflict; none
    when no judge ran. The judge can lower a verdict, never raise one, so a row may disagree with the verdict."""
    signals = item.signals
    readings = [
        ("support", reading.passage_id, reading.label, reading.rationale, reading.fallback_reason)
        for reading in signals.llm_judgements
    ] + [
        (
            "conflict",
            f"{reading.passage_a} vs {reading.passage_b}",
            reading.label,
            reading.rationale,
            reading.fallback_reason,
        )
        for reading in signals.llm_conflict_judgements
    ]
    return [
        (judged, passage, label, rationale or NOT_AVAILABLE, fallback or NOT_AVAILABLE)
        for judged, passage, label, rationale, fallback in readings
    ]


def manifest_rows(manifest: ReportManifest) -> list[tuple[str, str]]:
    rows = [
        ("package_version", manifest.package_version),
        ("evidence_mode", manifest.evidence_mode),
        ("input_sha256", manifest.input_sha256),
        ("evidence passages hashed", str(len(manifest.evidence_sha256))),
    ]
    rows += [(f"backend ({backend.role})", backend_text(backend)) for backend in manifest.backends]
    rows += [("warning", warning) for warning in manifest.warnings]
    return rows


def config_json(manifest: ReportManifest) -> str:
    # default=str: the resolved config carries Paths and enums, which JSON has no type for.
    return json.dumps(manifest.config, sort_keys=True, indent=2, ensure_ascii=False, default=str)
