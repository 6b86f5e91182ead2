"""How a claim's words stand against the units and sentences of its evidence, read without a model: the findings the
rule table's word-level rules read (verdicts/rules.py).

- substituted: a near copy of a unit with a word swapped for another (text/substitution.py);
- scrambled_words: its best-supporting unit's words in another order (text/word_order.py);
- reversed_relation: a sentence that states its relation the other way round (text/relations.py);
- pieced_support: every unit that supports it enough holds it only across statements (evidence/units.py states_apart);
- dropped_restriction: every unit that supports it enough is a sentence it copies less a restrictor
  (text/restrictions.py);
- quotation: a quotation of the claim's that no evidence passage holds word for word, and the passage whose words come
  closest to it when they are close enough to be what it misquotes (text/quotations.py);
- swapped_term: a day, month, colour, ordinal, season, compass point or name of the claim's that no passage uses,
  where the evidence sentence about the claim has another of the same kind (text/term_swaps.py);
- unstated_formula: a formula of the claim's ("n!", "2^n") that no unit supporting it states (text/formulas.py).

The NLI models read all of these as restatements: a claim that holds its source's words is supported, whatever it does
with them.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from veriground.evidence.units import claim_content, states_apart
from veriground.schema import EvidenceChunk, NLISignal, SignalStatus, UnitJudgement
from veriground.text.formulas import formulas
from veriground.text.quotations import MISQUOTED_SIMILARITY, find_quotation, quotations
from veriground.text.relations import reversed_relation
from veriground.text.restrictions import left_out_restriction
from veriground.text.substitution import closest_swaps, first_content_word, restates, substituted_words
from veriground.text.term_swaps import swapped_term
from veriground.text.variables import restate_as_premise_writes
from veriground.text.word_order import scrambled_words
from veriground.verdicts.evidence_summary import QuotationFinding


def source_readings(
    claim_text: str, chunks: Sequence[EvidenceChunk], nli: Sequence[NLISignal], threshold: float | None
) -> dict[str, Any]:
    """The word-level findings of one claim, as summarize_evidence takes them. `threshold` is the entailment a unit
    needs to support the claim (None before the thresholds are resolved: every search runs, the support-bound
    readings find nothing)."""
    best_unit = _best_supporting_unit(chunks, nli)
    # substituted-words lowers only a claim that enough support could make Supported: below that, skip the search
    supportable = threshold is None or any(
        signal.support_prob is not None and signal.support_prob >= threshold
        for signal in nli
        if signal.status == SignalStatus.COMPUTED
    )
    return {
        "substituted": _substituted(claim_text, best_unit, chunks, nli, supportable),
        "scrambled_words": bool(best_unit and scrambled_words(claim_text, best_unit[0])),
        "reversed_relation": _reversed_relation(claim_text, chunks),
        "pieced_support": _pieced_support(claim_text, chunks, nli, threshold),
        "dropped_restriction": _dropped_restriction(claim_text, chunks, nli, threshold),
        "quotation": unfound_quotation(claim_text, chunks),
        "swapped_term": _swapped_term(claim_text, chunks),
        "unstated_formula": _unstated_formula(claim_text, chunks, nli, threshold),
    }


def _unstated_formula(
    claim_text: str, chunks: Sequence[EvidenceChunk], nli: Sequence[NLISignal], threshold: float | None
) -> tuple[str, str] | None:
    """A formula of the claim's (text/formulas.py) that no unit supporting it at `threshold` states, its variables read
    as the unit names them, and the strongest such unit's passage; None when the claim states no formula, a
    supporting unit states all of them, or no unit supports it."""
    if threshold is None or not formulas(claim_text):
        return None
    missing = []
    for chunk, unit in _supporting_units(chunks, nli, threshold):
        unit_text = chunk.text[unit.char_start : unit.char_end]
        stated = formulas(unit_text)
        unstated = [item for item in formulas(restate_as_premise_writes(unit_text, claim_text)) if item not in stated]
        if not unstated:
            return None
        missing.append((-unit.support_prob, unstated[0], chunk.passage_id))
    if not missing:
        return None
    _, formula, passage_id = min(missing, key=lambda item: item[0])
    return formula, passage_id


def _swapped_term(
    claim_text: str, chunks: Sequence[EvidenceChunk]
) -> tuple[tuple[str, str], str, str, tuple[int, int]] | None:
    """The term the claim puts where the evidence sentence about it has another of the same kind (text/term_swaps.py):
    (the claim's words, the sentence's words), the kind, the sentence's passage and its offsets in the passage."""
    found = swapped_term(claim_text, [chunk.text for chunk in chunks])
    if found is None:
        return None
    return (found.claim_words, found.source_words), found.kind, chunks[found.evidence_index].passage_id, found.span


