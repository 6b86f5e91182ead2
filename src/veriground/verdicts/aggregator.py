"""Calibrated aggregation: the support features of each (claim, evidence unit) pair -> calibrated P(supported) and
P(contradicted), by two logistic models with Platt scaling fitted by `veriground calibrate`
(evaluation/aggregator_fit.py) for one NLI backend, and shipped as aggregator.json beside this module.

A passage is as supportive as its most supportive unit and as refuting as its most refuting sentence *about the
claim*: a unit that holds less than CONTRADICTION_MIN_ALIGNMENT of the claim's content, or a window of several
sentences, refutes nothing, so an off-topic claim is unsupported, never contradicted. Nor does a sentence that the
claim only leaves words out of (text/deletion.py: "all objects fall" -> "objects fall"), whatever the NLI reads, nor
one whose own compared numbers show the rise or fall the claim names (text/changes.py: "a decrease in net income"
against "$94.8 million, compared to $106.6 million last year"), nor one whose numbers meet the claim's bounds
("grossed less than $1 million" against "$181,674") or differ from the values it denies (signals/numeric.py).
Without a fitted model for the configured NLI (or with verification.aggregator = "raw") the probabilities are the
NLI's own, with seed 000's thresholds.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from veriground.config import VerificationConfig
from veriground.errors import ConfigError
from veriground.evidence.units import MAX_UNITS_PER_CHUNK
from veriground.schema import NLIScores, UnitJudgement
from veriground.schema.vocabulary import HARD_REJECTIONS
from veriground.signals.support_features import FEATURE_NAMES, NO_CONTEXT, ClaimContext, support_features

AGGREGATOR_FILE = Path(__file__).with_name("aggregator.json")
# Seed 000's thresholds, for the NLI's raw probabilities.
SEED_THRESHOLDS = {"min_entailment_prob": 0.60, "weak_entailment_prob": 0.60, "max_contradiction_prob": 0.30}
RAW_AGGREGATOR = "raw"
# A unit refutes only when it holds most of the claim's content: below this it is about something else (a short
# claim shares half its words with many sentences of its topic that state other facts).
CONTRADICTION_MIN_ALIGNMENT = 0.6
# ... and at least this many of its content words or numbers (all of them for a shorter claim): a sentence sharing
# two words of a long claim is about something else.
CONTRADICTION_MIN_SHARED = 3
LEAVES_WORDS_OUT = "leaves_words_out"  # a unit value shown in reports: the claim is the sentence less some words
# Unit values that keep a unit from refuting the claim, whatever the NLI reads: the claim only leaves words of it out;
# its compared figures show the change the claim names; its numbers meet the claim's bounds or differ from the values
# the claim denies; its complexity bounds are of other algorithms, or the claim states nothing but bounds; it opens with
# a pronoun and never names what the claim names; its subject is another thing than the claim's; it only asks or
# speaks of the document (STATES_NOTHING).
STATES_NOTHING = "states_nothing"
# A unit that states a word of the claim both ways ("the variable v for velocity is bold because it is a vector, ...
# the variable v for speed ... is a scalar quantity") and that the NLI reads as entailing the claim's opposite at least
# as much as the claim, less this margin ("Velocity is a scalar." 0.90, "Velocity is a vector." 0.91), does not support
# it: v3 read the false claim as Supported from that sentence. A margin of 0.1 also took support from true claims
# the NLI reads about as well as their opposites (held-out SummEdits 0.615 -> 0.600); 0 costs it one row (0.613).
OPPOSITE_READS_ALIKE = "opposite_reads_alike"
OPPOSITE_MARGIN = 0.0
# A unit value shown in reports: the NLI reads the claim's negation (text/negated_claim.py) as contradicted by the unit
# at least as much as the claim, less NEGATION_MARGIN, and the words show no contradiction cue of their own, so the
# NLI's contradiction says the wording differs, not that the unit denies the claim ("It was named after General
# Leclerc" against "It was named in honour of General Leclerc": 0.79, its negation 0.93). Such a unit does not refute
# the claim; whether it supports it is read as before. On 3,158 held-out rows of five benchmarks, Contradictory verdicts
# on rows labelled supported fell from 34 to 20 and those on rows labelled otherwise from 201 to 176 (precision 0.855
# -> 0.898); without the cue condition 16 and 172, but false textbook claims lost theirs ("... is inversely
# proportional to the net force" became Low Confidence: v3 reads "is not inversely proportional" as contradicted too).
NEGATION_READS_ALIKE = "negation_reads_alike"
NEGATION_MARGIN = 0.0
OWN_CONTRADICTION_CUES = ("cue_negation", "cue_antonym", "cue_equation", "number_mismatch")  # the words' own reading
NEVER_REFUTES = (
    LEAVES_WORDS_OUT,
    "change_agrees",
    "numbers_bar_refutation",
    "bounds_bar_refutation",
    "pronoun_subject",
    "subject_elsewhere",
    STATES_NOTHING,
    OPPOSITE_READS_ALIKE,
    "conditional_unit",
    NEGATION_READS_ALIKE,
)
# Unit values that keep a unit from supporting the claim, whatever the NLI reads: its complexity bounds are of other
# algorithms ("the find(x) operation of an XFastTrie runs in O(log w) time" says nothing of how long binary search
# takes; the shipped model read it as 0.54 entailment of "Binary search runs in O(n) time"), or give the claim's bound
# only for the expected or amortized case; or it only asks ("Is work a vector quantity?") or speaks of the document
# ("This video introduces vectors and scalars" read as 0.95 support of "Work is a vector quantity"); or its passage
# never names what the claim is about and the unit speaks of another thing the claim names (support_features.py
# another_subject: "The force is ... proportional to the product of their masses ..." read as 0.82 support of
# "Impulse is the product of force and distance").
NEVER_SUPPORTS = ("bounds_bar_support", STATES_NOTHING, OPPOSITE_READS_ALIKE, "another_subject")
_DECIMALS = 6


@dataclass(frozen=True)
class LogisticModel:
    """sigmoid(calibration_scale · (w · standardised x + b) + calibration_bias): a logistic model with Platt
    scaling fitted on held-apart rows (Platt 1999; temperature scaling is the case calibration_bias = 0)."""

    weights: tuple[float, ...]
    bias: float
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    calibration_scale: float = 1.0
    calibration_bias: float = 0.0

    def logit(self, values: Sequence[float]) -> float:
        return self.bias + sum(
            weight * (value - mean) / scale
            for weight, value, mean, scale in zip(self.weights, values, self.mean, self.scale, strict=True)
        )

    def probability(self, values: Sequence[float]) -> float:
        return _sigmoid(self.calibration_scale * self.logit(values) + self.calibration_bias)

    def to_json(self) -> dict[str, Any]:
        return {
            "weights": list(self.weights),
            "bias": self.bias,
            "mean": list(self.mean),
            "scale": list(self.scale),
            "calibration_scale": self.calibration_scale,
            "calibration_bias": self.calibration_bias,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LogisticModel:
        return cls(
            weights=tuple(data["weights"]),
            bias=float(data["bias"]),
            mean=tuple(data["mean"]),
            scale=tuple(data["scale"]),
            calibration_scale=float(data.get("calibration_scale", 1.0)),
            calibration_bias=float(data.get("calibration_bias", 0.0)),
        )


@dataclass(frozen=True)
class SupportAggregator:
    """The fitted pair of models for one NLI backend, and what they were fitted on."""

    name: str  # e.g. "calibrated-lr.v1/veriground-nli.v1@<data sha256 prefix>/units2"
    nli_name: str
    features: tuple[str, ...]
    support: LogisticModel | None  # None: raw mode
    refute: LogisticModel | None
    data_sha256: str | None = None
    thresholds: dict[str, float] = field(default_factory=lambda: dict(SEED_THRESHOLDS))
    units_per_passage: int = MAX_UNITS_PER_CHUNK  # the evidence units per passage it was fitted on
    # P(supported) of a hard-rejected claim, by rule (the fit's hard_rejection_support; none for raw)
    hard_rejection_support: dict[str, float] = field(default_factory=dict)

    @property
    def calibrated(self) -> bool:
        return self.support is not None

    def judge_unit(
        self,
        claim_text: str,
        unit_text: str,
        span: tuple[int, int],
        alignment: float,
        nli: NLIScores,
        sentences: int = 1,
        shared_terms: int = CONTRADICTION_MIN_SHARED,
        context: ClaimContext = NO_CONTEXT,
        opposite: NLIScores | None = None,
        negation: NLIScores | None = None,
    ) -> UnitJudgement:
        """One unit read against the claim. `opposite` is the NLI's reading of the claim with a word the unit states
        both ways put as its opposite (verdicts/support.py): a unit the NLI reads as entailing that as much does not
        tell the claim from its opposite, and neither supports nor refutes it (OPPOSITE_READS_ALIKE). `negation` is its
        reading of the claim negated: a unit it reads as contradicting that as much does not refute the claim
        (NEGATION_READS_ALIKE)."""
        features = support_features(claim_text, unit_text, alignment, nli, context)
        if opposite is not None and reads_alike(features, nli, opposite):
            features = {**features, OPPOSITE_READS_ALIKE: 1.0}
        if negation is not None and _negation_reads_alike(features, nli, negation):
            features = {**features, NEGATION_READS_ALIKE: 1.0}
        if self.support is None or self.refute is None:
            support, refute = nli.entail, nli.contradict
        else:
            values = [features[name] for name in self.features]
            support, refute = self.support.probability(values), self.refute.probability(values)
        if not may_refute(alignment, sentences, shared_terms) or any(features.get(name) for name in NEVER_REFUTES):
            refute = 0.0
        if any(features[name] for name in NEVER_SUPPORTS):
            support = 0.0
        return UnitJudgement(
            char_start=span[0],
            char_end=span[1],
            alignment=alignment,
            sentences=sentences,
            shared_terms=shared_terms,
            entailment_prob=nli.entail,
            contradiction_prob=nli.contradict,
            features=features,
            support_prob=round(support, _DECIMALS),
            refute_prob=round(refute, _DECIMALS),
        )


def _negation_reads_alike(features: Mapping[str, float], nli: NLIScores, negation: NLIScores) -> bool:
    """The NLI reads the claim negated as contradicted at least as much as the claim (less NEGATION_MARGIN), and the
    words show no contradiction of their own (no negation, antonym, number or equation cue)."""
    own_cue = any(features[name] for name in OWN_CONTRADICTION_CUES)
    return negation.contradict >= nli.contradict - NEGATION_MARGIN and not own_cue


def reads_alike(features: Mapping[str, float], nli: NLIScores, opposite: NLIScores) -> bool:
    """The NLI reads the claim's opposite as entailed at least as much as the claim itself (less OPPOSITE_MARGIN), and
    the claim is no quotation or shortening of the unit (those it can tell by their words)."""
    if features["quoted"] or features[LEAVES_WORDS_OUT]:
        return False
    return opposite.entail >= nli.entail - OPPOSITE_MARGIN


def may_refute(alignment: float, sentences: int, shared_terms: int) -> bool:
    """Only one sentence (a window's neighbour lends cues, not contradiction) about the claim can contradict it."""
    enough = shared_terms >= CONTRADICTION_MIN_SHARED or alignment >= 1.0
    return sentences == 1 and alignment >= CONTRADICTION_MIN_ALIGNMENT and enough


SENTENCE_REFUTES = "sentence_refutes"  # a unit value shown in reports: see settle_windows


def settle_windows(units: Sequence[UnitJudgement]) -> list[UnitJudgement]:
    """A window supports no more than the sentence in it that refutes the claim: the sentence says the claim's
    content, and what the window's other sentences add cannot undo what it says. "Credit hours cannot be converted to
    cash, unless you leave GSA" refutes "Credit hours can be converted to cash at any time"; the window that adds the
    item before it ("... at any given time") read as 0.93 entailment. Such a window is marked SENTENCE_REFUTES."""
    refuting = [unit for unit in units if unit.sentences == 1 and unit.refute_prob > unit.support_prob]
    settled = []
    for unit in units:
        inside = [
            sentence.support_prob
            for sentence in refuting
            if unit.sentences > 1 and unit.char_start <= sentence.char_start and sentence.char_end <= unit.char_end
        ]
        if inside and min(inside) < unit.support_prob:
            features = {**unit.features, SENTENCE_REFUTES: 1.0}
            unit = unit.model_copy(update={"support_prob": min(inside), "features": features})
        settled.append(unit)
    return settled


def load_aggregator(
    nli_name: str, mode: str = "calibrated", path: Path | None = None, nli_checksum: str | None = None
) -> SupportAggregator:
    """The fitted aggregator for `nli_name` from `path` (the shipped file by default); raw when mode is "raw" or no
    aggregator was fitted for that NLI. An entry fitted for one model's weights (its `nli_checksum`) is refused for
    other weights under the same name (a retrained model is named like the shipped one): its thresholds and
    scaling were fitted on the other model's scores."""
    if mode == RAW_AGGREGATOR:
        return raw_aggregator(nli_name)
    if path is not None and not Path(path).is_file():
        raise ConfigError(
            f"verification.aggregator_path {path} is not a file; give the file `veriground calibrate --out` wrote, "
            "or leave the key unset for the shipped aggregators"
        )
    fitted = _read_file(str(path or AGGREGATOR_FILE))
    entry = fitted.get(nli_name)
    if entry is None and path is not None:
        raise ConfigError(
            f"aggregator file {path} has no aggregator for NLI {nli_name} "
            f"(it has: {', '.join(sorted(fitted)) or 'none'}); "
            f'fit one with `veriground calibrate --nli ... --out {path}`, or set verification.aggregator = "raw"'
        )
    if entry is None:
        return raw_aggregator(nli_name)
    fitted_for = entry.get("nli_checksum")
    if fitted_for and nli_checksum and fitted_for != nli_checksum:
        raise ConfigError(
            f"the calibrated aggregator for {nli_name} was fitted for weights {fitted_for[:12]}…, and this model's are "
            f"{nli_checksum[:12]}… (a retrained model keeps the name); fit one for it with `veriground calibrate --nli "
            'MODEL --out FILE` and set verification.aggregator_path = FILE, or set verification.aggregator = "raw"'
        )
    features = tuple(entry["features"])
    unknown = [name for name in features if name not in FEATURE_NAMES]
    if unknown:
        raise ConfigError(
            f"aggregator for {nli_name} reads unknown features {unknown}; refit it with veriground calibrate"
        )
    return SupportAggregator(
        name=entry["name"],
        nli_name=nli_name,
        features=features,
        support=LogisticModel.from_json(entry["support"]),
        refute=LogisticModel.from_json(entry["refute"]),
        data_sha256=entry.get("data_sha256"),
        thresholds={**SEED_THRESHOLDS, **entry.get("thresholds", {})},
        units_per_passage=entry.get("fit", {}).get("units_per_passage", MAX_UNITS_PER_CHUNK),
        hard_rejection_support=_hard_rejection_support(entry.get("hard_rejection_support", {})),
    )


def _hard_rejection_support(fitted: Mapping[str, Mapping[str, Any]]) -> dict[str, float]:
    """P(supported) of a claim each hard rule rejects, as the fit recorded it; a hard rule the fit saw reject no row (a
    rule newer than the fit) gets the rate of all the rows it saw rejected, as a rule with too few rows does
    (evaluation/hard_rejections.py), not a certainty of 0."""
    support = {rule: float(record["support_prob"]) for rule, record in fitted.items()}
    rows = sum(int(record.get("rows", 0)) for record in fitted.values())
    if not rows:
        return support
    pooled = rejection_support_rate(sum(int(record.get("supported", 0)) for record in fitted.values()), rows)
    return {**{str(rule): pooled for rule in HARD_REJECTIONS}, **support}


def rejection_support_rate(supported: int, rows: int) -> float:
    """P(supported) of a claim a hard rule rejects, from the rows it rejected and how many of them were supported:
    (supported + 1/2) / (rows + 1), so a rule that was always right is not certain."""
    return round((supported + 0.5) / (rows + 1), 3)


def resolve_thresholds(verification: VerificationConfig, aggregator: SupportAggregator) -> VerificationConfig:
    """The verification config with every threshold left unset (None) filled from the aggregator in use, with the
    units per passage it was fitted on and its hard rejections' support rates."""
    fitted: dict[str, object] = {
        **aggregator.thresholds,
        "units_per_passage": aggregator.units_per_passage,
        "hard_rejection_support": dict(aggregator.hard_rejection_support),
    }
    unset = {key: value for key, value in fitted.items() if getattr(verification, key) is None}
    return verification.model_copy(update=unset)


def raw_aggregator(nli_name: str) -> SupportAggregator:
    return SupportAggregator(name=RAW_AGGREGATOR, nli_name=nli_name, features=(), support=None, refute=None)


def fitted_entry(nli_name: str, path: Path | None = None) -> dict[str, Any] | None:
    """The whole fitted record for an NLI (thresholds, metrics, data hash), for manifests and `calibrate`."""
    return _read_file(str(path or AGGREGATOR_FILE)).get(nli_name)


@lru_cache(maxsize=8)
def _read_file(path: str) -> dict[str, Any]:
    file = Path(path)
    if not file.exists():
        return {}
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ConfigError(f"aggregator file {file} is unreadable ({err}); refit it with veriground calibrate") from None
    return data.get("aggregators", {}) if isinstance(data, dict) else {}


def _sigmoid(value: float) -> float:
    if value >= 0:
        return 1.0 / (1.0 + math.exp(-value))
    exp = math.exp(value)
    return exp / (1.0 + exp)
