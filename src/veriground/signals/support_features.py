"""Support features: a claim, one evidence unit and the NLI's scores on the pair -> the named values a calibrated
aggregator combines into P(supported) and P(contradicted).

Each value is in [0, 1] and means one visible thing, so a verdict can show what it read:
- nli_entail / nli_contradict: the configured NLI model's probabilities for (unit, claim);
- lex_entail / lex_contradict: the lexical NLI's (word coverage with negation, antonym, number and equation cues);
- alignment: share of the claim's content stems and numbers in the unit; bigram_coverage: share of the claim's
  adjacent content-word pairs that the unit also has adjacent (word order); entity_coverage: share of the claim's
  entities (symbols, names, terms) the unit mentions (1 when the claim names none);
- number_match / number_mismatch / number_missing: the claim's quantities against the unit's (0 without numbers);
- cue_negation / cue_antonym / cue_equation: the lexical reading's contradiction cues;
- unit_extra: the unit's content words the claim lacks, as a share of 20 words (a long unit dilutes nothing here,
  but a unit about much else is weaker support);
- contained: the longest run of the claim's words, in order, that the unit contains, as a share of the claim (1 for
  a verbatim quote); quoted: 1 when the claim is (nearly all of) one of the unit's sentences word for word;
  claim_words: the claim's length as a share of 30 words;
- entail_x_alignment / contradict_x_alignment: the NLI's reading weighted by how much of the claim the unit holds;
- corroboration: the claim's other evidence passages that hold most of its content (a best unit aligned at least
  CORROBORATION_ALIGNMENT), as a share of CORROBORATION_SCALE passages: the claim's degree in the claim–evidence
  graph (reports/claim_graph.py) counted on alignment edges, before any verdict, so one reading can feed the next;
- entities_missing / words_missing: the share of the claim's entities (names, symbols, terms), and of its content
  words, that none of its evidence passages mentions (signals/coverage.py): a name the whole evidence never uses
  ("an Englishman" where the article says "an American") is a reading no single unit gives;
- leaves_words_out: 1 when the claim is the unit's sentence less some words, none of them a negation, scope, degree,
  order, count or belief word or a number (text/deletion.py: "all objects fall" -> "objects fall"); such a unit never
  refutes the claim (verdicts/aggregator.py), and a support model fitted with it learns how far it supports;
- change_agrees / change_disagrees: the claim names a rise or a fall ("a decrease in net income") and the unit's own
  compared numbers show the same change, or the other ("$94.8 million, compared to $106.6 million", text/changes.py);
- numbers_bar_refutation: the unit's numbers meet every bound the claim states ("less than $1 million" against
  "$181,674"), or the claim denies values the unit gives as others (signals/numeric.py); such a unit never refutes.
- pronoun_subject: the unit opens with a pronoun ("She also starred in ...") and the claim names someone or something
  the unit never mentions ("Kelly Preston starred in ..."): the unit may be about the claim's subject, but says nothing
  of it by name, so it never refutes the claim (a model read such pairs as contradiction 0.53);
- speaker: 1 when the claim speaks of its speaker or its listener (I, me, my, we, you, your ...): "I love that band
  too!" is about no document, however many of its words one holds;
- subject_elsewhere: the claim's subject and the unit's (their words before the first verb, text/clauses.py subject)
  each have a word the other lacks: "Every even number greater than 2 can be expressed as the sum of two primes" is
  about even numbers, not the primes of "Every prime number greater than 2 is odd" (the shipped model read it as a
  contradiction, 0.75), and "However, electrons are negative charges, ... gaining kinetic energy" is about electrons,
  not "Kinetic energy cannot be negative" (0.74); such a unit never refutes the claim (verdicts/aggregator.py);
- states_nothing: every sentence of the unit asks a question or speaks of the document ("What is the acceleration of
  the car?", "This video introduces vectors and scalars.", text/speech_acts.py): it neither supports nor refutes the
  claim, whatever the NLI reads (verdicts/aggregator.py);
- another_subject: the passage never names what the claim is about (text/clauses.py subject), and a sentence of the
  unit is about another thing the claim names: "The force is directly proportional to the product of their masses and
  inversely proportional to the square of the distance between them." read as 0.82 entailment of "Impulse is the
  product of force and distance", in a passage that never says "impulse"; such a unit never supports the claim
  (verdicts/aggregator.py). A passage that names the subject once, before a unit that calls it "the group", is read
  as the model reads it;
- conditional_unit: the unit opens with a condition ("If kinetic energy is conserved, the collision is elastic.") and
  the claim does not: it asserts nothing unconditionally, so it never refutes the claim ("kinetic energy is not
  conserved" is no denial of it; verdicts/aggregator.py);
- opposite_reads_alike: the unit states a word of the claim both ways, and the NLI reads the claim with that word put
  as its opposite as entailed about as much as the claim (verdicts/aggregator.py reads_alike): the unit cannot tell
  them apart, so it neither supports nor refutes the claim;
- bounds_bar_support / bounds_bar_refutation: the claim states complexity bounds of named algorithms, and the unit
  is about another algorithm's bounds, gives the claim's only for a weaker case, or (refutation) the claim says
  nothing else (signals/complexity_checks.py unit_bounds); such a unit never supports, or never refutes, the claim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from veriground.backends.lexical_nli import LexicalNLIModel
from veriground.schema import NLIScores
from veriground.signals.complexity_checks import unit_bounds
from veriground.signals.coverage import compute_coverage, extract_entities, mentions_entity
from veriground.signals.numeric import unit_numbers
from veriground.text.changes import named_change, shown_change
from veriground.text.clauses import subject
from veriground.text.content import content_stems
from veriground.text.deletion import leaves_words_out
from veriground.text.memo import text_memo
from veriground.text.quantities import remove_quantities
from veriground.text.sentences import sentence_spans
from veriground.text.speech_acts import states_nothing
from veriground.text.terms import extract_terms, normalise_text, tokenize_words

FEATURE_NAMES: tuple[str, ...] = (
    "nli_entail",
    "nli_contradict",
    "lex_entail",
    "lex_contradict",
    "alignment",
    "bigram_coverage",
    "entity_coverage",
    "number_match",
    "number_mismatch",
    "number_missing",
    "cue_negation",
    "cue_antonym",
    "cue_equation",
    "unit_extra",
    "contained",
    "quoted",
    "claim_words",
    "entail_x_alignment",
    "contradict_x_alignment",
    "corroboration",
    "entities_missing",
    "words_missing",
    "leaves_words_out",
    "change_agrees",
    "change_disagrees",
    "numbers_bar_refutation",
    "bounds_bar_support",
    "bounds_bar_refutation",
    "speaker",
    "pronoun_subject",
    "subject_elsewhere",
    "states_nothing",
    "opposite_reads_alike",
    "conditional_unit",
    "another_subject",
)
EXTRA_WORDS_SCALE = 20.0
CLAIM_WORDS_SCALE = 30.0
CORROBORATION_ALIGNMENT = 0.6
CORROBORATION_SCALE = 3.0
QUOTED_SHARE = 0.8
QUOTED_MIN_WORDS = 4  # "It is." quoted proves nothing
_SPEAKER_LIST = "i me my mine myself we us our ours ourselves you your yours yourself yourselves"
_SPEAKER_WORDS = frozenset(_SPEAKER_LIST.split())
_DECIMALS = 6
_LEXICAL = LexicalNLIModel()


@dataclass(frozen=True)
class ClaimContext:
    """What the features read of the claim across all its evidence passages rather than in one unit."""

    corroborating: int = 0  # the claim's other passages aligned with it (see corroborating_passages)
    entities_missing: float = 0.0  # share of the claim's entities no evidence passage mentions (0: it names none)
    words_missing: float = 0.0  # share of the claim's content stems no evidence passage holds
    passage_lacks_subject: bool = False  # the unit's passage names nothing the claim is about (see another_subject)


def claim_context(claim_text: str, evidence_texts: Sequence[str], corroborating: int = 0) -> ClaimContext:
    coverage = compute_coverage(claim_text, evidence_texts)
    return ClaimContext(corroborating, _missing(coverage.entity_coverage), _missing(coverage.token_coverage))


def passage_context(context: ClaimContext, claim_text: str, passage_text: str) -> ClaimContext:
    """The claim's context as one of its passages reads it: whether that passage names what the claim is about."""
    ours = subject(claim_text) or frozenset()
    lacks = bool(ours) and not ours & content_stems(passage_text)
    return replace(context, passage_lacks_subject=lacks) if lacks else context


