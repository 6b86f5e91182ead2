"""L3, unsupported claims: the draft's check-worthy sentences (a number, an evidential phrase or a superlative,
and no citation) -> the verifier's verdict for each against the corpus -> a finding where it is Unsupported or
Contradictory. Plans, procedures and recommendations assert nothing a corpus could support and are not sent."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from veriground.critic.lexicons import LexiconEntry, load_lexicon
from veriground.critic.sentences import DraftSentence, sentence_finding
from veriground.schema import CriticFinding, DisplayVerdict, VerificationReport

# Verdicts that make a check-worthy sentence L3, with the confidence of the finding: a passage that contradicts
# the sentence is firmer ground than finding no passage that supports it.
L3_VERDICT_CONFIDENCE: dict[DisplayVerdict, float] = {
    DisplayVerdict.CONTRADICTORY: 0.85,
    DisplayVerdict.UNSUPPORTED: 0.7,
}
# The worst of a sentence's claim verdicts decides. Unlike WORST_FIRST (schema/vocabulary.py), Unsupported ranks
# before Unverified here: a sentence with one claim nothing supports is an L3 finding even when another of its
# claims could not be checked, and it is counted as unverified only when no claim is worse.
_WORST_FIRST = (
    DisplayVerdict.CONTRADICTORY,
    DisplayVerdict.UNSUPPORTED,
    DisplayVerdict.UNVERIFIED,
    DisplayVerdict.LOW_CONFIDENCE,
    DisplayVerdict.SUPPORTED,
)
_SEPARATOR = "\n\n"  # one paragraph per sentence, so the verifier never joins two of them


@dataclass(frozen=True)
class SupportOutcome:
    findings: list[CriticFinding]
    checked: int  # sentences sent to the verifier
    unverified: int  # of those, sentences the verifier could not decide (an NLI failure)
    report: VerificationReport | None


def checkworthy_cue(sentence: DraftSentence) -> tuple[LexiconEntry, str] | None:
    """The first unquoted check-worthiness cue of the sentence and its text, or None."""
    for entry in load_lexicon("L3").entries:
        for match in entry.regex.finditer(sentence.text):
            start, end = sentence.start + match.start(), sentence.start + match.end()
            if not sentence.is_quoted(start, end):
                return entry, match.group()
    return None


def find_unsupported(sentences: Sequence[DraftSentence], verify: Callable[[str], VerificationReport]) -> SupportOutcome:
    """Verify every check-worthy, uncited sentence in one call of `verify`; L3 where its worst claim verdict is
    in L3_VERDICT_CONFIDENCE."""
    chosen = [(sentence, hit) for sentence in sentences if not sentence.cited and (hit := checkworthy_cue(sentence))]
    if not chosen:
        return SupportOutcome([], 0, 0, None)
    starts, parts, cursor = [], [], 0
    for sentence, _ in chosen:
        starts.append(cursor)
        parts.append(sentence.text)
        cursor += len(sentence.text) + len(_SEPARATOR)
    report = verify(_SEPARATOR.join(parts))
    verdicts: dict[int, list[tuple[DisplayVerdict, str]]] = {index: [] for index in range(len(chosen))}
    for claim in report.claims:
        position = max(i for i, start in enumerate(starts) if start <= claim.claim.answer_char_span[0])
        verdicts[position].append((claim.decision.status, claim.decision.rationale))
    findings, unverified = [], 0
    for position, (sentence, (entry, cue)) in enumerate(chosen):
        readings = sorted(verdicts[position], key=lambda item: _WORST_FIRST.index(item[0]))
        if not readings:
            continue
        worst, why = readings[0]
        if worst == DisplayVerdict.UNVERIFIED:
            unverified += 1
        if worst not in L3_VERDICT_CONFIDENCE:
            continue
        rationale = (
            f"Checked against the corpus because it {entry.why} (“{cue}”): the verifier finds it {worst} "
            f"({why.rstrip('.')}), and the sentence cites nothing; cite a source or drop the claim."
        )
        findings.append(
            sentence_finding(
                "L3",
                sentence,
                rationale=rationale,
                confidence=L3_VERDICT_CONFIDENCE[worst],
                rule=f"L3.verifier-{worst.lower()}",
            )
        )
    return SupportOutcome(findings, len(chosen), unverified, report)
