"""NLI signal: claims and their evidence chunks → one NLISignal per (claim, chunk), from one batched predict call.

The chunk is the premise and the claim the hypothesis. A chunk longer than MAX_PREMISE_CHARS is split into
overlapping sentence windows; the chunk is as entailing as its most entailing window and as contradicting as
its most contradicting one, and its neutral probability is the smallest window's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from veriground.backends.protocols import NLIModel
from veriground.schema import Claim, EvidenceChunk, NLIScores, NLISignal, SignalStatus
from veriground.signals.terms import split_sentences

# MNLI-trained encoders read 512 tokens; at roughly 4 characters a token, 1500 characters of premise leave
# room for the claim.
MAX_PREMISE_CHARS = 1500
WINDOW_OVERLAP_SENTENCES = 1  # each window repeats the last sentence of the one before it
NO_EVIDENCE_REASON = "no evidence"


def compute_nli(
    claims: Sequence[Claim], evidence: Mapping[str, Sequence[EvidenceChunk]], model: NLIModel
) -> dict[str, list[NLISignal]]:
    """NLI signals keyed by claim_id, in evidence order; every signal is unavailable if the model fails."""
    pairs: list[tuple[str, str]] = []
    slots: list[tuple[str, EvidenceChunk, range]] = []  # claim id, chunk, its windows' rows in `pairs`
    signals: dict[str, list[NLISignal]] = {}
    for claim in claims:
        if claim.claim_id in signals:
            continue  # ids are content hashes: a repeated id is the same claim, scored once
        chunks = evidence.get(claim.claim_id, ())
        if not chunks:
            signals[claim.claim_id] = [
                NLISignal(status=SignalStatus.NOT_APPLICABLE, reason=NO_EVIDENCE_REASON, model=model.name)
            ]
            continue
        signals[claim.claim_id] = []
        for chunk in chunks:
            windows = split_premise(chunk.text)
            slots.append((claim.claim_id, chunk, range(len(pairs), len(pairs) + len(windows))))
            pairs.extend((window, claim.text) for window in windows)
    if not pairs:
        return signals
    try:
        scores = model.predict(pairs)
        if len(scores) != len(pairs):
            raise ValueError(f"returned {len(scores)} scores for {len(pairs)} pairs")
        computed = [
            (claim_id, _aggregate_windows([scores[row] for row in rows], chunk, model.name))
            for claim_id, chunk, rows in slots
        ]
    except Exception as err:  # any backend failure or malformed output degrades to "unavailable", never silently
        reason = f"{model.name}: {err}"
        computed = [
            (
                claim_id,
                NLISignal(
                    status=SignalStatus.UNAVAILABLE, reason=reason, passage_id=chunk.passage_id, model=model.name
                ),
            )
            for claim_id, chunk, _ in slots
        ]
    for claim_id, signal in computed:
        signals[claim_id].append(signal)
    return signals


def split_premise(text: str, max_chars: int = MAX_PREMISE_CHARS) -> list[str]:
    """The text itself when short enough, else windows of whole sentences that overlap by one sentence."""
    if len(text) <= max_chars:
        return [text]
    sentences: list[str] = []
    for sentence in split_sentences(text):
        step = max_chars // 2  # a sentence longer than a window is cut into half-overlapping slices
        while len(sentence) > max_chars:
            sentences.append(sentence[:max_chars])
            sentence = sentence[step:]
        sentences.append(sentence)
    windows: list[str] = []
    start = 0
    while start < len(sentences):
        end = start + 1
        while end < len(sentences) and len(" ".join(sentences[start : end + 1])) <= max_chars:
            end += 1
        windows.append(" ".join(sentences[start:end]))
        if end == len(sentences):
            break
        start = max(start + 1, end - WINDOW_OVERLAP_SENTENCES)
    return windows


def _aggregate_windows(scores: list[NLIScores], chunk: EvidenceChunk, model_name: str) -> NLISignal:
    return NLISignal(
        status=SignalStatus.COMPUTED,
        passage_id=chunk.passage_id,
        entailment_prob=max(score.entail for score in scores),
        neutral_prob=min(score.neutral for score in scores),
        contradiction_prob=max(score.contradict for score in scores),
        model=model_name,
    )
