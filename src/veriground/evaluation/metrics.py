"""Evaluation metrics as pure functions: gold labels and predictions -> values, each naming its source.

A value that is undefined for the input (no positives, an empty list) is a MetricValue whose `value` is None and
whose `reason` says why: never NaN, never a silent 0.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar

# The value record and the calibration metrics live in their own modules; their names stay importable from here.
from veriground.evaluation.calibration_metrics import (  # noqa: F401
    ECE_BINS,
    Calibration,
    CalibrationBin,
    brier_score,
    calibration,
    calibration_bins,
    expected_calibration_error,
)
from veriground.evaluation.metric_value import JSON_DIGITS, MetricValue, paired, undefined  # noqa: F401

# Seed 004 §3.8 human rubric: groundedness G0 (binary), G1 (support ratio, binned by the caller), G2 (citation
# correctness 0-2); usefulness U1 (clarity 1-5), U2 (actionability 1-5).
RUBRIC_DIMENSIONS = ("G0", "G1", "G2", "U1", "U2")
# A LabelledPair label that counts as a hallucination (the positive class of detection).
HALLUCINATED_LABELS = frozenset({"unsupported", "contradicted"})


# --- binary classification ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ConfusionCounts:
    """Counts of a binary decision against gold labels; "positive" is whatever the caller names as such."""

    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def total(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    def to_json(self) -> dict[str, int]:
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn}


def confusion_counts(gold: Iterable[bool], predicted: Iterable[bool]) -> ConfusionCounts:
    pairs = paired(gold, predicted)
    return ConfusionCounts(
        tp=sum(1 for g, p in pairs if g and p),
        fp=sum(1 for g, p in pairs if not g and p),
        fn=sum(1 for g, p in pairs if g and not p),
        tn=sum(1 for g, p in pairs if not g and not p),
    )


def precision(counts: ConfusionCounts) -> MetricValue:
    """TP / (TP + FP) (van Rijsbergen 1979)."""
    return MetricValue.ratio(counts.tp, counts.tp + counts.fp, "nothing was predicted positive")


def recall(counts: ConfusionCounts) -> MetricValue:
    """TP / (TP + FN), the true-positive rate; seed 000 §4.1.1 calls it the hallucination detection rate."""
    return MetricValue.ratio(counts.tp, counts.tp + counts.fn, "no gold positives")


def specificity(counts: ConfusionCounts) -> MetricValue:
    """TN / (TN + FP), the true-negative rate."""
    return MetricValue.ratio(counts.tn, counts.tn + counts.fp, "no gold negatives")


def f1_score(counts: ConfusionCounts) -> MetricValue:
    """2TP / (2TP + FP + FN), the harmonic mean of precision and recall (van Rijsbergen 1979). Written this way it
    is also defined, as 0, when nothing was predicted positive but gold positives exist: such a detector finds
    none of them. Undefined only when neither gold nor predictions hold a positive."""
    return MetricValue.ratio(2 * counts.tp, 2 * counts.tp + counts.fp + counts.fn, "no gold or predicted positives")


def binary_accuracy(counts: ConfusionCounts) -> MetricValue:
    """(TP + TN) / n."""
    return MetricValue.ratio(counts.tp + counts.tn, counts.total, "no rows")


def balanced_accuracy(counts: ConfusionCounts) -> MetricValue:
    """(TPR + TNR) / 2 (Brodersen et al. 2010), the SummEdits and FaithBench headline metric; needs both classes."""
    tpr, tnr = recall(counts), specificity(counts)
    if tpr.value is None or tnr.value is None:
        return undefined(f"needs both classes in gold labels: {tpr.reason or tnr.reason}")
    return MetricValue((tpr.value + tnr.value) / 2)


@dataclass(frozen=True)
class DetectionMetrics:
    """Binary detection scores; positive = hallucinated (gold label unsupported or contradicted)."""

    counts: ConfusionCounts
    precision: MetricValue
    recall: MetricValue
    f1: MetricValue
    accuracy: MetricValue
    balanced_accuracy: MetricValue
    # The scores to_json writes after "confusion", in this order.
    json_fields: ClassVar[tuple[str, ...]] = ("precision", "recall", "f1", "accuracy", "balanced_accuracy")

    def to_json(self) -> dict[str, Any]:
        return {
            "confusion": self.counts.to_json(),
            **{name: getattr(self, name).to_json() for name in self.json_fields},
        }


def is_hallucinated(label: str) -> bool:
    """Whether a LabelledPair label is the positive class of hallucination detection."""
    return label in HALLUCINATED_LABELS


def detection_metrics(gold_hallucinated: Iterable[bool], predicted_hallucinated: Iterable[bool]) -> DetectionMetrics:
    """Precision, recall, F1, accuracy and balanced accuracy of hallucination detection (seed 000 §6.1)."""
    counts = confusion_counts(gold_hallucinated, predicted_hallucinated)
    return DetectionMetrics(
        counts=counts,
        precision=precision(counts),
        recall=recall(counts),
        f1=f1_score(counts),
        accuracy=binary_accuracy(counts),
        balanced_accuracy=balanced_accuracy(counts),
    )


@dataclass(frozen=True)
class AbstentionMetrics(DetectionMetrics):
    """Abstention scores (seed 004 §3.8): the detection scores with positive = the question should be abstained on
    (it is unanswerable), and the share of questions abstained on."""

    abstention_rate: MetricValue
    json_fields: ClassVar[tuple[str, ...]] = (
        "accuracy", "precision", "recall", "f1", "balanced_accuracy", "abstention_rate"
    )  # fmt: skip


def abstention_metrics(should_abstain: Iterable[bool], abstained: Iterable[bool]) -> AbstentionMetrics:
    """Accuracy (right to answer or to abstain), precision (abstentions that were due), recall (due abstentions
    made), F1, balanced accuracy and the share of questions abstained on."""
    return abstention_of(detection_metrics(should_abstain, abstained))


def abstention_of(detection: DetectionMetrics) -> AbstentionMetrics:
    """The abstention scores of a detection whose positive class is "should abstain": its scores and the share of
    questions abstained on."""
    counts = detection.counts
    scores = {f.name: getattr(detection, f.name) for f in fields(detection)}
    return AbstentionMetrics(
        **scores, abstention_rate=MetricValue.ratio(counts.tp + counts.fp, counts.total, "no questions")
    )


# --- multi-class ------------------------------------------------------------------------------------------------


def accuracy(gold: Sequence[Hashable], predicted: Sequence[Hashable]) -> MetricValue:
    """Share of exact label matches; the metric of MNLI, SNLI, ANLI and FEVER-Symmetric."""
    pairs = paired(gold, predicted)
    return MetricValue.ratio(sum(1 for g, p in pairs if g == p), len(pairs), "no rows")


def macro_f1(gold: Sequence[Hashable], predicted: Sequence[Hashable]) -> MetricValue:
    """Unweighted mean over classes of each class's F1 = 2TP / (2TP + FP + FN) (Sokolova & Lapalme 2009), over
    the classes that occur in gold or predictions; AttributionBench's metric (Li et al. 2024)."""
    pairs = paired(gold, predicted)
    if not pairs:
        return undefined("no rows")
    classes = sorted({label for pair in pairs for label in pair}, key=repr)
    scores: list[float] = []
    for label in classes:
        counts = confusion_counts((g == label for g, _ in pairs), (p == label for _, p in pairs))
        f1 = f1_score(counts).value
        assert f1 is not None  # the label occurs in gold or predictions, so 2TP + FP + FN > 0
        scores.append(f1)
    return MetricValue(sum(scores) / len(scores))


