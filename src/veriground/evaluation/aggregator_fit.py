"""`veriground calibrate`: calibration rows -> the verifier's unit signals for each row -> two logistic models
(P(supported), P(contradicted)) with temperature scaling, the verdict thresholds chosen on the dev part, and the
calibration figures before and after -> one entry of verdicts/aggregator.json.

A row is as supported as its least supported claim, and a claim as its most supportive unit, so the support model
is fitted on the unit that decides a row (multiple-instance learning, two rounds: units picked by a plain heuristic
first, then by the first fit). The refutation model is fitted likewise on the most refuting unit about the claim,
over the sources whose labels tell contradicted from unsupported.

The support model's Platt scaling is fitted on the dev rows of the claim sources alone (CLAIM_SOURCES: claims checked
against the documents they came with), not on the synthetic edits and sentence-pair NLI rows the model also learns
from: those are easier, and a scaling fitted with them left every held-out claim set under-predicted (mean P(supported)
0.07-0.08 below the share supported). Measured on 700 held-out rows a benchmark, v2's ECE fell from 0.101 to 0.086 on
average (FEVER-symmetric 0.100 -> 0.075, WiCE 0.091 -> 0.051, BEGIN 0.082 -> 0.114), balanced accuracy unchanged.

With `platt_signals` (`calibrate --platt-rows`), the support model's Platt scaling is refitted on those rows, scored
by the shipped NLI itself, once the thresholds are chosen (evaluation/platt_rows.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from veriground.evaluation.calibration_data import CLAIM_SOURCES, CONTRADICTION_SOURCES, is_dev
from veriground.evaluation.calibration_signals import RowSignals
from veriground.evaluation.hard_rejections import hard_rejection_support
from veriground.evaluation.metrics import calibration
from veriground.evaluation.platt_rows import moved_thresholds, platt_record
from veriground.evidence.units import MAX_UNITS_PER_CHUNK
from veriground.schema import LabelledPair
from veriground.signals.support_features import FEATURE_NAMES
from veriground.verdicts.aggregator import CONTRADICTION_MIN_ALIGNMENT, LogisticModel

AGGREGATOR_VERSION = "calibrated-lr.v1"
L2_PENALTY = 1.0  # ridge on standardised features; the fit has a few thousand rows and 16 features
NEWTON_STEPS = 50
SUPPORTED_PRECISION = 0.90  # "Supported" is the threshold above which dev rows are supported at this precision
CONTRADICTED_PRECISION = 0.80  # "Contradictory" likewise, among rows whose labels separate contradiction
MIN_CONTRADICTION_THRESHOLD = 0.50
_GRID = [round(0.05 + 0.01 * step, 2) for step in range(91)]
# The direction each feature may push (`calibrate --monotone`): +1 may only raise the probability, -1 only lower it,
# 0 either. A weight fitted against its sign is a quirk of one dataset's mix (more word-order overlap cannot mean
# less support), so the feature is left out and the model refitted until every weight agrees. Measured on the
# held-out suite it ties the unconstrained fit (lexical mean 0.700 vs 0.694 over five benchmarks, 200 rows each) but
# makes Supported rarer (FEVER-sym 1 vs 35 of 205 rows), so it is not the default.
SUPPORT_SIGNS: dict[str, int] = {
    "nli_entail": 1, "nli_contradict": -1, "lex_entail": 1, "lex_contradict": -1, "alignment": 1,
    "bigram_coverage": 1, "entity_coverage": 1, "number_match": 1, "number_mismatch": -1, "number_missing": -1,
    "cue_negation": -1, "cue_antonym": -1, "cue_equation": -1, "unit_extra": -1, "contained": 1, "quoted": 1,
    "claim_words": 0, "entail_x_alignment": 1, "contradict_x_alignment": -1, "corroboration": 1,
    "entities_missing": -1, "words_missing": -1,
    "leaves_words_out": 1, "change_agrees": 1, "change_disagrees": -1, "numbers_bar_refutation": 0,
    "bounds_bar_support": 0, "bounds_bar_refutation": 0, "speaker": -1,
    "pronoun_subject": 0, "subject_elsewhere": 0, "states_nothing": 0,
    "opposite_reads_alike": 0, "conditional_unit": 0, "another_subject": 0,
}  # fmt: skip
# Features fitted at weight 0, with why. "corroboration" (the claim's other aligned passages, its degree in the
# claim-evidence graph): on the given-evidence rows it is 0 for 99 % of them, and a weight learned from the other 1 %
# extrapolated to +4 logits on a corpus and called "Kinetic energy does not depend on the speed" Supported. On the
# retrieved rows (domain-retrieved), where it varies as on a corpus, the fit gives it a *negative* weight (-0.36 for
# lexical): an edited sentence retrieves the same passages as the true one, so redundancy measures how much the
# corpus says about the topic, not whether it says this. It stays a shown feature and a graph metric in reports.
# "change_agrees" (the unit's compared numbers show the rise or fall the claim names): on the dev rows the fit gave it a
# *negative* support weight (-1.27 for the shipped NLI): SummEdits' edited summaries keep the direction and change
# what moved, so agreement on the direction alone marks a summary of a figures sentence, not a true one. It is used
# as what it means instead: such a unit does not refute the claim (verdicts/aggregator.py).
# "speaker" (the claim speaks of its speaker or listener: I, we, you) is fitted: held-out (700 rows each, v3) it moved
# AttributionBench 0.799 -> 0.811 and BEGIN 0.862 -> 0.869, WiCE 0.611 -> 0.601, the mean 0.726 -> 0.728 and the mean
# ECE 0.069 -> 0.065; its support weight is -0.14 for v3.
# "words_missing" (the claim's content words no evidence passage holds): fitted beside "entities_missing" it took a
# *positive* support weight (+0.24 for the shipped NLI; a paraphrase uses words the source does not), and measured
# on the held-out suite (700 rows each) it added nothing to entities_missing alone (SummEdits 0.610 vs 0.607, WiCE
# 0.613 vs 0.611) while raising WiCE's ECE (0.068 vs 0.063) and BEGIN's (0.098 vs 0.094): shown, not fitted.
# "numbers_bar_refutation", "bounds_bar_support", "bounds_bar_refutation", "pronoun_subject", "subject_elsewhere",
# "states_nothing", "opposite_reads_alike", "conditional_unit" and "another_subject" are rules of reading, not evidence:
# such a unit does not refute (or support) the claim (verdicts/aggregator.py).
LEFT_OUT_FEATURES = frozenset(
    {
        "corroboration",
        "change_agrees",
        "numbers_bar_refutation",
        "bounds_bar_support",
        "bounds_bar_refutation",
        "words_missing",
        "pronoun_subject",
        "subject_elsewhere",
        "states_nothing",
        "opposite_reads_alike",
        "conditional_unit",
        "another_subject",
    }
)
REFUTE_SIGNS: dict[str, int] = {
    "nli_entail": -1, "nli_contradict": 1, "lex_entail": -1, "lex_contradict": 1, "alignment": 0,
    "bigram_coverage": 0, "entity_coverage": 0, "number_match": -1, "number_mismatch": 1, "number_missing": 0,
    "cue_negation": 1, "cue_antonym": 1, "cue_equation": 1, "unit_extra": 0, "contained": 0, "quoted": -1,
    "claim_words": 0, "entail_x_alignment": -1, "contradict_x_alignment": 1, "corroboration": 0,
    "entities_missing": 0, "words_missing": 0,
    "leaves_words_out": -1, "change_agrees": -1, "change_disagrees": 1, "numbers_bar_refutation": -1,
    "bounds_bar_support": 0, "bounds_bar_refutation": -1, "speaker": 0,
    "pronoun_subject": -1, "subject_elsewhere": -1, "states_nothing": -1,
    "opposite_reads_alike": -1, "conditional_unit": -1, "another_subject": 0,
}  # fmt: skip


def fit_aggregator(
    signals: Sequence[RowSignals],
    nli_name: str,
    data_sha256: str,
    *,
    monotone: bool = False,
    units_per_passage: int = MAX_UNITS_PER_CHUNK,
    platt_signals: Sequence[RowSignals] | None = None,
) -> dict[str, Any]:
    """The aggregator.json entry for one NLI: both models, the thresholds and the dev figures they were chosen on.
    `monotone` holds every weight to its declared sign (SUPPORT_SIGNS, REFUTE_SIGNS); `units_per_passage` is how
    many evidence units per passage the signals were collected with (verification reads that many by default);
    `platt_signals` refits the support model's Platt scaling on those rows once the thresholds are chosen."""
    fit = [item for item in signals if not is_dev(item.row)]
    dev = [item for item in signals if is_dev(item.row)]
    support = _fit_twice(fit, SUPPORT_SIGNS if monotone else None, _support_vector, _heuristic_support, _is_supported)
    claim_dev = [item for item in dev if item.row.group in CLAIM_SOURCES]
    support = _with_temperature(support, claim_dev, _support_vector, _is_supported)
    refuting_fit = [item for item in fit if item.row.group in CONTRADICTION_SOURCES]
    refuting_dev = [item for item in dev if item.row.group in CONTRADICTION_SOURCES]
    refute = _fit_twice(
        refuting_fit, REFUTE_SIGNS if monotone else None, _refute_vector, _heuristic_refute, _is_contradicted
    )
    refute = _with_temperature(refute, refuting_dev, _refute_vector, _is_contradicted)
    thresholds, figures = _choose_thresholds(dev, refuting_dev, support, refute)
    platt: dict[str, Any] | None = None
    if platt_signals is not None:
        shipped = _with_temperature(
            replace(support, calibration_scale=1.0, calibration_bias=0.0), platt_signals, _support_vector, _is_supported
        )
        platt = platt_record(support, shipped, platt_signals, thresholds, row_support)
        thresholds = moved_thresholds(thresholds, support, shipped)
        support = shipped
    hard_rejections = hard_rejection_support(
        (item.hard_rule, _is_supported(item.row)) for item in signals if item.row.group in CLAIM_SOURCES
    )
    fit_facts: dict[str, Any] = {
        "monotone": monotone,
        "left_out": sorted(LEFT_OUT_FEATURES),
        "units_per_passage": units_per_passage,
        "platt_sources": sorted(CLAIM_SOURCES),
    }
    if platt is not None:
        fit_facts["platt_rows"] = platt
    return {
        "name": f"{AGGREGATOR_VERSION}/{nli_name}@{data_sha256[:12]}/units{units_per_passage}",
        "fit": fit_facts,
        "features": list(FEATURE_NAMES),
        "support": support.to_json(),
        "refute": refute.to_json(),
        "thresholds": thresholds,
        "hard_rejection_support": hard_rejections,
        "data_sha256": data_sha256,
        "rows": {"fit": len(fit), "dev": len(dev)},
        "dev_figures": figures,
    }


