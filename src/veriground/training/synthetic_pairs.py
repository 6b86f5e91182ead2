"""Synthetic NLI pairs from the open-licensed domain corpora (physics, data structures, discrete maths, policy),
balanced so that "the hypothesis is a near copy of the premise" says nothing about the label.

For each target sentence S of a paragraph, with W its window (S and up to one sentence either side, as the
verifier's evidence units are), the pairs are:
- entailment: (W, S) always; (S, S) for half the targets; one meaning-keeping edit of S (an unneeded clause or
  opener deleted, the first conjunct, "X because Y" -> "Because Y, X", a quantity converted to another unit with
  its value scaled, 9.8 m/s2 -> 980 cm/s2) against W or S;
- contradiction: one meaning-changing edit of S (a number or unit changed, a negation toggled, an antonym,
  "all/every/always" -> "no/never", paired terms swapped, a unit converted without scaling the value) against the
  same premise as the keeping edit; not_entailment (neutral or contradiction): a sign flipped, "some" -> "all", a
  causal claim reversed;
  (number, antonym and "all -> no" edits are made whenever they apply, the rest one per target);
- neutral: a sentence from elsewhere in the same document that shares the most content words with S (same topic,
  different fact), and for half the targets one from a far paragraph.
With `deletions` (the v3 mix), every one-word deletion that keeps the meaning also gives an entailed pair against the
same premise: "all" before a plural ("all objects fall" -> "objects fall") and an intensifier or additive adverb
("very", "also", "always", ...). The first GPU-trained model read "Near Earth's surface, objects fall ..." against
the textbook's "..., all objects fall ..." as a contradiction (0.84): without these pairs, a quantifier word that
differs was seen only in edits that change the meaning ("all" -> "no", "some" -> "all").
So near-copy entailments outnumber near-copy contradictions, and most edited contradictions (87 % in the shipped
mix) have an entailed near copy with the same premise.

Sentences sharing an 8-word run with the bundled demo corpus are skipped, so the demo golden set and the
contamination study never see a training sentence. Every choice is a function of the text (CRC32), so the same
corpora give the same pairs.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

from veriground.evaluation.contamination_edits import (
    change_constant,
    change_unit,
    flip_sign,
    swap_terms,
    toggle_negation,
)
from veriground.text.sentences import SentenceBoundary, split_sentences
from veriground.training.train_pairs import TrainLabel, TrainPair
from veriground.training.unit_conversions import convert_unit, convert_unit_unscaled

CORPORA = ("openstax-physics", "open-data-structures", "discrete-math-levin", "18f-handbook")
# Words of Latin letters only, not text.terms' tokenizer: the shipped training mix (its shingles and the overlap of
# its neutral pairs) is pinned by this reading.
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")
_SHINGLE = 8
_HARD_NEUTRAL_MAX_OVERLAP = 0.6  # a "different fact" sharing more of S's content words may restate it: skipped
_STOP = frozenset(
    ("the", "a", "an", "of", "to", "in", "on", "and", "or", "is", "are", "was", "were", "be", "by", "for", "with",
     "as", "at", "it", "its", "this", "that", "these", "from", "can", "which")
)  # fmt: skip
_MIN_WORDS, _MAX_WORDS = 8, 45
_ANTONYMS = (
    ("increases", "decreases"), ("increase", "decrease"), ("larger", "smaller"), ("greater", "less"),
    ("higher", "lower"), ("faster", "slower"), ("maximum", "minimum"), ("before", "after"),
    ("longer", "shorter"), ("heavier", "lighter"), ("required", "optional"), ("allowed", "prohibited"),
    ("first", "last"), ("inside", "outside"), ("above", "below"), ("gain", "lose"), ("more", "fewer"),
)  # fmt: skip
_ANTONYM = {a: b for a, b in _ANTONYMS} | {b: a for a, b in _ANTONYMS}
_ANTONYM_RE = re.compile(r"\b(" + "|".join(map(re.escape, _ANTONYM)) + r")\b")
_UNIVERSAL = re.compile(r"\b(All|all|Every|every|always)\b")
_UNIVERSAL_TO_NONE = {"All": "No", "all": "no", "Every": "No", "every": "no", "always": "never"}
_SOME = re.compile(r"\b(Some|some)\b")
_CAUSAL = re.compile(r"^(?P<a>[A-Z][^,;:]{3,60}?) (?P<verb>causes|leads to|results in|produces) (?P<b>[^,;:]{3,60})\.$")
_BECAUSE = re.compile(r"^(?P<main>[A-Z][^,;:]{10,}?),? because (?P<reason>[^,;:]{8,})\.$")
_OPENER = re.compile(
    r"^(?:However|Thus|Therefore|Hence|Also|In fact|Of course|In this case|In general|Similarly|Likewise|"
    r"Note that|Recall that|In other words|For example|Typically|Usually|Here|Now),? "
)
_CONJUNCT = re.compile(r"^(?P<first>[A-Z][^;]{20,}?)(?:, and |; )(?P<second>[^;]{12,})\.$")
_DROPPABLE = (
    re.compile(r" \([^()]{3,80}\)"),  # a parenthetical
    re.compile(r", (?:which|who|where) [^,]{3,80},"),  # a non-restrictive relative clause
    re.compile(r", (?:for example|for instance|such as|in particular|that is)[^,.]{0,80}(?=[,.])"),
)
Edit = Callable[[str], str | None]


def read_corpus_sentences(corpora_dir: Path, *, exclude_text: str = "") -> Iterator[tuple[str, list[list[str]]]]:
    """(document name, its paragraphs as lists of clean sentences) for every file of the domain corpora."""
    from veriground.corpus.loaders import load_file
    from veriground.errors import NothingToIngest

    banned = _shingles(exclude_text)
    for corpus in CORPORA:
        for path in sorted((corpora_dir / corpus).rglob("*")):
            if not path.is_file() or path.name == "SOURCE.md" or path.suffix not in (".md", ".tex", ".ptx"):
                continue
            try:
                loaded = load_file(path, max_bytes=20_000_000)
            except NothingToIngest:  # a front-matter-only redirect page: no prose
                continue
            for document in loaded:
                paragraphs = [
                    [s for s in _sentences(block) if _usable(s) and not (_shingles(s) & banned)]
                    for block in document.text.split("\n\n")
                ]
                yield f"{corpus}/{path.name}", [p for p in paragraphs if p]


def prose_paragraphs(texts: Iterable[str]) -> list[list[str]]:
    """Each text's paragraphs (split at blank lines) as lists of usable prose sentences; empty ones dropped."""
    paragraphs = [[s for s in _sentences(block) if _usable(s)] for text in texts for block in text.split("\n\n")]
    return [paragraph for paragraph in paragraphs if paragraph]


