"""`veriground eval bench`: public benchmarks in ../shared/datasets -> thin adapters (datasets.py rows, then
`evaluate_pairs`, the raw NLI backend, or `ask` for abstention) -> the metric each benchmark's authors report, plus
P/R/F1/balanced accuracy of the binary decision, per benchmark and per group.

The positive class of P/R/F1 is "hallucinated" for the verification benchmarks and "should abstain" for SQuAD 2.0;
the NLI sets score the configured NLI backend alone (3-way argmax), with no claim extraction or rules.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from veriground.backends.protocols import NLIModel
from veriground.config import Config, IngestConfig
from veriground.errors import ConfigError, InputFileError
from veriground.evaluation import datasets
from veriground.evaluation.datasets import NLI_LABELS, DatasetRows, NLIItem
from veriground.evaluation.heldout import Part, rows_of_part
from veriground.evaluation.metrics import (
    DetectionMetrics,
    MetricValue,
    abstention_of,
    accuracy,
    detection_metrics,
    macro_f1,
    undefined,
)
from veriground.evaluation.pairs import PairPrediction, evaluate_pairs, summarize_predictions
from veriground.schema import LabelledPair, NLIScores

DATASETS_ENV = "VERIGROUND_DATASETS"
DEFAULT_DATASETS_DIR = Path("..") / "shared" / "datasets"  # beside the checkout
NLI_CHUNK = 256  # pairs per NLI predict call: the backend batches inside it; progress moves per chunk

# name, rows done, rows in total
BenchProgress = Callable[[str, int, int], None]
Score = Callable[[Sequence[PairPrediction]], MetricValue]


@dataclass(frozen=True)
class Benchmark:
    """One adapter: where its files are, how they are read and scored, and which metric its authors report."""

    name: str
    folder: str  # under the datasets folder
    kind: Literal["pairs", "nli", "abstention"]
    metric: str  # the authors' metric
    source: str  # who reports it
    read: Callable[[Path], Any]
    score: Score | None = None  # pairs: the authors' metric over a set of predictions
    group_score: Score | None = None  # pairs: the same per group, when it differs (a mean over groups)

    def __post_init__(self) -> None:
        if self.kind == "pairs" and self.score is None:
            raise ValueError(f"benchmark {self.name}: a pairs benchmark needs the score of its authors' metric")


@dataclass(frozen=True)
class GroupResult:
    rows: int
    value: MetricValue  # the authors' metric on the group
    binary: DetectionMetrics | None

    def to_json(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "value": self.value.to_json(),
            "binary": None if self.binary is None else self.binary.to_json(),
        }


@dataclass(frozen=True)
class BenchmarkResult:
    """One benchmark's numbers: the authors' metric, the binary P/R/F1/balanced accuracy, and the details."""

    name: str
    metric: str
    source: str
    value: MetricValue
    rows_used: int
    dataset_size: int
    positive: str | None  # the positive class of `binary`
    binary: DetectionMetrics | None
    skipped: dict[str, int] = field(default_factory=dict)
    groups: dict[str, GroupResult] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "metric": self.metric,
            "source": self.source,
            "value": self.value.to_json(),
            "rows_used": self.rows_used,
            "dataset_size": self.dataset_size,
            "skipped": dict(sorted(self.skipped.items())),
            "positive": self.positive,
            "binary": None if self.binary is None else self.binary.to_json(),
            "groups": {name: group.to_json() for name, group in sorted(self.groups.items())},
            "details": self.details,
        }


def _accuracy(predictions: Sequence[PairPrediction]) -> MetricValue:
    return summarize_predictions(predictions).detection.accuracy


def _balanced_accuracy(predictions: Sequence[PairPrediction]) -> MetricValue:
    return summarize_predictions(predictions).detection.balanced_accuracy


def _macro_f1(predictions: Sequence[PairPrediction]) -> MetricValue:
    return macro_f1([p.gold_hallucinated for p in predictions], [p.hallucinated for p in predictions])


def _roc_auc(predictions: Sequence[PairPrediction]) -> MetricValue:
    return summarize_predictions(predictions).roc_auc


def _mean_balanced_accuracy_over_groups(predictions: Sequence[PairPrediction]) -> MetricValue:
    """SummEdits' headline: balanced accuracy per domain, averaged over domains (undefined if any domain is)."""
    groups: dict[str, list[PairPrediction]] = {}
    for prediction in predictions:
        groups.setdefault(prediction.group or "", []).append(prediction)
    if not groups:
        return undefined("no rows")
    values = []
    for name, members in sorted(groups.items()):
        value = _balanced_accuracy(members)
        if value.value is None:
            return undefined(f"balanced accuracy of {name} is undefined: {value.reason}")
        values.append(value.value)
    return MetricValue(sum(values) / len(values))