# --- which unit decides a row ---------------------------------------------------------------------------------

Scorer = Callable[[Sequence[float]], float]


def _heuristic_support(values: Sequence[float]) -> float:
    index = {name: position for position, name in enumerate(FEATURE_NAMES)}
    return values[index["nli_entail"]] + values[index["lex_entail"]] + values[index["alignment"]]


def _heuristic_refute(values: Sequence[float]) -> float:
    index = {name: position for position, name in enumerate(FEATURE_NAMES)}
    return values[index["nli_contradict"]] + values[index["lex_contradict"]] + values[index["number_mismatch"]]


def _support_vector(item: RowSignals, score: Scorer) -> tuple[float, ...] | None:
    """The best unit of the row's least supported claim."""
    best_per_claim = [max(units, key=score) for units in item.claims if units]
    if not best_per_claim or len(best_per_claim) < len(item.claims):
        return None
    return min(best_per_claim, key=score)


def _refute_vector(item: RowSignals, score: Scorer) -> tuple[float, ...] | None:
    """The most refuting unit about the claim, over all claims (one refuted claim refutes the row)."""
    about = [
        unit
        for units, alignments in zip(item.claims, item.alignments, strict=True)
        for unit, alignment in zip(units, alignments, strict=True)
        if alignment >= CONTRADICTION_MIN_ALIGNMENT
    ]
    return max(about, key=score) if about else None


