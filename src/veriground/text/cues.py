"""Text → contradiction cues: the stems a negation governs, symbolic equations (lhs, rhs) and antonym stem pairs.

Read by the lexical NLI (backends/lexical_nli.py) on normalised text (`terms.normalise_text`); pure functions of
the text, so any signal can ask for the same cues.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from veriground.text.memo import text_memo
from veriground.text.terms import STOPWORDS, is_negation, stem_words, tokenize_words

# A negation governs the next few words ("does not depend on the speed"): four reach past an auxiliary and
# an article to the predicate and its object.
NEGATION_SCOPE = 4
_CLAUSE_BREAK = re.compile(r"[,;:.!?()\[\]]\s")
_AFFIRMING_NEGATIONS = frozenset({("not", "only"), ("nothing", "but"), ("no", "doubt")})
# Verbs that negate what follows "to": "failed to be released" says "was never released", "refused to sign" "did not
# sign". Only before "to": "the algorithm fails on empty input" negates nothing.
_NEGATING_BEFORE_TO = frozenset({"fail", "fails", "failed", "refuse", "refuses", "refused", "unable"})
_RULE_OUT = frozenset({"rule", "rules", "ruled", "ruling"})  # "ruled out providing aid": did not provide it

# Opposites that flip a claim when one side uses one word and the other side its partner; both words are
# stemmed, so "increases"/"decreased" and "ascending"/"descending" are covered.
ANTONYM_PAIRS: tuple[tuple[str, str], ...] = (
    ("increase", "decrease"),
    ("rise", "fall"),
    ("gain", "lose"),
    ("higher", "lower"),
    ("more", "less"),
    ("more", "fewer"),
    ("larger", "smaller"),
    ("greater", "smaller"),
    ("greater", "less"),
    ("bigger", "smaller"),
    ("faster", "slower"),
    ("heavier", "lighter"),
    ("maximum", "minimum"),
    ("max", "min"),
    ("upper", "lower"),
    ("above", "below"),
    ("over", "under"),
    ("true", "false"),
    ("correct", "incorrect"),
    ("stable", "unstable"),
    ("always", "never"),
    ("all", "none"),
    ("before", "after"),
    ("earlier", "later"),
    ("first", "last"),
    ("positive", "negative"),
    ("ascending", "descending"),
    ("worst", "best"),
    ("inside", "outside"),
    ("internal", "external"),
    ("accept", "reject"),
    ("include", "exclude"),
    ("valid", "invalid"),
    ("possible", "impossible"),
    ("finite", "infinite"),
    ("directly", "inversely"),
    ("depend", "independent"),  # "the period ... depends on the mass" against "is completely independent of ... mass"
    ("linear", "nonlinear"),
    ("sorted", "unsorted"),
    ("directed", "undirected"),
    ("weighted", "unweighted"),
    ("connected", "disconnected"),
    ("cyclic", "acyclic"),
    ("even", "odd"),
    ("convex", "concave"),
    ("elastic", "inelastic"),
    ("conservative", "nonconservative"),
    ("attract", "repel"),
    # kinds a textbook sets against each other: "Work is a vector quantity" swaps the word of "Work is a scalar
    # quantity" (the shipped model read it as entailed, 0.89); "in parallel" for "in series"
    ("scalar", "vector"),
    ("series", "parallel"),
    ("parallel", "perpendicular"),
    ("conductor", "insulator"),
    ("kinetic", "potential"),
    ("clockwise", "counterclockwise"),
    ("rational", "irrational"),
    ("prime", "composite"),
    ("numerator", "denominator"),
    ("deterministic", "nondeterministic"),
    ("absorb", "emit"),
    ("exothermic", "endothermic"),
    ("necessary", "unnecessary"),
    ("required", "optional"),
    ("mandatory", "optional"),
    ("allowed", "prohibited"),
    ("permitted", "prohibited"),
    ("eligible", "ineligible"),
    ("approve", "deny"),
    ("legal", "illegal"),
    ("paid", "unpaid"),
    ("public", "private"),
    ("success", "failure"),
    ("win", "lose"),
    ("alive", "dead"),
    ("open", "closed"),
    ("north", "south"),
    ("east", "west"),
)

# "lhs = rhs" where rhs is one math expression: operands joined by operators, so prose after it is not read.
_OPERAND = r"[\w^(){}\\.'Α-Ωα-ω]+"
_EQUATION = re.compile(
    rf"(?<![\w^=<>!])(?P<lhs>[A-Za-zΑ-Ωα-ω][\w']*)\s*=\s*(?P<rhs>{_OPERAND}(?:\s*[-+*/·⋅×]\s*{_OPERAND})*)"
)
_EQUATION_NOISE = re.compile(r"[\s{}*·⋅×]")


def negated_stems(normal: str) -> frozenset[str]:
    """Stems of the content words the text only negates: within NEGATION_SCOPE words after a negation, inside its
    clause (a comma or sentence mark ends the scope), and nowhere outside such a scope. "It is not in orbit around
    the Earth - it orbits the Sun" negates no stem ("orbit" is asserted too), so a claim that it orbits the Sun
    meets no negation. "not only", "nothing but" and "no doubt" affirm, so they are skipped; "ruled out" negates
    like "not"."""
    words_of_text = tokenize_words(normal)  # a clause's words are words of the text
    if not any(is_negation(word) or word in _NEGATING_BEFORE_TO or word == "out" for word in words_of_text):
        return frozenset()
    scoped: list[str] = []
    asserted: list[str] = []
    for clause in _CLAUSE_BREAK.split(normal):
        words = tokenize_words(clause)
        in_scope = [False] * len(words)
        for index, word in enumerate(words):
            following = words[index + 1 : index + 1 + NEGATION_SCOPE]
            negates = (
                is_negation(word)
                or (word in _NEGATING_BEFORE_TO and following[:1] == ["to"])
                or (word == "out" and index > 0 and words[index - 1] in _RULE_OUT)
            )
            if not negates or (following[:1] and (word, following[0]) in _AFFIRMING_NEGATIONS):
                continue
            scoped.extend(other for other in following if other not in STOPWORDS and not is_negation(other))
            in_scope[index + 1 : index + 1 + NEGATION_SCOPE] = [True] * len(following)
        asserted.extend(word for word, inside in zip(words, in_scope, strict=True) if not inside)
    if not scoped:
        return frozenset()
    return frozenset(stem_words(scoped)) - frozenset(stem_words(asserted))


def extract_equations(normal: str) -> list[tuple[str, str]]:
    """Symbolic equations only: a right-hand side that starts with a number is a quantity, not a formula."""
    if "=" not in normal:  # every _EQUATION match holds one
        return []
    equations = []
    for match in _EQUATION.finditer(normal):
        rhs = _EQUATION_NOISE.sub("", match.group("rhs")).rstrip(".")
        if rhs and not rhs[0].isdigit() and not rhs.startswith(("-", "+", ".")):
            equations.append((match.group("lhs"), rhs))
    return equations


@lru_cache(maxsize=1)
def antonym_stems() -> tuple[tuple[str, str], ...]:
    return tuple((stem_words([first])[0], stem_words([second])[0]) for first, second in ANTONYM_PAIRS)


def antonym_pairs_among(stems: frozenset[str]) -> list[tuple[str, str]]:
    """The antonym_stems() pairs with a stem among `stems`, in the table's order (a cue needs one in the
    hypothesis, so the rest of the table need not be read), then each stem's negating prefix pairs (prefix_pairs)."""
    index, pairs = _antonym_index(), antonym_stems()
    table = [pairs[position] for position in sorted({found for stem in stems for found in index.get(stem, ())})]
    return table + [pair for stem in sorted(stems) for pair in prefix_pairs(stem)]


