"""Synthetic contamination (seed 000 §6.1): a corpus -> verified claims (sentences the verifier supports against
their own passage) -> errors injected into 10/20/30 % of them -> each claim re-verified against its source passage
-> detection precision and recall per rate, error family and error type, and the false-alarm rate on clean claims.

A claim is detected as wrong when any of its claims is Contradictory, Unsupported or Unverified, or when it has no
checkable claim (the rule of `veriground eval pairs`). Per error type, precision and recall are computed over the
clean claims plus the claims carrying that error, so every type is scored against the same false alarms. Claims are
verified in batches (evaluation.batching) with one NLI cache for the run, so a clean claim that comes back at every
rate is scored by the model once. Formal errors (dimension, equation, complexity, out-of-range) are a study of their
own, per domain: contamination_formal.py.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from veriground.backends.protocols import NLIModel
from veriground.config import Config
from veriground.corpus.store import CorpusStore
from veriground.engine import verify_text
from veriground.errors import ConfigError, NotFoundError
from veriground.evaluation.batching import MemoNLIModel, VerifyJob, verify_batched
from veriground.evaluation.contamination_edits import ERROR_FAMILIES, ERROR_TYPES, ErrorType
from veriground.evaluation.metrics import DetectionMetrics, MetricValue, detection_metrics
from veriground.evaluation.pairs import rejecting_rules
from veriground.evidence.gather import PackEvidence
from veriground.schema import EvidencePack, PackPassage
from veriground.text.sentences import split_sentences

DEFAULT_RATES = (0.1, 0.2, 0.3)  # seed 000 §6.1
# A sentence makes a claim when it reads as one: prose of this many words, not a heading, list item or question.
MIN_CLAIM_WORDS, MAX_CLAIM_WORDS = 6, 60
CLEAN = "clean"

Progress = Callable[[str, int, int], None]  # (task name, done, total), as the CLI's progress bar takes it


@dataclass(frozen=True)
class CleanClaim:
    """A sentence of a corpus passage that the verifier supports against that passage."""

    claim_id: str
    text: str
    passage_id: str
    passage_text: str


@dataclass(frozen=True)
class ContaminatedClaim:
    """A clean claim, possibly with one injected error (`error_type` None: left clean)."""

    claim: CleanClaim
    text: str
    error_type: str | None = None
    family: str | None = None

    @property
    def contaminated(self) -> bool:
        return self.error_type is not None


@dataclass(frozen=True)
class TypeScore:
    """Detection of one error type (or family) against the clean claims of the same run."""

    injected: int
    detected: int
    detection: DetectionMetrics

    def to_json(self) -> dict[str, Any]:
        return {"injected": self.injected, "detected": self.detected, "detection": self.detection.to_json()}


def scores_json(scores: Mapping[str, TypeScore]) -> dict[str, Any]:
    """Scores by error type or family, as JSON, in their order."""
    return {name: score.to_json() for name, score in scores.items()}


@dataclass(frozen=True)
class RateResult:
    """One contamination rate: overall detection, per family and per type, and false alarms on clean claims."""

    rate: float
    claims: int
    contaminated: int
    overall: DetectionMetrics
    false_alarm_rate: MetricValue
    by_family: dict[str, TypeScore]
    by_type: dict[str, TypeScore]

    def to_json(self) -> dict[str, Any]:
        return {
            "rate": self.rate,
            "claims": self.claims,
            "contaminated": self.contaminated,
            "overall": self.overall.to_json(),
            "false_alarm_rate": self.false_alarm_rate.to_json(),
            "by_family": scores_json(self.by_family),
            "by_type": scores_json(self.by_type),
        }


@dataclass(frozen=True)
class ContaminationResult:
    nli: str
    seed: int
    clean_claims: int
    rates: tuple[RateResult, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "nli": self.nli,
            "seed": self.seed,
            "clean_claims": self.clean_claims,
            "rates": [result.to_json() for result in self.rates],
        }


def build_clean_claims(
    store: CorpusStore,
    *,
    config: Config,
    nli: NLIModel,
    seed: int = 0,
    max_claims: int | None = None,
    progress: Progress | None = None,
) -> list[CleanClaim]:
    """Claim-like sentences of the store's passages in a seeded order, kept when the verifier rates them Supported
    or Low Confidence against their own passage; at most `max_claims` of them."""
    if max_claims is not None and max_claims < 1:
        raise ConfigError(f"--max-claims must be at least 1, got {max_claims}")
    candidates = [
        (sentence, passage_id, passage_text)
        for passage_id, passage_text in store.iter_latest_texts()
        for sentence in dict.fromkeys(claim_sentences(passage_text))
    ]
    random.Random(seed).shuffle(candidates)
    claims: list[CleanClaim] = []
    checked = zip(candidates, detect_errors(candidates, config=config, nli=nli), strict=False)
    for done, ((sentence, passage_id, passage_text), rejected) in enumerate(checked, start=1):
        if progress is not None:
            progress("clean claims", done, len(candidates))
        if not rejected:
            claim_id = hashlib.sha256(f"{passage_id}\n{sentence}".encode()).hexdigest()[:12]
            claims.append(CleanClaim(claim_id, sentence, passage_id, passage_text))
            if max_claims is not None and len(claims) >= max_claims:
                break  # before the next batch is verified
    return claims


def contaminate(claims: Sequence[CleanClaim], rate: float, seed: int = 0) -> list[ContaminatedClaim]:
    """round(rate × n) claims get one error each, the families in turn and the types in turn within a family, each
    on a seeded choice of claim the error applies to; the rest stay clean. Order follows `claims`."""
    check_rate(rate)
    rng = random.Random(f"{seed}:{rate}")
    order = list(range(len(claims)))
    rng.shuffle(order)
    edits: dict[int, tuple[ErrorType, str]] = {}
    turns = {family: [e for e in ERROR_TYPES if e.family == family] for family in ERROR_FAMILIES}
    step = 0
    while len(edits) < round(rate * len(claims)):
        family = ERROR_FAMILIES[step % len(ERROR_FAMILIES)]
        members = turns[family]
        edit = _first_edit(claims, order, edits, members[(step // len(ERROR_FAMILIES)) % len(members)])
        edit = edit or next(filter(None, (_first_edit(claims, order, edits, e) for e in ERROR_TYPES)), None)
        if edit is None:
            break  # no remaining claim takes any error; out-of-scope applies to every text, so only when all are used
        edits[edit[0]] = edit[1:]
        step += 1
    return [
        ContaminatedClaim(claim, edits[i][1], edits[i][0].name, edits[i][0].family)
        if i in edits
        else ContaminatedClaim(claim, claim.text)
        for i, claim in enumerate(claims)
    ]


def run_contamination(
    *,
    config: Config,
    nli: NLIModel,
    store: CorpusStore,
    rates: Iterable[float] = DEFAULT_RATES,
    seed: int = 0,
    max_claims: int | None = None,
    progress: Progress | None = None,
) -> ContaminationResult:
    """Build the clean claim set, contaminate it at each rate, re-verify every claim against its source passage
    (an out-of-scope claim too) and score the detections."""
    rates = tuple(rates)
    for rate in rates:
        check_rate(rate)
    memo = MemoNLIModel(nli)
    clean = build_clean_claims(store, config=config, nli=memo, seed=seed, max_claims=max_claims, progress=progress)
    if not clean:
        raise NotFoundError("the corpus holds no sentence its own passage supports; ingest a corpus of prose first")
    results = []
    for rate in rates:
        claims = contaminate(clean, rate, seed)
        checks = [(c.text, c.claim.passage_id, c.claim.passage_text) for c in claims]
        detected = []
        for done, rejected in enumerate(detect_errors(checks, config=config, nli=memo), start=1):
            detected.append(rejected)
            if progress is not None:
                progress(f"rate {rate:.0%}", done, len(claims))
        results.append(score_rate(rate, claims, detected))
    return ContaminationResult(nli=nli.name, seed=seed, clean_claims=len(clean), rates=tuple(results))


def parse_rates(text: str) -> tuple[float, ...]:
    """`0.1,0.2,0.3` -> (0.1, 0.2, 0.3): each rate checked, a repeated one dropped."""
    rates = []
    for part in text.split(","):
        try:
            rate = float(part)
        except ValueError:
            raise ConfigError(f"--rates must be comma-separated numbers such as 0.1,0.2,0.3, got {text!r}") from None
        check_rate(rate, written=part.strip())
        rates.append(rate)
    return tuple(dict.fromkeys(rates))


def check_rate(rate: float, *, written: str | None = None) -> None:
    """Refuse a rate outside (0, 1), NaN included; `written`: the rate as the user typed it."""
    if not 0 < rate < 1:
        raise ConfigError(
            f"a contamination rate must be strictly between 0 and 1, got {written or rate}; "
            "pass --rates such as 0.1,0.2,0.3"
        )


def detect_error(text: str, passage_id: str, passage_text: str, *, config: Config, nli: NLIModel) -> bool:
    """Whether the verifier rejects `text` checked against exactly this passage."""
    report = verify_text(text, config=config, source=passage_source(passage_id, passage_text, config), nli=nli)
    return rejecting_rules(report) is not None


def detect_errors(checks: Iterable[tuple[str, str, str]], *, config: Config, nli: NLIModel) -> Iterator[bool]:
    """`detect_error` for each (text, passage id, passage text), lazily, their NLI pairs scored a batch at a time."""
    jobs = (
        VerifyJob(text, passage_source(passage_id, passage_text, config)) for text, passage_id, passage_text in checks
    )
    return (rejecting_rules(report) is not None for report in verify_batched(jobs, config=config, nli=nli))


def score_rate(rate: float, claims: Sequence[ContaminatedClaim], detected: Sequence[bool]) -> RateResult:
    gold = [claim.contaminated for claim in claims]
    clean = [flag for claim, flag in zip(claims, detected, strict=True) if not claim.contaminated]

    def score(keep: Iterable[bool]) -> TypeScore:
        rows = [(g, d) for g, d, k in zip(gold, detected, keep, strict=True) if k]
        injected = [d for g, d in rows if g]
        return TypeScore(len(injected), sum(injected), detection_metrics([g for g, _ in rows], [d for _, d in rows]))

    return RateResult(
        rate=rate,
        claims=len(claims),
        contaminated=sum(gold),
        overall=detection_metrics(gold, detected),
        false_alarm_rate=MetricValue.ratio(sum(clean), len(clean), "no clean claims"),
        by_family={f: score(c.family in (None, f) for c in claims) for f in ERROR_FAMILIES},
        by_type={e.name: score(c.error_type in (None, e.name) for c in claims) for e in ERROR_TYPES},
    )


def format_contamination(result: ContaminationResult) -> str:
    """A printable table: one row per rate and error family / type, with precision, recall and false alarms."""
    lines = [
        f"contamination: {result.clean_claims} clean claims, NLI {result.nli}, seed {result.seed}",
        "",
        f"{'rate':>5}  {'error type':<28} {'injected':>8} {'detected':>8} {'precision':>9} {'recall':>7}",
    ]
    for rate in result.rates:
        rows = [("all", rate.contaminated, rate.overall.counts.tp, rate.overall)]
        for family in ERROR_FAMILIES:
            score = rate.by_family[family]
            rows.append((family, score.injected, score.detected, score.detection))
            for error in ERROR_TYPES:
                if error.family == family and error.name != family:
                    typed = rate.by_type[error.name]
                    rows.append((f"  {error.name}", typed.injected, typed.detected, typed.detection))
        for name, injected, found, detection in rows:
            lines.append(
                f"{rate.rate:>5.0%}  {name:<28} {injected:>8} {found:>8} "
                f"{detection.precision.format():>9} {detection.recall.format():>7}"
            )
        false_alarms = rate.claims - rate.contaminated
        lines.append(
            f"{rate.rate:>5.0%}  {CLEAN + ' (false alarms)':<28} {false_alarms:>8} {rate.overall.counts.fp:>8} "
            f"{'':>9} {rate.false_alarm_rate.format():>7}"
        )
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def passage_source(passage_id: str, passage_text: str, config: Config) -> PackEvidence:
    pack = EvidencePack(passages=(PackPassage(passage_id=passage_id, text=passage_text),))
    return PackEvidence(pack, config.retrieval)


def claim_sentences(passage_text: str) -> list[str]:
    sentences = []
    for raw in split_sentences(passage_text):
        sentence = " ".join(raw.split())
        words = sentence.split()
        if (
            MIN_CLAIM_WORDS <= len(words) <= MAX_CLAIM_WORDS
            and sentence[0].isupper()
            and sentence.endswith(".")
            and not any(mark in sentence for mark in ("|", "#", "**", "](", "?"))
        ):
            sentences.append(sentence)
    return sentences


def _first_edit(
    claims: Sequence[CleanClaim], order: Sequence[int], taken: dict[int, Any], error: ErrorType
) -> tuple[int, ErrorType, str] | None:
    """The first claim in seeded order, not yet edited, whose text this error changes."""
    for index in order:
        if index in taken:
            continue
        edited = error.inject(claims[index].text)
        if edited is not None and edited != claims[index].text:
            return index, error, edited
    return None
