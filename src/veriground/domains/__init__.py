"""Domain profiles (seed 000) and their hooks: scope and claim type before verification, the evidence a claim
type needs, quality gates after, and the formal checks each profile runs (signals/formal.py)."""

from __future__ import annotations

from collections.abc import Sequence

from veriground.domains.hooks import check_quality, claim_type_for, evidence_kinds_in, match_evidence, pre_verify
from veriground.domains.profiles import DEFAULT_DOMAIN, PROFILES, DomainProfileSpec, ScopeTopic, get_profile
from veriground.domains.selection import apply_threshold_overrides, suggest_domain
from veriground.domains.step_detection import find_proof_step, find_pseudocode
from veriground.schema import FormalSignal
from veriground.signals.formal import compute_formal as _compute_formal


def compute_formal(claim_text: str, evidence_texts: Sequence[str], profile: DomainProfileSpec | str) -> FormalSignal:
    """signals.formal.compute_formal with the profile given by name or as a DomainProfileSpec."""
    return _compute_formal(claim_text, evidence_texts, get_profile(profile))


__all__ = [
    "DEFAULT_DOMAIN",
    "PROFILES",
    "DomainProfileSpec",
    "ScopeTopic",
    "apply_threshold_overrides",
    "check_quality",
    "claim_type_for",
    "compute_formal",
    "evidence_kinds_in",
    "find_proof_step",
    "find_pseudocode",
    "get_profile",
    "match_evidence",
    "pre_verify",
    "suggest_domain",
]
