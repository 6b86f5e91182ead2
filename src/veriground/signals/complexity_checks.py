"""The complexity check of the formal signal (signals/formal.py): a claim's Big-O/Θ/Ω bounds against the bound the
evidence gives for the same algorithm, case and resource (complexity_mismatch); a bound whose sentence names no
algorithm against the evidence sentence the claim restates; and two evidence passages giving different bounds for the
same case (an evidence conflict, seed 000 T5). A bound stated in a sentence that names its algorithm outranks one whose
algorithm was carried over from an earlier sentence (a step of a derivation, maybe not the algorithm's bound).

It also gives the aggregator's rules of reading for one evidence unit against a bound claim (unit_bounds): a unit
about another algorithm's bounds neither supports nor refutes it, one that gives its bound only for a weaker case does
not support it, and a claim of nothing but bounds is refuted by the formal check alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from veriground.schema import FormalCheck
from veriground.signals.algorithm_names import named_subjects, subject_mentions
from veriground.signals.complexity import Bound, find_bounds, same_subject
from veriground.text.content import content_stems
from veriground.text.memo import text_memo
from veriground.text.readable import readable_text
from veriground.text.sentences import sentence_spans
from veriground.text.terms import stem_words

# A claim sentence that shares this share of its words (both ways, bounds left out) with an evidence sentence restates
# it, so their bounds at the same position are about the same thing even when neither names an algorithm.
RESTATED_WORD_SHARE = 0.8
_WORD = re.compile(r"[a-z]{3,}")
_VARIABLE = re.compile(r"[A-Za-z_]\w*")


# The same evidence passages serve many claims of one text: each is read once.
@text_memo(maxsize=1024)
def _evidence_bounds(text: str) -> tuple[Bound, ...]:
    return tuple(find_bounds(text, carry_algorithm=True)[0])


def complexity_checks(claim_text: str, evidence_texts: Sequence[str]) -> tuple[list[FormalCheck], list[str], list[str]]:
    claim_bounds, problems = find_bounds(claim_text, carry_algorithm=True)
    evidence_bounds = [list(_evidence_bounds(text)) for text in evidence_texts]
    checks = []
    for bound in claim_bounds:
        matching = [
            (index, other)
            for index, bounds in enumerate(evidence_bounds)
            for other in bounds
            if bound.algorithm is not None and same_subject(bound, other)
        ]
        # a bound stated in a sentence naming the algorithm outranks one whose algorithm was carried from before
        matching = [item for item in matching if not item[1].carried] or matching
        if not matching:
            restated = _restated_bound(claim_text, bound, claim_bounds, evidence_texts, evidence_bounds)
            if restated is not None:
                checks.append(restated)
            continue
        checks.append(_bound_check(bound, matching, _named_gives(bound)))
    return checks, problems, _bound_conflicts(evidence_bounds)


@dataclass(frozen=True)
class UnitBounds:
    """What one evidence unit's complexity bounds allow it to say of a claim that states bounds of named algorithms."""

    bars_support: bool  # see unit_bounds
    bars_refutation: bool


_NO_BAR = UnitBounds(bars_support=False, bars_refutation=False)
_WEAKER_CASES = frozenset({"average", "amortized"})


@dataclass(frozen=True)
class _ClaimBounds:
    bounds: tuple[Bound, ...]
    subjects: frozenset[str]
    only_bounds: bool  # the claim says nothing but its bounds and what they are of


@text_memo(maxsize=256)
def _claim_bounds(claim_text: str) -> _ClaimBounds | None:
    """The claim's bounds when it states some and each names its algorithm; else None."""
    bounds = tuple(find_bounds(claim_text, carry_algorithm=True)[0])
    subjects = [bound.algorithm for bound in bounds]
    if not bounds or any(subject is None for subject in subjects):
        return None
    names = content_stems(readable_text(" ".join(subject_mentions(claim_text))))
    only_bounds = not words_beyond_bounds(claim_text, bounds) - names
    return _ClaimBounds(bounds, frozenset(subject for subject in subjects if subject is not None), only_bounds)


