"""`veriground eval run`: a golden set + a corpus + a config -> the grounded-QA pipeline on every query ->
predictions (with ALCE's reading of each stated claim's citations), metrics, a gate sweep and figures in
runs/<run id>/.

The run id is a hash of the golden file, the corpus content and the resolved config (its corpus path left out),
so the same inputs always write the same folder with the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from veriground import __version__
from veriground.answering.pipeline import qa_verification
from veriground.backends.protocols import NLIModel
from veriground.config import Config
from veriground.corpus.store import CorpusStore
from veriground.engine import with_thresholds
from veriground.evaluation import metrics as m
from veriground.evaluation.citation_support import judge_citation_support
from veriground.evaluation.golden import golden_domain, read_golden
from veriground.evaluation.golden_metrics import DEFINITIONS, answered_correctly, summarize, summarize_by_domain
from veriground.evaluation.run_files import FIGURES_DIR, write_run
from veriground.schema import DisplayVerdict, GoldenQuery, GroundedAnswer
from veriground.verdicts.aggregator import SEED_THRESHOLDS, load_aggregator

if TYPE_CHECKING:
    from veriground.workspace import Workspace

# Evidence-gate thresholds (answer.min_query_coverage) swept for the abstention-vs-accuracy curve.
GATE_SWEEP = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
RUN_ID_CHARS = 12
CONFLICT_CAVEAT = "disagrees with itself"  # policy.py's caveat when evidence passages conflict


@dataclass(frozen=True)
class RunResult:
    run_id: str
    run_dir: Path
    summary: dict[str, Any]


@dataclass(frozen=True)
class GoldenInputs:
    """What every run over one golden set and corpus shares: the queries of the split, the corpus folder, and the
    hashes and labels the manifest records."""

    queries: list[GoldenQuery]
    split: str
    golden_label: str
    golden_sha: str
    corpus_dir: Path
    corpus_label: str
    corpus_sha: str


def run_golden(
    *,
    config: Config,
    golden: Path | None,
    corpus: Path | None,
    split: str,
    runs_dir: Path,
    figures: bool = True,
    on_progress: Callable[[int, int], None] | None = None,
) -> RunResult:
    """Answer every golden query of `split` with the configured pipeline and write the run folder.

    `on_progress(done, total)` is called after each query is answered."""
    if figures:
        from veriground.evaluation.figures import check_figures_available

        check_figures_available()
    with open_golden_inputs(golden=golden, corpus=corpus, split=split, config=config) as inputs:
        return run_config(inputs, config, runs_dir=runs_dir, figures=figures, on_progress=on_progress)


@contextmanager
def open_golden_inputs(
    *, golden: Path | None, corpus: Path | None, split: str, config: Config
) -> Iterator[GoldenInputs]:
    """Read the golden set (default: the shipped demo set) and hash the corpus (default: the demo corpus, ingested
    with `config.ingest` into a temporary folder removed on exit)."""
    with ExitStack() as stack:
        golden_path = golden if golden is not None else stack.enter_context(_demo_golden_file())
        golden_bytes = _read_bytes(golden_path)
        queries = [q for q in read_golden(golden_path) if split == "all" or q.split == split]
        corpus, corpus_label = given_or_demo_corpus(stack, corpus, config, prefix="veriground-eval-")
        with CorpusStore(corpus, create=False) as store:
            corpus_sha = corpus_sha256(store)
        yield GoldenInputs(
            queries=queries,
            split=split,
            golden_label=str(golden_path) if golden else "bundled demo golden set",
            golden_sha=hashlib.sha256(golden_bytes).hexdigest(),
            corpus_dir=corpus,
            corpus_label=corpus_label,
            corpus_sha=corpus_sha,
        )


def given_or_demo_corpus(stack: ExitStack, corpus: Path | None, config: Config, *, prefix: str) -> tuple[Path, str]:
    """(corpus folder, its label for the manifest): `corpus` as given, or the bundled demo corpus ingested with
    `config` into a temporary folder (named `prefix`...) that `stack` removes on exit."""
    if corpus is not None:
        return corpus, str(corpus)
    folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=prefix)))
    ingest_demo_corpus(folder, config)
    return folder, "bundled demo corpus"


def planned_run_id(inputs: GoldenInputs, config: Config) -> str:
    """The id `run_config` gives this config over these inputs, without running it."""
    return make_run_id(config, inputs.golden_sha, inputs.corpus_sha, inputs.split)


def run_config(
    inputs: GoldenInputs,
    config: Config,
    *,
    runs_dir: Path,
    figures: bool = True,
    on_progress: Callable[[int, int], None] | None = None,
) -> RunResult:
    """One run over open inputs: answer, judge citations, summarize, write runs_dir/<run id>/ and its figures.

    The store, retriever, NLI and LLM come from a Workspace over the inputs' corpus and `config`."""
    from veriground.workspace import Workspace

    config = with_corpus_dir(config, inputs.corpus_dir)
    run_id = planned_run_id(inputs, config)
    run_dir = runs_dir / run_id
    settings = _settings(config, inputs.split)
    predictions: list[dict[str, Any]] = []
    backends_info: list[dict[str, Any]] = []
    with Workspace(config) as workspace:
        if config.answer.baseline == "B1" and workspace.llm is None:
            reason = "baseline B1 (prompt-only) needs an LLM server; set llm.base_url and llm.model"
            summary = {"run_id": run_id, "runnable": False, "reason": reason, "settings": settings, "metrics": {}}
        else:
            answers = _answer_all(inputs, config, workspace, on_progress)
            predictions = [predict_row(query, answer) for query, answer in zip(inputs.queries, answers, strict=True)]
            # ALCE reads the NLI's own entailment of cited passages, so it keeps seed 000's raw threshold.
            _judge_citations(predictions, answers, workspace.nli, SEED_THRESHOLDS["min_entailment_prob"])
            settings.update(_applied_thresholds(config, workspace.nli.name, workspace.nli.checksum))
            summary = _summary(predictions, run_id, settings)
            summary["tradeoff"] = sweep_gate(inputs.queries, config) if figures else []
            backends_info = _backend_infos(answers)
    manifest = _manifest(run_id, config, inputs, backends_info)
    write_run(run_dir, summary=summary, predictions=predictions, manifest=manifest)
    if figures and summary["runnable"]:
        _plot_figures(summary, run_dir)
    return RunResult(run_id=run_id, run_dir=run_dir, summary=summary)


