"""Synthetic NLI pairs from the open-licensed domain corpora (physics, data structures, discrete maths, policy):
a window of sentences is the premise; one of its sentences, edited, is the hypothesis.

Meaning-keeping edits (label entailment): the sentence itself, the sentence with an unneeded clause deleted,
"X because Y" reordered to "Because Y, X". Meaning-changing edits (label contradiction): a number or unit changed,
a sign flipped, a negation added or removed, an antonym, "all/every/always" turned into "no/never", paired terms
swapped. Not entailed (label not_entailment, i.e. neutral or contradiction): "some" strengthened to "all", a
causal claim reversed. Neutral: a sentence from elsewhere in the same document.

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
from veriground.training.nli_mix import TrainPair

CORPORA = ("openstax-physics", "open-data-structures", "discrete-math-levin", "18f-handbook")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?")
_SHINGLE = 8
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


def synthetic_pairs(documents: Iterable[tuple[str, list[list[str]]]], *, per_document: int) -> list[TrainPair]:
    """Up to `per_document` target sentences per document, each giving an entailed, a changed and a neutral pair."""
    pairs: list[TrainPair] = []
    for name, paragraphs in documents:
        targets = sorted(
            ((p, s) for p, paragraph in enumerate(paragraphs) for s in range(len(paragraph))),
            key=lambda ps: zlib.crc32(f"{name}:{paragraphs[ps[0]][ps[1]]}".encode()),
        )[:per_document]
        for p, s in sorted(targets):
            paragraph = paragraphs[p]
            premise = " ".join(paragraph[max(0, s - 1) : s + 2])
            sentence = paragraph[s]
            pairs.extend(_pairs_for(name, paragraphs, p, premise, sentence))
    return pairs


def _pairs_for(name: str, paragraphs: Sequence[list[str]], p: int, premise: str, sentence: str) -> Iterator[TrainPair]:
    kept = _first_applicable(sentence, _KEEPING)
    if kept is not None:
        yield TrainPair(premise, kept[1], "entailment", f"synthetic:{kept[0]}")
    changed = _first_applicable(sentence, _CHANGING)
    if changed is not None:
        edit, text = changed
        yield TrainPair(premise, text, _CHANGING_LABEL.get(edit, "contradiction"), f"synthetic:{edit}")
    others = [other for q, paragraph in enumerate(paragraphs) if abs(q - p) > 1 for other in paragraph]
    if others:
        other = others[zlib.crc32(sentence.encode()) % len(others)]
        yield TrainPair(premise, other, "neutral", "synthetic:other-sentence")


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


def _identity(sentence: str) -> str | None:
    return sentence if zlib.crc32(sentence.encode()) % 3 == 0 else None  # a third: don't teach "copy = entail"


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
    ("copy", _identity),
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
_CHANGING_LABEL = {"some-to-all": "not_entailment", "causal-reversal": "not_entailment", "sign": "not_entailment"}


def _sentences(block: str) -> list[str]:
    flat = " ".join(block.split())
    return [part.strip() for part in _SENTENCE_END.split(flat) if part.strip()]


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