def synthetic_pairs(
    documents: Iterable[tuple[str, list[list[str]]]], *, per_document: int, deletions: bool = False
) -> list[TrainPair]:
    """Up to `per_document` target sentences per document, each giving the entailed, changed and neutral pairs
    (and with `deletions`, an entailed pair for each meaning-keeping one-word deletion that applies)."""
    pairs: list[TrainPair] = []
    for name, paragraphs in documents:
        targets = sorted(
            ((p, s) for p, paragraph in enumerate(paragraphs) for s in range(len(paragraph))),
            key=lambda ps: zlib.crc32(f"{name}:{paragraphs[ps[0]][ps[1]]}".encode()),
        )[:per_document]
        for p, s in sorted(targets):
            pairs.extend(_pairs_for(paragraphs, p, s, deletions))
    return pairs


def _pairs_for(paragraphs: Sequence[list[str]], p: int, s: int, deletions: bool = False) -> Iterator[TrainPair]:
    paragraph = paragraphs[p]
    sentence = paragraph[s]
    window = " ".join(paragraph[max(0, s - 1) : s + 2])
    checksum = zlib.crc32(sentence.encode())
    if window != sentence:
        yield TrainPair(window, sentence, "entailment", "synthetic:window-copy")
    if checksum % 2 == 0 or window == sentence:
        yield TrainPair(sentence, sentence, "entailment", "synthetic:identity")
    premise = sentence if (checksum >> 1) % 2 == 0 else window
    kept = _first_applicable(sentence, _KEEPING)
    if kept is not None:
        yield TrainPair(premise, kept[1], "entailment", f"synthetic:{kept[0]}")
    for name, deletion in _DELETIONS if deletions else ():
        shorter = deletion(sentence)
        if shorter is not None and shorter != sentence:
            yield TrainPair(premise, shorter, "entailment", f"synthetic:{name}")
    changed = _first_applicable(sentence, _CHANGING)
    if changed is not None:
        edit, text = changed
        yield TrainPair(premise, text, _CHANGING_LABEL.get(edit, "contradiction"), f"synthetic:{edit}")
    for name, rare_edit in _RARE_CHANGING:  # rarer than negation: made whenever they apply, not only when chosen
        rare_text = rare_edit(sentence)
        if rare_text is not None and rare_text != sentence and (changed is None or name != changed[0]):
            yield TrainPair(premise, rare_text, "contradiction", f"synthetic:{name}")
    converted = convert_unit(sentence)
    if converted is not None:  # rare enough to be made whenever it applies, with its unscaled twin
        yield TrainPair(premise, converted, "entailment", "synthetic:unit-conversion")
        unscaled = convert_unit_unscaled(sentence)
        if unscaled is not None:
            yield TrainPair(premise, unscaled, "contradiction", "synthetic:unit-unscaled")
    in_window = set(paragraph[max(0, s - 1) : s + 2])
    same_document = [other for paragraph_ in paragraphs for other in paragraph_ if other not in in_window]
    hard = _hard_neutral(sentence, same_document)
    if hard is not None:
        yield TrainPair(premise, hard, "neutral", "synthetic:same-topic")
    far = [other for q, paragraph_ in enumerate(paragraphs) if abs(q - p) > 1 for other in paragraph_]
    if far and (checksum >> 2) % 2 == 0:
        yield TrainPair(premise, far[checksum % len(far)], "neutral", "synthetic:other-sentence")


