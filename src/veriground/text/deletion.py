"""Is a claim its evidence sentence with words left out, none of which could turn its meaning around?

Leaving words out of one statement makes a weaker or vaguer statement ("all objects fall" -> "objects fall", "runs in
O(n log n) time in the worst case" -> "runs in O(n log n) time"), as a rule not its opposite, unless a word left out
reverses, bounds or counts what the rest says, or the claim takes its words from two clauses. So the claim is read as
such only when:
- its words are the sentence's words in order, with its quantities in the same places (a quantity is compared by
  value, in any unit: "980 cm/s2" restates "9.8 m/s2"; a number without a unit must be written the same);
- no word left out is a negation, a word of scope, degree, order or count, a negative or belief predicate, a prefix
  split off at a hyphen ("non-", "anti-") or a number, and none stands right after a negation ("not always");
- no run of words left out between two of the claim's words holds a clause word ("and", "but", "which", ...) or a
  word of the claim: "He won." is not read out of "He lost, and she won.", nor "Paris is the capital of Italy." out of
  "Paris is the capital of France, and Rome is the capital of Italy."
Such a claim can be unsupported by the sentence (a restrictor of "all" left out), but the sentence cannot contradict
it. The NLI models we can run read some of these near copies as contradictions (a quantifier that differs was seen in
training mostly in edits that change the meaning); the verdict layer does not let them (verdicts/aggregator.py).

A claim that is the sentence less one "not" or "never" (and words it may leave out) says its opposite
(leaves_negation_out): "As a result, the momentum of the electron is affected." out of "... is not affected.", which the
shipped model read as entailed (0.88); not when the negation scopes a word of degree ("not only", "not always") that
the claim leaves out too, or the sentence states a condition. "... but that will always be the case." out of "... but
that will not always be the case." keeps "always": it says the opposite.
"""

from __future__ import annotations

import re

from veriground.text.memo import text_memo
from veriground.text.quantities import Quantity, extract_quantities, normalise_leniently
from veriground.text.terms import STOPWORDS, is_negation, normalise_text, stem_words, tokenize_words

# Words whose absence can reverse or bound what the rest of a sentence says (lower-cased, as tokenize_words reads).
_MEANING_LIST = """
    only just solely merely except excluding unless but although though however yet rather instead opposite besides
    apart far almost nearly hardly barely scarcely rarely seldom approximately roughly about around minus free would
    few fewer little less least more most than at over under above below up down beyond within
    former previously once formerly ex no longer anymore
    false falsely untrue wrong wrongly incorrect incorrectly mistaken mistakenly erroneous erroneously myth lie
    misconception misconceptions fallacy hoax debunked disproved rejected refuted deny denies denied
    fail fails failed failure refuse refused lack lacks lacked absence absent prevent prevents prevented avoid unlike
    impossible unlikely doubt doubtful disputed alleged allegedly supposedly claimed reportedly if whether may might
    could believe believes believed think thinks thought suppose supposed assume assumed pretend pretended imagine
    imagined rumor rumour rumored fiction fictional hypothetical hypothetically
    million millions billion billions thousand thousands hundred hundreds trillion percent dozen
    zero one two three four five six seven eight nine ten eleven twelve twice half double triple quarter
    first second third fourth fifth sixth seventh eighth ninth tenth last
    partly partially mostly largely somewhat
    non un anti counter contra pseudo quasi semi dis mis mock fake faux t
"""  # the last line: prefixes the tokenizer splits off at a hyphen ("non-toxic"), and the "t" of "can´t"
_MEANING_WORDS = frozenset(_MEANING_LIST.split())
# Words that join clauses: a run of left-out words between two claim words that holds one may hide a whole clause.
_CLAUSE_LIST = """
    and or but nor while whereas although though yet so because since if when whenever which that who whom whose
    where unless until whether then
"""
_CLAUSE_WORDS = frozenset(_CLAUSE_LIST.split())
_QUANTITY_MARK = "\x00"  # starts a quantity's token: never part of a word


# An aside in brackets: "Winter is the coldest season of the year in polar and temperate zones (winter does not occur
# in the tropical zone)." says its own thing; left out whole, its "not" turns nothing of the rest around. FEVER writes
# brackets as -LRB- and -RRB-.
_ASIDE = re.compile(r"\s*(?:\([^()]*\)|-LRB-(?:(?!-RRB-).)*-RRB-)")
# ... unless it restricts what the rest says: "The drug is safe (except for children)."
_RESTRICTING_ASIDE = re.compile(
    r"except|excluding|unless|only|but|besides|apart|without|save|not|never|no|if|when|though|although|at",
    re.IGNORECASE,
)