def unit_bounds(claim_text: str, unit_text: str) -> UnitBounds:
    """Rules of reading for a claim whose bounds each name an algorithm, against one evidence unit:
    - the unit states bounds of none of the claim's algorithms and names none of them ("Quicksort runs in O(n^2) time
      in the worst case" against "The add(x) and remove(x) operations on a red-black tree run in O(log n) worst-case
      time"): it is about another subject's complexity, so it neither supports nor refutes the claim;
    - the unit gives the claim's bound only for a weaker case (the expected or amortized one, where the claim states the
      worst case or no case): it does not support the claim ("Quicksort runs in O(n log n) time in the worst case");
    - the claim says nothing but its bounds and what they are of: only the formal check (same algorithm, case and
      resource) refutes it, never a model's reading of one string of letters against another."""
    claim = _claim_bounds(claim_text)
    if claim is None:
        return _NO_BAR
    bounds = _evidence_bounds(unit_text)
    named = named_subjects(unit_text)
    elsewhere = bool(bounds) and not any(bound.algorithm in claim.subjects for bound in bounds)
    elsewhere = elsewhere and not any(subject in named or subject.split(".")[0] in named for subject in claim.subjects)
    return UnitBounds(
        bars_support=elsewhere or _weaker_case_only(claim.bounds, bounds),
        bars_refutation=elsewhere or claim.only_bounds,
    )


def _weaker_case_only(claim_bounds: Sequence[Bound], unit_bounds: Sequence[Bound]) -> bool:
    """Some claim bound of the worst (or no) case whose order the unit gives its algorithm only for a weaker case."""
    for bound in claim_bounds:
        if bound.case not in {"worst", "unspecified"}:
            continue
        if any(same_subject(bound, other) for other in unit_bounds):
            continue
        if any(
            other.algorithm == bound.algorithm
            and other.resource == bound.resource
            and other.kind == bound.kind
            and other.order == bound.order
            and other.case in _WEAKER_CASES
            for other in unit_bounds
        ):
            return True
    return False


def _restated_bound(
    claim_text: str,
    bound: Bound,
    claim_bounds: list[Bound],
    evidence_texts: Sequence[str],
    evidence_bounds: list[list[Bound]],
) -> FormalCheck | None:
    """The claim's bound against an evidence bound whose surroundings the claim restates: the words of the claim's
    sentence before and after its bound are (nearly) the words around the evidence bound, bounds cut out
    ("operations take O(n) time" against "operations take O(log n) time")."""
    sentence = _sentence_of(claim_text, bound.start)
    before, after = bound.start - sentence[0], sentence[1] - bound.end
    words = _words_outside(claim_text, sentence, claim_bounds)
    # "O(n) = O(i) = O(n - i)": the words around each bound are the same, so bounds pair up by their place
    layout = _bound_layout(claim_bounds, sentence, bound)
    if not words:
        return None
    restated: list[tuple[int, Bound]] = []
    for index, (text, bounds) in enumerate(zip(evidence_texts, evidence_bounds, strict=True)):
        for other in bounds:
            if other.kind != bound.kind:
                continue
            window = (max(0, other.start - before), min(len(text), other.end + after))
            if _bound_layout(bounds, window, other) != layout:
                continue
            other_words = _words_outside(text, window, bounds)
            if len(words & other_words) >= RESTATED_WORD_SHARE * max(len(words), len(other_words)):
                restated.append((index, other))
    if not restated:
        return None
    # As for a named algorithm, one restated evidence sentence that agrees is enough (the claim's own sentence).
    return _bound_check(
        bound, restated, lambda other: f"the evidence sentence the claim restates gives {other.describe()}"
    )


# Words a bound's sentence uses to say it states a bound; the algorithm, case and resource are checked as the bound's
# subject (same_subject), so what the claim says beyond its bounds is its other content words.
_BOUND_VERBS = (
    "run runs running ran take takes taking took cost costs need needs require requires required use uses perform "
    "performs complete completes execute executes is are has have be time times complexity bound bounded case cases "
    "worst average best expected amortized amortised space memory comparisons algorithm operation"
)
BOUND_WORDS = frozenset(stem_words(_BOUND_VERBS.split()))