BENCHMARKS: tuple[Benchmark, ...] = (
    Benchmark(
        "fever-symmetric", "fever-symmetric", "pairs", "accuracy", "Schuster et al. 2019",
        datasets.read_fever_symmetric, _accuracy,
    ),
    Benchmark(
        "summedits", "summedits", "pairs", "balanced accuracy, mean of domains", "Laban et al. 2023",
        datasets.read_summedits, _mean_balanced_accuracy_over_groups, _balanced_accuracy,
    ),
    Benchmark(
        "attributionbench", "attributionbench", "pairs", "macro-F1", "Li et al. 2024",
        datasets.read_attributionbench, _macro_f1,
    ),
    Benchmark(
        "wice", "wice", "pairs", "ROC AUC of P(supported)", "Kamoi et al. 2023 (supported vs the rest)",
        datasets.read_wice, _roc_auc,
    ),
    Benchmark(
        "begin", "begin", "pairs", "ROC AUC of P(supported)",
        "TRUE, Honovich et al. 2022 (Dziri et al. 2022 correlate scores with labels)",
        datasets.read_begin, _roc_auc,
    ),
    Benchmark(
        "faithbench", "faithbench", "pairs", "balanced accuracy", "Bao et al. 2025",
        datasets.read_faithbench, _balanced_accuracy,
    ),
    Benchmark(
        "squad2", "squad2", "abstention", "abstention accuracy",
        "seed 004 §3.8 (SQuAD's own EM/F1, Rajpurkar et al. 2018, not computed)", datasets.read_squad2,
    ),
    Benchmark("mnli", "nli", "nli", "accuracy (3-way)", "Williams et al. 2018", datasets.read_mnli),
    Benchmark("snli", "nli", "nli", "accuracy (3-way)", "Bowman et al. 2015", datasets.read_snli),
    Benchmark("anli", "nli", "nli", "accuracy (3-way)", "Nie et al. 2020", datasets.read_anli),
)  # fmt: skip
BENCHMARK_NAMES = tuple(benchmark.name for benchmark in BENCHMARKS)


def select_benchmarks(names: Sequence[str]) -> list[Benchmark]:
    """The named benchmarks in registry order (all when none is named); an unknown name lists the known ones."""
    unknown = [name for name in names if name not in BENCHMARK_NAMES]
    if unknown:
        raise ConfigError(f"unknown benchmark {unknown[0]!r}; known: {', '.join(BENCHMARK_NAMES)}")
    return [benchmark for benchmark in BENCHMARKS if not names or benchmark.name in names]


def check_datasets_dir(datasets_dir: Path, benchmarks: Sequence[Benchmark]) -> None:
    """Fail before any work when the datasets folder, or a benchmark's folder in it, is missing."""
    fix = f"pass --datasets DIR or set {DATASETS_ENV}"
    if not datasets_dir.is_dir():
        raise InputFileError(datasets_dir.resolve(), "no datasets folder here", fix)
    for benchmark in benchmarks:
        folder = datasets_dir / benchmark.folder
        if not folder.is_dir():
            raise InputFileError(folder.resolve(), f"no {benchmark.name} data here", fix)


def run_benchmark(
    benchmark: Benchmark,
    datasets_dir: Path,
    *,
    config: Config,
    nli: NLIModel,
    limit: int | None = None,
    progress: BenchProgress | None = None,
    all_rows: bool = False,
) -> BenchmarkResult:
    """Read the benchmark, keep its held-out part (every row with `all_rows`: including rows the shipped NLI model
    was trained on, see heldout.py), take a seeded sample of `limit` rows when given, run it, and score it."""
    runners = {"pairs": _run_pairs, "nli": _run_nli, "abstention": _run_abstention}
    run = _BenchRun(
        benchmark, datasets_dir / benchmark.folder, config, nli, limit, progress, None if all_rows else "heldout"
    )
    result = runners[benchmark.kind](run)
    return replace(result, details={**result.details, "part": run.part or "all"})


@dataclass(frozen=True)
class _BenchRun:
    """What one benchmark's runner works with: its files, the config and NLI, the sample size and the part kept."""

    benchmark: Benchmark
    folder: Path
    config: Config
    nli: NLIModel
    limit: int | None
    progress: BenchProgress | None
    part: Part | None

    def rows(self, rows: Sequence[Any]) -> list[Any]:
        """The rows of the part, then a seeded sample of `limit` of them."""
        kept = rows if self.part is None else rows_of_part(self.benchmark.name, rows, self.part)
        return datasets.sample_rows(kept, self.limit)

    def report(self, done: int, total: int) -> None:
        if self.progress is not None:
            self.progress(self.benchmark.name, done, total)

    def result(self, **fields: Any) -> BenchmarkResult:
        """A result named, and its metric attributed, as the benchmark is."""
        benchmark = self.benchmark
        return BenchmarkResult(name=benchmark.name, metric=benchmark.metric, source=benchmark.source, **fields)