def _hard_neutral(sentence: str, candidates: Sequence[str]) -> str | None:
    """The candidate sharing most content words with `sentence` (ties: the earlier one), unless it may restate it."""
    words = _content(sentence)
    best, best_shared = None, 0
    for candidate in candidates:
        other = _content(candidate)
        shared = len(words & other)
        if shared > best_shared and shared <= _HARD_NEUTRAL_MAX_OVERLAP * max(1, min(len(words), len(other))):
            best, best_shared = candidate, shared
    return best


def _content(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if w.lower() not in _STOP}


def _first_applicable(sentence: str, edits: Sequence[tuple[str, Edit]]) -> tuple[str, str] | None:
    """One of the edits that apply and change the text, chosen by the sentence's checksum (so an edit that applies
    to almost any sentence, like negation, does not crowd out the rarer ones more than its share)."""
    applicable = []
    for name, edit in edits:
        result = edit(sentence)
        if result is not None and result != sentence and len(result.split()) >= 4:
            applicable.append((name, result))
    if not applicable:
        return None
    return applicable[zlib.crc32(sentence.encode()) % len(applicable)]


def _drop_opener(sentence: str) -> str | None:
    match = _OPENER.match(sentence)
    if match is None:
        return None
    rest = sentence[match.end() :]
    return rest[0].upper() + rest[1:]


def _first_conjunct(sentence: str) -> str | None:
    """ "A, and B." or "A; B." -> "A." (a conjunction entails each conjunct)."""
    match = _CONJUNCT.match(sentence)
    return None if match is None else match.group("first") + "."


def _drop_clause(sentence: str) -> str | None:
    for pattern in _DROPPABLE:
        match = pattern.search(sentence)
        if match is not None:
            trimmed = (
                sentence[: match.start()] + ("," if match.group(0).endswith(",") else "") + sentence[match.end() :]
            )
            return trimmed.replace(",,", ",").replace(" ,", ",")
    return None


def _reorder_because(sentence: str) -> str | None:
    match = _BECAUSE.match(sentence)
    if match is None:
        return None
    main = match.group("main")
    return f"Because {match.group('reason')}, {main[0].lower()}{main[1:]}."


def _antonym(sentence: str) -> str | None:
    match = _ANTONYM_RE.search(sentence)
    if match is None:
        return None
    return sentence[: match.start()] + _ANTONYM[match.group(0)] + sentence[match.end() :]


def _universal_to_none(sentence: str) -> str | None:
    match = _UNIVERSAL.search(sentence)
    if match is None:
        return None
    return sentence[: match.start()] + _UNIVERSAL_TO_NONE[match.group(0)] + sentence[match.end() :]


def _some_to_all(sentence: str) -> str | None:
    match = _SOME.search(sentence)
    if match is None:
        return None
    return sentence[: match.start()] + ("All" if match.group(0) == "Some" else "all") + sentence[match.end() :]


