"""Domain profiles as data (seed 000 "Target Content Slice", issue 17): what each domain verifies and how.

Each profile names the claim types it accepts, the evidence each claim type needs, seed 000's require_* flags,
the topics beyond an introductory course (seed T3), the formal checks it runs (signals/formal.py) and the
verification thresholds it overrides. `general` is the default and accepts everything.
"""

from __future__ import annotations

from types import MappingProxyType

from pydantic import BaseModel, ConfigDict

from veriground.errors import ConfigError
from veriground.schema import ClaimType, DomainProfile

# Evidence kinds a claim type can need (domains/hooks.py detects each in an evidence text).
EVIDENCE_KINDS = (
    "quantity_with_unit",
    "equation",
    "definition",
    "theorem_or_proof",
    "pseudocode_or_code",
    "complexity_bound",
)


class ScopeTopic(BaseModel):
    """A topic beyond the profile's course: a label for the report and a regular expression over the claim."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    label: str
    pattern: str


class DomainProfileSpec(BaseModel):
    """One domain profile; `to_record()` gives seed 000's DomainProfile record for reports."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    display_name: str
    description: str
    allowed_claim_types: tuple[ClaimType, ...] = tuple(ClaimType)
    evidence_type_expectations: dict[ClaimType, tuple[str, ...]] = {}
    # Seed 000's require_* flags and strict dependencies: off unless a profile turns them on.
    require_units: bool = False
    require_equations: bool = False
    require_proof_steps: bool = False
    require_pseudocode: bool = False
    strict_dependencies: bool = False
    formal_checks: tuple[str, ...]
    # Read equation symbols as physical quantities only when the claim or evidence talks about physics (E, m, a
    # and c are also a set, a sequence term or a constant in mathematics); the physics profile always does.
    dimensions_need_physics_context: bool = True
    out_of_scope: tuple[ScopeTopic, ...] = ()
    threshold_overrides: dict[str, float] = {}
    # Corpus hints for suggesting this profile (never applied silently): source types and folder-name words.
    source_types: tuple[str, ...] = ()
    folder_words: tuple[str, ...] = ()

    def to_record(self) -> DomainProfile:
        return DomainProfile(
            name=self.name,
            display_name=self.display_name,
            allowed_claim_types=self.allowed_claim_types,
            evidence_type_expectations={kind: list(needs) for kind, needs in self.evidence_type_expectations.items()},
            require_units=self.require_units,
            require_proof_steps=self.require_proof_steps,
            require_pseudocode=self.require_pseudocode,
            require_equations=self.require_equations,
            strict_dependencies=self.strict_dependencies,
        )


_ALL_CHECKS = ("dimensions", "unit_dimension", "equation", "complexity", "constants")

PHYSICS = DomainProfileSpec(
    name="physics",
    display_name="Introductory physics",
    description="Kinematics, forces, energy, simple harmonic motion, thermodynamics basics (seed 000 domain 1).",
    # Seed 000 lists definitional, equation-based, numeric and conceptual claims; the other prose types a
    # textbook sentence takes are kept. Complexity bounds and algorithm steps are outside physics.
    allowed_claim_types=tuple(t for t in ClaimType if t not in {ClaimType.COMPLEXITY, ClaimType.ALGORITHMIC}),
    evidence_type_expectations={
        ClaimType.NUMERIC: ("quantity_with_unit",),
        ClaimType.EQUATION: ("equation",),
        ClaimType.DEFINITIONAL: ("definition",),
    },
    require_units=True,
    require_equations=True,
    formal_checks=("dimensions", "unit_dimension", "equation", "constants"),
    dimensions_need_physics_context=False,
    out_of_scope=(
        ScopeTopic(
            label="quantum mechanics",
            pattern=r"\bquantum\b|\bschr(?:ö|o|oe)dinger\b|\bwave ?functions?\b|"
            r"\beigen(?:value|state|function)s?\b|\bhamiltonian\b|\bhilbert space\b|\bentangle(?:d|ment)\b|"
            r"\bspin-orbit\b|\bfeynman diagrams?\b",
        ),
        ScopeTopic(label="analytical mechanics", pattern=r"\blagrangian\b|\bhamilton's equations\b"),
        ScopeTopic(
            label="general relativity and beyond",
            pattern=r"\bgeneral relativity\b|\bspacetime curvature\b|\bcurved spacetime\b|\bstring theory\b|"
            r"\bquark-gluon\b|\bgauge theor(?:y|ies)\b",
        ),
    ),
    source_types=("textbook", "lecture_notes"),
    folder_words=("physics", "mechanics", "kinematics", "thermodynamics", "openstax-physics"),
)

