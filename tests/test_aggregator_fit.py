"""The calibrated aggregator's fit: ridge logistic regression by Newton steps, with monotone (sign) constraints."""

from __future__ import annotations

import numpy as np

from veriground.evaluation.aggregator_fit import REFUTE_SIGNS, SUPPORT_SIGNS, fit_logistic
from veriground.evaluation.hard_rejections import hard_rejection_support
from veriground.signals.support_features import FEATURE_NAMES


def _data(seed: int = 7, rows: int = 400) -> tuple[np.ndarray, np.ndarray]:
    """Two features: the first raises the label's odds, the second (noise correlated with the first) lowers them
    once the first is known, as collinear features do in a mixed fit."""
    rng = np.random.default_rng(seed)
    first = rng.normal(size=rows)
    second = first + rng.normal(scale=0.3, size=rows)
    logit = 3.0 * first - 1.5 * second
    y = (rng.random(rows) < 1.0 / (1.0 + np.exp(-logit))).astype(float)
    return np.column_stack([first, second]), y


def test_unconstrained_fit_recovers_the_signs_of_the_generating_model():
    x, y = _data()
    model = fit_logistic(x, y)
    assert model.weights[0] > 0 > model.weights[1]


def test_a_weight_against_its_declared_sign_is_dropped_and_the_rest_refitted():
    x, y = _data()
    model = fit_logistic(x, y, signs=np.array([1.0, 1.0]))
    assert model.weights[1] == 0.0  # "more of this cannot mean less" -> left out
    assert model.weights[0] > 0
    assert fit_logistic(x, y, signs=np.array([1.0, 0.0])).weights[1] < 0  # free: kept as fitted


def test_fit_is_deterministic():
    x, y = _data()
    assert fit_logistic(x, y, signs=np.array([1.0, 1.0])) == fit_logistic(x, y, signs=np.array([1.0, 1.0]))


def test_every_feature_has_a_declared_direction_in_both_models():
    assert set(SUPPORT_SIGNS) == set(FEATURE_NAMES) == set(REFUTE_SIGNS)
    assert SUPPORT_SIGNS["nli_entail"] == 1 and SUPPORT_SIGNS["number_mismatch"] == -1
    assert REFUTE_SIGNS["nli_contradict"] == 1 and REFUTE_SIGNS["quoted"] == -1


def test_left_out_features_keep_weight_zero():
    x, y = _data()
    model = fit_logistic(x, y, left_out=np.array([False, True]))
    assert model.weights[1] == 0.0 and model.weights[0] > 0


def test_a_hard_rejection_is_as_likely_supported_as_the_rows_it_rejected_were():
    outcomes = (
        [("numeric-mismatch", True)] * 3
        + [("numeric-mismatch", False)] * 37
        + [("formal-mismatch", True)] * 2  # too few of its own: the pooled rate
        + [(None, True)] * 50  # not hard-rejected: not counted
    )
    support = hard_rejection_support(outcomes)
    assert support["numeric-mismatch"] == {"rows": 40, "supported": 3, "support_prob": round(3.5 / 41, 3)}
    assert support["formal-mismatch"] == {"rows": 2, "supported": 2, "support_prob": round(5.5 / 43, 3)}
    assert hard_rejection_support([(None, True)]) == {}
    # never certain either way, however one-sided the rows
    assert 0 < hard_rejection_support([("no-evidence", False)] * 30)["no-evidence"]["support_prob"] < 0.02