def _fit_twice(
    fit: Sequence[RowSignals],
    signs: dict[str, int] | None,
    vector: Callable[[RowSignals, Scorer], tuple[float, ...] | None],
    heuristic: Scorer,
    positive: Callable[[LabelledPair], bool],
) -> LogisticModel:
    """Fit on the units the heuristic score picks per row, then again on the units the first model picks."""
    first = _fit_rows(fit, lambda item: vector(item, heuristic), positive, signs)
    return _fit_rows(fit, lambda item: vector(item, first.probability), positive, signs)


def _is_supported(row: LabelledPair) -> bool:
    return row.label == "supported"


def _is_contradicted(row: LabelledPair) -> bool:
    return row.label == "contradicted"


def _fit_rows(
    rows: Sequence[RowSignals],
    vector: Callable[[RowSignals], tuple[float, ...] | None],
    positive: Callable[[LabelledPair], bool],
    signs: dict[str, int] | None = None,
) -> LogisticModel:
    chosen = [(vector(item), positive(item.row), item.row.group or "") for item in rows]
    chosen = [(x, y, group) for x, y, group in chosen if x is not None]
    per_group: dict[str, int] = {}
    for _, _, group in chosen:
        per_group[group] = per_group.get(group, 0) + 1
    x = np.array([item[0] for item in chosen], dtype=float)
    y = np.array([1.0 if item[1] else 0.0 for item in chosen])
    weights = np.array([len(chosen) / (len(per_group) * per_group[item[2]]) for item in chosen])
    direction = None if signs is None else np.array([signs.get(name, 0) for name in FEATURE_NAMES], dtype=float)
    left_out = np.array([name in LEFT_OUT_FEATURES for name in FEATURE_NAMES])
    return fit_logistic(x, y, weights, direction, left_out)