@text_memo(maxsize=8_192)
def leaves_words_out(claim: str, evidence: str) -> bool:
    """True when the claim is the evidence sentence with some words left out (or none) and no left-out word could
    turn its meaning around (see the module's docstring); an aside in brackets that restricts nothing may be left out
    whole, whatever words it holds."""
    if _leaves_words_out(claim, evidence):
        return True
    bare = _ASIDE.sub(lambda aside: aside.group() if _restricts(aside.group()) else "", evidence)
    return bare != evidence and _leaves_words_out(claim, bare)


def _restricts(aside: str) -> bool:
    """Whether a bracketed aside bounds the statement it stands in rather than saying its own thing: a restricting
    word opens it ("(except for children)", "(not including tips)", "(if heated)", "(at most 5)")."""
    words = aside.strip().strip("()").removeprefix("-LRB-").removesuffix("-RRB-").split()
    return bool(words) and _RESTRICTING_ASIDE.fullmatch(words[0]) is not None


def _leaves_words_out(claim: str, evidence: str) -> bool:
    claim_tokens, evidence_tokens = _tokens(claim), _tokens(evidence)
    matched = _matched(claim_tokens, evidence_tokens)
    if matched is None:
        return False
    kept = set(matched)
    for index, token in enumerate(evidence_tokens):
        if index in kept:
            continue
        if _may_turn_meaning(token) or (index > 0 and is_negation(evidence_tokens[index - 1])):
            return False
    claim_words = {token for token in claim_tokens if token not in STOPWORDS}
    for before, after in zip(matched, matched[1:], strict=False):
        run = evidence_tokens[before + 1 : after]
        if any(token in _CLAUSE_WORDS or token in claim_words for token in run):
            return False
    return True


# A negation before one of these bounds what it negates ("not only", "not always"): leaving both out is no reversal
# ("that will be the case" out of "that will not always be the case"); leaving the negation out alone is ("that will
# always be the case").
_SCOPED_LIST = "only just merely simply necessarily always all every quite entirely exactly much yet"
_SCOPED = frozenset(_SCOPED_LIST.split())
_NEGATION = re.compile(r"\b(?:not|never)\s+|\b(?P<can>can)not\b|\b(?P<word>ca|wo|\w+?)n['’]t\b", re.IGNORECASE)
_NEGATED = {"ca": "can", "wo": "will"}
_CLAUSE_OPENING = re.compile(r"\b(?:that|which|who|whereas|while|because|since)\s+|[,;:]\s+", re.IGNORECASE)
# Where the clause of a negation ends: a new clause ("..., but it can be altered"), never a bare comma, which may set
# off a restriction of what the negation says ("is not conserved, in inelastic collisions").
_CLAUSE_CLOSING = re.compile(
    r"[;:]\s+|,\s+(?:but|and|which|while|whereas|so|because|since|although|though)\b|\s(?:but|whereas|because)\s",
    re.IGNORECASE,
)
_ALTERNATIVES = frozenset(("or", "nor"))
_CONDITION = re.compile(r"\b(?:if|unless|whether|when|whenever|suppose)\b", re.IGNORECASE)


@text_memo(maxsize=8_192)
def leaves_negation_out(claim: str, sentence: str) -> bool:
    """True when the claim is the sentence, or the clause a negation stands in, less that negation ("not", "never",
    "can" for "cannot", "is" for "isn't") and words leaves_words_out lets it leave out: it says the opposite of the
    sentence ("Energy can be created." out of "... states that energy cannot be created or destroyed")."""
    if _CONDITION.search(sentence) or not may_leave_negation_out(claim, sentence):
        return False
    claim = _in_forms_of(claim, sentence)
    claim_words = set(tokenize_words(claim))
    for negation in _NEGATION.finditer(sentence):
        rest = sentence[negation.end() :].split(maxsplit=1)
        if rest and (scoped := rest[0].lower().strip(",.")) in _SCOPED and scoped not in claim_words:
            continue
        word = negation.group("word") or ""
        kept = negation.group("can") or _NEGATED.get(word.lower(), word)
        opening = max((found.end() for found in _CLAUSE_OPENING.finditer(sentence, 0, negation.start())), default=0)
        closing = _CLAUSE_CLOSING.search(sentence, negation.end())
        for start, end in dict.fromkeys(((0, len(sentence)), (opening, closing.start() if closing else len(sentence)))):
            if _says_opposite(claim, sentence[start : negation.start()] + kept, sentence[negation.end() : end]):
                return True
    return False