def unfound_quotation(claim_text: str, chunks: Sequence[EvidenceChunk]) -> QuotationFinding | None:
    """The claim's first quotation that no passage of its evidence holds word for word (but for filler words), with the
    passage holding the words closest to it, those words, their offsets and how close they are, when that is
    MISQUOTED_SIMILARITY or more (else None for each); None when every quotation is found, or the claim quotes
    nothing."""
    for quotation in quotations(claim_text):
        matches = [(match, chunk) for chunk in chunks if (match := find_quotation(quotation, chunk.text))]
        if any(match.filler_only for match, _ in matches):
            continue  # held word for word, or but for a filler word
        best = max(matches, key=lambda item: item[0].similarity, default=None)
        if best is None or best[0].similarity < MISQUOTED_SIMILARITY:
            return QuotationFinding(quotation.text)
        match, chunk = best
        span = (match.start, match.end)
        return QuotationFinding(
            quotation.text, chunk.passage_id, span, chunk.text[span[0] : span[1]], round(match.similarity, 4)
        )
    return None


def _dropped_restriction(
    claim_text: str, chunks: Sequence[EvidenceChunk], nli: Sequence[NLISignal], threshold: float | None
) -> tuple[str, str, tuple[int, int]] | None:
    """What the claim leaves out, from a restrictor on, of every unit that supports it at `threshold` (each must hold a
    sentence the claim copies less one, text/restrictions.py), with the strongest unit's passage and the sentence's
    offsets in it; None when a supporting unit holds no such sentence, or none supports the claim."""
    if threshold is None:
        return None
    found = []
    for chunk, unit in _supporting_units(chunks, nli, threshold):
        dropped = left_out_restriction(claim_text, chunk.text[unit.char_start : unit.char_end])
        if dropped is None:
            return None
        found.append((-unit.support_prob, dropped, chunk.passage_id, unit.char_start))
    if not found:
        return None
    _, (run, (start, end)), passage_id, offset = min(found, key=lambda item: item[0])
    return run, passage_id, (offset + start, offset + end)


def _pieced_support(
    claim_text: str, chunks: Sequence[EvidenceChunk], nli: Sequence[NLISignal], threshold: float | None
) -> tuple[str, tuple[int, int]] | None:
    """The strongest unit that supports the claim at `threshold` and its passage, when every unit that does is a
    window of sentences that each state something of their own (evidence/units.py states_apart); None otherwise."""
    if threshold is None:
        return None
    supporting = [
        (-unit.support_prob, index, chunk, unit)
        for index, (chunk, unit) in enumerate(_supporting_units(chunks, nli, threshold))
    ]
    content = claim_content(claim_text)
    if not supporting or not all(
        states_apart(content, chunk.text, unit.char_start, unit.char_end) for *_, chunk, unit in supporting
    ):
        return None
    *_, chunk, unit = min(supporting, key=lambda item: item[:2])
    return chunk.passage_id, (unit.char_start, unit.char_end)


def _supporting_units(
    chunks: Sequence[EvidenceChunk], nli: Sequence[NLISignal], threshold: float
) -> Iterator[tuple[EvidenceChunk, UnitJudgement]]:
    """Each unit that supports the claim at `threshold`, with its chunk, in evidence order."""
    for chunk, signal in zip(chunks, nli, strict=False):
        if signal.status == SignalStatus.COMPUTED:
            yield from ((chunk, unit) for unit in signal.units if unit.support_prob >= threshold)