DISCRETE_MATH = DomainProfileSpec(
    name="discrete_math",
    display_name="Discrete mathematics",
    description="Sets, relations, functions, graph theory, combinatorics, proof techniques (seed 000 domain 2).",
    evidence_type_expectations={
        ClaimType.THEOREM: ("theorem_or_proof",),
        ClaimType.PROOF_STEP: ("theorem_or_proof",),
        ClaimType.DEFINITIONAL: ("definition",),
        ClaimType.EQUATION: ("equation",),
    },
    require_equations=True,
    require_proof_steps=True,
    strict_dependencies=True,
    formal_checks=("equation", "complexity"),
    out_of_scope=(
        ScopeTopic(
            label="analysis and topology",
            pattern=r"\blebesgue\b|\bmeasure theory\b|\bhomotop(?:y|ic)\b|\bmanifolds?\b|\bhilbert space\b",
        ),
    ),
    folder_words=("discrete", "combinatorics", "graph-theory", "proofs", "discrete-math"),
)

ALGORITHMS = DomainProfileSpec(
    name="algorithms",
    display_name="Algorithms and data structures",
    description="Sorting, searching, graph algorithms, dynamic programming, complexity (seed 000 domain 3).",
    evidence_type_expectations={
        ClaimType.ALGORITHMIC: ("pseudocode_or_code", "complexity_bound"),
        ClaimType.COMPLEXITY: ("complexity_bound",),
        ClaimType.PROOF_STEP: ("theorem_or_proof",),
    },
    require_pseudocode=True,
    formal_checks=("equation", "complexity"),
    out_of_scope=(
        ScopeTopic(
            label="quantum computing",
            pattern=r"\bquantum (?:algorithms?|computers?|computing)\b|"
            r"\bshor's algorithm\b|\bgrover's algorithm\b|\bqubits?\b",
        ),
    ),
    folder_words=("algorithms", "data-structures", "open-data-structures", "sorting"),
)

POLICY = DomainProfileSpec(
    name="policy",
    display_name="Policies and procedures",
    description="Handbooks, regulations and procedures (seed 004's analyst): normative wording, dates, amounts.",
    allowed_claim_types=tuple(
        t for t in ClaimType if t not in {ClaimType.THEOREM, ClaimType.PROOF_STEP, ClaimType.COMPLEXITY}
    ),
    formal_checks=("unit_dimension",),
    # Normative text flips meaning with one word ("must" / "may"), so a policy claim needs stronger entailment
    # than the calibrated default of 0.80 to be Supported.
    threshold_overrides={"min_entailment_prob": 0.85},
    source_types=("policy",),
    folder_words=("policy", "policies", "handbook", "procedures", "18f-handbook"),
)

GENERAL = DomainProfileSpec(
    name="general",
    display_name="General",
    description="No domain assumptions: every claim type is in scope and every formal check runs.",
    formal_checks=_ALL_CHECKS,
)

PROFILES: MappingProxyType[str, DomainProfileSpec] = MappingProxyType(
    {profile.name: profile for profile in (GENERAL, PHYSICS, DISCRETE_MATH, ALGORITHMS, POLICY)}
)
DEFAULT_DOMAIN = "general"


def get_profile(name: str | DomainProfileSpec) -> DomainProfileSpec:
    """The profile called `name`; raises ConfigError naming the valid ones."""
    if isinstance(name, DomainProfileSpec):
        return name
    try:
        return PROFILES[name]
    except KeyError:
        valid = ", ".join(PROFILES)
        raise ConfigError(
            f"unknown domain {name!r}; valid domains: {valid} (set verification.domain or --domain)"
        ) from None
