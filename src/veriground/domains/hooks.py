"""The three profile hooks of issue 17, each → a ProfileSignal with outcome, one-line reason and span.

- pre_verify: before retrieval, is the claim in the profile's scope (seed T3) and of a claim type it accepts?
- match_evidence: does the evidence hold the kind of evidence the claim type needs (a quantity with a unit for a
  measurement, a theorem or proof for a theorem, pseudocode, code or a bound for an algorithmic claim)?
- check_quality: after verification, does a claim meet the profile's require_units / require_equations?
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from veriground.claims.claim_types import classify_claim
from veriground.claims.equations import find_equations
from veriground.domains.profiles import DomainProfileSpec, get_profile
from veriground.domains.step_detection import find_proof_step, find_pseudocode
from veriground.schema import ClaimType, ProfileSignal
from veriground.signals.complexity import find_bounds
from veriground.signals.equation_check import find_parsed_equations
from veriground.text.quantities import extract_quantities
from veriground.text.quantity_spans import locate_quantities

_THEOREM_OR_PROOF = re.compile(
    r"\b(?:theorem|lemma|corollary|proposition|proof|prove[sd]?|QED|by induction|by contradiction|"
    r"it follows that|we conclude)\b|∎",
    re.IGNORECASE,
)
_DEFINITION = re.compile(
    r"\b(?:is|are)\s+(?:defined\s+(?:as|to\s+be)|called|known\s+as|termed)\b|\brefers?\s+to\b|\bdenotes?\b|"
    r"\bdefinitions?\b|\bwe\s+(?:say|call|define)\b",
    re.IGNORECASE,
)
_CODE = re.compile(r"```|\bdef\s+\w+\(|\breturn\b|\bfor\s*\(|\bwhile\s*\(|\bfor\s+\w+\s+in\b|[{};]\s*$", re.MULTILINE)


def claim_type_for(claim_text: str, profile: DomainProfileSpec) -> tuple[ClaimType, tuple[int, int] | None]:
    """The claim's type, with seed 000's profile-specific types first: a proof step under a profile that requires
    proof steps, pseudocode (algorithmic) under one that requires pseudocode."""
    if profile.require_proof_steps and (span := find_proof_step(claim_text)) is not None:
        return ClaimType.PROOF_STEP, span
    if profile.require_pseudocode and (span := find_pseudocode(claim_text)) is not None:
        return ClaimType.ALGORITHMIC, span
    return classify_claim(claim_text), None


def pre_verify(claim_text: str, profile: DomainProfileSpec | str) -> ProfileSignal:
    """Out of scope (a topic beyond the profile's course) or a claim type the profile does not accept, else ok."""
    profile = get_profile(profile)
    claim_type, span = claim_type_for(claim_text, profile)
    for topic in profile.out_of_scope:
        match = re.search(topic.pattern, claim_text, re.IGNORECASE)
        if match:
            return ProfileSignal(
                hook="pre_verification",
                status="computed",
                outcome="out_of_scope",
                domain=profile.name,
                reason=f"{match.group()!r} is {topic.label}, outside the {profile.display_name} profile's scope",
                claim_type=claim_type,
                claim_span=match.span(),
            )
    if claim_type not in profile.allowed_claim_types:
        return ProfileSignal(
            hook="pre_verification",
            status="computed",
            outcome="claim_type_not_allowed",
            domain=profile.name,
            reason=f"{_article(claim_type)} {claim_type.value} claim is outside the claim types "
            f"{profile.display_name} accepts",
            claim_type=claim_type,
            claim_span=span,
        )
    return ProfileSignal(
        hook="pre_verification",
        status="computed",
        outcome="ok",
        domain=profile.name,
        claim_type=claim_type,
        reason=f"{_article(claim_type)} {claim_type.value} claim, in the {profile.display_name} profile's scope",
        claim_span=span,
    )


def evidence_kinds_in(text: str) -> frozenset[str]:
    """Which EVIDENCE_KINDS an evidence text holds."""
    kinds = set()
    if locate_quantities(text)[2]:
        kinds.add("quantity_with_unit")
    if find_equations(text):
        kinds.add("equation")
    if _DEFINITION.search(text):
        kinds.add("definition")
    if _THEOREM_OR_PROOF.search(text) or find_proof_step(text):
        kinds.add("theorem_or_proof")
    if find_pseudocode(text) or _CODE.search(text):
        kinds.add("pseudocode_or_code")
    if find_bounds(text)[0]:
        kinds.add("complexity_bound")
    return frozenset(kinds)


def match_evidence(claim_text: str, evidence_texts: Sequence[str], profile: DomainProfileSpec | str) -> ProfileSignal:
    """evidence_type_missing when no evidence text holds any kind of evidence the claim's type needs."""
    profile = get_profile(profile)
    claim_type, span = claim_type_for(claim_text, profile)
    needs = profile.evidence_type_expectations.get(claim_type)
    if not needs:
        return ProfileSignal(
            hook="evidence_match",
            status="not_applicable",
            outcome="ok",
            domain=profile.name,
            claim_type=claim_type,
            reason=f"the {profile.display_name} profile expects no particular evidence for {claim_type.value} claims",
        )
    found = frozenset().union(*(evidence_kinds_in(text) for text in evidence_texts)) if evidence_texts else frozenset()
    wanted = " or ".join(kind.replace("_", " ") for kind in needs)
    if found & set(needs):
        return ProfileSignal(
            hook="evidence_match",
            status="computed",
            outcome="ok",
            domain=profile.name,
            claim_type=claim_type,
            reason=f"the evidence holds {wanted}, as {_article(claim_type)} {claim_type.value} claim needs",
            claim_span=span,
        )
    return ProfileSignal(
        hook="evidence_match",
        status="computed",
        outcome="evidence_type_missing",
        domain=profile.name,
        claim_type=claim_type,
        claim_span=span,
        reason=f"{_article(claim_type)} {claim_type.value} claim under {profile.display_name} needs evidence with "
        f"{wanted}; none has it",
    )


def check_quality(claim_text: str, profile: DomainProfileSpec | str) -> ProfileSignal:
    """units_missing (require_units: a measurement without a unit) or equation_unparsed (require_equations)."""
    profile = get_profile(profile)
    claim_type, _ = claim_type_for(claim_text, profile)
    if profile.require_equations:
        _, problems = find_parsed_equations(claim_text)
        if problems:
            spans = find_equations(claim_text)
            return ProfileSignal(
                hook="quality_gate",
                status="computed",
                outcome="equation_unparsed",
                domain=profile.name,
                claim_type=claim_type,
                reason=problems[0],
                claim_span=spans[0] if spans else None,
            )
    if profile.require_units and claim_type == ClaimType.NUMERIC:
        bare = [quantity for quantity in extract_quantities(claim_text) if quantity.unit is None and not quantity.label]
        with_unit = locate_quantities(claim_text)[2]
        if bare and not with_unit:
            return ProfileSignal(
                hook="quality_gate",
                status="computed",
                outcome="units_missing",
                domain=profile.name,
                claim_type=claim_type,
                claim_span=None,
                reason=f"the measurement {bare[0].text!r} has no unit; the {profile.display_name} profile requires one",
            )
    checked = profile.require_equations or profile.require_units
    return ProfileSignal(
        hook="quality_gate",
        status="computed" if checked else "not_applicable",
        outcome="ok",
        domain=profile.name,
        claim_type=claim_type,
        reason="units and equations meet the profile's requirements" if checked else "the profile sets no quality gate",
    )


def _article(claim_type: ClaimType) -> str:
    return "an" if claim_type.value[0] in "aeiou" else "a"
