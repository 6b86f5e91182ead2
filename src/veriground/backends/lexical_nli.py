"""Lexical NLI: (premise, hypothesis) pairs → entail / neutral / contradict probabilities from visible cues.

A transparent heuristic, not a trained model: it needs no weights, runs offline and is deterministic.
Support is the share of the hypothesis' content (Snowball stems of non-stopwords, plus its numbers) that
the premise contains. Contradiction cues are read against the premise sentence that shares most with the
hypothesis and fire only when that sentence holds at least CUE_MIN_OVERLAP of the hypothesis:
a negation on one side only whose scope (the NEGATION_SCOPE words after it) holds a content word the other
side shares (so "when air resistance is not a factor" does not negate a claim about gravity), an antonym
pair (ANTONYM_PAIRS) unless the premise also states the claim's pole in another word, among more of the claim's words
than the opposite ("less than u.x" for "smaller", beside "greater than u.x"), a number whose premise counterpart in the
same role differs, and an equation whose left-hand side matches but right-hand side does not (E = mc³ vs E = mc²).
The cues themselves are read by text/cues.py.

    c = coverage of the hypothesis by the whole premise; a = coverage by the best-aligned premise sentence
    no cue:  contradict = 0,                                      entail = c²
    a cue:   contradict = min(CONTRADICTION_CAP, CONTRADICTION_GAIN · a),  entail = c² · (1 − contradict)
    neutral = 1 − entail − contradict  (all three in [0, 1], rounded to 6 places)

A hypothesis with no content at all is neutral (0, 1, 0). It cannot see paraphrase, synonyms or world
knowledge, and any premise that repeats the hypothesis' words without a cue counts as support.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypedDict

from veriground.schema import NLIScores
from veriground.text.content import content_stems
from veriground.text.cues import antonym_pairs_among, extract_equations, negated_stems, opposites_of
from veriground.text.memo import text_memo
from veriground.text.parameters import case_quantities, stated_quantities
from veriground.text.quantities import (
    NormalQuantity,
    comparable_quantities,
    normalise_leniently,
    remove_quantities,
    same_quantity,
)
from veriground.text.sentences import sentence_spans
from veriground.text.terms import extract_terms, normalise_text, stem_words, tokenize_words

LEXICAL_NLI_NAME = "lexical-nli.v1"
LEXICAL_NLI_MODEL_ID = "veriground/lexical-nli"
# Below this aligned coverage the two texts share too little for a polarity or number difference to be about
# the same thing.
CUE_MIN_OVERLAP = 0.3
# contradict = GAIN · aligned coverage, so a cue with half the hypothesis shared gives 0.75; the cap keeps
# a surface cue from ever being certain.
CONTRADICTION_GAIN = 1.5
CONTRADICTION_CAP = 0.95
# How many words either side of an antonym in the premise say what it is about (see _states_the_claims_pole).
POLE_CONTEXT = 5
_DECIMALS = 6


class LexicalExplanation(TypedDict):
    """`LexicalNLIModel.explain`: the cues behind one prediction, for reports."""

    model: str
    coverage: float
    aligned_coverage: float
    aligned_sentence: str
    missing_terms: list[str]
    cues: list[dict[str, str]]
    entail: float
    neutral: float
    contradict: float


@dataclass(frozen=True)
class _TextProfile:
    stems: frozenset[str]  # content stems, numbers removed
    all_stems: frozenset[str]  # every word's stem, for the antonym table
    word_stems: tuple[str, ...]  # every word's stem in order, for what an antonym stands next to
    negated_stems: frozenset[str]  # content stems inside the scope of a negation
    quantities: tuple[NormalQuantity, ...]
    cases: tuple[NormalQuantity, ...]  # those that set up the case the text speaks of (text/parameters.py)
    equations: tuple[tuple[str, str], ...]  # (lhs, normalised rhs)


@dataclass(frozen=True)
class _Reading:
    coverage: float
    aligned_coverage: float
    aligned_sentence: str
    cues: tuple[dict[str, str], ...]
    scores: NLIScores


class LexicalNLIModel:
    """The offline default NLI backend: cue-based probabilities, explained by `explain`."""

    name = LEXICAL_NLI_NAME
    model_id = LEXICAL_NLI_MODEL_ID
    checksum: str | None = None

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list[NLIScores]:
        return [_read_pair(premise, hypothesis).scores for premise, hypothesis in pairs]

    def cue_reading(self, premise: str, hypothesis: str) -> tuple[NLIScores, frozenset[str]]:
        """The prediction and the names of the cues that fired ("negation", "antonym", "number", "equation"): what
        the aggregator's features read, without the report's wording (`explain`)."""
        reading = _read_pair(premise, hypothesis)
        return reading.scores, frozenset(cue["cue"] for cue in reading.cues)

    def explain(self, premise: str, hypothesis: str) -> LexicalExplanation:
        """The cues behind one prediction, for reports."""
        reading = _read_pair(premise, hypothesis)
        return {
            "model": self.name,
            "coverage": reading.coverage,
            "aligned_coverage": reading.aligned_coverage,
            "aligned_sentence": reading.aligned_sentence,
            "missing_terms": _missing_terms(hypothesis, _profile_text(premise)),
            "cues": [dict(cue) for cue in reading.cues],
            "entail": reading.scores.entail,
            "neutral": reading.scores.neutral,
            "contradict": reading.scores.contradict,
        }


# The verifier asks for the same pair twice: once as the NLI backend's prediction, once for the aggregator's cue
# features (signals/support_features.py). A reading is a pure function of the two texts.
@text_memo(maxsize=8192)
def _read_pair(premise: str, hypothesis: str) -> _Reading:
    claim = _profile_text(hypothesis)
    size = len(claim.stems) + len(claim.quantities)
    if size == 0:
        return _Reading(0.0, 0.0, "", (), NLIScores(entail=0.0, neutral=1.0, contradict=0.0))
    whole = _profile_text(premise)
    spans = sentence_spans(premise)
    # a one-sentence unit is read as itself (its memoised profile is found without slicing the text again)
    sentences = [premise] if spans in ([], [(0, len(premise))]) else [premise[start:end] for start, end in spans]
    aligned_sentence, aligned = sentences[0], _profile_text(sentences[0])
    aligned_coverage = _coverage(claim, aligned, size)
    for sentence in sentences[1:]:
        profile = _profile_text(sentence)
        coverage = _coverage(claim, profile, size)
        if coverage > aligned_coverage:
            aligned_sentence, aligned, aligned_coverage = sentence, profile, coverage
    coverage = _coverage(claim, whole, size)
    cues = _find_cues(claim, aligned, whole) if aligned_coverage >= CUE_MIN_OVERLAP else ()
    return _Reading(
        coverage=round(coverage, _DECIMALS),
        aligned_coverage=round(aligned_coverage, _DECIMALS),
        aligned_sentence=aligned_sentence,
        cues=cues,
        scores=_scores_from(coverage, aligned_coverage, fired=bool(cues)),
    )


def _scores_from(coverage: float, aligned_coverage: float, *, fired: bool) -> NLIScores:
    contradict = min(CONTRADICTION_CAP, CONTRADICTION_GAIN * aligned_coverage) if fired else 0.0
    entail = coverage**2 * (1.0 - contradict)
    entail, contradict = round(entail, _DECIMALS), round(contradict, _DECIMALS)
    neutral = round(max(0.0, 1.0 - entail - contradict), _DECIMALS)
    return NLIScores(entail=entail, neutral=neutral, contradict=contradict)


def _coverage(claim: _TextProfile, premise: _TextProfile, size: int) -> float:
    shared = len(claim.stems & premise.stems)
    shared += sum(1 for quantity in claim.quantities if _has_same(quantity, premise.quantities))
    return shared / size


def _find_cues(claim: _TextProfile, aligned: _TextProfile, whole: _TextProfile) -> tuple[dict[str, str], ...]:
    cues: list[dict[str, str]] = []
    claim_negated = bool(claim.negated_stems & aligned.stems)
    premise_negated = bool(aligned.negated_stems & claim.stems)
    if claim_negated != premise_negated:
        side = "hypothesis" if claim_negated else "premise"
        negated = sorted((claim.negated_stems & aligned.stems) or (aligned.negated_stems & claim.stems))
        cues.append({"cue": "negation", "detail": f"only the {side} negates {', '.join(negated)}"})
    antonyms = []
    for first, second in antonym_pairs_among(claim.all_stems):
        for mine, theirs in ((first, second), (second, first)):
            one_sided = mine not in aligned.all_stems and theirs not in claim.all_stems
            one_sided = one_sided and not _states_the_claims_pole(claim, aligned, mine, theirs)
            if one_sided and mine in claim.all_stems and theirs in aligned.all_stems:
                antonyms.append({"cue": "antonym", "detail": f"hypothesis '{mine}' vs premise '{theirs}'"})
    if len(antonyms) == 1 and len(cues) == 1:
        # One opposite and one negation on one side undo each other: "purchases under the threshold do not need OA"
        # says what "this applies only to actions over the threshold" does, and "did not increase" what "fell" does.
        cues = []
    else:
        cues.extend(antonyms)
    # A claim about one case ("a tree with 10 vertices") has no rival values in a premise about another.
    other_case = not all(_has_same(case, whole.quantities) for case in claim.cases)
    for quantity in claim.quantities:
        if other_case or quantity in claim.cases or _has_same(quantity, whole.quantities):
            continue
        rivals = [other for other in whole.quantities if comparable_quantities(quantity, other)]
        if rivals:
            shown = ", ".join(rival.quantity.describe() for rival in rivals[:3])
            cues.append({"cue": "number", "detail": f"hypothesis {quantity.quantity.describe()} vs premise {shown}"})
    premise_equations: dict[str, set[str]] = {}
    for lhs, rhs in whole.equations:
        premise_equations.setdefault(lhs, set()).add(rhs)
    for lhs, rhs in claim.equations:
        if lhs in premise_equations and rhs not in premise_equations[lhs]:
            shown = " | ".join(sorted(premise_equations[lhs]))
            cues.append({"cue": "equation", "detail": f"hypothesis {lhs} = {rhs} vs premise {lhs} = {shown}"})
    return tuple(cues)


def _states_the_claims_pole(claim: _TextProfile, premise: _TextProfile, mine: str, theirs: str) -> bool:
    """The premise states both poles, and the claim's (in another word: "less" for "smaller") stands among more of the
    claim's words than the other does: "u.left is less than u.x and ... u.right is greater than u.x" states what
    "the left subtree is smaller" says, while "makes more comparisons, although it uses less memory" still
    contradicts "makes fewer comparisons"."""
    ours = (opposites_of(theirs) - {mine}) & premise.all_stems
    if not ours:
        return False
    return len(_near(premise.word_stems, ours) & claim.stems) > len(_near(premise.word_stems, {theirs}) & claim.stems)


def _near(stems: tuple[str, ...], targets: set[str] | frozenset[str]) -> set[str]:
    """The stems within POLE_CONTEXT words of any of `targets`."""
    near: set[str] = set()
    for index, stem in enumerate(stems):
        if stem in targets:
            near.update(stems[max(0, index - POLE_CONTEXT) : index + POLE_CONTEXT + 1])
    return near


def _has_same(quantity: NormalQuantity, others: tuple[NormalQuantity, ...]) -> bool:
    return any(same_quantity(quantity, other) for other in others)


def _missing_terms(hypothesis: str, premise: _TextProfile) -> list[str]:
    missing = [term.surface for term in extract_terms(remove_quantities(hypothesis)) if term.stem not in premise.stems]
    claim = _profile_text(hypothesis)
    missing += [q.quantity.describe() for q in claim.quantities if not _has_same(q, premise.quantities)]
    return list(dict.fromkeys(missing))


@text_memo(maxsize=8192)
def _profile_text(text: str) -> _TextProfile:
    normal = normalise_text(text)
    words = tokenize_words(normal)
    # a question states no value ("Could a tree with 7 vertices have only 5 edges?"), nor a formula's constant
    quantities = tuple(
        normalise_leniently(quantity) for quantity, constant in stated_quantities(normal) if not constant
    )
    cases = {quantity.start for quantity in case_quantities(normal)}
    return _TextProfile(
        stems=content_stems(normal),
        all_stems=frozenset(stem_words(words)),
        word_stems=tuple(stem_words(words)),
        negated_stems=negated_stems(normal),
        quantities=quantities,
        cases=tuple(quantity for quantity in quantities if quantity.quantity.start in cases),
        equations=tuple(extract_equations(normal)),
    )