# --- ranking: retrieval --------------------------------------------------------------------------------------


def recall_at_k(rankings: Sequence[Sequence[str]], relevant: Sequence[Collection[str]], k: int) -> MetricValue:
    """Mean over queries of |relevant ∩ top-k| / |relevant| (Manning, Raghavan & Schütze 2008, ch. 8); seed 004
    §3.8 "evidence recall@k". Queries with no relevant ids (unanswerable ones) are left out."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    scored = [
        len(set(ranking[:k]) & set(gold)) / len(set(gold)) for ranking, gold in paired(rankings, relevant) if gold
    ]
    return MetricValue.ratio(sum(scored), len(scored), "no query has a relevant passage")


def mean_reciprocal_rank(rankings: Sequence[Sequence[str]], relevant: Sequence[Collection[str]]) -> MetricValue:
    """Mean over queries of 1 / rank of the first relevant result, 0 when none is ranked (Voorhees 1999, TREC-8
    QA). Queries with no relevant ids are left out."""
    reciprocal = []
    for ranking, gold in paired(rankings, relevant):
        if not gold:
            continue
        first = next((rank for rank, item in enumerate(ranking, start=1) if item in gold), None)
        reciprocal.append(0.0 if first is None else 1.0 / first)
    return MetricValue.ratio(sum(reciprocal), len(reciprocal), "no query has a relevant passage")


def roc_auc(scores: Sequence[float], outcomes: Sequence[bool]) -> MetricValue:
    """Area under the ROC curve: the probability that a random positive scores above a random negative, ties
    counting half (the Mann-Whitney U statistic / (n+ n-), Hanley & McNeil 1982)."""
    pairs = paired(scores, outcomes)
    negatives = sorted(score for score, outcome in pairs if not outcome)
    positives = [score for score, outcome in pairs if outcome]
    if not positives or not negatives:
        return undefined("needs both positive and negative outcomes")
    wins = 0.0
    for score in positives:
        below, up_to = bisect_left(negatives, score), bisect_right(negatives, score)
        wins += below + 0.5 * (up_to - below)
    return MetricValue(wins / (len(positives) * len(negatives)))


# --- agreement ----------------------------------------------------------------------------------------------


def cohen_kappa(rater_a: Sequence[Hashable], rater_b: Sequence[Hashable]) -> MetricValue:
    """κ = (p_o − p_e) / (1 − p_e) for two raters' categorical labels of the same items (Cohen 1960); seed 004
    §3.8 uses it for inter-rater agreement on the rubric."""
    pairs = paired(rater_a, rater_b)
    if not pairs:
        return undefined("no items rated by both raters")
    n = len(pairs)
    observed = sum(1 for a, b in pairs if a == b) / n
    counts_a, counts_b = Counter(a for a, _ in pairs), Counter(b for _, b in pairs)
    expected = sum(counts_a[label] * counts_b[label] for label in counts_a) / (n * n)
    if expected == 1:
        return undefined("both raters gave every item the same single label, so chance agreement is 1")
    return MetricValue((observed - expected) / (1 - expected))


def rubric_kappas(
    ratings_a: Sequence[Mapping[str, Hashable]], ratings_b: Sequence[Mapping[str, Hashable]]
) -> dict[str, MetricValue]:
    """Cohen's κ per rubric dimension (G0, G1, G2, U1, U2) over items both raters scored on that dimension;
    the rows of the two sequences are the same items in the same order."""
    pairs = paired(ratings_a, ratings_b)
    kappas = {}
    for dimension in RUBRIC_DIMENSIONS:
        both = [(a[dimension], b[dimension]) for a, b in pairs if dimension in a and dimension in b]
        kappas[dimension] = cohen_kappa([a for a, _ in both], [b for _, b in both])
    return kappas
