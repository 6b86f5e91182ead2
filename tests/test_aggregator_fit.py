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


def _signals(seed: int, rows: int, sharpness: float) -> list:
    """Rows of one claim and one unit each from sources the support fit reads, labelled by a model of nli_entail and
    alignment; `sharpness` scales how far apart the two labels' NLI scores sit (a better NLI reads them apart)."""
    from veriground.evaluation.calibration_signals import RowSignals
    from veriground.schema import LabelledPair

    rng = np.random.default_rng(seed)
    sources = ("fever-symmetric", "summedits", "wice", "attributionbench", "begin", "mnli")
    signals = []
    for index in range(rows):
        supported = bool(rng.random() < 0.5)
        values = dict.fromkeys(FEATURE_NAMES, 0.0)
        centre = 0.5 + (0.25 if supported else -0.25) * sharpness
        values["nli_entail"] = float(np.clip(centre + rng.normal(scale=0.2), 0.0, 1.0))
        values["alignment"] = float(np.clip(0.7 + rng.normal(scale=0.2), 0.0, 1.0))
        group = sources[index % len(sources)]
        label = "supported" if supported else ("contradicted" if group == "mnli" else "unsupported")
        row = LabelledPair(
            id=f"{seed}-{index}", text=f"Claim {seed} {index}.", evidence=("E.",), label=label, group=group
        )
        unit = tuple(values[name] for name in FEATURE_NAMES)
        signals.append(RowSignals(row, ((unit,),), ((values["alignment"],),)))
    return signals


def test_platt_rows_rescale_the_support_model_and_keep_its_decisions():
    """Refitted on rows a sharper NLI read (the shipped model, where the fit saw fold models' scores), the scaling
    steepens, and the thresholds move with it, so every verdict boundary stays where the dev rows put it."""
    from veriground.evaluation.aggregator_fit import fit_aggregator
    from veriground.verdicts.aggregator import LogisticModel

    signals = _signals(3, 900, sharpness=0.6)
    plain = fit_aggregator(signals, "nli-x", "0" * 64, units_per_passage=1)
    rescaled = fit_aggregator(signals, "nli-x", "0" * 64, units_per_passage=1, platt_signals=_signals(5, 300, 1.2))
    before, after = (LogisticModel.from_json(entry["support"]) for entry in (plain, rescaled))
    assert after.weights == before.weights and after.calibration_scale > before.calibration_scale
    record = rescaled["fit"]["platt_rows"]
    assert (
        record["rows"] == 300
        and record["thresholds_on_dev_scale"]["min_entailment_prob"] == (plain["thresholds"]["min_entailment_prob"])
    )
    assert (
        record["on_platt_rows"]["platt_rows_scaling"]["log_loss"] < record["on_platt_rows"]["dev_scaling"]["log_loss"]
    )
    rng = np.random.default_rng(11)
    for _ in range(300):
        values = [0.0] * len(FEATURE_NAMES)
        values[FEATURE_NAMES.index("nli_entail")], values[FEATURE_NAMES.index("alignment")] = rng.random(2)
        for name in ("weak_entailment_prob", "min_entailment_prob"):
            old, new = before.probability(values), after.probability(values)
            if abs(old - plain["thresholds"][name]) > 1e-3:  # off the boundary itself (thresholds are rounded)
                assert (old >= plain["thresholds"][name]) == (new >= rescaled["thresholds"][name])
    assert rescaled["thresholds"]["max_contradiction_prob"] == plain["thresholds"]["max_contradiction_prob"]