def _missing(coverage: float | None) -> float:
    return 0.0 if coverage is None else round(1.0 - coverage, _DECIMALS)


NO_CONTEXT = ClaimContext()


def support_features(
    claim_text: str, unit_text: str, alignment: float, nli: NLIScores, context: ClaimContext = NO_CONTEXT
) -> dict[str, float]:
    """The named values of one (claim, unit) pair, in FEATURE_NAMES order, with what `context` read of the claim
    across all its passages."""
    lexical, cues = _LEXICAL.cue_reading(unit_text, claim_text)
    claim, unit = _text_reading(claim_text), _text_reading(unit_text)
    outcome, numbers_bar_refutation = unit_numbers(claim_text, unit_text)
    bounds = unit_bounds(claim_text, unit_text)
    values: dict[str, float] = {
        "nli_entail": nli.entail,
        "nli_contradict": nli.contradict,
        "lex_entail": lexical.entail,
        "lex_contradict": lexical.contradict,
        "alignment": alignment,
        "bigram_coverage": _bigram_coverage(claim, unit),
        "entity_coverage": _entity_coverage(claim_text, unit_text),
        "number_match": float(outcome == "match"),
        "number_mismatch": float(outcome == "mismatch"),
        "number_missing": float(outcome == "absent"),
        "cue_negation": float("negation" in cues),
        "cue_antonym": float("antonym" in cues),
        "cue_equation": float("equation" in cues),
        "unit_extra": min(1.0, len(unit.stem_set - claim.stem_set) / EXTRA_WORDS_SCALE),
        "contained": _longest_common_run(claim.words, unit) / len(claim.words) if claim.words and unit.words else 0.0,
        "quoted": float(is_quoted(claim_text, unit_text)),
        "claim_words": min(1.0, len(claim_text.split()) / CLAIM_WORDS_SCALE),
        "entail_x_alignment": nli.entail * alignment,
        "contradict_x_alignment": nli.contradict * alignment,
        "corroboration": min(1.0, context.corroborating / CORROBORATION_SCALE),
        "entities_missing": context.entities_missing,
        "words_missing": context.words_missing,
        "leaves_words_out": float(leaves_words_out(claim_text, unit_text)),
        **_change_features(claim_text, unit_text),
        "numbers_bar_refutation": float(numbers_bar_refutation),
        "bounds_bar_support": float(bounds.bars_support),
        "bounds_bar_refutation": float(bounds.bars_refutation),
        "speaker": float(bool(_SPEAKER_WORDS.intersection(claim.words))),
        "pronoun_subject": float(_opens_with_pronoun(unit_text) and _entity_coverage(claim_text, unit_text) < 1.0),
        "subject_elsewhere": float(_subject_elsewhere(claim_text, unit_text)),
        "states_nothing": float(states_nothing(unit_text)),
        "opposite_reads_alike": 0.0,  # set by the aggregator, which alone reads the NLI on the claim's opposite
        "conditional_unit": float(_conditional(unit_text) and not _conditional(claim_text)),
        "another_subject": float(context.passage_lacks_subject and _about_another_claim_word(claim_text, unit_text)),
    }
    # written in FEATURE_NAMES order (test); most values are 0 or 1, which rounding leaves as they are
    return {name: _rounded(value) for name, value in values.items()}


