"""What produced a report: package version, the resolved config (less what only says where answers came from),
backends with checksums, and SHA-256 of the input and of every evidence passage. Verification and grounded QA
both record it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Literal

from veriground import __version__
from veriground.backends.protocols import LLM, NLIModel
from veriground.config import Config
from veriground.evidence.gather import EvidenceSource
from veriground.schema import (
    BackendInfo,
    BackendRole,
    ClaimReport,
    EvidenceChunk,
    NLISignal,
    ReportManifest,
    SignalStatus,
)
from veriground.signals.llm_judge import JUDGE_NAME
from veriground.verdicts.aggregator import SupportAggregator

# Config keys left out of a report's manifest: they say where LLM answers come from (the server or the call
# cache), not what they are, so a report replayed from the cache is byte-identical to the one first made.
UNRECORDED_CONFIG = {"llm": {"replay"}}


def build_manifest(
    *,
    input_text: str,
    config: Config,
    backends: Sequence[BackendInfo],
    evidence_mode: Literal["corpus", "pack"],
    evidence: Sequence[EvidenceChunk],
    warnings: Sequence[str],
) -> ReportManifest:
    """What produced a report: version, config (less UNRECORDED_CONFIG), backends with checksums, and hashes of
    the input and evidence."""
    return ReportManifest(
        warnings=tuple(warnings),
        package_version=__version__,
        config=config.model_dump(mode="json", exclude=UNRECORDED_CONFIG),
        backends=tuple(backends),
        evidence_mode=evidence_mode,
        input_sha256=sha256_text(input_text),
        evidence_sha256=dict(sorted({chunk.passage_id: sha256_text(chunk.text) for chunk in evidence}.items())),
    )


def verification_manifest(
    text: str,
    config: Config,
    backends: tuple[EvidenceSource, NLIModel, SupportAggregator, LLM | None],
    claims: Sequence[ClaimReport],
    judge_warnings: Sequence[str],
) -> ReportManifest:
    """A verification report's manifest: the NLI, the aggregator, the evidence source's backends and the LLM judge
    (when one ran); the evidence of every claim; the source's notes and the judge's warnings."""
    source, nli, aggregator, judge = backends
    aggregator_id = (
        f"logistic support/refute model fitted for {aggregator.nli_name}"
        if aggregator.calibrated
        else f"the NLI's own probabilities ({aggregator.nli_name}); no calibrated aggregator applies"
    )
    infos = [
        backend_info("nli", nli),
        BackendInfo(role="aggregator", name=aggregator.name, model_id=aggregator_id, checksum=aggregator.data_sha256),
        *source.backends(),
    ]
    if judge is not None:
        infos.append(backend_info("llm", judge, name=f"{JUDGE_NAME}/{judge.name}"))
    return build_manifest(
        input_text=text,
        config=config,
        backends=infos,
        evidence_mode=source.mode,
        evidence=[chunk for report in claims for chunk in report.evidence],
        warnings=[*source.notes(), *judge_warnings],
    )


def backend_info(role: BackendRole, backend: NLIModel | LLM, *, name: str | None = None) -> BackendInfo:
    """A model backend as a manifest names it: its registry name (or `name`), what it is and its checksum."""
    return BackendInfo(role=role, name=name or backend.name, model_id=backend.model_id, checksum=backend.checksum)


def sha256_text(text: str) -> str:
    """The SHA-256 of text's UTF-8 bytes, as hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def nli_warnings(signals_per_claim: Iterable[Sequence[NLISignal]]) -> list[str]:
    """One manifest warning per distinct reason the NLI could not score a claim's evidence, with a fix."""
    reasons = dict.fromkeys(
        signal.reason
        for signals in signals_per_claim
        for signal in signals
        if signal.status == SignalStatus.UNAVAILABLE and signal.reason
    )
    return [
        f"the NLI could not score some evidence ({reason}); those claims are Unverified. "
        "Fix: shorten the claims it names, or choose another NLI (--nli)"
        for reason in reasons
    ]


def conflict_check_warning(problem: str) -> str:
    """The manifest warning for an evidence-conflict check that could not run: the NLI's error and a fix."""
    return (
        f"the evidence-conflict check could not run in full ({problem}); disagreeing sources were not looked for "
        "where it failed. "
        "Fix: shorten the sentences it names, choose another NLI (--nli), or turn the check off "
        "(verification.contradictions = false)"
    )