def _run_pairs(run: _BenchRun) -> BenchmarkResult:
    benchmark = run.benchmark
    read: DatasetRows[LabelledPair] = benchmark.read(run.folder)
    rows = run.rows(read.rows)
    report = None if run.progress is None else (lambda done: run.report(done, len(rows)))
    result = evaluate_pairs(rows, config=run.config, nli=run.nli, progress=report)
    score = benchmark.score
    assert score is not None  # Benchmark.__post_init__ requires it of a pairs benchmark
    group_score = benchmark.group_score or score
    groups = {}
    for name in result.groups:
        members = [p for p in result.predictions if p.group == name]
        groups[name] = GroupResult(len(members), group_score(members), result.groups[name].detection)
    overall = result.overall
    return run.result(
        value=score(result.predictions),
        rows_used=len(rows),
        dataset_size=read.size,
        positive="hallucinated",
        binary=overall.detection,
        skipped=read.skipped,
        groups=groups,
        details={
            "calibration": overall.calibration.to_json(),
            "roc_auc": overall.roc_auc.to_json(),
            "claims": overall.claims,
            "verdicts": dict(sorted(overall.verdicts.items())),
            "unverified_rows": overall.unverified_rows,
            "no_claim_rows": overall.no_claim_rows,
        },
    )


def predict_nli_label(scores: NLIScores) -> str:
    """The 3-way argmax; a tie goes to the first of entailment, neutral, contradiction."""
    probabilities = {"entailment": scores.entail, "neutral": scores.neutral, "contradiction": scores.contradict}
    return max(NLI_LABELS, key=lambda label: probabilities[label])


def _run_nli(run: _BenchRun) -> BenchmarkResult:
    read: DatasetRows[NLIItem] = run.benchmark.read(run.folder)
    items = run.rows(read.rows)
    predicted: list[str] = []
    for start in range(0, len(items), NLI_CHUNK):
        chunk = items[start : start + NLI_CHUNK]
        predicted.extend(predict_nli_label(s) for s in run.nli.predict([(i.premise, i.hypothesis) for i in chunk]))
        run.report(len(predicted), len(items))
    gold = [item.label for item in items]
    groups = {}
    for name in sorted({item.group for item in items if item.group is not None}):
        positions = [index for index, item in enumerate(items) if item.group == name]
        group_gold, group_predicted = [gold[i] for i in positions], [predicted[i] for i in positions]
        groups[name] = GroupResult(len(positions), accuracy(group_gold, group_predicted), None)
    matrix = Counter(zip(gold, predicted, strict=True))
    return run.result(
        value=accuracy(gold, predicted),
        rows_used=len(items),
        dataset_size=read.size,
        positive=None,
        binary=None,
        skipped=read.skipped,
        groups=groups,
        details={
            "macro_f1": macro_f1(gold, predicted).to_json(),
            "confusion": {g: {p: matrix[(g, p)] for p in NLI_LABELS} for g in NLI_LABELS},  # gold -> predicted
        },
    )


def _run_abstention(run: _BenchRun) -> BenchmarkResult:
    """SQuAD 2.0 through `ask` (offline extractive answerer, as bench/bench_ask_squad2.py): each paragraph is one
    passage of a scratch corpus (a Workspace's, with the given NLI and no LLM); a question counts as abstained when
    the answer is insufficient_evidence."""
    from veriground.answering.pipeline import AnswerBackends, answer_question
    from veriground.evaluation.golden_run import with_corpus_dir
    from veriground.schema import AnswerConfidence
    from veriground.workspace import Workspace

    squad = run.benchmark.read(run.folder)
    questions = datasets.sample_rows(squad.questions, run.limit)  # never trained on: all of it is held out
    abstained = []
    with tempfile.TemporaryDirectory(prefix="veriground-squad2-") as scratch:
        docs = Path(scratch) / "articles"
        docs.mkdir()
        for title, paragraphs in squad.articles.items():
            (docs / f"{title.lower()}.md").write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
        local = with_corpus_dir(run.config, Path(scratch) / "c")
        # One passage per paragraph: no joining of short paragraphs, no cutting of long ones.
        one_per_paragraph = local.model_copy(
            update={"ingest": IngestConfig(min_passage_chars=1, max_passage_chars=100_000)}
        )
        with Workspace(one_per_paragraph) as workspace:
            workspace.ingest([docs])
            backends = AnswerBackends(store=workspace.store, retriever=workspace.retriever, nli=run.nli, llm=None)
            for done, question in enumerate(questions, start=1):
                answer = answer_question(question.question, config=local, backends=backends)
                abstained.append(answer.confidence == AnswerConfidence.INSUFFICIENT_EVIDENCE)
                run.report(done, len(questions))
    should_abstain = [question.impossible for question in questions]
    binary = detection_metrics(should_abstain, abstained)  # P/R/F1/balanced accuracy of abstaining, for the table
    scores = abstention_of(binary)
    return run.result(
        value=scores.accuracy,
        rows_used=len(questions),
        dataset_size=len(squad.questions),
        positive="should abstain",
        binary=binary,
        details={"abstention": scores.to_json(), "answerer": "extractive (offline)"},
    )