def _change_features(claim_text: str, unit_text: str) -> dict[str, float]:
    named = named_change(claim_text)
    shown = shown_change(unit_text) if named else None
    return {
        "change_agrees": float(shown is not None and shown == named),
        "change_disagrees": float(shown is not None and shown != named),
    }


def _rounded(value: float) -> float:
    return value if type(value) is float and value in (0.0, 1.0) else round(value, _DECIMALS)


@dataclass(frozen=True)
class _TextReading:
    """What the features read of one text, read once: its content stems (numbers removed) in order, as a set and as
    adjacent pairs; its words (all of them, lower-cased) and where each word occurs."""

    stems: tuple[str, ...]
    stem_set: frozenset[str]
    stem_pairs: frozenset[tuple[str, str]]
    words: tuple[str, ...]
    positions: dict[str, tuple[int, ...]]


@text_memo(maxsize=8192)  # as many as the lexical NLI keeps of the same units (each reading is ~6 kB)
def _text_reading(text: str) -> _TextReading:
    stems = tuple([term.stem for term in extract_terms(remove_quantities(text))])
    words = tuple(tokenize_words(text))
    positions: dict[str, list[int]] = {}
    for position, word in enumerate(words):
        positions.setdefault(word, []).append(position)
    return _TextReading(
        stems=stems,
        stem_set=frozenset(stems),
        stem_pairs=frozenset(zip(stems, stems[1:], strict=False)),
        words=words,
        positions={word: tuple(found) for word, found in positions.items()},
    )