def fit_logistic(
    x: np.ndarray,
    y: np.ndarray,
    sample_weights: np.ndarray | None = None,
    signs: np.ndarray | None = None,
    left_out: np.ndarray | None = None,
) -> LogisticModel:
    """Ridge logistic regression on standardised features by Newton's method (deterministic, no solver state).
    With `signs` (+1, -1 or 0 per feature), a feature whose weight comes out against its sign is dropped (weight 0)
    and the rest refitted, one feature at a time (the most opposed first), until every weight agrees. Features
    marked in `left_out` keep weight 0."""
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-9] = 1.0
    z = np.hstack([(x - mean) / scale, np.ones((len(x), 1))])
    sample = np.ones(len(x)) if sample_weights is None else sample_weights
    active = np.ones(z.shape[1], dtype=bool)
    if left_out is not None:
        active[:-1] &= ~left_out
    while True:
        w = _newton(z, y, sample, active)
        if signs is None:
            break
        opposed = np.append(signs, 0.0) * w
        if float(opposed.min()) >= 0.0:
            break
        active[int(np.argmin(opposed))] = False
    return LogisticModel(
        weights=tuple(round(float(value), 8) for value in w[:-1]),
        bias=round(float(w[-1]), 8),
        mean=tuple(round(float(value), 8) for value in mean),
        scale=tuple(round(float(value), 8) for value in scale),
    )


def _newton(z: np.ndarray, y: np.ndarray, sample: np.ndarray, active: np.ndarray) -> np.ndarray:
    """Weights of the active columns (the others stay 0) by Newton steps on the ridge-penalised log loss."""
    w = np.zeros(z.shape[1])
    columns = z[:, active]
    penalty = np.full(columns.shape[1], L2_PENALTY)
    penalty[-1] = 0.0  # the bias (last column, always active) is not shrunk
    v = np.zeros(columns.shape[1])
    for _ in range(NEWTON_STEPS):
        p = 1.0 / (1.0 + np.exp(-np.clip(columns @ v, -30, 30)))
        gradient = columns.T @ (sample * (p - y)) + penalty * v
        hessian = (columns.T * (sample * p * (1 - p))) @ columns + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        v -= step
        if float(np.abs(step).max()) < 1e-8:
            break
    w[active] = v
    return w


def _with_temperature(
    model: LogisticModel,
    dev: Sequence[RowSignals],
    vector: Callable[[RowSignals, Scorer], tuple[float, ...] | None],
    positive: Callable[[LabelledPair], bool],
) -> LogisticModel:
    """Platt scaling on the dev rows (Platt 1999): a one-feature logistic fit of the labels on the model's logit,
    which also undoes the fit's per-source weighting so that dev probabilities match dev frequencies."""
    pairs = [(vector(item, model.probability), positive(item.row)) for item in dev]
    logits = [[model.logit(x)] for x, _ in pairs if x is not None]
    labels = [1.0 if y else 0.0 for x, y in pairs if x is not None]
    if len(set(labels)) < 2:
        return model
    platt = fit_logistic(np.array(logits), np.array(labels))
    slope = platt.weights[0] / platt.scale[0]
    offset = platt.bias - platt.weights[0] * platt.mean[0] / platt.scale[0]
    return replace(model, calibration_scale=round(slope, 8), calibration_bias=round(offset, 8))


