"""Flag & suppress (seed 001): the answer text and each claim's verdict -> the mitigated answer and the
citation-formatted answer with `[i]` markers (seed 001 CitationFormatterOutput).

The answer's own citation markers are removed and replaced by `[i]`, where `passages[i-1]` is one of the
(at most MAX_CITATIONS_PER_CLAIM, best-ranked) passages that entail the claim (NLI entailment >=
verification.min_entailment_prob). In the mitigated answer a Contradictory claim's span is replaced by a
warning, Low Confidence / Unsupported / Unverified claims keep their text with a visible flag in plain words
("[Unsupported: no passage supports this]", mitigation/wording.py), and Supported
claims are kept with their citations. Edits are made at claim spans in the input, so headings, lists and line
breaks stay as written.

A sentence split into pieces (claims with one parent_claim_id) is rewritten as a whole: consecutive
Contradictory pieces become one warning, and no connector is left hanging by one. When every piece is
suppressed, the sentence's whole span is one warning. A suppressed run after a kept piece takes the connector
before it ("A [1] [Warning …]" for "A [1] and it B."); a run that opens the sentence takes the connector
after it, and the next kept piece gets back the subject atomicity copied onto it ("[Warning …] Merge sort is
stable." for "Merge sort is O(1) and it is stable.").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from veriground.claims.citations import parse_citations
from veriground.claims.markdown_blocks import find_prose_blocks
from veriground.mitigation.wording import flag_text
from veriground.schema import (
    CitationFormatterOutput,
    CitationPassage,
    Claim,
    ClaimDecision,
    DisplayVerdict,
    EvidenceChunk,
    Mitigation,
)

FORMATTER_METHOD = "span_end_insertion.v1"
MAX_CITATIONS_PER_CLAIM = 3  # the best-ranked entailing passages; more markers only clutter the sentence
_MITIGATION: Mapping[DisplayVerdict, Mitigation] = {
    DisplayVerdict.SUPPORTED: "kept",
    DisplayVerdict.LOW_CONFIDENCE: "flagged",
    DisplayVerdict.UNSUPPORTED: "flagged",
    DisplayVerdict.UNVERIFIED: "flagged",
    DisplayVerdict.CONTRADICTORY: "suppressed",
}
# Seed 001 names "removed_contradicted_claims"; the others follow its pattern, listed in this order.
_ACTIONS: tuple[tuple[Mitigation, DisplayVerdict, str], ...] = (
    ("suppressed", DisplayVerdict.CONTRADICTORY, "removed_contradicted_claims"),
    ("flagged", DisplayVerdict.LOW_CONFIDENCE, "flagged_low_confidence_claims"),
    ("flagged", DisplayVerdict.UNSUPPORTED, "flagged_unsupported_claims"),
    ("flagged", DisplayVerdict.UNVERIFIED, "flagged_unverified_claims"),
    ("kept", DisplayVerdict.SUPPORTED, "kept_supported_claims_with_citations"),
)


@dataclass(frozen=True)
class ClaimOutcome:
    """What mitigation needs about one claim: its span, verdict and the passages that entail it."""

    claim: Claim
    decision: ClaimDecision
    supporting: tuple[EvidenceChunk, ...]


@dataclass(frozen=True)
class Rewritten:
    final_response: str
    citations: CitationFormatterOutput
    mitigation: dict[str, Mitigation]
    actions: tuple[str, ...]


def mitigation_of(decision: ClaimDecision) -> Mitigation:
    return _MITIGATION[decision.status]


def rewrite_answer(text: str, outcomes: Sequence[ClaimOutcome]) -> Rewritten:
    """The mitigated answer, the citation-formatted answer and the actions taken, in one pass over the spans."""
    passages: dict[str, int] = {}
    titles: dict[str, CitationPassage] = {}
    citation_map: dict[str, list[int]] = {}
    for outcome in outcomes:
        numbers = []
        for chunk in outcome.supporting[:MAX_CITATIONS_PER_CLAIM]:
            if chunk.passage_id not in passages:
                passages[chunk.passage_id] = len(passages) + 1
                titles[chunk.passage_id] = CitationPassage(
                    text=chunk.text,
                    title=chunk.title or chunk.doc_id,
                    passage_id=chunk.passage_id,
                    source=chunk.source,
                    version=chunk.version,
                )
            numbers.append(passages[chunk.passage_id])
        citation_map[outcome.claim.claim_id] = numbers
    formatted = _apply(text, outcomes, citation_map, mitigate=False)
    final = _apply(text, outcomes, citation_map, mitigate=True)
    mitigation = {outcome.claim.claim_id: mitigation_of(outcome.decision) for outcome in outcomes}
    seen = {(mitigation_of(outcome.decision), outcome.decision.status) for outcome in outcomes}
    actions = tuple(action for kind, status, action in _ACTIONS if (kind, status) in seen)
    counts = {kind: sum(1 for value in mitigation.values() if value == kind) for kind in ("suppressed", "flagged")}
    citations = CitationFormatterOutput(
        formatted_text=formatted,
        citation_map=citation_map,
        passages=tuple(titles[passage_id] for passage_id in passages),
        notes={"method": FORMATTER_METHOD, "suppressed": counts["suppressed"], "flagged": counts["flagged"]},
    )
    return Rewritten(final, citations, mitigation, actions)


def _apply(text: str, outcomes: Sequence[ClaimOutcome], citation_map: dict[str, list[int]], *, mitigate: bool) -> str:
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement), non-overlapping
    suppressed: list[tuple[int, int]] = []
    if mitigate:
        for sentence in _sentences(outcomes):
            for start, end, replacement in _suppression_edits(text, sentence):
                edits.append((start, end, replacement))
                suppressed.append((start, end))
    for outcome in outcomes:
        start, end = outcome.claim.answer_char_span
        decision = outcome.decision
        numbers = citation_map[outcome.claim.claim_id]
        markers = " " + "".join(f"[{number}]" for number in numbers) if numbers else ""
        if mitigate and decision.status == DisplayVerdict.CONTRADICTORY:
            continue  # its warning is among the suppression edits
        elif mitigate and decision.status != DisplayVerdict.SUPPORTED:
            edits.append((end, end, f"{markers} {flag_text(decision.status, decision.reason)}"))
        elif markers:
            edits.append((end, end, markers))
    for _, start, end in parse_citations(find_prose_blocks(text).masked):
        if any(low <= start and end <= high for low, high in suppressed):
            continue
        lead = start
        while lead > 0 and text[lead - 1] in " \t":
            lead -= 1
        edits.append((lead, end, ""))
    result, cursor = [], 0
    # Insertions at a point come before a removal that starts there; duplicates (one bracket, many ids) once.
    for start, end, replacement in sorted(set(edits), key=lambda edit: (edit[0], edit[1] != edit[0], edit[1])):
        if start < cursor:
            continue
        result.append(text[cursor:start])
        result.append(replacement)
        cursor = end
    result.append(text[cursor:])
    return "".join(result)


def _sentences(outcomes: Sequence[ClaimOutcome]) -> list[list[ClaimOutcome]]:
    """The outcomes grouped by the sentence they came from (a split sentence's pieces share a parent id),
    each group in span order."""
    groups: dict[str, list[ClaimOutcome]] = {}
    for outcome in outcomes:
        groups.setdefault(outcome.claim.parent_claim_id or outcome.claim.claim_id, []).append(outcome)
    return [sorted(group, key=lambda outcome: outcome.claim.answer_char_span) for group in groups.values()]


def _suppression_edits(text: str, pieces: list[ClaimOutcome]) -> list[tuple[int, int, str]]:
    """One (start, end, warning) edit per run of consecutive Contradictory pieces of one sentence."""
    edits = []
    index = 0
    while index < len(pieces):
        if pieces[index].decision.status != DisplayVerdict.CONTRADICTORY:
            index += 1
            continue
        run_end = index
        while run_end < len(pieces) and pieces[run_end].decision.status == DisplayVerdict.CONTRADICTORY:
            run_end += 1
        warning = _warning([outcome.decision for outcome in pieces[index:run_end]])
        start, end = pieces[index].claim.answer_char_span[0], pieces[run_end - 1].claim.answer_char_span[1]
        if index > 0:  # a kept piece before the run: the connector between them goes with the run
            edits.append((pieces[index - 1].claim.answer_char_span[1], end, f" {warning}"))
        elif run_end < len(pieces):  # the run opens the sentence: so does the warning, then the next piece
            opening, consumed = _reopen(text, pieces[run_end].claim)
            edits.append((start, pieces[run_end].claim.answer_char_span[0] + consumed, f"{warning} {opening}"))
        else:
            edits.append((start, end, warning))
        index = run_end
    return edits


def _warning(decisions: Sequence[ClaimDecision]) -> str:
    sources = list(dict.fromkeys(d.primary_evidence for d in decisions if d.primary_evidence))
    where = f" ({', '.join(sources)})" if sources else ""
    if len(decisions) == 1:
        return f"[Warning: a claim was removed because it contradicts the source{where}]"
    return f"[Warning: {len(decisions)} claims were removed because they contradict the source{where}]"


def _reopen(text: str, claim: Claim) -> tuple[str, int]:
    """How a kept piece starts once the piece before it is gone: (text to insert, characters of the span it
    replaces). The subject atomicity copied onto it comes back ("is stable" -> "Merge sort is stable");
    otherwise its first letter is capitalised."""
    start, end = claim.answer_char_span
    words = text[start:end].split()
    if not words:
        return "", 0
    first = words[0]
    if not claim.text.startswith(first):
        position = claim.text.find(f" {first}")
        if position > 0:
            subject = claim.text[:position]
            return f"{subject[0].upper()}{subject[1:]} ", 0
    if len(first) > 1 and first.isalpha() and first.islower():
        return text[start].upper(), 1
    return "", 0
