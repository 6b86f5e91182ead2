"""Coverage signal: a claim and its evidence texts → how much of the claim's entities, numbers and content
words the evidence mentions (seed 001 "evidence_coverage"), with the claim terms it does not mention.

Entities are read from the claim with numbers blanked out (numbers have their own coverage):
  - symbolic equations ("E = mc^2") and big-O bounds ("O(n log n)"), compared with whitespace removed;
  - caret expressions and symbols: "n^2", "mc^3", single-letter variables with an optional subscript or
    digit ("v_0", "F", "x2"); the articles "a", "A" and "I" are not symbols;
  - Greek letters ("Δx", "λ") and spelled Greek names ("lambda");
  - technical terms: hyphenated compounds ("worst-case"), CamelCase ("QuickSort"), acronyms and letter-digit
    codes ("FMLA", "BM25", "H2O");
  - capitalised phrases ("Newton's second law" → "Newton", "City of Boston"), leading stopwords dropped; a
    lone capitalised word that opens a sentence is skipped (unless possessive), as it is capitalised for the
    sentence.
Symbols, codes and expressions match case-sensitively; phrases match case-insensitively with "-" and spaces
interchangeable. An entity inside a longer one ("n^2" in "O(n^2)") is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from veriground.schema import CoverageSignal, SignalStatus
from veriground.text.content import passage_stems
from veriground.text.memo import text_memo
from veriground.text.quantities import (
    NormalQuantity,
    extract_quantities,
    normalise_leniently,
    remove_quantities,
    same_quantity,
)
from veriground.text.terms import STOPWORDS, extract_terms, normalise_text

NO_EVIDENCE_REASON = "no evidence"
NO_CONTENT_REASON = "claim has no content terms"
_DECIMALS = 6

_GREEK_NAMES = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon "
    "phi chi psi omega"
)
# Each pattern with a character every one of its matches holds (None: no such character): most claims hold no "=",
# "(", "^", Greek letter or hyphen, and the scan of a pattern that cannot match is skipped.
_ENTITY_PATTERNS: tuple[tuple[re.Pattern[str], re.Pattern[str] | None], ...] = (
    (
        re.compile(
            r"(?<![\w^=<>!])[A-Za-zΑ-Ωα-ω][\w']*\s*=\s*[\w^(){}\\'Α-Ωα-ω]+(?:\s*[-+*/·⋅×]\s*[\w^(){}\\'Α-Ωα-ω]+)*"
        ),
        re.compile("="),
    ),
    (re.compile(r"(?<!\w)[OΘΩ]\([^()]*(?:\([^()]*\)[^()]*)*\)"), re.compile(r"\(")),
    (re.compile(r"(?<![\w^])[A-Za-zΑ-Ωα-ω]\w*\^\{?[-+]?\w+\}?"), re.compile(r"\^")),
    (re.compile(r"(?<![\w^'])(?![aAI](?![\w_']))[A-Za-z](?:_\{?\w+\}?|\d+|')?(?![\w(])"), None),
    (re.compile(r"\w*[Α-Ωα-ω]\w*"), re.compile("[Α-Ωα-ω]")),
    (re.compile(rf"(?i)(?<!\w)(?:{'|'.join(_GREEK_NAMES.split())})(?!\w)"), None),
    (re.compile(r"(?<![\w-])[A-Za-z]\w*(?:-\w+)+"), re.compile("-")),
    (re.compile(r"(?<!\w)(?:[a-z]+[A-Z]|[A-Z][a-z]+[A-Z])\w*"), None),
    (re.compile(r"(?<!\w)(?:[A-Z]{2,}|[A-Za-z]+\d)\w*"), None),
)
# Lower-case particles may sit inside a name: "City of Boston", "Ludwig van Beethoven".
_CAPITALISED_PHRASE = re.compile(
    r"(?<![\w'-])[A-Z][\w'-]*(?:\s+(?:(?:of|de|van|von|der|du|da|la|le)\s+)?[A-Z][\w'-]*)*"
)
_ABBREVIATIONS = re.compile(r"\b(?:e\.g|i\.e|etc|vs|cf)\.")
_EXPRESSION_CHARS = frozenset("^()_=")
_WHITESPACE = re.compile(r"\s+")


def compute_coverage(claim_text: str, evidence_texts: Sequence[str]) -> CoverageSignal:
    """Entity, number and content-word coverage of the claim by the evidence, and the best passage Jaccard.

    A part the claim lacks (no entities, no numbers) is None while the signal stays computed; token coverage
    and entity coverage use all passages together, Jaccard the single most similar passage. Numbers are read
    passage by passage, so a number never takes its unit from the start of the next passage.
    """
    written = [text for text in evidence_texts if text.strip()]
    passages = [normalise_text(text) for text in written]
    if not passages:
        return CoverageSignal(status=SignalStatus.NOT_APPLICABLE, reason=NO_EVIDENCE_REASON)
    entities = extract_entities(claim_text)
    quantities = [normalise_leniently(quantity) for quantity in extract_quantities(claim_text)]
    terms = extract_terms(remove_quantities(claim_text))
    if not (entities or quantities or terms):
        return CoverageSignal(status=SignalStatus.NOT_APPLICABLE, reason=NO_CONTENT_REASON)

    evidence = "\n".join(passages)
    missing_entities = [entity for entity in entities if not mentions_entity(evidence, entity)]
    evidence_quantities = [quantity for passage in passages for quantity in _normal_quantities(passage)]
    missing_numbers = [
        quantity.quantity.describe()
        for quantity in quantities
        if not any(same_quantity(quantity, other) for other in evidence_quantities)
    ]
    claim_stems = {term.stem for term in terms}
    stems_of = [passage_stems(text) for text in written]  # content_stems of each passage
    evidence_stems = set().union(*stems_of)
    missing_words = [term.surface for term in terms if term.stem not in evidence_stems]
    return CoverageSignal(
        status=SignalStatus.COMPUTED,
        entity_coverage=_share_found(len(entities), len(missing_entities)),
        number_coverage=_share_found(len(quantities), len(missing_numbers)),
        token_coverage=_share_found(len(claim_stems), len(claim_stems - evidence_stems)),
        jaccard=max((_jaccard(claim_stems, stems) for stems in stems_of), default=None) if claim_stems else None,
        missing_terms=tuple(dict.fromkeys(missing_entities + missing_numbers + missing_words)),
    )


@text_memo(maxsize=16_384)  # a passage is retrieved for many claims: its numbers are read once
def _normal_quantities(passage: str) -> tuple[NormalQuantity, ...]:
    return tuple(normalise_leniently(quantity) for quantity in extract_quantities(passage))


def extract_entities(text: str) -> list[str]:
    """Entities of the text in order of appearance (see the module docstring for what counts)."""
    return list(_entities_of(text))


@text_memo(maxsize=16_384)  # the same claim is read against every passage, the same passage for every claim
def _entities_of(text: str) -> tuple[str, ...]:
    normal = _ABBREVIATIONS.sub(" ", remove_quantities(text))
    found: list[tuple[int, str]] = []
    for pattern, needed in _ENTITY_PATTERNS:
        if needed is not None and needed.search(normal) is None:
            continue
        found.extend((match.start(), _clean(match.group(0))) for match in pattern.finditer(normal))
    for match in _CAPITALISED_PHRASE.finditer(normal):
        phrase = _capitalised_entity(normal, match)
        if phrase:
            found.append((match.start(), phrase))
    unique: dict[str, str] = {}
    for _, entity in sorted(found, key=lambda item: item[0]):
        if entity:
            unique.setdefault(entity.lower(), entity)
    entities = list(unique.values())
    return tuple(entity for entity in entities if not any(_is_inside(entity, other) for other in entities))


def mentions_entity(evidence: str, entity: str) -> bool:
    """Whether the (normalised) evidence mentions the entity, by the matching rules of the module docstring."""
    if _EXPRESSION_CHARS & set(entity):
        return _WHITESPACE.sub("", entity) in _WHITESPACE.sub("", evidence)
    return _entity_pattern(entity).search(evidence) is not None


@text_memo(maxsize=16_384)  # a claim's entities are looked for in every passage it retrieves
def _entity_pattern(entity: str) -> re.Pattern[str]:
    """The entity's words as whole words, joined by any run of spaces or hyphens; case-blind unless symbol-like."""
    words = [re.escape(word) for word in re.split(r"[\s-]+", entity) if word]
    flags = 0 if _is_symbol_like(entity) else re.IGNORECASE
    return re.compile(r"(?<!\w)" + r"[\s-]+".join(words) + r"(?!\w)", flags)