def corroborating_passages(best_alignments: Sequence[float]) -> list[int]:
    """Per passage (given each passage's best unit alignment with one claim), how many of the claim's *other*
    passages hold most of its content."""
    aligned = [value >= CORROBORATION_ALIGNMENT for value in best_alignments]
    total = sum(aligned)
    return [total - int(own) for own in aligned]


def _longest_common_run(claim: Sequence[str], unit: _TextReading) -> int:
    """The length of the longest run of words the claim and the unit hold contiguously (the size difflib's
    find_longest_match gives without junk), found by extending from each place a claim word occurs in the unit."""
    positions, words = unit.positions, unit.words
    best = 0
    for start, word in enumerate(claim):
        if len(claim) - start <= best:
            break  # no run from here can beat the best found
        for position in positions.get(word, ()):
            length = 1
            while (
                start + length < len(claim)
                and position + length < len(words)
                and claim[start + length] == words[position + length]
            ):
                length += 1
            best = max(best, length)
    return best


@text_memo(maxsize=8192)  # the atoms of one sentence ask the same (sentence, passage) question
def is_quoted(claim_text: str, unit_text: str) -> bool:
    """Whether the claim is one of the text's sentences word for word (a quotation), or nearly all of one: every
    word of the claim, in order and unbroken, and at least QUOTED_SHARE of the sentence's words. A fragment of a
    sentence ("its velocity is zero" out of "If the object is at rest, its velocity is zero") is not a quotation,
    and neither is a sentence with one word changed or inserted."""
    claim = tokenize_words(claim_text)
    if len(claim) < QUOTED_MIN_WORDS or not _word_set(unit_text).issuperset(claim):
        return False  # most passages lack a word of the claim: no sentence of theirs can quote it
    run = f" {' '.join(claim)} "  # words hold no spaces, so an unbroken run of them is a substring
    return any(len(claim) >= QUOTED_SHARE * count and run in joined for count, joined in _quotable_sentences(unit_text))


