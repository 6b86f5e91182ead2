"""Targeted pairs for what the v2 model still misread (issue 16's probes): quantities and comparatives.

The per-document pass of synthetic_pairs picks a few target sentences per document, so a sentence with a quantity
("320 meters", "9.8 m/s2") or a comparative ("faster", "larger") is rarely among them: the v2 mix holds 96
unit-conversion pairs. This pass visits every usable sentence of the domain corpora that has one, and gives each
a balanced set against the same premise (the sentence, or its window, chosen by checksum):
- a quantity: entailed, the sentence itself and the quantity converted with its value scaled (9.8 m/s2 ->
  980 cm/s2); contradicted, the unit converted without scaling (9.8 cm/s2) and the value rescaled by ten in its own
  format (320 meters -> 32 meters, 9.8 -> 98). contamination_edits.change_constant writes 320 / 10 as "32.0",
  so the v2 mix taught "a trailing .0 appeared" more than "the number is ten times smaller";
- a comparative: entailed, the sentence itself; contradicted, the comparative swapped for its antonym
  ("faster" -> "slower").
At most `per_document` sentences of each kind per document (chosen by checksum), so a long chapter does not
dominate. Deterministic in the text.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterable, Iterator
from decimal import Decimal

from veriground.training.train_pairs import TrainPair
from veriground.training.unit_conversions import convert_unit, convert_unit_unscaled, quantity_value_span

_COMPARATIVES = (
    ("faster", "slower"), ("larger", "smaller"), ("higher", "lower"), ("longer", "shorter"),
    ("heavier", "lighter"), ("greater", "less"), ("increases", "decreases"), ("stronger", "weaker"),
    ("warmer", "cooler"), ("earlier", "later"), ("wider", "narrower"), ("cheaper", "costlier"),
)  # fmt: skip
_SWAP = {a: b for a, b in _COMPARATIVES} | {b: a for a, b in _COMPARATIVES}
_COMPARATIVE = re.compile(r"\b(" + "|".join(map(re.escape, _SWAP)) + r")\b")


def targeted_pairs(documents: Iterable[tuple[str, list[list[str]]]], *, per_document: int) -> list[TrainPair]:
    """The quantity and comparative pairs of every document (see the module docstring)."""
    pairs: list[TrainPair] = []
    for name, paragraphs in documents:
        for kind, make in (("quantity", _quantity_pairs), ("comparative", _comparative_pairs)):
            chosen = []
            for p, paragraph in enumerate(paragraphs):
                for s, sentence in enumerate(paragraph):
                    made = list(make(sentence, premise_of(paragraph, s)))
                    if made:
                        chosen.append((zlib.crc32(f"{name}:{kind}:{sentence}".encode()), p, s, made))
            for *_, made in sorted(sorted(chosen)[:per_document], key=lambda item: item[1:3]):
                pairs.extend(made)
    return pairs


def premise_of(paragraph: list[str], s: int) -> str:
    """The sentence alone or its window (the sentence and one either side), chosen by its checksum."""
    sentence = paragraph[s]
    return sentence if zlib.crc32(sentence.encode()) % 2 == 0 else " ".join(paragraph[max(0, s - 1) : s + 2])


def _quantity_pairs(sentence: str, premise: str) -> Iterator[TrainPair]:
    converted, unscaled, rescaled = convert_unit(sentence), convert_unit_unscaled(sentence), rescale(sentence)
    if converted is None or unscaled is None or rescaled is None:
        return
    yield TrainPair(premise, sentence, "entailment", "targeted:quantity-copy")
    yield TrainPair(premise, converted, "entailment", "targeted:unit-conversion")
    yield TrainPair(premise, unscaled, "contradiction", "targeted:unit-unscaled")
    yield TrainPair(premise, rescaled, "contradiction", "targeted:number-rescaled")


def _comparative_pairs(sentence: str, premise: str) -> Iterator[TrainPair]:
    match = _COMPARATIVE.search(sentence)
    if match is None:
        return
    swapped = sentence[: match.start()] + _SWAP[match.group(0)] + sentence[match.end() :]
    yield TrainPair(premise, sentence, "entailment", "targeted:comparative-copy")
    yield TrainPair(premise, swapped, "contradiction", "targeted:comparative-antonym")


def rescale(sentence: str) -> str | None:
    """The first quantity's value times or divided by ten (by checksum), written as the text writes numbers: an
    integer stays an integer when it can ("320" -> "32" or "3200"), a decimal keeps no more places than it needs."""
    span = quantity_value_span(sentence)
    if span is None:
        return None
    start, end = span
    raw = sentence[start:end].replace(",", "")
    value = Decimal(raw) * 10 if zlib.crc32(sentence.encode()) % 2 else Decimal(raw) / 10
    text = format(value.normalize(), "f")
    if text in (raw, "0"):
        return None
    return sentence[:start] + text + sentence[end:]
