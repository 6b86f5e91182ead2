"""Evaluation metrics against hand-computed values, one table row per case; undefined values carry a reason."""

from __future__ import annotations

import pytest

from veriground.evaluation.metrics import (
    RUBRIC_DIMENSIONS,
    MetricValue,
    abstention_metrics,
    accuracy,
    brier_score,
    calibration,
    calibration_bins,
    cohen_kappa,
    detection_metrics,
    expected_calibration_error,
    is_hallucinated,
    macro_f1,
    mean_reciprocal_rank,
    recall_at_k,
    roc_auc,
    rubric_kappas,
)

T, F = True, False
UNDEFINED = None  # marks a cell whose value must be None with a reason


def check(metric: MetricValue, expected: float | None, reason: str | None = None) -> None:
    if expected is UNDEFINED:
        assert metric.value is None and metric.reason, metric
        if reason:
            assert reason in metric.reason
    else:
        assert metric.reason is None
        assert metric.value == pytest.approx(expected)


# gold hallucinated, predicted hallucinated -> (tp, fp, fn, tn), precision, recall, F1, accuracy, balanced accuracy
DETECTION_CASES = [
    pytest.param(
        [T, T, T, F, F, F, F, T], [T, F, T, T, F, F, F, F], (2, 1, 2, 3), 2 / 3, 0.5, 4 / 7, 5 / 8, 0.625, id="mixed"
    ),
    pytest.param([T, F], [F, F], (0, 0, 1, 1), UNDEFINED, 0.0, 0.0, 0.5, 0.5, id="flags-nothing"),
    pytest.param([F, F], [F, T], (0, 1, 0, 1), 0.0, UNDEFINED, 0.0, 0.5, UNDEFINED, id="no-gold-positives"),
    pytest.param([F, F], [F, F], (0, 0, 0, 2), UNDEFINED, UNDEFINED, UNDEFINED, 1.0, UNDEFINED, id="all-negative"),
    pytest.param([], [], (0, 0, 0, 0), UNDEFINED, UNDEFINED, UNDEFINED, UNDEFINED, UNDEFINED, id="empty"),
]


@pytest.mark.parametrize(("gold", "predicted", "counts", "p", "r", "f1", "acc", "bal"), DETECTION_CASES)
def test_detection_metrics_match_hand_computed_values(gold, predicted, counts, p, r, f1, acc, bal):
    metrics = detection_metrics(gold, predicted)
    c = metrics.counts
    assert (c.tp, c.fp, c.fn, c.tn) == counts
    check(metrics.precision, p)
    check(metrics.recall, r)
    check(metrics.f1, f1)
    check(metrics.accuracy, acc)
    check(metrics.balanced_accuracy, bal)


def test_undefined_detection_values_say_why():
    flags_nothing = detection_metrics([T, F], [F, F])
    assert flags_nothing.precision.reason == "nothing was predicted positive"
    no_positives = detection_metrics([F, F], [F, T])
    assert no_positives.recall.reason == "no gold positives"
    assert "needs both classes" in no_positives.balanced_accuracy.reason
    assert detection_metrics([], []).accuracy.reason == "no rows"
    assert detection_metrics([F], [F]).to_json()["f1"] == {"value": None, "reason": "no gold or predicted positives"}


@pytest.mark.parametrize(
    ("label", "hallucinated"), [("supported", False), ("unsupported", True), ("contradicted", True)]
)
def test_positive_class_is_unsupported_or_contradicted(label, hallucinated):
    assert is_hallucinated(label) is hallucinated


def test_abstention_metrics_positive_is_should_abstain():
    metrics = abstention_metrics([T, T, F, F, T], [T, F, T, F, T])
    check(metrics.accuracy, 3 / 5)
    check(metrics.precision, 2 / 3)
    check(metrics.recall, 2 / 3)
    check(metrics.abstention_rate, 3 / 5)
    check(metrics.balanced_accuracy, (2 / 3 + 1 / 2) / 2)
    check(abstention_metrics([F, F], [F, F]).recall, UNDEFINED, "no gold positives")


# gold, predicted -> accuracy, macro-F1 (class a: 2*1/(2+1+1); b: 2*2/(4+1); c: 0)
MULTICLASS_CASES = [
    pytest.param(list("aabbc"), list("abbba"), 3 / 5, (0.5 + 0.8 + 0.0) / 3, id="three-classes"),
    pytest.param(list("ab"), list("ab"), 1.0, 1.0, id="perfect"),
    pytest.param([T, T, F, F], [T, F, F, F], 3 / 4, (2 / 3 + 4 / 5) / 2, id="binary"),
    pytest.param([], [], UNDEFINED, UNDEFINED, id="empty"),
]


@pytest.mark.parametrize(("gold", "predicted", "acc", "f1"), MULTICLASS_CASES)
def test_accuracy_and_macro_f1(gold, predicted, acc, f1):
    check(accuracy(gold, predicted), acc)
    check(macro_f1(gold, predicted), f1)


RANKINGS = [["b", "a", "c"], ["d", "e", "f"], ["x"]]
RELEVANT = [{"a", "c"}, {"f"}, set()]  # the third query is unanswerable: left out of both


@pytest.mark.parametrize(("k", "expected"), [(1, (0 + 0) / 2), (2, (1 / 2 + 0) / 2), (3, (1 + 1) / 2)])
def test_recall_at_k_averages_the_share_of_relevant_found(k, expected):
    check(recall_at_k(RANKINGS, RELEVANT, k), expected)


