"""The three profile hooks of issue 17, each → a ProfileSignal with outcome, one-line reason and span.

- pre_verify: before retrieval, is the claim in the profile's scope (seed T3) and of a claim type it accepts?
- match_evidence: does the evidence hold the kind of evidence the claim type needs (a quantity with a unit for a
  measurement, a theorem or proof for a theorem, pseudocode, code or a bound for an algorithmic claim)?
- check_quality: after verification, does a claim meet the profile's require_units / require_equations?
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from veriground.claims.claim_types import classify_claim
from veriground.claims.equations import find_equations
from veriground.domains.profiles import DomainProfileSpec, get_profile
from veriground.domains.step_detection import find_proof_step, find_pseudocode
from veriground.schema import ClaimType, ProfileSignal
from veriground.schema.claims import ProfileHook, ProfileOutcome
from veriground.signals.complexity import find_bounds
from veriground.signals.equation_check import find_parsed_equations
from veriground.text.memo import text_memo
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
    signal = _SignalMaker("pre_verification", profile, claim_type)
    for topic in profile.out_of_scope:
        match = re.search(topic.pattern, claim_text, re.IGNORECASE)
        if match:
            reason = f"{match.group()!r} is {topic.label}, outside the {profile.display_name} profile's scope"
            return signal("out_of_scope", reason, match.span())
    a_claim = f"{_article(claim_type)} {claim_type.value} claim"
    if claim_type not in profile.allowed_claim_types:
        return signal(
            "claim_type_not_allowed", f"{a_claim} is outside the claim types {profile.display_name} accepts", span
        )
    return signal("ok", f"{a_claim}, in the {profile.display_name} profile's scope", span)


@text_memo(maxsize=16_384)  # a passage is read for every claim it is retrieved for
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
    signal = _SignalMaker("evidence_match", profile, claim_type)
    needs = profile.evidence_type_expectations.get(claim_type)
    if not needs:
        reason = f"the {profile.display_name} profile expects no particular evidence for {claim_type.value} claims"
        return signal("ok", reason, status="not_applicable")
    found = frozenset().union(*(evidence_kinds_in(text) for text in evidence_texts)) if evidence_texts else frozenset()
    wanted = " or ".join(kind.replace("_", " ") for kind in needs)
    a_claim = f"{_article(claim_type)} {claim_type.value} claim"
    if found & set(needs):
        return signal("ok", f"the evidence holds {wanted}, as {a_claim} needs", span)
    reason = f"{a_claim} under {profile.display_name} needs evidence with {wanted}; none has it"
    return signal("evidence_type_missing", reason, span)


def check_quality(claim_text: str, profile: DomainProfileSpec | str) -> ProfileSignal:
    """units_missing (require_units: a measurement without a unit) or equation_unparsed (require_equations)."""
    profile = get_profile(profile)
    claim_type, _ = claim_type_for(claim_text, profile)
    signal = _SignalMaker("quality_gate", profile, claim_type)
    if profile.require_equations:
        _, problems = find_parsed_equations(claim_text)
        if problems:
            spans = find_equations(claim_text)
            return signal("equation_unparsed", problems[0], spans[0] if spans else None)
    if profile.require_units and claim_type == ClaimType.NUMERIC:
        bare = [quantity for quantity in extract_quantities(claim_text) if quantity.unit is None and not quantity.label]
        with_unit = locate_quantities(claim_text)[2]
        if bare and not with_unit:
            reason = f"the measurement {bare[0].text!r} has no unit; the {profile.display_name} profile requires one"
            return signal("units_missing", reason)
    if profile.require_equations or profile.require_units:
        return signal("ok", "units and equations meet the profile's requirements")
    return signal("ok", "the profile sets no quality gate", status="not_applicable")


@dataclass(frozen=True)
class _SignalMaker:
    """Makes one hook's ProfileSignals for one claim: the parts every outcome shares are given once (a class, not a
    functools.partial of ProfileSignal, so mypy checks each outcome's spelling)."""

    hook: ProfileHook
    profile: DomainProfileSpec
    claim_type: ClaimType

    def __call__(
        self,
        outcome: ProfileOutcome,
        reason: str,
        claim_span: tuple[int, int] | None = None,
        *,
        status: Literal["computed", "not_applicable"] = "computed",
    ) -> ProfileSignal:
        return ProfileSignal(
            hook=self.hook,
            status=status,
            outcome=outcome,
            domain=self.profile.name,
            claim_type=self.claim_type,
            reason=reason,
            claim_span=claim_span,
        )


def _article(claim_type: ClaimType) -> str:
    return "an" if claim_type.value[0] in "aeiou" else "a"
