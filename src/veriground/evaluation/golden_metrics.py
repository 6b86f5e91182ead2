"""The metrics of a golden-set run: predictions.jsonl rows -> summary metrics (each a value or the reason it has
none, with the rows it is over), the same metrics per domain, calibration bins and the groundedness counts behind
the groundedness figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from veriground.evaluation import metrics as m
from veriground.evaluation.citation_support import citation_quality
from veriground.schema import AnswerConfidence

# Answer confidence labels read as probabilities of "answered correctly" for ECE/Brier: seed 003 §7 sets the
# labels at 90 % (high) and 75 % (medium) verified claims; low is taken as a coin flip.
CONFIDENCE_PROBABILITY = {AnswerConfidence.HIGH: 0.9, AnswerConfidence.MEDIUM: 0.75, AnswerConfidence.LOW: 0.5}
QUERY_KINDS = ("answerable", "unanswerable", "contradiction")
# Where a drafted claim ended up, for the groundedness figure: stated in the answer and entailed by its
# citations, stated but not entailed, stated but not judged (the NLI failed), or not stated at all.
GROUNDEDNESS_OUTCOMES = ("grounded", "ungrounded", "unjudged", "withheld")

DEFINITIONS = {
    "graph.redundancy": "claim–evidence graph (seed 000 Stage 5): mean over kept drafted claims of the passages that "
    "support them (seed target 2–5)",
    "graph.source_diversity": "claim–evidence graph: over answered rows, distinct sources / distinct passages among "
    "the passages supporting their kept claims, averaged",
    "retrieval.recall_at_1": "mean over answerable rows of |gold ∩ top-1 retrieved| / |gold|",
    "retrieval.recall_at_5": "mean over answerable rows of |gold ∩ top-5 retrieved| / |gold|",
    "retrieval.mrr": "mean over answerable rows of 1 / rank of the first gold passage retrieved (0 if none)",
    "abstention.*": "answerable + unanswerable rows; positive = should abstain (kind unanswerable); abstained = "
    "the answer has an abstention_reason",
    "citation.gold_overlap_precision": "answered answerable rows: share of cited passage ids that are gold ids "
    "(gold-id overlap, NOT ALCE's NLI-judged citation precision)",
    "citation.gold_overlap_recall": "answered answerable rows: share whose gold ids include at least one cited "
    "passage (gold-id overlap, NOT ALCE's NLI-judged citation recall)",
    "citation.alce_recall": "answered rows that state a claim (any kind): per answer, share of its claims that "
    "the joined text of their cited passages entails (configured NLI, entailment >= "
    "0.60, seed 000; no citation = 0), averaged over answers (ALCE, Gao et al. 2023)",
    "citation.alce_precision": "same rows: per answer, share of its citations that count, averaged over answers; "
    "a citation does not count when its claim's citations do not entail the claim, or when it alone does not "
    "entail the claim and the others without it still do (ALCE)",
    "answer.correct_rate": "all answerable rows: share answered (not abstained) with a gold passage cited",
    "claims.ungrounded_rate": "claims stated in answers (any kind): share not entailed by their cited passages "
    "(ALCE recall failures over claims, not answers; an uncited claim is ungrounded)",
    "claims.verification_removed_rate": "drafted claims that verification checked, over all rows: share it "
    "removed (undefined when nothing was verified: B1, B2, answer.verify off)",
    "contradiction.handled_rate": "contradiction rows: share that abstained, were low confidence, reported "
    "conflicting evidence, or marked a claim Contradictory",
    "contradiction.reported_rate": "contradiction rows: share whose answer reports conflicting evidence "
    "(a caveat that the evidence disagrees with itself) or marks a claim Contradictory",
    "by_domain": "every metric again over the rows of one domain (the label a golden row's note opens with, "
    "evaluation.golden.golden_domain); n counts that domain's rows only",
    "calibration.*": "answered answerable + unanswerable rows; confidence high/medium/low read as 0.9/0.75/0.5 "
    "against 'answered correctly' (answerable and a gold passage cited); 10 equal-width bins",
}


Scored = dict[str, tuple[m.MetricValue, int]]  # metric name -> (value, rows it is over)


def summarize(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The metrics of a list of prediction rows, flat names -> {value | reason, n}, plus the calibration bins and
    the groundedness counts per query kind."""
    answerable = [r for r in rows if r["kind"] == "answerable"]
    decidable = [r for r in rows if r["kind"] in ("answerable", "unanswerable")]
    out: Scored = {
        **_retrieval_metrics(answerable),
        **_abstention_metrics(decidable),
        **_citation_metrics(rows, answerable),
        **_graph_metrics(rows),
        **_contradiction_metrics([r for r in rows if r["kind"] == "contradiction"]),
    }
    scored = [r for r in decidable if not r["abstained"] and r["confidence"] in CONFIDENCE_PROBABILITY]
    probabilities = [CONFIDENCE_PROBABILITY[AnswerConfidence(r["confidence"])] for r in scored]
    calibration = m.calibration(probabilities, [answered_correctly(r) for r in scored])
    out["calibration.ece"] = (calibration.ece, len(scored))
    out["calibration.brier"] = (calibration.brier, len(scored))
    counts = {kind: sum(1 for r in rows if r["kind"] == kind) for kind in QUERY_KINDS}
    return {
        "metrics": {name: {**value.to_json(), "n": n} for name, (value, n) in out.items()},
        "calibration_bins": [b.to_json() for b in calibration.bins],
        "groundedness": groundedness_counts(rows),
        "rows": {"total": len(rows), **counts},
    }