def _says_opposite(claim: str, before: str, after: str) -> bool:
    """Whether the claim is `before` + `after` (a text whose negation was taken out between them) less words that turn
    nothing around, with claim words on both sides of the cut, and none of what followed the negation left out but an
    alternative it also negated: "Kinetic energy is conserved." generalises "... is not conserved in inelastic
    collisions" rather than saying its opposite; "Energy can be created." drops "or destroyed" of "cannot be created or
    destroyed"."""
    if not leaves_words_out(claim, before + after):
        return False
    cut, tokens = len(_tokens(before)), _tokens(before + after)
    matched = _matched(_tokens(claim), tokens) or []
    if not (any(index < cut for index in matched) and any(index >= cut for index in matched)):
        return False  # the negation stood in a clause the claim leaves out ("(winter does not occur ...)")
    last = max(matched)
    alternative = last + 1 < len(tokens) and tokens[last + 1] in _ALTERNATIVES
    left_out = [index for index in range(cut, len(tokens) if not alternative else last + 1) if index not in matched]
    return all(tokens[index] in STOPWORDS for index in left_out)


def may_leave_negation_out(claim: str, text: str) -> bool:
    """A cheap test that leaves_negation_out needs to pass before it can hold of a sentence of `text`: the claim negates
    nothing, the text has a negation, and every content word of the claim is in the text."""
    claim_words = tokenize_words(_in_forms_of(claim, text))
    if any(is_negation(word) for word in claim_words) or not _NEGATION.search(text):
        return False
    return {word for word in claim_words if word not in STOPWORDS} <= set(tokenize_words(text))


_WORD = re.compile(r"[^\W\d_]+")


def _in_forms_of(claim: str, text: str) -> str:
    """The claim with each word the text lacks written as the text writes a word of the same Snowball stem: "Electric
    charge can be created." against "... electrical charge cannot be created or destroyed"."""
    words = tokenize_words(text)
    present = set(words)
    missing = {word for word in tokenize_words(claim) if word not in present}
    if not missing:
        return claim
    wanted = dict(zip(stem_words(sorted(missing)), sorted(missing), strict=True))
    forms: dict[str, str] = {}
    for word, stem in zip(words, stem_words(words), strict=True):
        if stem in wanted:
            forms.setdefault(wanted[stem], word)
    if not forms:
        return claim
    return _WORD.sub(lambda match: forms.get(match.group().lower(), match.group()), claim)


def matched_words(claim: str, sentence: str) -> tuple[tuple[str, ...], list[int] | None]:
    """The sentence's tokens (words, and each quantity one token) and the position of each of the claim's among them,
    matched in order; None when some claim token is not matched."""
    tokens = _tokens(sentence)
    return tokens, _matched(_tokens(claim), tokens)


def _matched(claim_tokens: tuple[str, ...], evidence_tokens: tuple[str, ...]) -> list[int] | None:
    """The evidence position of each claim token, matched in order, first come first matched; None when some claim
    token is not matched."""
    if not claim_tokens or len(claim_tokens) > len(evidence_tokens):
        return None
    matched: list[int] = []
    for index, token in enumerate(evidence_tokens):
        if len(matched) < len(claim_tokens) and token == claim_tokens[len(matched)]:
            matched.append(index)
    return matched if len(matched) == len(claim_tokens) else None


def _tokens(text: str) -> tuple[str, ...]:
    """The text's words (tokenize_words) with each quantity one token in its place: its value in base units and its
    dimension when it has a unit, else the number as written with what it counts."""
    normal = normalise_text(text)
    tokens: list[str] = []
    cursor = 0
    for quantity in extract_quantities(normal):
        tokens.extend(tokenize_words(normal[cursor : quantity.start]))
        tokens.append(_quantity_token(quantity))
        cursor = quantity.end
    tokens.extend(tokenize_words(normal[cursor:]))
    return tuple(tokens)


def _quantity_token(quantity: Quantity) -> str:
    normal = normalise_leniently(quantity)
    if quantity.unit and normal.dimension != "dimensionless" and not normal.dimension.startswith("unit:"):
        return f"{_QUANTITY_MARK}{normal.dimension}={normal.base_value:.9g}"
    return f"{_QUANTITY_MARK}{quantity.label or ''}={quantity.text}"


def _may_turn_meaning(token: str) -> bool:
    return (
        token.startswith(_QUANTITY_MARK)
        or is_negation(token)
        or token in _MEANING_WORDS
        or any(ch.isdigit() for ch in token)
    )
