"""Relations a sentence states, and whether a claim states one of them the other way round: a comparison ("The maximum
static friction is usually greater than the kinetic friction" against "Kinetic friction is usually greater than static
friction") or a dependence ("mass does not depend on gravity" against "Mass depends on gravity").

The NLI models read such a claim as a restatement: it holds every word of its source and says the opposite.

A comparison is read as (left thing, scale, direction, right thing):
- the comparative sets the scale and its direction: "greater", "larger", "more" and "smaller", "less", "fewer" are
  one scale read up or down, as are "faster"/"slower", "heavier"/"lighter" and the rest of COMPARATIVES; a content
  word between the comparative and "than" names what is compared ("more energy", "greater mass", "more massive"), and
  two comparisons share a scale only when they name the same one;
- the right thing is what follows "than" up to the end of the clause; the left thing is a phrase between the
  comparative and "than" that opens with a preposition ("travels faster in steel than in air"), else what precedes
  the comparative in its clause ("static friction is usually");
- each thing is read as its content stems, hedges left out ("usually", "always", words in -ly). A thing is told
  from the other by its words the other lacks: "kinetic" and "static" tell the two frictions apart.
A claim reverses a sentence's comparison when they share a scale and the claim puts the sentence's left thing on its
right and its right thing on its left, reading the scale the same way ("A is greater than B" against "B is greater
than A"), or puts them where the sentence does, reading the scale the other way ("A is smaller than B" against "A is
greater than B"). A comparison that is negated ("is not greater than", "no more than"), a bound on a number ("more
than 3 kg", "faster than 10 m/s": the numeric signal reads those) and a question state no comparison.

A dependence is read as (subject, object, whether it holds): "X depends on Y", "X is dependent on Y", "X varies with
Y", "X is affected by Y" hold; the same negated, "X is independent of Y" and "X is unaffected by Y" do not. The object
runs on through a list of examples ("independent of other factors, such as mass or amplitude"). "X depends only on
Y" says nothing of anything else and is not read. A claim reverses a sentence's dependence when one holds and the
other does not, every word of the claim's object is in the sentence's, and the sentence's subject is the claim's: its
words are all the claim's, and the claim's are all in it or in the sentence before ("The period is completely
independent of other factors, such as mass", after a sentence about a simple pendulum, against "The period of a
simple pendulum depends on its mass"; not against "The period of a mass on a spring depends on its mass").

Supposed relations (in an "if" or "when" clause) and questions state nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from veriground.text.content import content_stems
from veriground.text.memo import text_memo
from veriground.text.sentences import SentenceBoundary, is_question, sentence_spans
from veriground.text.terms import is_negation, normalise_text


def _words(text: str) -> list[str]:
    return text.split()


# comparative -> (scale, direction)
COMPARATIVES: dict[str, tuple[str, int]] = {
    **dict.fromkeys(("greater", "larger", "bigger", "more"), ("size", 1)),
    **dict.fromkeys(("smaller", "less", "lesser", "fewer"), ("size", -1)),
    **dict.fromkeys(("higher", "taller"), ("height", 1)),
    "lower": ("height", -1),
    "longer": ("length", 1),
    "shorter": ("length", -1),
    **dict.fromkeys(("faster", "quicker"), ("speed", 1)),
    "slower": ("speed", -1),
    "heavier": ("weight", 1),
    "lighter": ("weight", -1),
    "stronger": ("strength", 1),
    "weaker": ("strength", -1),
    **dict.fromkeys(("hotter", "warmer"), ("temperature", 1)),
    **dict.fromkeys(("colder", "cooler"), ("temperature", -1)),
    "older": ("age", 1),
    "younger": ("age", -1),
    "earlier": ("time", -1),
    "later": ("time", 1),
    "better": ("quality", 1),
    "worse": ("quality", -1),
    "wider": ("width", 1),
    "narrower": ("width", -1),
    "thicker": ("thickness", 1),
    "thinner": ("thickness", -1),
    "deeper": ("depth", 1),
    "shallower": ("depth", -1),
    "louder": ("loudness", 1),
    "quieter": ("loudness", -1),
    "brighter": ("brightness", 1),
    "dimmer": ("brightness", -1),
    "cheaper": ("cost", -1),
    "denser": ("density", 1),
}
_PREPOSITIONS = frozenset(_words("in on at for with during under inside near through by from to within among"))
# Words that end a clause: a thing compared never runs past them.
_CLAUSE_WORDS = frozenset(
    _words(
        "and but or because while whereas although though since which that if when whenever whether so unless "
        "whereby where"
    )
)
_RELATIVE_PRONOUNS = frozenset(("that", "which", "who"))
_CONDITIONS = frozenset(("if", "unless", "when", "whenever", "whether"))
_CLAUSE_MARKS = frozenset(",;:()[]—–")
# A number (or a multiple) right after "than" makes a bound, not a comparison of two things.
_NUMBER_WORDS = frozenset(
    _words(
        "one two three four five six seven eight nine ten hundred thousand million billion twice half double triple "
        "once thrice dozen"
    )
)
# A comparison is asserted by a verb before its comparative ("is greater", "travels faster", "has more moons"); after a
# bare noun it only picks things out ("nodes with keys smaller than r.x are stored in the left subtree").
_ASSERTING_VERBS = frozenset(
    _words(
        "is are was were be been being am becomes become became remains remain remained stays stay seems seem "
        "appears appear gets get grows grow has have had travels travel traveled travelled moves move moved runs run "
        "ran falls fall fell costs cost weighs weigh weighed lasts last takes take took holds hold contains contain "
        "carries carry uses use requires require needs need produces produce reaches reach rises rise"
    )
)
_HEDGES = frozenset(_words("always often usually generally typically much far even still slightly somewhat lot times"))
_TOKEN = re.compile(r"[^\W\d_][\w'’-]*|\d[\d.,]*|[,;:()\[\]—–]")
_MAX_THING_WORDS = 8


@dataclass(frozen=True, slots=True)
class Comparison:
    """One stated comparison: the content stems of the thing on each side, the scale and which way it reads."""

    left: frozenset[str]
    right: frozenset[str]
    scale: tuple[str, str]  # (COMPARATIVES scale, the stem of the word naming what is compared, or "")
    direction: int


@text_memo(maxsize=16_384)
def stated_comparisons(sentence: str) -> tuple[Comparison, ...]:
    """The comparisons one sentence states (see the module's note); none for a question."""
    if " than " not in sentence.lower() or is_question(sentence.strip()):
        return ()
    tokens = [token.lower() for token in _TOKEN.findall(normalise_text(sentence))]
    found = []
    for index, token in enumerate(tokens):
        if token == "than" and (comparison := _comparison_at(tokens, index)) is not None:
            found.append(comparison)
    return tuple(found)


def _comparison_at(tokens: list[str], than: int) -> Comparison | None:
    """The comparison whose "than" is tokens[than], or None when it is no comparison of two things."""
    start = next((i for i in range(than - 1, max(-1, than - 4), -1) if tokens[i] in COMPARATIVES), None)
    if start is None:
        return None
    scale, direction = COMPARATIVES[tokens[start]]
    if not _asserted(tokens, start):
        return None
    between = tokens[start + 1 : than]
    prepositional = bool(between) and between[0] in _PREPOSITIONS
    named = between[:1] if between and not prepositional else []
    before, opener = _clause_before(tokens, start)
    if opener in _CONDITIONS:  # "if the index of the second medium is less than the first, ...": supposed, not said
        return None
    left_words = between if prepositional else before
    right_words = _clause_after(tokens, than)
    if not right_words or _bound(right_words):
        return None
    if any(is_negation(word) for word in (*before[-3:], *tokens[max(0, start - 2) : than])):
        return None
    left, right = _thing(left_words), _thing(right_words)
    if not left or not right:
        return None
    name = "".join(sorted(content_stems(" ".join(named)))) if named else ""
    return Comparison(left=left, right=right, scale=(scale, name), direction=direction)


def _asserted(tokens: list[str], comparative: int) -> bool:
    """Whether a verb stands before the comparative, hedges aside ("is usually greater", "must be even taller")."""
    for token in reversed(tokens[max(0, comparative - 4) : comparative]):
        if token in _ASSERTING_VERBS:
            return True
        if token not in _HEDGES and not token.endswith("ly"):
            return False
    return False


def _bound(words: list[str]) -> bool:
    """Whether what follows "than" is a number, a multiple or a variable: a bound ("more than 3 kg", "smaller than
    $b-1$", "less than x"), not a thing."""
    first = words[0]
    return first in _NUMBER_WORDS or len(first) == 1 or any(char.isdigit() for word in words for char in word)


def _clause_before(tokens: list[str], end: int) -> tuple[list[str], str | None]:
    """The words of the comparative's clause before it, and the word that opens the clause (None at a mark or the
    sentence's start); past a relative pronoun when only the verb follows it ("an image that is larger than the
    object": "an image")."""
    words: list[str] = []
    for token in reversed(tokens[max(0, end - _MAX_THING_WORDS) : end]):
        if token in _CLAUSE_MARKS or token in _CLAUSE_WORDS:
            if token in _RELATIVE_PRONOUNS and all(word in _ASSERTING_VERBS or word in _HEDGES for word in words):
                continue
            return words, token if token in _CLAUSE_WORDS else None
        words.insert(0, token)
    return words, None


def _clause_after(tokens: list[str], than: int) -> list[str]:
    words: list[str] = []
    for token in tokens[than + 1 : than + 1 + _MAX_THING_WORDS]:
        if token in _CLAUSE_MARKS or token in _CLAUSE_WORDS or token == "than":
            break
        words.append(token)
    while words and words[0] in {"a", "an", "the", "in", "on", "at", "for", "with", "that", "those", "of"}:
        if words[0] in _PREPOSITIONS:
            break
        words.pop(0)
    return words


def _thing(words: list[str]) -> frozenset[str]:
    kept = [word for word in words if word not in _HEDGES and not word.endswith("ly") and not is_negation(word)]
    return content_stems(" ".join(kept))


def reverses(claim: Comparison, stated: Comparison) -> bool:
    """Whether `claim` says `stated` the other way round (see the module's note)."""
    if claim.scale != stated.scale:
        return False
    ours_left, ours_right = claim.left - claim.right, claim.right - claim.left
    their_left, their_right = stated.left - stated.right, stated.right - stated.left
    if not (ours_left and ours_right and their_left and their_right):
        return False
    swapped = (
        bool(ours_right & their_left)
        and bool(ours_left & their_right)
        and ours_right <= stated.left
        and not ours_right & their_right
    )
    kept = (
        bool(ours_right & their_right)
        and bool(ours_left & their_left)
        and ours_right <= stated.right
        and not ours_right & their_left
        and not ours_left & their_right
    )
    if swapped and not kept:
        return claim.direction == stated.direction
    if kept and not swapped:
        return claim.direction != stated.direction
    return False


@dataclass(frozen=True, slots=True)
class Dependence:
    """One stated dependence: the content stems of its subject and its object, and whether it holds."""

    subject: frozenset[str]
    object: frozenset[str]
    holds: bool


_DEPEND = frozenset(("depend", "depends", "depended", "varies", "vary", "varied"))
_DEPEND_PREPOSITIONS = frozenset(("on", "upon", "with"))
_AUXILIARIES = frozenset(_words("does do did is are was were be been remains remain can may might will would must"))
_EXCLUSIVE = frozenset(("only", "solely", "just", "entirely", "mainly", "mostly", "primarily"))
_EXAMPLES = frozenset(("such", "including", "like", "e.g"))


@text_memo(maxsize=16_384)
def stated_dependences(sentence: str) -> tuple[Dependence, ...]:
    """The dependences one sentence states (see the module's note); none for a question."""
    lowered = sentence.lower()
    if not any(word in lowered for word in ("depend", "var", "affected")) or is_question(sentence.strip()):
        return ()
    tokens = [token.lower() for token in _TOKEN.findall(normalise_text(sentence))]
    found = []
    for index in range(len(tokens)):
        if (dependence := _dependence_at(tokens, index)) is not None:
            found.append(dependence)
    return tuple(found)


def _dependence_at(tokens: list[str], index: int) -> Dependence | None:
    """The dependence whose verb or adjective is tokens[index], or None."""
    word, after = tokens[index], tokens[index + 1 : index + 4]
    if word in _DEPEND or word == "dependent":
        holds = True
        skipped = [token for token in after if token not in _DEPEND_PREPOSITIONS][:2]
        if not any(token in _DEPEND_PREPOSITIONS for token in after[:3]) or _EXCLUSIVE & set(skipped):
            return None
        if word == "dependent" and not _asserted(tokens, index):
            return None
    elif word in ("independent", "unaffected"):
        holds = False
        if not after or after[0] not in ("of", "by") or not _asserted(tokens, index):
            return None
    elif word == "affected" and after[:1] == ["by"] and _asserted(tokens, index):
        holds = True
    else:
        return None
    verb = index  # the first word of the verb: "does not depend", "is completely independent"
    while verb > 0 and _verb_word(tokens[verb - 1]):
        verb -= 1
    before, opener = _clause_before(tokens, verb)
    if opener in _CONDITIONS:
        return None
    if any(is_negation(token) for token in tokens[verb:index]):
        holds = not holds
    start = next(i for i in range(index + 1, len(tokens)) if tokens[i] in (*_DEPEND_PREPOSITIONS, "of", "by"))
    subject, object_ = _thing(before), _thing(_object_after(tokens, start))
    if not subject or not object_:
        return None
    return Dependence(subject=subject, object=object_, holds=holds)


def _verb_word(token: str) -> bool:
    """An auxiliary, a hedge or a negation: a word of the verb before "depend" or "independent"."""
    return token in _AUXILIARIES or token in _HEDGES or token.endswith("ly") or is_negation(token)


def _object_after(tokens: list[str], preposition: int) -> list[str]:
    """The words after the preposition to the end of the clause, on through a list of examples (", such as ...")."""
    words = _clause_after(tokens, preposition)
    end = preposition + 1 + len(words)
    listing = False
    while end + 1 < len(tokens) and (
        (tokens[end] == "," and tokens[end + 1] in _EXAMPLES) or (listing and tokens[end] in ("or", "and", ","))
    ):
        listing = True
        step = 2 if tokens[end] == "," and tokens[end + 1] in _EXAMPLES else 1
        more = _clause_after(tokens, end + step - 1)
        words += more
        end += step + len(more)
    return words


def denies(claim: Dependence, stated: Dependence, context: frozenset[str]) -> bool:
    """Whether `claim` says the opposite of `stated`, read after a sentence whose content stems are `context` (see the
    module's note)."""
    return (
        claim.holds != stated.holds
        and claim.object <= stated.object
        and stated.subject <= claim.subject
        and claim.subject <= stated.subject | context
    )


@text_memo(maxsize=4096)
def reversed_relation(claim: str, evidence: str) -> tuple[int, int] | None:
    """The span of the first sentence of `evidence` that states a relation of the claim's the other way round."""
    comparisons, dependences = stated_comparisons(claim), stated_dependences(claim)
    if not comparisons and not dependences:
        return None
    context: frozenset[str] = frozenset()
    for start, end in sentence_spans(evidence, SentenceBoundary.ITEMS):  # each list item states its own
        sentence = evidence[start:end]
        if any(reverses(ours, stated) for stated in stated_comparisons(sentence) for ours in comparisons):
            return start, end
        if any(denies(ours, stated, context) for stated in stated_dependences(sentence) for ours in dependences):
            return start, end
        context = content_stems(sentence)
    return None