def test_mean_reciprocal_rank_and_queries_without_relevant_ids():
    check(mean_reciprocal_rank(RANKINGS, RELEVANT), (1 / 2 + 1 / 3) / 2)
    check(mean_reciprocal_rank([["a"], ["b"]], [{"z"}, {"b"}]), (0 + 1) / 2)
    check(mean_reciprocal_rank([["a"]], [set()]), UNDEFINED, "no query has a relevant passage")
    check(recall_at_k([["a"]], [set()], 5), UNDEFINED, "no query has a relevant passage")
    with pytest.raises(ValueError, match="k must be at least 1"):
        recall_at_k(RANKINGS, RELEVANT, 0)


def test_ece_brier_and_the_reliability_table():
    probabilities, outcomes = [0.05, 0.15, 0.95, 1.0], [F, T, T, T]
    # bins 0, 1 and 9: gaps 0.05, 0.85 and 0.025 (twice) -> (0.05 + 0.85 + 0.05) / 4
    check(expected_calibration_error(probabilities, outcomes), 0.2375)
    check(brier_score(probabilities, outcomes), (0.05**2 + 0.85**2 + 0.05**2 + 0) / 4)
    bins = calibration(probabilities, outcomes).bins
    assert len(bins) == 10 and [b.count for b in bins] == [1, 1, 0, 0, 0, 0, 0, 0, 0, 2]
    assert bins[9].mean_probability == pytest.approx(0.975) and bins[9].observed_rate == 1.0
    assert bins[2].mean_probability is None and bins[2].observed_rate is None
    assert (bins[9].lower, bins[9].upper) == (0.9, 1.0)


@pytest.mark.parametrize(("probability", "bin_index"), [(0.0, 0), (0.1, 1), (0.3, 3), (0.7, 7), (0.999, 9), (1.0, 9)])
def test_bins_are_equal_width_and_closed_at_one(probability, bin_index):
    bins = calibration_bins([probability], [T])
    assert [b.count for b in bins].index(1) == bin_index


def test_calibration_of_nothing_is_undefined_and_bad_probabilities_are_refused():
    result = calibration([], [])
    check(result.ece, UNDEFINED, "no probabilities")
    check(result.brier, UNDEFINED, "no probabilities")
    with pytest.raises(ValueError, match=r"a probability must be in \[0, 1\], got 1.2"):
        brier_score([1.2], [T])
    with pytest.raises(ValueError, match="differ in length: 2 and 1"):
        expected_calibration_error([0.1, 0.2], [T])


@pytest.mark.parametrize(
    ("scores", "outcomes", "expected"),
    [
        pytest.param([0.9, 0.8, 0.4, 0.4, 0.1], [T, F, T, F, F], 4.5 / 6, id="a-tie-counts-half"),
        pytest.param([0.9, 0.1], [T, F], 1.0, id="perfect"),
        pytest.param([0.1, 0.9], [T, F], 0.0, id="inverted"),
        pytest.param([0.5, 0.5], [T, T], UNDEFINED, id="one-class"),
    ],
)
def test_roc_auc(scores, outcomes, expected):
    check(roc_auc(scores, outcomes), expected)


# rater A, rater B -> kappa: observed 4/6, chance (3*3 + 3*3) / 36 = 0.5 -> (2/3 - 1/2) / (1/2)
KAPPA_CASES = [
    pytest.param(list("GGUUGU"), list("GUUUGG"), 1 / 3, id="moderate"),
    pytest.param([0, 1, 2, 1], [0, 1, 2, 1], 1.0, id="perfect"),
    pytest.param([1, 2, 1, 2], [2, 1, 2, 1], -1.0, id="always-disagree"),
    pytest.param(["x", "x"], ["x", "x"], UNDEFINED, id="single-label"),
    pytest.param([], [], UNDEFINED, id="empty"),
]


@pytest.mark.parametrize(("a", "b", "expected"), KAPPA_CASES)
def test_cohen_kappa(a, b, expected):
    check(cohen_kappa(a, b), expected)


def test_rubric_kappas_cover_every_dimension_over_items_both_raters_scored():
    rater_a = [{"G0": 1, "U1": 5}, {"G0": 0, "U1": 3}, {"G0": 1}]
    rater_b = [{"G0": 1, "U1": 5}, {"G0": 0, "U1": 4}, {"G0": 1, "U1": 2}]
    kappas = rubric_kappas(rater_a, rater_b)
    assert tuple(kappas) == RUBRIC_DIMENSIONS == ("G0", "G1", "G2", "U1", "U2")
    check(kappas["G0"], 1.0)
    check(kappas["U1"], 1 / 3)  # items 1-2: observed 1/2, chance (1*1 + 1*0) / 4 -> (1/2 - 1/4) / (3/4)
    check(kappas["G2"], UNDEFINED, "no items rated by both raters")


def test_a_metric_value_is_never_nan_and_always_explains_a_none():
    with pytest.raises(ValueError, match="never NaN"):
        MetricValue(float("nan"))
    with pytest.raises(ValueError, match="either a value or the reason"):
        MetricValue(None)
    assert MetricValue(0.1234567).to_json() == {"value": 0.123457}
    assert MetricValue(None, "why").format() == "n/a"