def with_corpus_dir(config: Config, corpus_dir: Path) -> Config:
    """`config` with corpus.dir set to `corpus_dir`."""
    return config.model_copy(update={"corpus": config.corpus.model_copy(update={"dir": corpus_dir})})


def _answer_all(
    inputs: GoldenInputs, config: Config, workspace: Workspace, on_progress: Callable[[int, int], None] | None
) -> list[GroundedAnswer]:
    """Every golden query answered with the workspace's store, retriever, NLI and LLM, in order."""
    from veriground.answering.pipeline import AnswerBackends

    backends = AnswerBackends(
        store=workspace.store, retriever=workspace.retriever, nli=workspace.nli, llm=workspace.llm
    )
    answers = []
    for query in inputs.queries:
        answers.append(_answer(query, config, backends))
        if on_progress is not None:
            on_progress(len(answers), len(inputs.queries))
    return answers


def _applied_thresholds(config: Config, nli_name: str, nli_checksum: str | None = None) -> dict[str, Any]:
    """The settings entries that say which thresholds and aggregator the run's verification applied."""
    verification = config.verification
    aggregator = load_aggregator(nli_name, verification.aggregator, verification.aggregator_path, nli_checksum)
    applied = qa_verification(with_thresholds(config, aggregator)).verification
    thresholds = {
        key: getattr(applied, key)
        for key in ("min_entailment_prob", "weak_entailment_prob", "max_contradiction_prob")
        + ("min_supporting_sources",)
    }
    return {"thresholds": thresholds, "aggregator": aggregator.name}


def _summary(predictions: Sequence[dict[str, Any]], run_id: str, settings: dict[str, Any]) -> dict[str, Any]:
    """summary.json of a runnable run, but its gate sweep."""
    summary = summarize(predictions)
    summary["by_domain"] = summarize_by_domain(predictions)
    summary.update(run_id=run_id, runnable=True, settings=settings, definitions=DEFINITIONS)
    return summary