def _reverse_cause(sentence: str) -> str | None:
    match = _CAUSAL.match(sentence)
    if match is None:
        return None
    a, b = match.group("a"), match.group("b")
    return f"{b[0].upper()}{b[1:]} {match.group('verb')} {a[0].lower()}{a[1:]}."


_KEEPING: tuple[tuple[str, Edit], ...] = (
    ("drop-clause", _drop_clause),
    ("drop-opener", _drop_opener),
    ("first-conjunct", _first_conjunct),
    ("reorder-because", _reorder_because),
)
_CHANGING: tuple[tuple[str, Edit], ...] = (
    ("number", change_constant),
    ("unit", change_unit),
    ("sign", flip_sign),
    ("negation", toggle_negation),
    ("antonym", _antonym),
    ("all-to-none", _universal_to_none),
    ("some-to-all", _some_to_all),
    ("causal-reversal", _reverse_cause),
    ("swapped-terms", swap_terms),
)
# "all" before a plural, not after "not"/"at" ("not all", "at all"), a word of degree ("almost all") or a preposition
# of an idiom ("by all means", "above all things", "for all intents"), and not before "this"/"its" ("in all this time")
_ALL_BEFORE_PLURAL = re.compile(
    r"(?<![Nn]ot )(?<![Aa]t )(?<![Aa]lmost )(?<![Nn]early )(?<![Vv]irtually )(?<![Pp]ractically )(?<![Aa]bove )"
    r"(?<![Ff]or )(?<![Bb]y )(?<![Oo]f )(?<![Ii]n )(?<![Aa]fter )\b([Aa]ll) (?=(?!this\b|its\b)[a-z]{3,}s\b)"
)
# not after "a"/"an" ("a very important step" less "very" would read "a important step"), nor inside a negation's
# scope ("not always positive" is not "not positive")
_INTENSIFIER = re.compile(
    r"(?<!\ba)(?<!\ban)(?<!\bnot)(?<!n't)(?<!\bnever)(?<!\bno)(?<!\bnor)(?<!\bhardly)"
    r" (?:very|also|always|really|extremely|highly|quite|especially|particularly)(?= [a-z])"
)


def _drop_all(sentence: str) -> str | None:
    """ "all objects fall" -> "objects fall" (not after "not" or "at": "not all", "at all")."""
    match = _ALL_BEFORE_PLURAL.search(sentence)
    if match is None:
        return None
    rest = sentence[match.end() :]
    return sentence[: match.start()] + (rest[0].upper() + rest[1:] if match.start() == 0 else rest)


def _drop_intensifier(sentence: str) -> str | None:
    match = _INTENSIFIER.search(sentence)
    return None if match is None else sentence[: match.start()] + sentence[match.end() :]


_DELETIONS: tuple[tuple[str, Edit], ...] = (("drop-all", _drop_all), ("drop-intensifier", _drop_intensifier))
_RARE_CHANGING: tuple[tuple[str, Edit], ...] = (
    ("number", change_constant),
    ("antonym", _antonym),
    ("all-to-none", _universal_to_none),
)
_CHANGING_LABEL: dict[str, TrainLabel] = {
    "some-to-all": "not_entailment",
    "causal-reversal": "not_entailment",
    "sign": "not_entailment",
}


def _sentences(block: str) -> list[str]:
    return split_sentences(" ".join(block.split()), SentenceBoundary.CAPITALISED)


def _usable(sentence: str) -> bool:
    """Prose, not maths or markup: 8-45 words, ends like a sentence, mostly letters."""
    words = sentence.split()
    if not _MIN_WORDS <= len(words) <= _MAX_WORDS or not sentence.endswith((".", "!", "?")):
        return False
    if sentence.startswith(("-", "*", "#", ">")) or any(
        mark in sentence for mark in ("\\", "$", "{", "}", "|", "http", "`", "=", "](", "@")
    ):
        return False
    letters = sum(ch.isalpha() for ch in sentence)
    return letters >= 0.7 * len(sentence.replace(" ", ""))


def _shingles(text: str) -> set[int]:
    words = [w.lower() for w in _WORD.findall(text)]
    return {zlib.crc32(" ".join(words[i : i + _SHINGLE]).encode()) for i in range(len(words) - _SHINGLE + 1)}
