"""Calibration rows -> the verifier's unit signals for each row (`veriground calibrate`'s scoring pass): every row is
verified against its own evidence with the raw aggregator, and each claim's unit feature vectors are kept, with the
alignments that say which units may refute and the first rule that rejected a claim whatever the NLI read. The
aggregator is fitted on these (evaluation/aggregator_fit.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from veriground.backends.protocols import NLIModel
from veriground.config import Config
from veriground.evaluation.batching import VerifyJob, verify_batched
from veriground.evidence.gather import PackEvidence
from veriground.schema import EvidencePack, LabelledPair, PackPassage, SignalStatus, VerificationReport
from veriground.schema.vocabulary import HARD_REJECTIONS
from veriground.signals.support_features import FEATURE_NAMES
from veriground.verdicts.aggregator import may_refute

Progress = Callable[[int], None]


@dataclass(frozen=True)
class RowSignals:
    """One calibration row: its label, source and each claim's unit feature vectors (with alignments)."""

    row: LabelledPair
    claims: tuple[tuple[tuple[float, ...], ...], ...]
    alignments: tuple[tuple[float, ...], ...]  # per unit; 0 for a window (it may not refute)
    hard_rule: str | None = None  # the first rule that rejected one of its claims whatever the NLI read


def collect_signals(
    rows: Sequence[LabelledPair], *, config: Config, nli: NLIModel, progress: Progress | None = None
) -> list[RowSignals]:
    """Verify every row against its evidence with the raw aggregator and keep the unit features of each claim."""
    raw = config.model_copy(update={"verification": config.verification.model_copy(update={"aggregator": "raw"})})
    jobs = (
        VerifyJob(
            row.text,
            PackEvidence(_pack(row), raw.retrieval, numbers_past_pack_dangle=False),
            query=row.question,
        )
        for row in rows
    )
    collected = []
    for done, (row, report) in enumerate(zip(rows, verify_batched(jobs, config=raw, nli=nli), strict=True), start=1):
        collected.append(_row_signals(row, report))
        if progress is not None:
            progress(done)
    return collected


def _pack(row: LabelledPair) -> EvidencePack:
    passages = tuple(
        PackPassage(passage_id=f"evidence-{number}", text=text) for number, text in enumerate(row.evidence, start=1)
    )
    return EvidencePack(passages=passages)


def _row_signals(row: LabelledPair, report: VerificationReport) -> RowSignals:
    claims, alignments = [], []
    for claim in report.claims:
        units = [
            unit for signal in claim.signals.nli if signal.status == SignalStatus.COMPUTED for unit in signal.units
        ]
        claims.append(tuple(tuple(unit.features[name] for name in FEATURE_NAMES) for unit in units))
        # A unit that may not refute (verdicts/aggregator.may_refute) is left out of refutation here too.
        refutable = [may_refute(unit.alignment, unit.sentences, unit.shared_terms) for unit in units]
        alignments.append(tuple(unit.alignment if ok else 0.0 for unit, ok in zip(units, refutable, strict=True)))
    hard = [str(claim.decision.rule) for claim in report.claims if claim.decision.rule in HARD_REJECTIONS]
    return RowSignals(row, tuple(claims), tuple(alignments), hard[0] if hard else None)
