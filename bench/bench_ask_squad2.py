"""Abstention quality and latency of `ask` on SQuAD 2.0: answerable vs unanswerable questions, offline.

    python bench/bench_ask_squad2.py [--questions 0] [--thresholds 0.3,0.4,0.5,0.6,0.7] [--retrieval bm25]

Corpus: every paragraph of the 8 SQuAD 2.0 dev articles in ../shared/datasets/squad2, one passage each. Each
question is asked with the default pipeline (B3: gate, extractive draft, verification, policy) and counted as
an abstention when the answer's confidence is insufficient_evidence. Positive class = "should abstain"
(is_impossible). Printed: accuracy, precision, recall and F1 of abstention at the configured gate threshold,
then the same for other query-coverage thresholds (the rest of the pipeline unchanged), and the latency of
`answer_question` per question (p50 / p95, corpus and backends loaded once, as in a server).

SQuAD 2.0's unanswerable questions were written by crowdworkers to look answerable from the same paragraph
(same entities, a changed detail), so a lexical gate is expected to do little better than chance here; the
figure is the honest baseline a trained NLI or an LLM must beat.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from squad2_data import write_articles

from veriground.answering.pipeline import AnswerBackends, answer_question
from veriground.backends.registry import build_nli
from veriground.config import IngestConfig, load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.retrieval.search import build_retriever


def load_squad(folder: Path) -> list[tuple[str, bool]]:
    """Write the articles; return (question, is_impossible) in file order."""
    return [(item.question, item.impossible) for item in write_articles(folder)]


def scores(predicted: list[bool], gold: list[bool]) -> str:
    tp = sum(p and g for p, g in zip(predicted, gold, strict=True))
    fp = sum(p and not g for p, g in zip(predicted, gold, strict=True))
    fn = sum(g and not p for p, g in zip(predicted, gold, strict=True))
    accuracy = sum(p == g for p, g in zip(predicted, gold, strict=True)) / len(gold)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    rate = sum(predicted) / len(predicted)
    return f"accuracy {accuracy:.3f}  precision {precision:.3f}  recall {recall:.3f}  F1 {f1:.3f}  abstained {rate:.1%}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=0, help="every k-th question so that N are asked (0: all)")
    parser.add_argument("--thresholds", default="0.3,0.4,0.5,0.6,0.7")
    parser.add_argument("--retrieval", default="bm25")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        docs = Path(tmp) / "squad2"
        docs.mkdir()
        questions = load_squad(docs)
        if args.questions:
            step = max(1, len(questions) // args.questions)
            questions = questions[::step][: args.questions]
        gold = [impossible for _, impossible in questions]
        base = load_config(overrides={"corpus.dir": Path(tmp) / "corpus", "retrieval.mode": args.retrieval})
        with CorpusStore(base.corpus.dir) as store:
            ingest_paths([docs], store, IngestConfig(min_passage_chars=1, max_passage_chars=100_000))
            backends = AnswerBackends(
                store=store, retriever=build_retriever(store, base), nli=build_nli(base.models), llm=None
            )
            answer_question("warm up the index", config=base, backends=backends)
            print(
                f"SQuAD 2.0 dev, 8 articles: {len(questions)} questions, {sum(gold)} unanswerable "
                f"({sum(gold) / len(gold):.1%}); retrieval {args.retrieval}, NLI {backends.nli.name}, offline"
            )
            for threshold in [float(value) for value in args.thresholds.split(",")]:
                config = base.model_copy(
                    update={"answer": base.answer.model_copy(update={"min_query_coverage": threshold})}
                )
                predicted, seconds = [], []
                for question, _ in questions:
                    started = time.perf_counter()
                    answer = answer_question(question, config=config, backends=backends)
                    seconds.append(time.perf_counter() - started)
                    predicted.append(answer.confidence.value == "insufficient_evidence")
                marker = "  (default)" if threshold == base.answer.min_query_coverage else ""
                print(f"gate {threshold:.2f}: {scores(predicted, gold)}{marker}")
                if marker:
                    ordered = sorted(seconds)
                    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
                    print(
                        f"  ask latency per question: p50 {statistics.median(seconds) * 1000:.1f} ms, "
                        f"p95 {p95 * 1000:.1f} ms, mean {statistics.fmean(seconds) * 1000:.1f} ms"
                    )


if __name__ == "__main__":
    main()
