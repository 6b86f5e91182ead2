"""In-passage swaps: a sentence with one of its words put for another word of the same passage (not entailed).

v3 reads a hypothesis whose every word is in the premise as entailed, whatever it does with them: "Like charges
attract each other." against "Like charges repel each other, whereas unlike charges attract." scored entailment 0.92.
The edits of synthetic_pairs bring in words from outside the premise (an antonym, a number, a negation), so "all
its words are in the premise" still reads as "entailed". These pairs take that cue away: for a target sentence S
of a paragraph, with its premise P (S, or S's window, chosen by checksum as targeted_pairs does),
- not_entailment: S with one content word put for another content word of P, of the same form (both capitalised or
  both not, the same ending among -ing, -ed, -ly, -s) and another stem; every word of the hypothesis is in P;
- entailment: S unchanged, against the same premise, so the near copy alone tells nothing.
Where S joins clauses with "whereas", "while", "but" or a semicolon, both hypotheses are the clause that holds the
swapped word, so a claim made of one clause with the other clause's verb is met too.

The label is not_entailment (neutral or contradiction, trained on their sum): a word swapped for a near synonym of
the passage may still hold, and one swapped for a different thing may be neither said nor denied. Every choice is a
function of the text (CRC32), so the same documents give the same pairs.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable

from veriground.text.clauses import STATEMENT_JOINT
from veriground.text.terms import STOPWORDS, is_negation, stem_words
from veriground.training.targeted_pairs import premise_of
from veriground.training.train_pairs import TrainPair

_WORD = re.compile(r"\b[A-Za-z][a-z]+\b(?!')")
_ENDINGS = ("ing", "ed", "ly", "s")
# Words whose swap is an edit of its own (quantifiers, degree), made elsewhere with the right label
_LEFT_ALONE_LIST = "all some many most none every each only always never also very more less least than same other such"
_LEFT_ALONE = frozenset(_LEFT_ALONE_LIST.split())
MIN_WORD_LETTERS = 4
# The kinds of function word a swapped word may follow (_slot)
_KIND_LISTS = {
    "determiner": "the a an this that these those its their his her our your my each every any no",
    "preposition": "of in on at by for with from to into onto over under about between through",
    "auxiliary": "is are was were be been being can will must may might should would could does do did has have had",
    "pronoun": "it they we you he she i",
}
_KINDS = {kind: frozenset(words.split()) for kind, words in _KIND_LISTS.items()}


def passage_swaps(documents: Iterable[tuple[str, list[list[str]]]], *, per_document: int) -> list[TrainPair]:
    """Up to `per_document` target sentences per document (chosen by checksum), each giving a swapped hypothesis
    (not_entailment) and its unswapped twin (entailment) against the same premise."""
    pairs: list[TrainPair] = []
    for name, paragraphs in documents:
        made = []
        for p, paragraph in enumerate(paragraphs):
            for s, sentence in enumerate(paragraph):
                premise = premise_of(paragraph, s)
                twins = swap_in_passage(sentence, premise)
                if twins is not None:
                    made.append((zlib.crc32(f"{name}:swap:{sentence}".encode()), p, s, premise, twins))
        for _, _, _, premise, (kept, changed) in sorted(sorted(made)[:per_document], key=lambda item: item[1:3]):
            pairs.append(TrainPair(premise, kept, "entailment", "swap:copy"))
            pairs.append(TrainPair(premise, changed, "not_entailment", "swap:in-passage"))
    return pairs


def swap_in_passage(sentence: str, premise: str) -> tuple[str, str] | None:
    """(the sentence or its clause, the same with one word put for another word of `premise`), or None when no
    word of the sentence has a partner in the premise: a word of its form after a word of the same kind."""
    targets = [match for match in _WORD.finditer(sentence) if _swappable(match.group())]
    fillers = sorted({(match.group(), _slot(premise, match.start())) for match in _WORD.finditer(premise)})
    fillers = [(word, slot) for word, slot in fillers if _swappable(word)]
    stems = dict(zip(fillers, stem_words([word.lower() for word, _ in fillers]), strict=True))
    options = []
    for target in targets:
        word, slot = target.group(), _slot(sentence, target.start())
        (stem,) = stem_words([word.lower()])
        for filler in fillers:
            if filler[1] == slot and _form(filler[0]) == _form(word) and stems[filler] != stem:
                options.append((target, filler[0]))
    if not options:
        return None
    target, partner = options[zlib.crc32(sentence.encode()) % len(options)]
    swapped = sentence[: target.start()] + partner + sentence[target.end() :]
    start, end = _clause_around(sentence, target.start())
    if (start, end) == (0, len(sentence)):
        return sentence, swapped
    shift = len(partner) - len(target.group())
    return _as_sentence(sentence[start:end]), _as_sentence(swapped[start : end + shift])


def _slot(text: str, offset: int) -> str:
    """What comes before the word at `offset`: the kind of a function word ("the" and "its" are both a determiner),
    a content word itself, or the start. Two words after the same kind of word take the same place in a sentence
    ("charges repel" / "charges attract", "the force" / "the mass"), so a swap keeps the sentence grammatical."""
    before = _WORD.findall(text[max(0, offset - 40) : offset])
    if not before or re.search(r"[.;:,(]\s*$", text[:offset]):
        return "^"
    word = before[-1].lower()
    return next((kind for kind, words in _KINDS.items() if word in words), word)


def _swappable(word: str) -> bool:
    lower = word.lower()
    return (
        len(word) >= MIN_WORD_LETTERS
        and lower not in STOPWORDS
        and lower not in _LEFT_ALONE
        and not is_negation(lower)
        and not word.isupper()
    )


def _form(word: str) -> tuple[bool, str]:
    ending = next((end for end in _ENDINGS if word.endswith(end) and not word.endswith("ss")), "")
    return word[0].isupper(), ending


def _clause_around(sentence: str, offset: int) -> tuple[int, int]:
    """(start, end) of the clause of `sentence` that holds `offset` (the whole sentence when it has one clause)."""
    start, end = 0, len(sentence)
    for joint in STATEMENT_JOINT.finditer(sentence):
        if joint.end() <= offset:
            start = joint.end()
        elif joint.start() >= offset:
            end = joint.start()
            break
    return start, end


def _as_sentence(clause: str) -> str:
    clause = clause.strip().rstrip(".,;")
    return clause[:1].upper() + clause[1:] + "."
