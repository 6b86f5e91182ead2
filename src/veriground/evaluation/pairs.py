"""`veriground eval pairs`: labelled rows (text, its evidence, gold label) -> each text verified against exactly its
evidence -> predictions -> hallucination-detection, calibration and per-group metrics.

Prediction rule: a text is predicted hallucinated when any of its claims is Contradictory, Unsupported or
Unverified (a signal that could not run never counts as support), or when it has no checkable claim at all.
Supported and Low Confidence claims count as supported: Low Confidence is the engine's "supported, but by fewer
independent sources than verification.min_supporting_sources", and a row's evidence is usually one source.

Citations: a row's evidence is exactly what to check the text against, so a "[n]" in the text that points past
the row's evidence list names the original document's sources, not a passage here: it is left out of the claim's
citations rather than rejected as dangling (PackEvidence numbers_past_pack_dangle=False). AttributionBench rows keep
their answer's "[3]" against the one cited source; read as dangling, 62 of 200 held-out rows were rejected unread
(25 of them supported), and macro-F1 with the lexical NLI was 0.727 instead of 0.789.

Support probability (for ECE, Brier and ROC AUC): the text is as supported as its least supported claim, so
P(supported) = min over claims of the claim's max entailment over its evidence. A claim that a rule rejects
whatever the NLI says (no evidence, numeric mismatch, dangling citation, LLM judge contradiction) counts 0; a text
with a claim whose NLI could not run, or with no claim, has no probability (None, left out of calibration and
counted in `without_probability`).
"""

from __future__ import annotations

import typing
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from veriground.backends.protocols import NLIModel
from veriground.config import Config
from veriground.errors import InputFileError, InputTextError, NotFoundError
from veriground.evaluation.batching import DEFAULT_BATCH_ROWS, VerifyJob, verify_batched
from veriground.evaluation.metrics import (
    Calibration,
    DetectionMetrics,
    MetricValue,
    calibration,
    detection_metrics,
    is_hallucinated,
    roc_auc,
)
from veriground.evidence.gather import PackEvidence
from veriground.schema import (
    DisplayVerdict,
    EvidencePack,
    LabelledPair,
    PackPassage,
    SignalStatus,
    VerificationReport,
)
from veriground.schema.vocabulary import HALLUCINATED_VERDICTS, HARD_REJECTIONS
from veriground.text_input import read_jsonl_records

# A claim verdict in HALLUCINATED_VERDICTS (Contradictory, Unsupported, Unverified) makes its text "hallucinated";
# Unverified is there because an uncomputed signal is no support.
TEXT_EVIDENCE_ID = "evidence-{}"  # pack passage ids of a row's evidence texts, numbered from 1
LABELS = typing.get_args(LabelledPair.model_fields["label"].annotation)
ROW_FIELDS = ", ".join(LabelledPair.model_fields)

Resolve = Callable[[str], str | None]
Progress = Callable[[int], None]


@dataclass(frozen=True)
class PairPrediction:
    """What the verifier made of one labelled row."""

    id: str
    label: str
    group: str | None
    hallucinated: bool  # predicted
    support_prob: float | None  # P(supported); None when it could not be computed
    verdicts: tuple[str, ...]  # each claim's display verdict, in text order
    rules: tuple[str, ...]  # the rule that decided each claim
    explanations: tuple[str, ...] = ()  # each claim's plain-language explanation (`eval pairs --rows`)

    @property
    def gold_hallucinated(self) -> bool:
        return is_hallucinated(self.label)

    @property
    def unverified(self) -> bool:
        return DisplayVerdict.UNVERIFIED in self.verdicts

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "label": self.label,
            "group": self.group,
            "predicted_hallucinated": self.hallucinated,
            "support_prob": None if self.support_prob is None else round(self.support_prob, 6),
            "verdicts": list(self.verdicts),
            "rules": list(self.rules),
        }


@dataclass(frozen=True)
class PairsSummary:
    """Metrics over a set of predictions: detection (positive = hallucinated), calibration of P(supported)."""

    rows: int
    claims: int
    detection: DetectionMetrics
    calibration: Calibration
    roc_auc: MetricValue  # of P(supported) against gold "supported"
    verdicts: dict[str, int]  # over claims
    unverified_rows: int  # rows with at least one Unverified claim (predicted hallucinated)
    no_claim_rows: int  # rows with no checkable claim (predicted hallucinated)
    without_probability: int  # rows left out of calibration

    def to_json(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "claims": self.claims,
            "detection": self.detection.to_json(),
            "calibration": self.calibration.to_json(),
            "roc_auc": self.roc_auc.to_json(),
            "verdicts": dict(sorted(self.verdicts.items())),
            "unverified_rows": self.unverified_rows,
            "no_claim_rows": self.no_claim_rows,
            "without_probability": self.without_probability,
        }