def _capitalised_entity(normal: str, match: re.Match[str]) -> str | None:
    words = [_clean(word) for word in match.group(0).split()]
    start = match.start()
    while words and words[0].lower() in STOPWORDS:
        start = normal.index(words[0], start) + len(words[0])
        words = words[1:]
    if not words or (len(words) == 1 and len(words[0]) == 1):
        return None
    possessive = match.group(0).split()[len(match.group(0).split()) - len(words)].endswith("'s")
    if len(words) == 1 and _opens_sentence(normal, start) and not possessive and not _is_symbol_like(words[0]):
        return None
    return " ".join(words)


def _opens_sentence(normal: str, start: int) -> bool:
    before = normal[:start].rstrip(" \t\"'([")
    return not before or before[-1] in ".!?:;\n"


def _clean(entity: str) -> str:
    entity = entity.strip().rstrip(".,;:'")
    return entity[:-2] if entity.endswith("'s") else entity


def _is_symbol_like(entity: str) -> bool:
    """Short symbols, acronyms, codes and Greek: case carries meaning (m vs M, FMLA)."""
    return len(entity) <= 3 or entity.isupper() or any(char.isdigit() for char in entity) or _has_greek(entity)


def _has_greek(entity: str) -> bool:
    return any("Α" <= char <= "ω" for char in entity)


def _is_inside(entity: str, other: str) -> bool:
    if len(other) <= len(entity) or entity.lower() == other.lower():
        return False
    return re.search(r"(?<!\w)" + re.escape(entity) + r"(?!\w)", other) is not None


def _share_found(total: int, missing: int) -> float | None:
    return round((total - missing) / total, _DECIMALS) if total else None


def _jaccard(first: AbstractSet[str], second: AbstractSet[str]) -> float:
    union = first | second
    return round(len(first & second) / len(union), _DECIMALS) if union else 0.0
