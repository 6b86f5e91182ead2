"""Plain words for what mitigation writes where a reader sees it: a verdict and its reason code -> the flag after a
kept claim ("[Unsupported: no passage says this]"); a mitigation action code -> a phrase for report summaries.

Records keep the codes (seed 000 reason codes, seed 001 action names); only the text a person reads is worded here.
"""

from __future__ import annotations

from collections.abc import Mapping

from veriground.schema import DisplayVerdict, RejectionReason

R = RejectionReason
# What the flag after a kept claim says; a reason's wording can depend on the verdict it led to.
_FLAG_WORDS: Mapping[RejectionReason, str] = {
    R.NO_EVIDENCE: "no passage in the corpus is about this",
    R.LOW_ENTAILMENT: "no passage supports this",
    R.INSUFFICIENT_SOURCES: "too few independent sources say this",
    R.HIGH_CONTRADICTION: "a source may say otherwise",
    R.CONFLICTING_VERDICTS: "the checks disagree about this",
    R.SUFFICIENT_EVIDENCE: "supported",
    R.SIGNAL_UNAVAILABLE: "this could not be checked",
    R.DANGLING_CITATION: "it cites a passage that does not exist",
    R.NUMERIC_MISMATCH: "the source gives a different number",
    R.EVIDENCE_CONFLICT: "the sources disagree about this",
    R.FORMAL_MISMATCH: "a unit, equation or bound does not match the source",
    R.OUT_OF_SCOPE: "this is outside the chosen domain",
    R.DEPENDENCY_WARNING: "it uses a term before defining it",
    R.SUPERSEDED_CITATION: "the passage it cites has since changed",
    R.SUBSTITUTED_WORDS: "it changes a word of its source",
    R.SCRAMBLED_WORDS: "it uses its source's words in another order",
    R.PIECED_SUPPORT: "it mixes what separate sentences of its source say",
    R.DROPPED_RESTRICTION: "it leaves out a restriction its source states",
    R.MISQUOTED: "it misquotes its source",
    R.SWAPPED_TERM: "it swaps a name or term its source gives",
    R.UNSTATED_FORMULA: "its source does not state its formula",
    R.QUOTATION_NOT_FOUND: "no passage has the words it quotes",
}
_FLAG_WORDS_BY_VERDICT: Mapping[tuple[DisplayVerdict, RejectionReason], str] = {
    (DisplayVerdict.LOW_CONFIDENCE, R.LOW_ENTAILMENT): "only weakly supported",
}

# Seed 001 action names (mitigation/rewrite.py) and the engine's conflict-check actions, in report summaries.
_ACTION_WORDS: Mapping[str, str] = {
    "removed_contradicted_claims": "contradicted claims replaced by a warning",
    "flagged_low_confidence_claims": "weakly supported claims flagged",
    "flagged_unsupported_claims": "unsupported claims flagged",
    "flagged_unverified_claims": "claims that could not be checked flagged",
    "kept_supported_claims_with_citations": "supported claims kept with their citations",
    "surfaced_evidence_conflicts": "sources that disagree are shown",
    "evidence_conflict_check_unavailable": "the check for disagreeing sources could not run (see the warnings)",
    "evidence_conflict_check_off": "the check for disagreeing sources is off (verification.contradictions = false)",
}
_POLICY_WORDS: Mapping[str, str] = {
    "surface": "shown beside the verdict",
    "abstain_on_high": "a strong disagreement withholds the claim",
}


def flag_words(verdict: DisplayVerdict | str, reason: RejectionReason | str) -> str:
    """The words after a flagged claim's verdict: never a reason code."""
    code = RejectionReason(reason)
    try:
        key = (DisplayVerdict(verdict), code)
    except ValueError:  # a verdict this table has no words for: the reason's own words
        return _FLAG_WORDS[code]
    return _FLAG_WORDS_BY_VERDICT.get(key) or _FLAG_WORDS[code]


def flag_text(verdict: DisplayVerdict | str, reason: RejectionReason | str) -> str:
    """The bracketed flag written after a kept claim in the mitigated answer."""
    return f"[{verdict}: {flag_words(verdict, reason)}]"


def describe_action(action: str) -> str:
    """A mitigation action in words. An action is a code, optionally `code:detail` (a policy name) or
    `code: explanation`; an unknown code is shown as written, so nothing a record says is hidden."""
    code, _, detail = action.partition(":")
    words = _ACTION_WORDS.get(code.strip())
    if words is None:
        return action
    detail = detail.strip()
    if code.strip() == "surfaced_evidence_conflicts" and detail:
        return f"{words} (policy: {_POLICY_WORDS.get(detail, detail)})"
    return words