@dataclass(frozen=True)
class PairsResult:
    """Every row's prediction, the overall summary and one summary per group (rows with a `group`)."""

    nli: str
    predictions: tuple[PairPrediction, ...]
    overall: PairsSummary
    groups: dict[str, PairsSummary] = field(default_factory=dict)

    def to_json(self, *, with_predictions: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "nli": self.nli,
            "overall": self.overall.to_json(),
            "groups": {name: summary.to_json() for name, summary in sorted(self.groups.items())},
        }
        if with_predictions:
            data["predictions"] = [prediction.to_json() for prediction in self.predictions]
        return data


def evaluate_pairs(
    rows: Iterable[LabelledPair],
    *,
    config: Config,
    nli: NLIModel,
    resolve: Resolve | None = None,
    progress: Progress | None = None,
    batch_rows: int = DEFAULT_BATCH_ROWS,
) -> PairsResult:
    """Verify each row's text against exactly its evidence (texts, or corpus passages read by id through
    `resolve`) and score the predictions. Every evidence id is resolved before any text is verified, so a
    dangling id fails the run at once. The NLI pairs of `batch_rows` rows at a time go to the model together
    (evaluation.batching), with the reports of verifying row by row. `progress` is called with the number of rows
    done after each row."""
    rows = list(rows)
    _check_unique_ids(rows)
    packs = [_evidence_pack(number, row, resolve) for number, row in enumerate(rows, start=1)]
    jobs = (
        VerifyJob(row.text, PackEvidence(pack, config.retrieval, numbers_past_pack_dangle=False), query=row.question)
        for row, pack in zip(rows, packs, strict=True)
    )
    reports = verify_batched(jobs, config=config, nli=nli, batch_rows=batch_rows)
    predictions = []
    for done, (row, report) in enumerate(zip(rows, reports, strict=True), start=1):
        predictions.append(predict_pair(row, report))
        if progress is not None:
            progress(done)
    return summarize_result(nli.name, predictions)


def summarize_result(nli_name: str, predictions: Sequence[PairPrediction]) -> PairsResult:
    groups: dict[str, list[PairPrediction]] = {}
    for prediction in predictions:
        if prediction.group is not None:
            groups.setdefault(prediction.group, []).append(prediction)
    return PairsResult(
        nli=nli_name,
        predictions=tuple(predictions),
        overall=summarize_predictions(predictions),
        groups={name: summarize_predictions(members) for name, members in groups.items()},
    )


def predict_pair(row: LabelledPair, report: VerificationReport) -> PairPrediction:
    """The module's prediction and probability rules applied to one verified row."""
    verdicts = tuple(claim.decision.status for claim in report.claims)
    return PairPrediction(
        id=row.id,
        label=row.label,
        group=row.group,
        hallucinated=rejecting_rules(report) is not None,
        support_prob=support_probability(report),
        verdicts=verdicts,
        rules=tuple(claim.decision.rule for claim in report.claims),
        explanations=tuple(claim.decision.explanation for claim in report.claims),
    )


def rejecting_rules(report: VerificationReport) -> frozenset[str] | None:
    """Why the prediction rule rejects a verified text: the rules of its claims whose verdict is in
    HALLUCINATED_VERDICTS, {"no-claim"} when it has no claim; None when the text is not rejected."""
    if not report.claims:
        return frozenset({"no-claim"})
    rules = frozenset(item.decision.rule for item in report.claims if item.decision.status in HALLUCINATED_VERDICTS)
    return rules or None


def support_probability(report: VerificationReport) -> float | None:
    """min over claims of max entailment; for a hard-rejected claim its confidence (the rule's support rate, see
    verdicts/explain.decision_confidence); None when NLI could not run or no claim."""
    if not report.claims:
        return None
    per_claim = []
    for claim in report.claims:
        if claim.decision.rule in HARD_REJECTIONS:  # whatever the NLI reads
            per_claim.append(claim.decision.confidence.overall_confidence or 0.0)
        elif claim.inputs.nli_status != SignalStatus.COMPUTED or claim.inputs.max_entailment is None:
            return None
        else:
            per_claim.append(claim.inputs.max_entailment)
    return min(per_claim)


