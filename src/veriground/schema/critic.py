"""Critic records (issue 19, seed 004 §3.7): policy-language findings L1-L6 on a draft and the critic report."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from veriground.schema.base import Record
from veriground.schema.verdicts import BackendInfo

CriticLabel = Literal["L1", "L2", "L3", "L4", "L5", "L6"]


CRITIC_LABELS: tuple[str, ...] = ("L1", "L2", "L3", "L4", "L5", "L6")


class CriticFinding(Record):
    """One label on one span of a draft: `span` indexes the draft text; `rule` names the lexicon entry, pattern or
    check that fired; `related_span` is the other sentence of an L4 contradiction."""

    label: CriticLabel
    sentence_index: int = Field(ge=1)
    span: tuple[int, int]
    trigger: str
    rationale: str
    tier: Literal[1, 2]
    confidence: float = Field(ge=0, le=1)
    rule: str
    related_span: tuple[int, int] | None = None


class CriticSentence(Record):
    """A sentence of the draft (1-based index) and the labels of the findings that the report keeps on it."""

    index: int = Field(ge=1)
    span: tuple[int, int]
    text: str
    labels: tuple[CriticLabel, ...] = ()


class CriticLabelCheck(Record):
    """How a label was looked for, and whether it could be: `not_checked` (e.g. L3 without a corpus) and
    `unavailable` (a backend failed) mean its absence says nothing."""

    label: CriticLabel
    name: str
    method: str
    status: Literal["checked", "not_checked", "unavailable"]
    reason: str | None = None


class CriticTierResult(Record):
    """One tier's findings. Tier 2 `fallback`: the LLM could not answer, so the report keeps tier 1's findings."""

    tier: Literal[1, 2]
    status: Literal["ran", "fallback"]
    findings: tuple[CriticFinding, ...] = ()
    labels: tuple[CriticLabel, ...] = ()
    added_labels: tuple[CriticLabel, ...] = ()  # tier 2 only: labels tier 1 did not find
    dropped_labels: tuple[CriticLabel, ...] = ()  # tier 2 only: tier-1 labels tier 2 did not keep
    reason: str | None = None


class CriticSummary(Record):
    sentences: int = Field(ge=0)
    flagged_sentences: int = Field(ge=0)
    labels: tuple[CriticLabel, ...]
    findings_by_label: dict[str, int]
    final_tier: Literal[1, 2]


class CriticManifest(Record):
    """What produced a critique: no timestamps, only versions and content hashes."""

    package_version: str
    critic_version: str
    tier_requested: Literal[1, 2]
    lexicon_sha256: dict[str, str]
    backends: tuple[BackendInfo, ...]
    corpus_checked: bool
    input_sha256: str
    thresholds: dict[str, float]
    warnings: tuple[str, ...] = ()


class CriticReport(Record):
    """`veriground critic` output: the draft's sentences, each label's check, tier 1's findings, tier 2's when it
    was asked for, and `findings`, the final list (tier 2's when it ran, else tier 1's)."""

    draft_id: str
    text: str
    sentences: tuple[CriticSentence, ...]
    checks: tuple[CriticLabelCheck, ...]
    tier1: CriticTierResult
    tier2: CriticTierResult | None = None
    findings: tuple[CriticFinding, ...]
    summary: CriticSummary
    manifest: CriticManifest
