"""Tier-1 lexicon labels: draft sentences -> findings for L1 (loaded language), L5 (false dilemma), L6 (slippery
slope) from trigger lists and patterns, and L2 (framing imbalance) as a cue-balance heuristic. Words inside a
quotation are a source's, not the author's, and never fire."""

from __future__ import annotations

import re
from collections.abc import Sequence

from veriground.critic.lexicons import Lexicon, LexiconEntry, load_lexicon
from veriground.critic.sentences import DraftSentence
from veriground.schema import CriticFinding

LEXICON_LABELS = ("L1", "L5", "L6")
# L2's balance cues are counted, not reported one by one; only its one-sided qualifiers are findings by themselves.
BALANCE_RULES = ("L2.benefit-cue", "L2.cost-cue")
BALANCE_CONFIDENCE = 0.5  # a heuristic count, weaker than a named qualifier (PROVENANCE.md)


def find_lexicon_findings(sentences: Sequence[DraftSentence], label: str) -> list[CriticFinding]:
    """Every unquoted trigger of `label`'s lexicon; overlapping triggers of one label keep the longest."""
    lexicon = load_lexicon(label)
    findings = []
    for sentence in sentences:
        for entry, start, end in _matches(sentence, lexicon.entries):
            trigger = sentence.text[start - sentence.start : end - sentence.start]
            findings.append(_finding(lexicon, entry, sentence, start, end, trigger))
    return findings


def find_framing_findings(sentences: Sequence[DraftSentence]) -> list[CriticFinding]:
    """L2: each one-sided qualifier, and one finding for the whole draft when it names at least the lexicon's
    `min_one_sided_cues` benefit cues and no cost/risk cue (or the reverse), placed on the first cue of the
    side that dominates."""
    lexicon = load_lexicon("L2")
    qualifiers = [entry for entry in lexicon.entries if entry.rule not in BALANCE_RULES]
    findings = []
    for sentence in sentences:
        for entry, start, end in _matches(sentence, qualifiers):
            trigger = sentence.text[start - sentence.start : end - sentence.start]
            findings.append(_finding(lexicon, entry, sentence, start, end, trigger))
    cues: dict[str, list[tuple[DraftSentence, int, int]]] = {rule: [] for rule in BALANCE_RULES}
    for sentence in sentences:
        for rule in BALANCE_RULES:
            cues[rule] += [(sentence, start, end) for _, start, end in _matches(sentence, [lexicon.entry(rule[3:])])]
    benefits, costs = cues["L2.benefit-cue"], cues["L2.cost-cue"]
    needed = int(lexicon.settings["min_one_sided_cues"])
    one_sided = []
    if len(benefits) >= needed and not costs:
        one_sided = benefits
    elif len(costs) >= needed and not benefits:
        one_sided = costs
    if one_sided and not findings:
        if one_sided is benefits:
            side, other, others = "benefit", "cost or risk", "costs and risks"
        else:
            side, other, others = "cost or risk", "benefit", "benefits"
        sentence, start, end = one_sided[0]
        words = ", ".join(dict.fromkeys(s.text[a - s.start : b - s.start].lower() for s, a, b in one_sided))
        rationale = (
            f"Cue-balance heuristic: the draft names {len(one_sided)} {side} cues ({words}) and no {other} cue; "
            f"a balanced account of a policy names its {others} too."
        )
        findings.append(
            CriticFinding(
                label="L2",
                sentence_index=sentence.index,
                span=(start, end),
                trigger=sentence.text[start - sentence.start : end - sentence.start],
                rationale=rationale,
                tier=1,
                confidence=BALANCE_CONFIDENCE,
                rule="L2.cue-balance",
            )
        )
    return findings


def _matches(sentence: DraftSentence, entries: Sequence[LexiconEntry]) -> list[tuple[LexiconEntry, int, int]]:
    """(entry, draft start, draft end) of each unquoted match in the sentence, overlaps resolved to the longest
    (then the earliest, then the first entry), in text order."""
    found = []
    for order, entry in enumerate(entries):
        for match in entry.regex.finditer(sentence.text):
            start, end = sentence.start + match.start(), sentence.start + match.end()
            if end > start and not sentence.is_quoted(start, end):
                found.append((end - start, order, start, end, entry))
    kept: list[tuple[LexiconEntry, int, int]] = []
    for _, _, start, end, entry in sorted(found, key=lambda item: (-item[0], item[2], item[1])):
        if all(end <= low or start >= high for _, low, high in kept):
            kept.append((entry, start, end))
    return sorted(kept, key=lambda item: item[1])


def _finding(
    lexicon: Lexicon, entry: LexiconEntry, sentence: DraftSentence, start: int, end: int, trigger: str
) -> CriticFinding:
    trigger = re.sub(r"\s+", " ", trigger)
    why = entry.why.format(trigger=trigger)
    return CriticFinding(
        label=lexicon.label,  # type: ignore[arg-type]
        sentence_index=sentence.index,
        span=(start, end),
        trigger=trigger,
        rationale=lexicon.rationale.format(trigger=trigger, why=why),
        tier=1,
        confidence=entry.confidence,
        rule=entry.rule,
    )
