"""Support per passage: claims and their evidence chunks -> one NLISignal per (claim, chunk), read from the chunk's
best-aligned evidence units (evidence/units.py) by the NLI in one batched predict call, and combined with the
other unit signals into calibrated support and refutation by the aggregator (verdicts/aggregator.py).

The unit is the premise and the claim the hypothesis. A passage is as supportive as its most supportive unit and
as refuting as its most refuting one; the signal keeps every unit it read, with offsets, so a report can point at
the sentence that decided. If the model fails, every signal is unavailable, never silently supportive. What the
claim's passages say together (how many of them hold it, which of its names none mentions) is read once per claim
(signals/support_features.py ClaimContext) and given to every unit's features. A unit that refutes its claim is read
once more against the claim negated, in a second batched call: a contradiction the NLI also reads against the negation
is no refutation (verdicts/aggregator.py NEGATION_READS_ALIKE).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from veriground.backends.protocols import NLIModel
from veriground.evidence.units import (
    MAX_UNITS_PER_CHUNK,
    ClaimContent,
    EvidenceUnit,
    claim_content,
    select_units,
)
from veriground.schema import Claim, EvidenceChunk, NLIScores, NLISignal, SignalStatus, UnitJudgement
from veriground.signals.support_features import (
    ClaimContext,
    claim_context,
    corroborating_passages,
    passage_context,
)
from veriground.text.cues import opposite_statement
from veriground.text.negated_claim import negated
from veriground.text.pronoun_referent import name_the_pronoun
from veriground.text.readable import readable_text
from veriground.verdicts.aggregator import OWN_CONTRADICTION_CUES, SupportAggregator, settle_windows

NO_EVIDENCE_REASON = "no evidence"
# One (claim, chunk) to judge: claim id, hypothesis, the chunk, its units with their rows in the pair list, content.
Slot = tuple[str, str, EvidenceChunk, list[tuple[EvidenceUnit, int]], ClaimContent]


def judge_evidence(
    claims: Sequence[Claim],
    evidence: Mapping[str, Sequence[EvidenceChunk]],
    model: NLIModel,
    aggregator: SupportAggregator,
    hypotheses: Mapping[str, str] | None = None,
    *,
    units_per_passage: int | None = None,
) -> dict[str, list[NLISignal]]:
    """NLI signals keyed by claim_id, in evidence order. `hypotheses` replaces a claim's text as the NLI hypothesis
    (a short answer read in its question's context); units are still chosen by the claim's own content. The NLI reads
    each passage's `units_per_passage` best-aligned units (verification.units_per_passage; None: two)."""
    units = units_per_passage or MAX_UNITS_PER_CHUNK
    pairs, slots, signals = _plan_pairs(claims, evidence, model, hypotheses or {}, units)
    if not pairs:
        return signals
    opposites = _plan_opposites(pairs, slots)
    model_pairs = _as_the_model_reads(pairs, slots, opposites)
    scores, failures = _score_pairs(model, model_pairs, slots)
    read = _Read(pairs, scores, opposites)
    contexts = _claim_contexts(slots)
    judged = [
        _slot_signal(slot, read, failures.get(slot[0]), context, model, aggregator)
        for slot, context in zip(slots, contexts, strict=True)
    ]
    negations = _negation_scores(model, model_pairs, slots, judged)
    if negations:  # the slots with a refuting unit, read again with the NLI's reading of the claim negated
        read = _Read(pairs, scores, opposites, negations)
        judged = [
            _slot_signal(slot, read, failures.get(slot[0]), context, model, aggregator) if refuted else signal
            for slot, context, signal, refuted in zip(
                slots, contexts, judged, (any(row in negations for _, row in slot[3]) for slot in slots), strict=True
            )
        ]
    for slot, signal in zip(slots, judged, strict=True):
        signals[slot[0]].append(signal)
    return signals


# A unit refuting its claim this much or more is read against the claim negated too (aggregator NEGATION_READS_ALIKE):
# below the contradiction thresholds the aggregators were fitted with (0.5), so a unit near one is tested as well.
NEGATION_CHECK = 0.4


def _negation_scores(
    model: NLIModel, model_pairs: Sequence[tuple[str, str]], slots: Sequence[Slot], judged: Sequence[NLISignal]
) -> dict[int, NLIScores]:
    """For each unit row that refutes its claim at NEGATION_CHECK or more with no contradiction cue in its words (those
    refute whatever the negation reads: aggregator OWN_CONTRADICTION_CUES), the NLI's reading of the claim negated
    (text/negated_claim.py) against the unit as the model read it, in one batched call; none when no claim can be
    negated plainly, or the call fails (the refutations then stand as read)."""
    planned: dict[int, tuple[str, str]] = {}
    for (_, _, _, rows, _), signal in zip(slots, judged, strict=True):
        refuting = {
            (unit.char_start, unit.char_end)
            for unit in signal.units
            if unit.refute_prob >= NEGATION_CHECK and not any(unit.features.get(cue) for cue in OWN_CONTRADICTION_CUES)
        }
        for unit, row in rows:
            premise, hypothesis = model_pairs[row]
            if (unit.char_start, unit.char_end) in refuting and (claim_negated := negated(hypothesis)) is not None:
                planned[row] = (premise, claim_negated)
    if not planned:
        return {}
    try:
        scores = _predict(model, list(planned.values()))
    except Exception:  # a failed check leaves the first reading as it was, never more supportive
        return {}
    return dict(zip(planned, scores, strict=True))


@dataclass(frozen=True)
class _Read:
    """The scored pairs: (unit, hypothesis) texts, their scores, for a unit row the row of its opposite pair, and for a
    refuting unit's row the NLI's reading of the claim negated."""

    pairs: Sequence[tuple[str, str]]
    scores: Sequence[NLIScores | None]
    opposites: Mapping[int, int]
    negations: Mapping[int, NLIScores] = field(default_factory=dict)


def _as_the_model_reads(
    pairs: Sequence[tuple[str, str]], slots: Sequence[Slot], opposites: Mapping[int, int]
) -> list[tuple[str, str]]:
    """The pairs as the NLI reads them: a unit that opens its passage with a pronoun, against a claim that opens with a
    name the unit never mentions, with the pronoun put as that name (text/pronoun_referent.py); the unit's features
    and the report read the unit as written."""
    read = list(pairs)
    for _, _, _, rows, _ in slots:
        for unit, row in rows:
            at_start = not unit.chunk.text[: unit.char_start].strip()
            for index in (row, opposites.get(row)):
                if index is not None and (named := name_the_pronoun(*pairs[index], at_passage_start=at_start)):
                    read[index] = (named, pairs[index][1])
    return read


def _plan_opposites(pairs: list[tuple[str, str]], slots: Sequence[Slot]) -> dict[int, int]:
    """For each sentence unit that states both ways a word the claim uses one way (text/cues.py opposite_statement),
    one more pair: the unit against the claim with that word put as its opposite, appended to `pairs` and scored in
    the same batch (a batch that fails is scored again claim by claim without them: the units are then read as if
    there were none). Keyed by the unit's row."""
    opposites: dict[int, int] = {}
    for _, _, _, rows, _ in slots:
        for evidence_unit, row in rows:
            if evidence_unit.sentences > 1:
                continue  # a window's sentences may each state one way, about different things
            unit, hypothesis = pairs[row]
            opposite = opposite_statement(hypothesis, unit)
            if opposite is not None:
                opposites[row] = len(pairs)
                pairs.append((unit, opposite))
    return opposites


def _plan_pairs(
    claims: Sequence[Claim],
    evidence: Mapping[str, Sequence[EvidenceChunk]],
    model: NLIModel,
    hypotheses: Mapping[str, str],
    units_per_passage: int,
) -> tuple[list[tuple[str, str]], list[Slot], dict[str, list[NLISignal]]]:
    """The (unit, hypothesis) pairs to score, one slot per (claim, chunk), and each claim's signal list: empty for a
    claim with evidence (filled once scored), one not-applicable signal for a claim without."""
    pairs: list[tuple[str, str]] = []
    slots: list[Slot] = []
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
        hypothesis = hypotheses.get(claim.claim_id, claim.text)
        content, readable = claim_content(hypothesis), readable_text(hypothesis)
        for chunk in chunks:
            rows = []
            for unit in select_units(content, chunk, units_per_passage):
                rows.append((unit, len(pairs)))
                pairs.append((readable_text(unit.text), readable))
            slots.append((claim.claim_id, hypothesis, chunk, rows, content))
    return pairs, slots, signals


def _slot_signal(
    slot: Slot,
    read: _Read,
    failure: str | None,
    context: ClaimContext,
    model: NLIModel,
    aggregator: SupportAggregator,
) -> NLISignal:
    """One (claim, chunk)'s signal from its scored units; unavailable when its claim failed or a score is malformed."""
    _, _, chunk, rows, content = slot
    pairs, scores = read.pairs, read.scores
    if failure is None:
        try:
            units = [
                aggregator.judge_unit(
                    claim_text=pairs[row][1],  # the texts the NLI read (readable_text of hypothesis and unit)
                    unit_text=pairs[row][0],
                    span=(unit.char_start, unit.char_end),
                    alignment=unit.alignment,
                    nli=scores[row],  # type: ignore[arg-type]  # scored: the claim did not fail
                    sentences=unit.sentences,
                    shared_terms=round(unit.alignment * content.size),
                    context=context,
                    opposite=scores[read.opposites[row]] if row in read.opposites else None,
                    negation=read.negations.get(row),
                )
                for unit, row in rows
            ]
        except Exception as err:  # a malformed score degrades to "unavailable", never silently supportive
            failure = f"{model.name}: {err}"
        else:
            return _passage_signal(chunk, settle_windows(units), model.name, aggregator.name)
    return NLISignal(status=SignalStatus.UNAVAILABLE, reason=failure, passage_id=chunk.passage_id, model=model.name)


def _score_pairs(
    model: NLIModel, pairs: list[tuple[str, str]], slots: Sequence[Slot]
) -> tuple[list[NLIScores | None], dict[str, str]]:
    """Every pair's scores in one batched call; when the batch fails (a backend error, one claim too long for the
    model), each claim's pairs are scored again on their own, so only the claims that fail are unavailable."""
    try:
        return list(_predict(model, pairs)), {}
    except Exception:  # any backend failure: find which claims it belongs to
        pass
    rows: dict[str, list[int]] = {}
    for claim_id, _, _, unit_rows, _ in slots:
        rows.setdefault(claim_id, []).extend(row for _, row in unit_rows)
    scores: list[NLIScores | None] = [None] * len(pairs)
    failures: dict[str, str] = {}
    for claim_id, indexes in rows.items():
        try:
            for index, score in zip(indexes, _predict(model, [pairs[i] for i in indexes]), strict=True):
                scores[index] = score
        except Exception as err:
            failures[claim_id] = f"{model.name}: {err}"
    return scores, failures


def _predict(model: NLIModel, pairs: list[tuple[str, str]]) -> list[NLIScores]:
    if not pairs:
        return []
    scores = model.predict(pairs)
    if len(scores) != len(pairs):
        raise ValueError(f"returned {len(scores)} scores for {len(pairs)} pairs")
    return list(scores)


def _claim_contexts(slots: Sequence[Slot]) -> list[ClaimContext]:
    """Per slot, what its claim's passages say together: how many of the claim's other passages hold most of its
    content (a graph feature), and which of its entities and words none of them mentions."""
    by_claim: dict[str, list[int]] = {}
    for index, (claim_id, *_) in enumerate(slots):
        by_claim.setdefault(claim_id, []).append(index)
    contexts = [ClaimContext()] * len(slots)
    for indexes in by_claim.values():
        best = [max((unit.alignment for unit, _ in slots[index][3]), default=0.0) for index in indexes]
        hypothesis = readable_text(slots[indexes[0]][1])
        texts = [readable_text(slots[index][2].text) for index in indexes]
        for index, text, count in zip(indexes, texts, corroborating_passages(best), strict=True):
            contexts[index] = passage_context(claim_context(hypothesis, texts, count), hypothesis, text)
    return contexts


def _passage_signal(
    chunk: EvidenceChunk, units: list[UnitJudgement], model_name: str, aggregator_name: str
) -> NLISignal:
    if not units:
        return NLISignal(
            status=SignalStatus.NOT_APPLICABLE,
            reason="the passage has no text to read",
            passage_id=chunk.passage_id,
            model=model_name,
        )
    ordered = sorted(units, key=lambda unit: (-unit.support_prob, unit.char_start, unit.char_end))
    best = ordered[0]
    return NLISignal(
        status=SignalStatus.COMPUTED,
        passage_id=chunk.passage_id,
        entailment_prob=best.entailment_prob,
        contradiction_prob=best.contradiction_prob,
        neutral_prob=round(max(0.0, 1.0 - best.entailment_prob - best.contradiction_prob), 6),
        model=model_name,
        support_prob=best.support_prob,
        refute_prob=max(unit.refute_prob for unit in units),
        aggregator=aggregator_name,
        units=tuple(ordered),
    )