def _manifest(run_id: str, config: Config, inputs: GoldenInputs, backends_info: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "run_timestamp": datetime.now(UTC).isoformat(timespec="seconds"),
        "package_version": __version__,
        "config": config.model_dump(mode="json"),
        "backends": backends_info,
        "golden": {"path": inputs.golden_label, "sha256": inputs.golden_sha},
        "corpus": {"source": inputs.corpus_label, "passages_sha256": inputs.corpus_sha},
        "split": inputs.split,
        "queries": len(inputs.queries),
        "seed": config.llm.seed,
    }


def _plot_figures(summary: dict[str, Any], run_dir: Path) -> None:
    from veriground.evaluation.figures import plot_groundedness, plot_reliability_diagram, plot_tradeoff_curve

    plot_reliability_diagram(summary["calibration_bins"], run_dir / FIGURES_DIR / "reliability.png")
    plot_tradeoff_curve(summary["tradeoff"], run_dir / FIGURES_DIR / "abstention_tradeoff.png")
    plot_groundedness(summary["groundedness"], run_dir / FIGURES_DIR / "groundedness.png")


def _judge_citations(
    predictions: Sequence[dict[str, Any]], answers: Sequence[GroundedAnswer], nli: NLIModel, min_entailment_prob: float
) -> None:
    """Add ALCE's reading (citation_support.py) to each stated claim of each prediction row, in one NLI batch."""
    passages = {chunk.passage_id: chunk.text for answer in answers if answer.trace for chunk in answer.trace.evidence}
    stated = [claim for row in predictions for claim in row["answer_claims"]]
    judged = judge_citation_support(
        [(claim["text"], claim["cited_ids"]) for claim in stated], passages, nli, min_entailment_prob
    )
    for claim, support in zip(stated, judged, strict=True):
        claim.update(support.to_json())


def predict_row(query: GoldenQuery, answer: GroundedAnswer) -> dict[str, Any]:
    """One predictions.jsonl row: what the pipeline retrieved, cited, kept and decided for one golden query;
    `claims` are the drafted claims verification checked, `answer_claims` those the answer states."""
    trace = answer.trace
    evidence = sorted(trace.evidence, key=lambda chunk: chunk.rank) if trace else []
    cited = sorted(
        {c.passage_id for claim in answer.claims for c in claim.supporting_citations if c.passage_id is not None}
    )
    claims = [
        {
            "text": c.text,
            "kept": c.kept,
            "verdict": c.verdict,
            "rule": c.rule,
            "cited_ids": list(c.cited_ids),
            "supporting_passages": list(c.supporting_passages),
        }
        for c in (trace.claims if trace else ())
    ]
    conflict = any(CONFLICT_CAVEAT in note for note in answer.limitations) or any(
        c["verdict"] == DisplayVerdict.CONTRADICTORY for c in claims
    )
    return {
        "query_id": query.query_id,
        "domain": golden_domain(query),
        "kind": query.kind,
        "split": query.split,
        "gold_ids": list(query.gold_paragraph_ids),
        "conflicting_ids": list(query.conflicting_ids),
        "confidence": answer.confidence.value,
        "abstained": answer.abstention_reason is not None,
        "abstention_reason": answer.abstention_reason,
        "retrieved": [
            {"passage_id": chunk.passage_id, "rank": chunk.rank, "source": chunk.source} for chunk in evidence
        ],
        "cited_ids": cited,
        "claims": claims,
        "drafted_claims": len(trace.draft.claims) if trace and trace.draft else 0,
        "answer_claims": [
            {"text": claim.text, "cited_ids": [c.passage_id for c in claim.supporting_citations if c.passage_id]}
            for claim in answer.claims
        ],
        "reports_conflict": conflict,
    }


