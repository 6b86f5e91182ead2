"""`veriground eval run`: a golden set + a corpus + a config -> the grounded-QA pipeline on every query ->
predictions, metrics, a gate sweep and figures in runs/<run id>/.

The run id is a hash of the golden file, the corpus content and the resolved config (its corpus path left out),
so the same inputs always write the same folder with the same bytes.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from veriground import __version__
from veriground.config import Config
from veriground.corpus.store import CorpusStore
from veriground.evaluation import metrics as m
from veriground.evaluation.golden import read_golden
from veriground.evaluation.run_files import FIGURES_DIR, write_run
from veriground.schema import AnswerConfidence, GoldenQuery, GroundedAnswer

# Answer confidence labels read as probabilities of "answered correctly" for ECE/Brier: seed 003 §7 sets the
# labels at 90 % (high) and 75 % (medium) verified claims; low is taken as a coin flip.
CONFIDENCE_PROBABILITY = {AnswerConfidence.HIGH: 0.9, AnswerConfidence.MEDIUM: 0.75, AnswerConfidence.LOW: 0.5}
# Evidence-gate thresholds (answer.min_query_coverage) swept for the abstention-vs-accuracy curve.
GATE_SWEEP = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
RUN_ID_CHARS = 12
CONFLICT_CAVEAT = "disagrees with itself"  # policy.py's caveat when evidence passages conflict

DEFINITIONS = {
    "retrieval.recall_at_1": "mean over answerable rows of |gold ∩ top-1 retrieved| / |gold|",
    "retrieval.recall_at_5": "mean over answerable rows of |gold ∩ top-5 retrieved| / |gold|",
    "retrieval.mrr": "mean over answerable rows of 1 / rank of the first gold passage retrieved (0 if none)",
    "abstention.*": "answerable + unanswerable rows; positive = should abstain (kind unanswerable); abstained = "
    "the answer has an abstention_reason",
    "citation.gold_overlap_precision": "answered answerable rows: share of cited passage ids that are gold ids "
    "(gold-id overlap, NOT ALCE's NLI-judged citation precision)",
    "citation.gold_overlap_recall": "answered answerable rows: share whose gold ids include at least one cited "
    "passage (gold-id overlap, NOT ALCE's NLI-judged citation recall)",
    "answer.correct_rate": "all answerable rows: share answered (not abstained) with a gold passage cited",
    "claims.ungrounded_rate": "drafted claims over all rows: share that verification did not keep",
    "contradiction.handled_rate": "contradiction rows: share that abstained, were low confidence, reported "
    "conflicting evidence, or marked a claim Contradictory",
    "calibration.*": "answered answerable + unanswerable rows; confidence high/medium/low read as 0.9/0.75/0.5 "
    "against 'answered correctly' (answerable and a gold passage cited); 10 equal-width bins",
}


@dataclass(frozen=True)
class RunResult:
    run_id: str
    run_dir: Path
    summary: dict[str, Any]


def run_golden(
    *,
    config: Config,
    golden: Path | None,
    corpus: Path | None,
    split: str,
    runs_dir: Path,
    figures: bool = True,
) -> RunResult:
    """Answer every golden query of `split` with the configured pipeline and write the run folder."""
    from veriground.answering.pipeline import AnswerBackends
    from veriground.backends.openai_chat import build_llm
    from veriground.backends.registry import build_nli
    from veriground.retrieval.search import build_retriever

    if figures:
        from veriground.evaluation.figures import check_figures_available

        check_figures_available()
    with ExitStack() as stack:
        golden_path = golden if golden is not None else stack.enter_context(_demo_golden_file())
        golden_bytes = _read_bytes(golden_path)
        queries = [q for q in read_golden(golden_path) if split == "all" or q.split == split]
        if corpus is None:
            corpus = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="veriground-eval-")))
            _ingest_demo_corpus(corpus, config)
            corpus_label = "bundled demo corpus"
        else:
            corpus_label = str(corpus)
        config = config.model_copy(update={"corpus": config.corpus.model_copy(update={"dir": corpus})})
        store = stack.enter_context(CorpusStore(corpus, create=False))
        corpus_sha = corpus_sha256(store)
        golden_sha = hashlib.sha256(golden_bytes).hexdigest()
        run_id = make_run_id(config, golden_sha, corpus_sha, split)
        run_dir = runs_dir / run_id
        llm = build_llm(config)
        settings = _settings(config, split)
        if config.answer.baseline == "B1" and llm is None:
            reason = "baseline B1 (prompt-only) needs an LLM server; set llm.base_url and llm.model"
            summary = {"run_id": run_id, "runnable": False, "reason": reason, "settings": settings, "metrics": {}}
            predictions: list[dict[str, Any]] = []
            backends_info: list[dict[str, Any]] = []
        else:
            retriever = build_retriever(store, config)
            backends = AnswerBackends(store=store, retriever=retriever, nli=build_nli(config.models), llm=llm)
            answers = [_answer(query, config, backends) for query in queries]
            predictions = [predict_row(query, answer) for query, answer in zip(queries, answers, strict=True)]
            summary = summarize(predictions)
            summary.update(run_id=run_id, runnable=True, settings=settings, definitions=DEFINITIONS)
            summary["tradeoff"] = sweep_gate(queries, store, config) if figures else []
            backends_info = _backend_infos(answers)
        manifest = {
            "run_id": run_id,
            "run_timestamp": datetime.now(UTC).isoformat(timespec="seconds"),
            "package_version": __version__,
            "config": config.model_dump(mode="json"),
            "backends": backends_info,
            "golden": {"path": str(golden_path) if golden else "bundled demo golden set", "sha256": golden_sha},
            "corpus": {"source": corpus_label, "passages_sha256": corpus_sha},
            "split": split,
            "queries": len(queries),
            "seed": config.llm.seed,
        }
        write_run(run_dir, summary=summary, predictions=predictions, manifest=manifest)
    if figures and summary["runnable"]:
        from veriground.evaluation.figures import plot_reliability_diagram, plot_tradeoff_curve

        plot_reliability_diagram(summary["calibration_bins"], run_dir / FIGURES_DIR / "reliability.png")
        plot_tradeoff_curve(summary["tradeoff"], run_dir / FIGURES_DIR / "abstention_tradeoff.png")
    return RunResult(run_id=run_id, run_dir=run_dir, summary=summary)


def predict_row(query: GoldenQuery, answer: GroundedAnswer) -> dict[str, Any]:
    """One predictions.jsonl row: what the pipeline retrieved, cited, kept and decided for one golden query."""
    trace = answer.trace
    evidence = sorted(trace.evidence, key=lambda chunk: chunk.rank) if trace else []
    cited = sorted(
        {c.passage_id for claim in answer.claims for c in claim.supporting_citations if c.passage_id is not None}
    )
    claims = [
        {"text": c.text, "kept": c.kept, "verdict": c.verdict, "rule": c.rule, "cited_ids": list(c.cited_ids)}
        for c in (trace.claims if trace else ())
    ]
    conflict = any(CONFLICT_CAVEAT in note for note in answer.limitations) or any(
        c["verdict"] == "Contradictory" for c in claims
    )
    return {
        "query_id": query.query_id,
        "kind": query.kind,
        "split": query.split,
        "gold_ids": list(query.gold_paragraph_ids),
        "conflicting_ids": list(query.conflicting_ids),
        "confidence": answer.confidence.value,
        "abstained": answer.abstention_reason is not None,
        "abstention_reason": answer.abstention_reason,
        "retrieved": [{"passage_id": chunk.passage_id, "rank": chunk.rank} for chunk in evidence],
        "cited_ids": cited,
        "claims": claims,
        "reports_conflict": conflict,
    }


def summarize(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The metrics of a list of prediction rows, flat names -> {value | reason, n}, plus the calibration bins."""
    answerable = [r for r in rows if r["kind"] == "answerable"]
    decidable = [r for r in rows if r["kind"] in ("answerable", "unanswerable")]
    answered = [r for r in answerable if not r["abstained"]]
    probes = [r for r in rows if r["kind"] == "contradiction"]
    rankings = [[item["passage_id"] for item in r["retrieved"]] for r in answerable]
    gold = [set(r["gold_ids"]) for r in answerable]
    out: dict[str, tuple[m.MetricValue, int]] = {
        "retrieval.recall_at_1": (m.recall_at_k(rankings, gold, 1), len(answerable)),
        "retrieval.recall_at_5": (m.recall_at_k(rankings, gold, 5), len(answerable)),
        "retrieval.mrr": (m.mean_reciprocal_rank(rankings, gold), len(answerable)),
    }
    abstention = m.abstention_metrics(
        [r["kind"] == "unanswerable" for r in decidable], [r["abstained"] for r in decidable]
    )
    for name in ("accuracy", "precision", "recall", "f1", "balanced_accuracy"):
        out[f"abstention.{name}"] = (getattr(abstention, name), len(decidable))
    out["abstention.rate"] = (abstention.abstention_rate, len(decidable))
    cited = [pid for r in answered for pid in r["cited_ids"]]
    cited_gold = sum(1 for r in answered for pid in r["cited_ids"] if pid in r["gold_ids"])
    out["citation.gold_overlap_precision"] = (
        m.MetricValue.ratio(cited_gold, len(cited), "no answered answerable row cites a passage"),
        len(answered),
    )
    out["citation.gold_overlap_recall"] = (
        m.MetricValue.ratio(sum(map(_answered_correctly, answered)), len(answered), "no answerable row was answered"),
        len(answered),
    )
    out["answer.correct_rate"] = (
        m.MetricValue.ratio(sum(map(_answered_correctly, answerable)), len(answerable), "no answerable rows"),
        len(answerable),
    )
    drafted = [c for r in rows for c in r["claims"]]
    out["claims.ungrounded_rate"] = (
        m.MetricValue.ratio(sum(1 for c in drafted if not c["kept"]), len(drafted), "no drafted claim was verified"),
        len(drafted),
    )
    handled = sum(1 for r in probes if r["abstained"] or r["confidence"] == "low" or r["reports_conflict"])
    out["contradiction.handled_rate"] = (
        m.MetricValue.ratio(handled, len(probes), "no contradiction rows"),
        len(probes),
    )
    scored = [r for r in decidable if not r["abstained"] and r["confidence"] in CONFIDENCE_PROBABILITY]
    probabilities = [CONFIDENCE_PROBABILITY[AnswerConfidence(r["confidence"])] for r in scored]
    calibration = m.calibration(probabilities, [_answered_correctly(r) for r in scored])
    out["calibration.ece"] = (calibration.ece, len(scored))
    out["calibration.brier"] = (calibration.brier, len(scored))
    counts = {
        kind: sum(1 for r in rows if r["kind"] == kind) for kind in ("answerable", "unanswerable", "contradiction")
    }
    return {
        "metrics": {name: {**value.to_json(), "n": n} for name, (value, n) in out.items()},
        "calibration_bins": [b.to_json() for b in calibration.bins],
        "rows": {"total": len(rows), **counts},
    }


