"""Where a claim's evidence points, for every view: the passages with the span sentences inside them, offsets and
locations, highlighted segments of a passage, and the citations a claim carried with the passage each resolved to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from veriground.schema import (
    ClaimReport,
    EvidenceChunk,
    EvidenceSpan,
    SignalStatus,
)

_CITED_NUMBER = re.compile(r"\[?\s*(\d+)\s*\]?")  # a 1-based pack number, as signals/citation.py reads it


def status_text(status: SignalStatus, reason: str | None) -> str:
    return f"{status.value}: {reason or 'no reason given'}"


@dataclass(frozen=True)
class EvidenceView:
    """One evidence passage of a claim, with the span sentences that point into it."""

    chunk: EvidenceChunk
    is_primary: bool
    spans: tuple[EvidenceSpan, ...]


def evidence_views(item: ClaimReport) -> tuple[list[EvidenceView], list[EvidenceSpan]]:
    """Primary passage first, then the rest in retrieval order; plus spans that match no passage."""
    primary = item.decision.primary_evidence
    ordered = sorted(item.evidence, key=lambda chunk: chunk.passage_id != primary)  # stable: keeps rank order
    matched: set[int] = set()
    views = []
    for chunk in ordered:
        own = [index for index, span in enumerate(item.pair.evidence_spans) if span_points_into(span, chunk)]
        matched.update(own)
        spans = tuple(item.pair.evidence_spans[index] for index in own)
        views.append(EvidenceView(chunk, chunk.passage_id == primary, spans))
    loose = [span for index, span in enumerate(item.pair.evidence_spans) if index not in matched]
    return views, loose


def span_points_into(span: EvidenceSpan, chunk: EvidenceChunk) -> bool:
    # Spans without a passage id still name the paragraph by (doc_id, sent_id), as EvidenceChunk does.
    if span.passage_id is not None:
        return span.passage_id == chunk.passage_id
    return (span.doc_id, span.sent_id) == (chunk.doc_id, chunk.sent_id)


def missing_primary(item: ClaimReport) -> str | None:
    """The primary evidence id when it is not among the claim's evidence chunks."""
    primary = item.decision.primary_evidence
    if primary is None or any(chunk.passage_id == primary for chunk in item.evidence):
        return None
    return primary


def passage_location(chunk: EvidenceChunk) -> str:
    where = (
        f"doc {chunk.doc_id}, version {chunk.version}, source {chunk.source} ({chunk.source_type.value}), "
        f"chars {chunk.char_start}-{chunk.char_end}"
    )
    if chunk.page is not None:
        where += f", page {chunk.page}"
    return where + f", rank {chunk.rank}"


def span_offsets(span: EvidenceSpan) -> str:
    if span.char_start is None or span.char_end is None:
        return "offsets n/a"
    return f"chars {span.char_start}-{span.char_end}"


def highlight_segments(text: str, spans: tuple[EvidenceSpan, ...]) -> list[tuple[str, bool]]:
    """Cut passage text into (piece, is_span) runs; spans without usable offsets, or overlapping, are skipped."""
    ranges = sorted(
        (span.char_start, span.char_end)
        for span in spans
        if span.char_start is not None
        and span.char_end is not None
        and 0 <= span.char_start < span.char_end <= len(text)
    )
    segments: list[tuple[str, bool]] = []
    cursor = 0
    for start, end in ranges:
        if start < cursor:
            continue
        if start > cursor:
            segments.append((text[cursor:start], False))
        segments.append((text[start:end], True))
        cursor = end
    if cursor < len(text):
        segments.append((text[cursor:], False))
    return segments


@dataclass(frozen=True)
class CitationTarget:
    """One citation a claim carried, the passage it resolved to (None when the report cannot tell), and how."""

    label: str
    passage_id: str | None
    outcome: str


def citation_targets(item: ClaimReport) -> list[CitationTarget]:
    """Each of the claim's cited ids with its passage, read back from the citation signal. The signal lists
    resolved ids once each, in citing order, so labels map onto it exactly when no two labels share a passage;
    otherwise a pack number's passage is left unnamed rather than guessed."""
    signal = item.signals.citation
    labels = item.claim.cited_ids
    if signal.status != SignalStatus.COMPUTED:
        return [CitationTarget(label, None, status_text(signal.status, signal.reason)) for label in labels]
    keys = [_citation_key(label) for label in labels]
    unique = list(dict.fromkeys(keys))
    if len(unique) == len(signal.cited_ids):
        resolved = dict(zip(unique, signal.cited_ids, strict=True))
    else:
        resolved = {key: key for key in unique if not key.isdigit()}
    targets = []
    for label, key in zip(labels, keys, strict=True):
        passage_id = resolved.get(key)
        if passage_id is None:
            outcome = "pack number; the report does not record which passage"
        elif passage_id in signal.dangling_ids:
            outcome = "dangling: no such passage"
        elif passage_id in signal.outside_pack_ids:
            outcome = "outside the evidence pack"
        else:
            outcome = "resolved"
        targets.append(CitationTarget(label, passage_id, outcome))
    return targets


def _citation_key(label: str) -> str:
    number = _CITED_NUMBER.fullmatch(label.strip())
    return str(int(number.group(1))) if number else label.strip()
