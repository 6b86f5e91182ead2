"""L4, internal contradictions: pairs of the draft's own sentences that share their subject -> the configured NLI
model, read both ways -> a finding on the later sentence of each pair it judges contradictory, naming the
earlier one and the visible cue (negation, antonym, number) when the lexical reading finds one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

from veriground.backends.lexical_nli import LexicalNLIModel
from veriground.backends.protocols import NLIModel
from veriground.critic.sentences import DraftSentence, sentence_finding
from veriground.schema import CriticFinding
from veriground.text.terms import extract_terms

# Two sentences are about the same thing when they share at least this share of the shorter one's content stems,
# and at least MIN_SHARED_STEMS of them; other pairs are never sent to the NLI model.
MIN_SHARED_SHARE = 0.3
MIN_SHARED_STEMS = 2
MAX_PAIRS = 400  # bounds the NLI work on a long draft (~28 sentences that all share a subject)


@dataclass(frozen=True)
class ConsistencyOutcome:
    findings: list[CriticFinding]
    pairs_checked: int
    problem: str | None  # why the check could not run; then nothing is known about L4
    pairs_skipped: int = 0  # same-subject pairs past MAX_PAIRS, never scored


def find_contradictions(
    sentences: Sequence[DraftSentence], nli: NLIModel, *, min_contradiction_prob: float
) -> ConsistencyOutcome:
    """L4 findings for every same-subject sentence pair whose larger contradiction probability (either direction)
    reaches `min_contradiction_prob`."""
    own = [s for s in sentences if not s.is_quoted(s.start, s.end)]
    stems = {s.index: {term.stem for term in extract_terms(s.text)} for s in own}
    pairs = []
    for first, second in combinations(own, 2):
        shared = stems[first.index] & stems[second.index]
        smaller = min(len(stems[first.index]), len(stems[second.index])) or 1
        if len(shared) >= MIN_SHARED_STEMS and len(shared) / smaller >= MIN_SHARED_SHARE:
            pairs.append((first, second))
    skipped = max(0, len(pairs) - MAX_PAIRS)
    pairs = pairs[:MAX_PAIRS]
    if not pairs:
        return ConsistencyOutcome([], 0, None)
    texts = [(a.text, b.text) for a, b in pairs] + [(b.text, a.text) for a, b in pairs]
    try:
        scores = nli.predict(texts)
    except Exception as err:  # the check degrades to "unavailable", reported, never to "no contradiction"
        return ConsistencyOutcome([], len(pairs), f"{nli.name}: {err}", skipped)
    explainer = LexicalNLIModel()
    findings = []
    flagged: set[int] = set()
    for number, (first, second) in enumerate(pairs):
        probability = max(scores[number].contradict, scores[number + len(pairs)].contradict)
        if probability < min_contradiction_prob or second.index in flagged:
            continue
        flagged.add(second.index)
        cues = explainer.explain(first.text, second.text)["cues"] or explainer.explain(second.text, first.text)["cues"]
        cue = f"; visible cue: {cues[0]['cue']}" if cues else ""
        rationale = (
            f"Contradicts sentence {first.index} (“{first.text}”): {nli.name} gives contradiction "
            f"probability {probability:.2f}{cue}. Reconcile the two statements or say which one holds."
        )
        findings.append(
            sentence_finding(
                "L4",
                second,
                rationale=rationale,
                confidence=round(min(1.0, probability), 6),
                rule="L4.nli-contradiction",
                related_span=(first.start, first.end),
            )
        )
    return ConsistencyOutcome(findings, len(pairs), None, skipped)