def summarize_predictions(predictions: Sequence[PairPrediction]) -> PairsSummary:
    scored = [(p.support_prob, not p.gold_hallucinated) for p in predictions if p.support_prob is not None]
    probabilities = [probability for probability, _ in scored]
    supported = [outcome for _, outcome in scored]
    return PairsSummary(
        rows=len(predictions),
        claims=sum(len(p.verdicts) for p in predictions),
        detection=detection_metrics([p.gold_hallucinated for p in predictions], [p.hallucinated for p in predictions]),
        calibration=calibration(probabilities, supported),
        roc_auc=roc_auc(probabilities, supported),
        verdicts=dict(Counter(verdict for p in predictions for verdict in p.verdicts)),
        unverified_rows=sum(1 for p in predictions if p.unverified),
        no_claim_rows=sum(1 for p in predictions if not p.verdicts),
        without_probability=len(predictions) - len(scored),
    )


# --- reading a JSONL file ------------------------------------------------------------------------------------


def read_pairs(path: Path) -> list[LabelledPair]:
    """Parse and validate a JSONL file of LabelledPair rows (blank lines skipped); errors name the file, the line
    and the field."""
    return read_jsonl_records(path, "the labelled pairs", _parse_row, fields=ROW_FIELDS)


def _parse_row(data: dict[str, Any], where: str) -> LabelledPair:
    if isinstance(data.get("evidence"), str):  # one passage given as a plain string
        data = {**data, "evidence": [data["evidence"]]}
    try:
        row = LabelledPair.model_validate(data)
    except ValidationError as err:
        raise InputFileError(where, *_describe(err)) from None
    if not row.text.strip():
        raise InputFileError(where, "text is blank", "give the text to verify")
    for index, passage in enumerate(row.evidence):
        if not passage.strip():
            raise InputFileError(where, f"evidence[{index}] is blank", "drop it or give the passage text")
    for index, passage_id in enumerate(row.evidence_ids):
        if not passage_id.strip():
            raise InputFileError(where, f"evidence_ids[{index}] is blank", "drop it or give a corpus passage id")
    return row


def _describe(err: ValidationError) -> tuple[str, str | None]:
    """The first problem as `field: what is wrong, got value`, and a fix."""
    first = err.errors()[0]
    location = [str(part) for part in first["loc"]]
    name = location[0] if location else ""
    where = name + "".join(f"[{part}]" for part in location[1:])
    value = first.get("input")
    kind = first["type"]
    if kind == "missing":
        return f"missing field {name!r}", "a row needs id, text, label, and evidence or evidence_ids"
    if kind == "extra_forbidden":
        return f"unknown field {name!r}", f"a row may have: {ROW_FIELDS}"
    if kind == "literal_error":
        return f"{where} must be {'|'.join(LABELS)}, got {value!r}", None
    if kind == "string_too_short":
        return f"{where} must not be empty", None
    if kind in ("tuple_type", "list_type"):
        return f"{where} must be a list of strings, got {value!r}", None
    if kind == "string_type":
        return f"{where} must be a string, got {value!r}", None
    if not location:  # a model-level check: exactly one kind of evidence
        return str(first["msg"]).removeprefix("Value error, "), None
    return f"{where}: {first['msg']}, got {value!r}", None


# --- evidence -------------------------------------------------------------------------------------------------


def _check_unique_ids(rows: Sequence[LabelledPair]) -> None:
    seen: dict[str, int] = {}
    for number, row in enumerate(rows, start=1):
        if row.id in seen:
            raise InputTextError(f"row {number}: id {row.id!r} repeats row {seen[row.id]}; give each row its own id")
        seen[row.id] = number


def _evidence_pack(number: int, row: LabelledPair, resolve: Resolve | None) -> EvidencePack:
    """The row's evidence as a pack: its texts, or its corpus passages (each id once, in the row's order)."""
    if row.evidence:
        return EvidencePack(
            passages=tuple(
                PackPassage(text=text, passage_id=TEXT_EVIDENCE_ID.format(index))
                for index, text in enumerate(row.evidence, start=1)
            )
        )
    passages = []
    for passage_id in dict.fromkeys(row.evidence_ids):
        passages.append(PackPassage(text=_resolve(number, row, passage_id, resolve), passage_id=passage_id))
    return EvidencePack(passages=tuple(passages))


def _resolve(number: int, row: LabelledPair, passage_id: str, resolve: Resolve | None) -> str:
    where = f"row {number} (id {row.id!r})"
    if resolve is None:
        raise NotFoundError(
            f"{where} gives evidence_ids but there is no corpus to read {passage_id!r} from; "
            "pass --corpus DIR, or give the passage texts in evidence"
        )
    try:
        text = resolve(passage_id)
    except NotFoundError:
        text = None
    if text is None:
        raise NotFoundError(
            f"{where}: evidence id {passage_id!r} is not in the corpus; "
            f"check it with `veriground corpus passage {passage_id}`, or give the text in evidence"
        )
    return text