def _reversed_relation(claim_text: str, chunks: Sequence[EvidenceChunk]) -> tuple[str, str, tuple[int, int]] | None:
    """The first evidence sentence that states a comparison of the claim's the other way round (text/relations.py),
    its passage and its offsets in the passage's text."""
    for chunk in chunks:
        if (span := reversed_relation(claim_text, chunk.text)) is not None:
            return chunk.text[span[0] : span[1]], chunk.passage_id, span
    return None


def _substituted(
    claim_text: str,
    best_unit: tuple[str, str] | None,
    chunks: Sequence[EvidenceChunk],
    nli: Sequence[NLISignal],
    supportable: bool,
) -> tuple[tuple[tuple[str, str], ...], str] | None:
    """The words the claim swaps into a near copy of one of its evidence units, and that unit's passage: its
    best-supporting unit, else, when no unit restates the claim (text/substitution.py restates), the most
    supporting unit, or passage, with a sentence that is a near copy with one swap. "Velocity is a scalar
    quantity." was Supported by "the variable v for velocity is bold because it is a vector, which is in
    contrast to the variable v for speed which is italicized because it is a scalar quantity" (the model reads
    the words, not which one goes with which), while another passage says "Velocity is a vector quantity that
    describes the speed and direction of an object"."""
    if best_unit is not None and (swaps := substituted_words(claim_text, best_unit[0])):
        return swaps, best_unit[1]
    if not supportable:  # the search past the best unit reads every sentence of every passage: only when it can matter
        return None
    units = sorted(
        (
            (-unit.support_prob, index, chunk.text[unit.char_start : unit.char_end], chunk.passage_id)
            for index, (chunk, signal) in enumerate(zip(chunks, nli, strict=False))
            if signal.status == SignalStatus.COMPUTED
            for unit in signal.units
        ),
        key=lambda item: item[:2],
    )
    # the scored units first, best first; then every sentence of the passages (a passage's other sentences were not
    # read by the model, and may state the claim, or state its subject otherwise)
    texts = [(text, passage_id) for _, _, text, passage_id in units]
    texts += [(chunk.text, chunk.passage_id) for chunk, signal in zip(chunks, nli, strict=False) if signal.units]
    if any(restates(claim_text, text) for text, _ in texts):
        return None
    subject = first_content_word(claim_text)
    for text, passage_id in texts:
        swaps = closest_swaps(claim_text, text)
        # One swap in the sentence the claim copies most, not of the claim's first content word: the same subject said
        # to be something the sources call something else ("Velocity is a vector quantity", where "scalar" is another
        # quantity's), not another subject with the same predicate ("A variable that is not bold indicates a scalar
        # quantity") nor another entry of a template ("The SI unit of time is the second"). A word the passages never
        # use counts too ("The coefficient of the engagement depends on the two surfaces that are in contact.", which
        # v3 read as 0.84 entailment by another sentence on friction): until session 17 it was excused as a
        # paraphrase, and 17 of the property check's 497 one-word swaps were Supported (14 without the excuse); a
        # synonym is a swap a reader should check, as it is in the best-supporting unit (substituted_words).
        ours = swaps[0][0].split() if len(swaps) == 1 else [subject]
        if subject not in ours:
            return swaps, passage_id
    return None


def _best_supporting_unit(chunks: Sequence[EvidenceChunk], nli: Sequence[NLISignal]) -> tuple[str, str] | None:
    """The text of the evidence unit that supports the claim best and its passage, None when NLI judged none."""
    best = max(
        (
            (unit.support_prob, chunk.text[unit.char_start : unit.char_end], chunk.passage_id)
            for chunk, signal in zip(chunks, nli, strict=False)
            if signal.status == SignalStatus.COMPUTED
            for unit in signal.units[:1]
        ),
        default=None,
        key=lambda item: item[0],
    )
    return None if best is None else best[1:]
