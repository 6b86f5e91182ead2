"""`veriground eval critic`: the labelled critic set (default: the shipped one) + a corpus for L3 (default: the
bundled demo corpus in a temp dir) -> critic mode on every snippet of a split -> per-label P/R/F1, macro-F1,
exact-match accuracy and the share of neutral snippets without any finding -> runs/<run id>/.

Scores are per snippet: a snippet's predicted labels are the labels of its findings, compared with its gold
labels. The run id hashes the set, the corpus, the tier and the config, so a rerun writes the same bytes (the
run timestamp lives only in manifest.json).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from veriground import __version__
from veriground.config import Config
from veriground.errors import InputFileError
from veriground.evaluation import metrics as m
from veriground.evaluation.run_files import write_run
from veriground.schema import CRITIC_LABELS, CriticExample, CriticReport
from veriground.text_input import read_jsonl_records

CRITIC_SET_FILE = "critic_set.jsonl"
RUN_ID_CHARS = 12
ROW_FIELDS = ", ".join(CriticExample.model_fields)
DEFINITIONS = {
    "critic.<label>.precision": "snippets predicted with the label that carry it in gold / snippets predicted with it",
    "critic.<label>.recall": "snippets carrying the label in gold that were predicted with it / gold snippets with it",
    "critic.<label>.f1": "2TP / (2TP + FP + FN) per label over snippets",
    "critic.macro_f1": "mean of the six per-label F1 values (labels with an undefined F1 are left out, and named)",
    "critic.exact_match": "snippets whose predicted label set equals the gold label set / snippets",
    "critic.neutral_without_finding": "neutral gold snippets (no label) with no finding at all / neutral snippets",
}


@dataclass(frozen=True)
class CriticRunResult:
    run_id: str
    run_dir: Path
    summary: dict[str, Any]


def demo_critic_set_path() -> Any:
    return resources.files("veriground") / "eval_data" / CRITIC_SET_FILE


def read_critic_set(path: Path) -> list[CriticExample]:
    """Parse and validate a JSONL critic set; errors name the file, the line and the field."""
    return read_jsonl_records(path, "the critic set", _parse_row, fields=ROW_FIELDS)


def run_critic_eval(
    *, config: Config, critic_set: Path | None, corpus: Path | None, split: str, tier: int, runs_dir: Path
) -> CriticRunResult:
    """Critique every snippet of `split` (dev, test or all) and write the run folder; the store, retriever, NLI
    and (tier 2) LLM come from a Workspace over the corpus."""
    from veriground.critic import CriticBackends, corpus_verifier, critique_text
    from veriground.critic.lexicons import lexicon_checksums
    from veriground.evaluation.golden_run import corpus_sha256, given_or_demo_corpus, with_corpus_dir
    from veriground.workspace import Workspace

    with ExitStack() as stack:
        set_path = (
            critic_set if critic_set is not None else stack.enter_context(resources.as_file(demo_critic_set_path()))
        )
        set_bytes = Path(str(set_path)).read_bytes()
        rows = [row for row in read_critic_set(Path(str(set_path))) if split == "all" or row.split == split]
        corpus, corpus_label = given_or_demo_corpus(stack, corpus, config, prefix="veriground-critic-")
        config = with_corpus_dir(config, corpus)
        workspace = stack.enter_context(Workspace(config))
        store = workspace.store
        corpus_sha = corpus_sha256(store)
        set_sha = hashlib.sha256(set_bytes).hexdigest()
        run_id = make_critic_run_id(config, set_sha, corpus_sha, split, tier)
        nli = workspace.nli
        llm = workspace.llm if tier == 2 else None
        backends = CriticBackends(nli, corpus_verifier(config, store, workspace.retriever, nli), llm)
        reports = [critique_text(row.text, config=config, backends=backends, tier=tier) for row in rows]
        predictions = [predict_row(row, report) for row, report in zip(rows, reports, strict=True)]
        summary = summarize_critic(predictions)
        summary.update(run_id=run_id, split=split, tier=tier, definitions=DEFINITIONS)
        warnings = sorted({warning for report in reports for warning in report.manifest.warnings})
        backends_info = sorted(
            {json.dumps(i.model_dump(mode="json"), sort_keys=True) for r in reports for i in r.manifest.backends}
        )
        manifest = {
            "run_id": run_id,
            "run_timestamp": datetime.now(UTC).isoformat(timespec="seconds"),
            "package_version": __version__,
            "config": config.model_dump(mode="json"),
            "backends": [json.loads(item) for item in backends_info],
            "critic_set": {"path": str(critic_set) if critic_set else "bundled critic set", "sha256": set_sha},
            "corpus": {"source": corpus_label, "passages_sha256": corpus_sha},
            "lexicon_sha256": lexicon_checksums(),
            "split": split,
            "tier": tier,
            "snippets": len(rows),
            "warnings": warnings,
            "seed": config.llm.seed,
        }
        run_dir = runs_dir / run_id
        write_run(run_dir, summary=summary, predictions=predictions, manifest=manifest)
        return CriticRunResult(run_id=run_id, run_dir=run_dir, summary=summary)


def predict_row(row: CriticExample, report: CriticReport) -> dict[str, Any]:
    """One predictions.jsonl row: gold labels, tier 1's labels, the final labels and each final finding."""
    return {
        "id": row.id,
        "split": row.split,
        "gold": list(row.labels),
        "tier1": list(report.tier1.labels),
        "tier2": None if report.tier2 is None else {"status": report.tier2.status, "labels": list(report.tier2.labels)},
        "predicted": list(report.summary.labels),
        "findings": [
            {"label": f.label, "rule": f.rule, "trigger": f.trigger, "tier": f.tier, "sentence": f.sentence_index}
            for f in report.findings
        ],
        "l3_checked": next(check.status for check in report.checks if check.label == "L3") == "checked",
    }