def sweep_gate(queries: Sequence[GoldenQuery], config: Config) -> list[dict[str, Any]]:
    """One B3 pass per gate threshold with bm25 retrieval and lexical NLI (fast), no reranker, so the gate reads
    query coverage: abstention rate and accuracy of the answers given, over answerable + unanswerable rows of the
    corpus at config corpus.dir."""
    from veriground.answering.pipeline import AnswerBackends
    from veriground.workspace import Workspace

    base = config.model_copy(
        update={
            "retrieval": config.retrieval.model_copy(update={"mode": "bm25"}),
            "models": config.models.model_copy(update={"nli": "lexical", "reranker": None}),
            "answer": config.answer.model_copy(update={"baseline": "B3"}),
            "llm": config.llm.model_copy(update={"base_url": None}),
        }
    )
    decidable = [q for q in queries if q.kind in ("answerable", "unanswerable")]
    points = []
    with Workspace(base) as workspace:
        backends = AnswerBackends(store=workspace.store, retriever=workspace.retriever, nli=workspace.nli, llm=None)
        for threshold in GATE_SWEEP:
            swept = base.model_copy(update={"answer": base.answer.model_copy(update={"min_query_coverage": threshold})})
            rows = [predict_row(q, _answer(q, swept, backends)) for q in decidable]
            given = [r for r in rows if not r["abstained"]]
            rate = m.MetricValue.ratio(len(rows) - len(given), len(rows), "no rows")
            accurate = m.MetricValue.ratio(sum(map(answered_correctly, given)), len(given), "nothing answered")
            points.append({"threshold": threshold, "abstention_rate": rate.value, "answered_accuracy": accurate.value})
    return [{k: (round(v, m.JSON_DIGITS) if isinstance(v, float) else v) for k, v in p.items()} for p in points]


def make_run_id(config: Config, golden_sha: str, corpus_sha: str, split: str) -> str:
    """<baseline>-<retrieval>-<split>-<hash of golden, corpus and config without its corpus path>."""
    resolved = config.model_dump(mode="json")
    resolved["corpus"].pop("dir", None)
    payload = json.dumps([golden_sha, corpus_sha, split, resolved], sort_keys=True)
    digest = hashlib.sha256(payload.encode("utf-8")).hexdigest()[:RUN_ID_CHARS]
    return f"{config.answer.baseline}-{config.retrieval.mode}-{split}-{digest}"


def corpus_sha256(store: CorpusStore) -> str:
    """SHA-256 over the latest passages' ids and texts, in id order: the corpus content, not its file bytes."""
    digest = hashlib.sha256()
    for passage_id, text in sorted(store.iter_latest_texts()):
        digest.update(passage_id.encode("utf-8") + b"\0" + text.encode("utf-8") + b"\0")
    return digest.hexdigest()


def _answer(query: GoldenQuery, config: Config, backends: Any) -> GroundedAnswer:
    from veriground.answering.pipeline import answer_question

    return answer_question(query.query, config=config, backends=backends)


def _backend_infos(answers: Sequence[GroundedAnswer]) -> list[dict[str, Any]]:
    seen = {
        json.dumps(info.model_dump(mode="json"), sort_keys=True)
        for answer in answers
        if answer.trace
        for info in answer.trace.manifest.backends
    }
    return [json.loads(item) for item in sorted(seen)]


def _settings(config: Config, split: str) -> dict[str, Any]:
    return {
        "baseline": config.answer.baseline,
        "retrieval": config.retrieval.mode,
        "nli": config.models.nli,
        "reranker": config.models.reranker,
        "min_sources": qa_verification(config).verification.min_supporting_sources,
        "verify": config.answer.verify,
        "contradictions": config.verification.contradictions,
        "atomic": config.verification.atomic,
        "split": split,
    }


def _read_bytes(path: Path) -> bytes:
    from veriground.errors import InputFileError

    try:
        return Path(str(path)).read_bytes()
    except OSError as err:
        raise InputFileError(
            path, f"cannot read the golden set: {err.strerror or err}", "pass an existing JSONL file"
        ) from None


def _demo_golden_file() -> Any:
    from veriground.evaluation.golden import demo_golden_path

    return resources.as_file(demo_golden_path())


def ingest_demo_corpus(folder: Path, config: Config) -> None:
    """Ingest the bundled demo corpus into `folder` through a Workspace, as `veriground ingest` does (with a dense or
    hybrid retrieval mode, the passages get their vectors now)."""
    from veriground.workspace import Workspace

    with (
        resources.as_file(resources.files("veriground") / "demo_corpus") as root,
        Workspace(with_corpus_dir(config, folder)) as workspace,
    ):
        workspace.ingest([root])