def sweep_gate(queries: Sequence[GoldenQuery], store: CorpusStore, config: Config) -> list[dict[str, Any]]:
    """One B3 pass per gate threshold with bm25 retrieval and lexical NLI (fast), no reranker, so the gate reads
    query coverage: abstention rate and accuracy of the answers given, over answerable + unanswerable rows."""
    from veriground.answering.pipeline import AnswerBackends
    from veriground.backends.registry import build_nli
    from veriground.retrieval.search import build_retriever

    base = config.model_copy(
        update={
            "retrieval": config.retrieval.model_copy(update={"mode": "bm25"}),
            "models": config.models.model_copy(update={"nli": "lexical", "reranker": None}),
            "answer": config.answer.model_copy(update={"baseline": "B3"}),
            "llm": config.llm.model_copy(update={"base_url": None}),
        }
    )
    backends = AnswerBackends(store=store, retriever=build_retriever(store, base), nli=build_nli(base.models), llm=None)
    decidable = [q for q in queries if q.kind in ("answerable", "unanswerable")]
    points = []
    for threshold in GATE_SWEEP:
        swept = base.model_copy(update={"answer": base.answer.model_copy(update={"min_query_coverage": threshold})})
        rows = [predict_row(q, _answer(q, swept, backends)) for q in decidable]
        given = [r for r in rows if not r["abstained"]]
        rate = m.MetricValue.ratio(len(rows) - len(given), len(rows), "no rows")
        accurate = m.MetricValue.ratio(sum(map(_answered_correctly, given)), len(given), "nothing answered")
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


def _answered_correctly(row: dict[str, Any]) -> bool:
    return row["kind"] == "answerable" and not row["abstained"] and bool(set(row["cited_ids"]) & set(row["gold_ids"]))


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
        "min_sources": config.verification.min_supporting_sources,
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


def _ingest_demo_corpus(folder: Path, config: Config) -> None:
    from veriground.corpus.ingest import ingest_paths

    with resources.as_file(resources.files("veriground") / "demo_corpus") as root, CorpusStore(folder) as store:
        ingest_paths([root], store, config.ingest)