def summarize_critic(predictions: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The metrics of a run over its prediction rows (see DEFINITIONS)."""
    out: dict[str, Any] = {}
    f1_values, undefined_labels = [], []
    for label in CRITIC_LABELS:
        counts = m.confusion_counts(
            [label in row["gold"] for row in predictions], [label in row["predicted"] for row in predictions]
        )
        f1 = m.f1_score(counts)
        out[f"critic.{label}.precision"] = _metric(m.precision(counts), counts.tp + counts.fp)
        out[f"critic.{label}.recall"] = _metric(m.recall(counts), counts.tp + counts.fn)
        out[f"critic.{label}.f1"] = _metric(f1, len(predictions))
        if f1.value is None:
            undefined_labels.append(label)
        else:
            f1_values.append(f1.value)
    macro = m.MetricValue.ratio(sum(f1_values), len(f1_values), "no label has a defined F1")
    out["critic.macro_f1"] = _metric(macro, len(f1_values))
    exact = sum(1 for row in predictions if set(row["gold"]) == set(row["predicted"]))
    out["critic.exact_match"] = _metric(m.MetricValue.ratio(exact, len(predictions), "no rows"), len(predictions))
    neutral = [row for row in predictions if not row["gold"]]
    clean = sum(1 for row in neutral if not row["findings"])
    out["critic.neutral_without_finding"] = _metric(
        m.MetricValue.ratio(clean, len(neutral), "no neutral rows"), len(neutral)
    )
    return {
        "metrics": out,
        "rows": {"total": len(predictions), "neutral": len(neutral), "labelled": len(predictions) - len(neutral)},
        "macro_f1_labels_left_out": undefined_labels,
    }


def make_critic_run_id(config: Config, set_sha: str, corpus_sha: str, split: str, tier: int) -> str:
    """critic-t<tier>-<split>-<hash of set, corpus and config without its corpus path>."""
    resolved = config.model_dump(mode="json")
    resolved["corpus"].pop("dir", None)
    payload = json.dumps([set_sha, corpus_sha, split, tier, resolved], sort_keys=True)
    return f"critic-t{tier}-{split}-{hashlib.sha256(payload.encode('utf-8')).hexdigest()[:RUN_ID_CHARS]}"


def _metric(value: m.MetricValue, n: int) -> dict[str, Any]:
    return {**value.to_json(), "n": n}


def _parse_row(data: dict[str, Any], where: str) -> CriticExample:
    try:
        row = CriticExample.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "the row"
        raise InputFileError(where, f"{field}: {first['msg']}", f"fields: {ROW_FIELDS}") from None
    if len(set(row.labels)) != len(row.labels):
        raise InputFileError(where, f"labels repeat a label: {list(row.labels)}", "list each label once")
    return row