# Where a sentence joins statements that each stand on their own, and each is quotable: "Work is a scalar quantity: it
# has magnitude but no direction." states "Work is a scalar quantity."; so do "...; ...", ", whereas ..." and ", but"
# before a clause of its own ("Momentum is conserved, but kinetic energy is not conserved."), not ", but only ...",
# which restricts what went before ("..., but only in a vacuum").
_QUOTABLE_JOINT = re.compile(
    r";\s+|,\s+(?:whereas|while)\s+|:\s+(?=[a-z])"
    r"|,\s+but\s+(?!(?:only|not|never|except|rather|instead|also|rarely|seldom|mostly|usually)\b)"
)


@text_memo(maxsize=4096)  # a passage's sentences are the same for every claim that retrieves it
def _quotable_sentences(text: str) -> tuple[tuple[int, str], ...]:
    """(word count, " word word … ") of each sentence of the text: of each line (a list item or a table row is a
    sentence of its own) and of the whole text (sentences that wrap lines), and of each statement a sentence joins
    (_QUOTABLE_JOINT); sentences without words left out."""
    pieces = [line[start:end] for line in text.split("\n") for start, end in sentence_spans(line)]
    pieces += [text[start:end] for start, end in sentence_spans(text)]
    pieces += [statement for piece in list(pieces) for statement in _QUOTABLE_JOINT.split(piece)[1:]]
    pieces += [_QUOTABLE_JOINT.split(piece)[0] for piece in list(pieces)]
    sentences = []
    for piece in dict.fromkeys(pieces):
        words = tokenize_words(piece)
        if words:
            sentences.append((len(words), f" {' '.join(words)} "))
    return tuple(sentences)


# A passage is asked whether it quotes each claim that retrieves it. A set of a whole passage's words is large
# (~4 kB): 4,096 of them cover the passages one long note retrieves, at ~18 MB.
@text_memo(maxsize=4096)
def _word_set(text: str) -> frozenset[str]:
    return frozenset(tokenize_words(text))


def _bigram_coverage(claim: _TextReading, unit: _TextReading) -> float:
    if not claim.stem_pairs:
        return 1.0 if claim.stem_set <= unit.stem_set else 0.0
    return len(claim.stem_pairs & unit.stem_pairs) / len(claim.stem_pairs)


_PRONOUN_OPENING = re.compile(r"\s*(?:He|She|It|They|His|Her|Its|Their)\b")


_CONDITION_OPENING = re.compile(
    r"\s*(?:[-*+•]\s+)?(?:if|when|whenever|unless|provided|assuming|suppose|supposing|once)\b", re.IGNORECASE
)


def _conditional(text: str) -> bool:
    """The text opens with a condition ("If kinetic energy is conserved, the collision is elastic.")."""
    return _CONDITION_OPENING.match(text) is not None


def _subject_elsewhere(claim_text: str, unit_text: str) -> bool:
    """Each subject has a word the other lacks (text/clauses.py subject): the unit is about another thing."""
    ours, theirs = subject(claim_text), subject(unit_text)
    return bool(ours and theirs and ours - theirs and theirs - ours)


def _about_another_claim_word(claim_text: str, unit_text: str) -> bool:
    """A sentence of the unit is about something the claim names besides its subject: "The force is ..." against
    "Impulse is the product of force and distance"."""
    ours = subject(claim_text) or frozenset()
    others = content_stems(claim_text) - ours
    for start, end in sentence_spans(unit_text):
        theirs = subject(unit_text[start:end])
        if theirs and theirs <= others:
            return True
    return False


def _opens_with_pronoun(unit_text: str) -> bool:
    return _PRONOUN_OPENING.match(unit_text) is not None


def _entity_coverage(claim_text: str, unit_text: str) -> float:
    entities = extract_entities(claim_text)
    if not entities:
        return 1.0
    normal = normalise_text(unit_text)
    return sum(1 for entity in entities if mentions_entity(normal, entity)) / len(entities)