# --- thresholds and figures ------------------------------------------------------------------------------------


def row_support(item: RowSignals, model: LogisticModel | None) -> float | None:
    """The row's P(supported): calibrated, or the raw NLI entailment when `model` is None."""
    index = FEATURE_NAMES.index("nli_entail")
    score: Scorer = (lambda values: values[index]) if model is None else model.probability
    x = _support_vector(item, score)
    return None if x is None else score(x)


def _choose_thresholds(
    dev: Sequence[RowSignals], refuting_dev: Sequence[RowSignals], support: LogisticModel, refute: LogisticModel
) -> tuple[dict[str, float], dict[str, object]]:
    supports = [(row_support(item, support), item) for item in dev]
    scored = [(p, item) for p, item in supports if p is not None]
    groups = sorted({item.row.group or "" for _, item in scored})

    def mean_balanced_accuracy(threshold: float) -> float:
        values = []
        for group in groups:
            members = [(p >= threshold, _is_supported(item.row)) for p, item in scored if item.row.group == group]
            values.append(_balanced_accuracy(members))
        return sum(values) / len(values)

    weak = max(_GRID, key=lambda t: (round(mean_balanced_accuracy(t), 6), -t))
    strong = next(
        (t for t in _GRID if t >= weak and _precision([(p >= t, _is_supported(i.row)) for p, i in scored])
         >= SUPPORTED_PRECISION),
        weak,
    )  # fmt: skip
    vectors = [(_refute_vector(item, refute.probability), item) for item in refuting_dev]
    refuted = [(refute.probability(x), item) for x, item in vectors if x is not None]
    contradiction = next(
        (t for t in _GRID if t >= MIN_CONTRADICTION_THRESHOLD
         and _precision([(p >= t, _is_contradicted(i.row)) for p, i in refuted]) >= CONTRADICTED_PRECISION),
        0.95,
    )  # fmt: skip
    raw_supports = [(row_support(item, None), _is_supported(item.row)) for item in dev]
    raw = [(p, y) for p, y in raw_supports if p is not None]
    before = calibration([p for p, _ in raw], [y for _, y in raw])
    after = calibration([p for p, _ in scored], [_is_supported(item.row) for _, item in scored])
    per_source = {
        group: round(
            _balanced_accuracy([(p >= weak, _is_supported(i.row)) for p, i in scored if i.row.group == group]), 4
        )
        for group in groups
    }
    thresholds = {"weak_entailment_prob": weak, "min_entailment_prob": strong, "max_contradiction_prob": contradiction}
    figures = {
        "chosen_for": (
            "weak_entailment_prob: the largest mean balanced accuracy over dev sources (supported vs not); "
            f"min_entailment_prob: dev precision of 'supported' >= {SUPPORTED_PRECISION}; max_contradiction_prob: "
            f"dev precision of 'contradicted' >= {CONTRADICTED_PRECISION} (at least {MIN_CONTRADICTION_THRESHOLD})"
        ),
        "mean_balanced_accuracy_at_weak": round(mean_balanced_accuracy(weak), 4),
        "balanced_accuracy_per_source_at_weak": per_source,
        "calibration_before": before.to_json(),
        "calibration_after": after.to_json(),
    }
    return thresholds, figures


def _balanced_accuracy(pairs: Sequence[tuple[bool, bool]]) -> float:
    positives = [predicted for predicted, gold in pairs if gold]
    negatives = [not predicted for predicted, gold in pairs if not gold]
    rates = [sum(side) / len(side) for side in (positives, negatives) if side]
    return sum(rates) / len(rates) if rates else 0.0


def _precision(pairs: Sequence[tuple[bool, bool]]) -> float:
    chosen = [gold for predicted, gold in pairs if predicted]
    return sum(chosen) / len(chosen) if chosen else 0.0