def words_beyond_bounds(claim_text: str, bounds: Sequence[Bound]) -> frozenset[str]:
    """The claim's content stems outside its bounds, less the words that only say it states a bound."""
    pieces, cursor = [], 0
    for bound in sorted(bounds, key=lambda item: item.start):
        pieces.append(claim_text[cursor : bound.start])
        cursor = max(cursor, bound.end)
    pieces.append(claim_text[cursor:])
    return content_stems(readable_text(" ".join(pieces))) - BOUND_WORDS


def _named_gives(bound: Bound) -> Callable[[Bound], str]:
    def gives(other: Bound) -> str:
        subject = f"{bound.algorithm}'s {_case_phrase(other.case)}{_resource_phrase(bound.resource)}"
        return f"the evidence gives {other.describe()} for {subject}"

    return gives


def _bound_check(bound: Bound, candidates: Sequence[tuple[int, Bound]], gives: Callable[[Bound], str]) -> FormalCheck:
    """The claim's bound judged against the first evidence bound that agrees with it, else the first candidate in
    the claim's variables (O(n log n) before a step's O(n/2^i)); `gives(other)` says what the evidence gives."""
    agreeing = [(index, other) for index, other in candidates if other.order == bound.order]
    same_variables = [item for item in candidates if _variables(item[1].order) == _variables(bound.order)]
    index, other = (agreeing or same_variables or candidates)[0]
    said = ", as the claim does" if agreeing else f"; the claim says {bound.describe()}"
    return FormalCheck(
        check="complexity",
        outcome="ok" if agreeing else "complexity_mismatch",
        reason=f"{gives(other)}{said}",
        claim_span=(bound.start, bound.end),
        claim_value=bound.describe(),
        evidence_index=index,
        evidence_span=(other.start, other.end),
        evidence_value=other.describe(),
    )


def _variables(order: str) -> frozenset[str]:
    return frozenset(_VARIABLE.findall(order)) - {"log"}


def _bound_layout(bounds: Sequence[Bound], span: tuple[int, int], bound: Bound) -> tuple[int, int]:
    """How many bounds lie in `span` before `bound`, and after it."""
    inside = [other.start for other in bounds if span[0] <= other.start and other.end <= span[1]]
    return sum(start < bound.start for start in inside), sum(start > bound.start for start in inside)


def _sentence_of(text: str, offset: int) -> tuple[int, int]:
    return next(((a, b) for a, b in sentence_spans(text) if a <= offset < b), (0, len(text)))


def _words_outside(text: str, span: tuple[int, int], bounds: Sequence[Bound]) -> set[str]:
    """The words of three letters or more in text[span], lower-cased, with every bound cut out."""
    pieces, cursor = [], span[0]
    for bound in sorted(bounds, key=lambda item: item.start):
        if bound.end <= span[0] or bound.start >= span[1]:
            continue
        pieces.append(text[cursor : max(cursor, bound.start)])
        cursor = max(cursor, bound.end)
    pieces.append(text[cursor : span[1]])
    return set(_WORD.findall(" ".join(pieces).lower()))


def _bound_conflicts(evidence_bounds: list[list[Bound]]) -> list[str]:
    """Seed T5: two evidence texts that give different orders for the same algorithm, case and resource."""
    conflicts = []
    seen: set[tuple[str, ...]] = set()
    for first_index, first_bounds in enumerate(evidence_bounds):
        for second_index in range(first_index + 1, len(evidence_bounds)):
            for first in first_bounds:
                for second in evidence_bounds[second_index]:
                    if first.algorithm is None or first.order == second.order or first.case != second.case:
                        continue
                    if first.carried or second.carried:  # a step of a derivation, maybe not the algorithm's bound
                        continue
                    if not same_subject(first, second):
                        continue
                    key = (first.algorithm, first.case, first.resource, *sorted((first.order, second.order)))
                    if key in seen:
                        continue
                    seen.add(key)
                    conflicts.append(
                        f"evidence {first_index} gives {first.describe()} and evidence {second_index} gives "
                        f"{second.describe()} for {first.algorithm}'s {_case_phrase(first.case)}"
                        f"{_resource_phrase(first.resource)}"
                    )
    return conflicts


def _case_phrase(case: str) -> str:
    return "unqualified bound" if case == "unspecified" else f"{case} case"


def _resource_phrase(resource: str) -> str:
    return "" if resource == "time" else f" ({resource})"