_NEGATING_PREFIXES = ("un", "non")
_PREFIXED_MIN = 4  # letters left after the prefix: "unit", "under", "union" are no "un-" of a word


def prefix_pairs(stem: str) -> list[tuple[str, str]]:
    """A stem and its negation by prefix, either way round: "unchang" (unchanged) and "chang" (changed),
    "unconsolid" and "consolid". SummEdits' edits write "changed" for "unchanged"; the table cannot list every word."""
    for prefix in _NEGATING_PREFIXES:
        if stem.startswith(prefix) and len(stem) - len(prefix) >= _PREFIXED_MIN:
            return [(stem, stem[len(prefix) :])]
    if len(stem) < _PREFIXED_MIN:
        return []
    return [(stem, prefix + stem) for prefix in _NEGATING_PREFIXES]


def opposites_of(stem: str) -> frozenset[str]:
    """Every stem the table pairs with `stem` ("greater" -> "smaller", "less")."""
    pairs = antonym_stems()
    return frozenset(other for position in _antonym_index().get(stem, ()) for other in pairs[position] if other != stem)


_WORD = re.compile(r"[A-Za-z]+")
_STOP_STEMS = frozenset(stem_words(sorted(STOPWORDS)))


@text_memo(maxsize=8192)  # every claim is read against each of its sentence units, and again in a rerun
def opposite_statement(claim: str, unit: str) -> str | None:
    """The claim with its first word that the unit states both ways put as its opposite, or None: "Velocity is a
    scalar." against "... velocity is bold because it is a vector, ... speed ... is a scalar quantity." gives
    "Velocity is a vector." A word whose opposite the claim also uses, or that the unit states one way only, is left
    (the antonym cue reads the one-way case), and so is one the unit states next to the same word as the claim does
    ("... at least 100 years, before Joe Sheridan ..." for "... by at least 100 years, before Joe Sheridan")."""
    found = list(_WORD.finditer(claim))
    claim_stems = stem_words([match.group().lower() for match in found])
    held = frozenset(claim_stems)
    if not held & _antonym_index().keys():
        return None  # most claims use no word of the table: the unit need not be read
    unit_words = stem_words(tokenize_words(unit))
    unit_stems = frozenset(unit_words)
    for position, (match, stem) in enumerate(zip(found, claim_stems, strict=True)):
        opposites = opposites_of(stem) & unit_stems
        if stem not in unit_stems or not opposites or opposites_of(stem) & held:
            continue
        contexts = {_neighbour(unit_words, at) for at, word in enumerate(unit_words) if word == stem}
        if _neighbour(claim_stems, position) in contexts:
            continue  # the unit states the claim's word next to the same word: about the same thing
        return claim[: match.start()] + _surface(min(opposites)) + claim[match.end() :]
    return None


def _neighbour(stems: Sequence[str], position: int) -> str | None:
    """The nearest content stem before `position`, else after it: what the word there is said of."""
    before = [stem for stem in stems[:position] if stem not in _STOP_STEMS]
    if before:
        return before[-1]
    after = [stem for stem in stems[position + 1 :] if stem not in _STOP_STEMS]
    return after[0] if after else None


def _surface(stem: str) -> str:
    """A word of the antonym table with this stem."""
    return next(word for pair in ANTONYM_PAIRS for word in pair if stem_words([word])[0] == stem)


@lru_cache(maxsize=1)
def _antonym_index() -> dict[str, tuple[int, ...]]:
    """Stem -> the positions in antonym_stems() of the pairs holding it."""
    index: dict[str, list[int]] = {}
    for position, pair in enumerate(antonym_stems()):
        for stem in dict.fromkeys(pair):
            index.setdefault(stem, []).append(position)
    return {stem: tuple(found) for stem, found in index.items()}