def _retrieval_metrics(answerable: Sequence[Mapping[str, Any]]) -> Scored:
    rankings = [[item["passage_id"] for item in r["retrieved"]] for r in answerable]
    gold = [set(r["gold_ids"]) for r in answerable]
    return {
        "retrieval.recall_at_1": (m.recall_at_k(rankings, gold, 1), len(answerable)),
        "retrieval.recall_at_5": (m.recall_at_k(rankings, gold, 5), len(answerable)),
        "retrieval.mrr": (m.mean_reciprocal_rank(rankings, gold), len(answerable)),
    }


def _abstention_metrics(decidable: Sequence[Mapping[str, Any]]) -> Scored:
    abstention = m.abstention_metrics(
        [r["kind"] == "unanswerable" for r in decidable], [r["abstained"] for r in decidable]
    )
    out = {
        f"abstention.{name}": (getattr(abstention, name), len(decidable))
        for name in ("accuracy", "precision", "recall", "f1", "balanced_accuracy")
    }
    out["abstention.rate"] = (abstention.abstention_rate, len(decidable))
    return out


def _citation_metrics(rows: Sequence[Mapping[str, Any]], answerable: Sequence[Mapping[str, Any]]) -> Scored:
    """Gold-id overlap of the answered answerable rows, ALCE over every answer that states a claim, correctness."""
    answered = [r for r in answerable if not r["abstained"]]
    cited = [pid for r in answered for pid in r["cited_ids"]]
    cited_gold = sum(1 for r in answered for pid in r["cited_ids"] if pid in r["gold_ids"])
    quality = citation_quality([r.get("answer_claims", []) for r in rows if not r["abstained"]])
    return {
        "citation.gold_overlap_precision": (
            m.MetricValue.ratio(cited_gold, len(cited), "no answered answerable row cites a passage"),
            len(answered),
        ),
        "citation.gold_overlap_recall": (
            m.MetricValue.ratio(
                sum(map(answered_correctly, answered)), len(answered), "no answerable row was answered"
            ),
            len(answered),
        ),
        "citation.alce_recall": (quality.recall, quality.answers),
        "citation.alce_precision": (quality.precision, quality.answers),
        "answer.correct_rate": (
            m.MetricValue.ratio(sum(map(answered_correctly, answerable)), len(answerable), "no answerable rows"),
            len(answerable),
        ),
        "claims.ungrounded_rate": (quality.ungrounded_rate, quality.claims),
    }


def _graph_metrics(rows: Sequence[Mapping[str, Any]]) -> Scored:
    """The claim-evidence graph of the kept claims, and the share of verified claims verification removed."""
    checked = [c for r in rows for c in r["claims"]]
    kept = [c for r in rows for c in r["claims"] if c["kept"]]
    diversities = [_source_diversity(r) for r in rows if not r["abstained"]]
    diversity = [value for value in diversities if value is not None]
    return {
        "graph.redundancy": (
            m.MetricValue.ratio(
                sum(len(c.get("supporting_passages", ())) for c in kept), len(kept), "no claim was kept"
            ),
            len(kept),
        ),
        "graph.source_diversity": (
            m.MetricValue.ratio(sum(diversity), len(diversity), "no answered row has a supported claim"),
            len(diversity),
        ),
        "claims.verification_removed_rate": (
            m.MetricValue.ratio(
                sum(1 for c in checked if not c["kept"]), len(checked), "no drafted claim was verified"
            ),
            len(checked),
        ),
    }


def _contradiction_metrics(probes: Sequence[Mapping[str, Any]]) -> Scored:
    handled = sum(
        1 for r in probes if r["abstained"] or r["confidence"] == AnswerConfidence.LOW or r["reports_conflict"]
    )
    reported = sum(1 for r in probes if r["reports_conflict"])
    return {
        "contradiction.handled_rate": (m.MetricValue.ratio(handled, len(probes), "no contradiction rows"), len(probes)),
        "contradiction.reported_rate": (
            m.MetricValue.ratio(reported, len(probes), "no contradiction rows"),
            len(probes),
        ),
    }


def summarize_by_domain(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, Any]]:
    """`summarize` over each domain's rows (a row's "domain"), in name order: its row counts and metrics."""
    domains = sorted({row["domain"] for row in rows})
    out = {}
    for domain in domains:
        summary = summarize([row for row in rows if row["domain"] == domain])
        out[domain] = {"rows": summary["rows"], "metrics": summary["metrics"]}
    return out


def groundedness_counts(rows: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    """Per query kind (and "all"): how many drafted claims ended in each of GROUNDEDNESS_OUTCOMES."""
    table = {kind: dict.fromkeys(GROUNDEDNESS_OUTCOMES, 0) for kind in (*QUERY_KINDS, "all")}
    for row in rows:
        stated = row.get("answer_claims", []) if not row["abstained"] else []
        found = {
            "grounded": sum(1 for c in stated if c.get("citations_entail") is True),
            "ungrounded": sum(1 for c in stated if c.get("citations_entail") is False),
            "unjudged": sum(1 for c in stated if c.get("citations_entail") is None),
        }
        found["withheld"] = max(row.get("drafted_claims", 0) - len(stated), 0)
        for kind in (row["kind"], "all"):
            for outcome, count in found.items():
                table[kind][outcome] += count
    return table


def answered_correctly(row: Mapping[str, Any]) -> bool:
    return row["kind"] == "answerable" and not row["abstained"] and bool(set(row["cited_ids"]) & set(row["gold_ids"]))


def _source_diversity(row: Mapping[str, Any]) -> float | None:
    sources = {item["passage_id"]: item.get("source") for item in row["retrieved"]}
    passages = {pid for claim in row["claims"] if claim["kept"] for pid in claim.get("supporting_passages", ())}
    return len({sources.get(pid, pid) for pid in passages}) / len(passages) if passages else None
