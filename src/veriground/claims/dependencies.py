"""Cross-claim dependencies (seed 000 §2.5): claims in text order → the terms each defines and uses → warnings
for a term used before its definition (forward_reference) or never defined (undefined, or defined_in_corpus_only
when the corpus defines it).

Terms are symbols (single letters with an optional subscript or prime "v_0", Greek letters "ρ", "Δt", and the
multi-letter symbols of equations "Re", "KE") and named concepts (a defined phrase such as "Reynolds number" or
"kinetic energy"). A claim *defines* a term when it says "X is defined as / denotes / represents / stands for /
refers to", "let X be", "we call X", "is called / known as X", "where X is …", names a symbol after a noun
("the density ρ", "the joule (J)"), or puts X alone on the left of "=" / ":=" / "≡" outside a condition
("Re = ρvL/μ", but not "if v = 0"). Every other occurrence is a *use*.

What warns, and why:
  - forward_reference: any defined term (symbol or phrase) that an earlier claim uses; one warning per term, at
    its first use, naming the defining claim. The pieces of one split sentence count as one position, so
    "Re = ρvL/μ …, where ρ is the density" is not a forward reference of ρ.
  - undefined / defined_in_corpus_only: only symbols, one warning per symbol at its first use. A phrase is
    readable words; a bare "F" is not.
  - never: O(…)/Θ(…)/Ω(…) bounds (standard notation), the conventional symbols x, y, z, n, i, e, π and a lone Δ
    (generic unknowns, a count, the imaginary unit, Euler's number, the difference operator), the words "a",
    "A", "I" in prose (in an equation "a" is a symbol), units after a number or after "in/of/per" or in a
    compound ("measured in m/s"), labels ("point A", "Figure B", "(b)"), hyphenated words ("x-axis"), links,
    acronyms and capitalised words (proper names, sentence openers), relation signs between words ("of > Staff").

Seed 000's pseudocode records the *first occurrence* of each term as its definition and then warns when
`claim_id < defining_claim_id`; in an in-order pass every later claim has a larger id than the recorded one,
so it can never fire. Here definitions and uses are told apart first, the first *defining* claim of each term is
found over the whole text, and a use earlier than that claim is the forward reference.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from veriground.claims.defined_terms import (
    defines_term,
    expression_symbols,
    extract_claim_terms,
    extract_claim_terms_plain,
    is_phrase,
    phrase_pattern,
    plain_text,
)
from veriground.schema import Claim, DependencyWarning

__all__ = ["DependencyAnalysis", "TermLink", "analyse_dependencies", "defines_term", "extract_claim_terms",
           "find_dependency_warnings"]  # fmt: skip


@dataclass(frozen=True)
class TermLink:
    """A claim using a term that another claim defines (a dependency edge of the claim graph)."""

    claim_id: str
    term: str
    definition_claim_id: str


@dataclass(frozen=True)
class DependencyAnalysis:
    warnings: tuple[DependencyWarning, ...]
    links: tuple[TermLink, ...]  # every use of a term defined in another claim, earlier or later


def find_dependency_warnings(
    claims: Sequence[Claim], corpus_defines: Callable[[str], bool] | None = None
) -> list[DependencyWarning]:
    """Warnings in text order (claim, then term): forward references, then undefined symbols."""
    return list(analyse_dependencies(claims, corpus_defines).warnings)


def analyse_dependencies(
    claims: Sequence[Claim], corpus_defines: Callable[[str], bool] | None = None
) -> DependencyAnalysis:
    """The warnings and every claim-to-definition link of the claims, read in the order given."""
    texts = [plain_text(claim.text) for claim in claims]
    named = frozenset(
        symbol for text in texts for symbol in expression_symbols(text, frozenset())[0] if len(symbol) > 1
    )
    terms = [extract_claim_terms_plain(text, named) for text in texts]
    # The pieces of one split sentence ("…, where ρ is the density") share a position: a symbol defined in one
    # piece is not a forward reference of its sibling.
    group_position: dict[str, int] = {}
    positions = [
        group_position.setdefault(claim.parent_claim_id or claim.claim_id, index) for index, claim in enumerate(claims)
    ]

    first_definition: dict[str, int] = {}
    for index, claim_terms in enumerate(terms):
        for term in sorted(claim_terms.defined):
            first_definition.setdefault(term, index)
    defined_phrases = {term: phrase_pattern(term) for term in first_definition if is_phrase(term)}

    warnings: list[tuple[int, str, DependencyWarning]] = []
    links: list[TermLink] = []
    warned: set[str] = set()
    for index, (claim, text, claim_terms) in enumerate(zip(claims, texts, terms, strict=True)):
        used = set(claim_terms.symbols_used)
        used.update(term for term, pattern in defined_phrases.items() if pattern.search(text))
        for term in sorted(used - claim_terms.defined):
            where = first_definition.get(term)
            if where is not None:
                links.append(TermLink(claim.claim_id, term, claims[where].claim_id))
            if term in warned:
                continue
            warning = _warning(claim, term, positions, index, where, claims, corpus_defines)
            if warning is not None:
                warned.add(term)
                warnings.append((index, term, warning))
    ordered = tuple(warning for _, _, warning in sorted(warnings, key=lambda item: (item[0], item[1])))
    return DependencyAnalysis(warnings=ordered, links=tuple(links))


def _warning(
    claim: Claim,
    term: str,
    positions: Sequence[int],
    index: int,
    where: int | None,
    claims: Sequence[Claim],
    corpus_defines: Callable[[str], bool] | None,
) -> DependencyWarning | None:
    if where is not None:
        if positions[where] <= positions[index]:
            return None
        definer = claims[where].claim_id
        return DependencyWarning(
            claim_id=claim.claim_id,
            term=term,
            first_definition_claim_id=definer,
            kind="forward_reference",
            reason=f"{term!r} is used here but first defined later, in claim {definer}",
        )
    if is_phrase(term):
        return None
    if corpus_defines is not None and corpus_defines(term):
        return DependencyWarning(
            claim_id=claim.claim_id,
            term=term,
            kind="defined_in_corpus_only",
            severity="info",
            reason=f"{term!r} is never defined in the text; the corpus defines it",
        )
    return DependencyWarning(
        claim_id=claim.claim_id,
        term=term,
        kind="undefined",
        reason=f"{term!r} is used but never defined in the text",
    )
