"""FEVER-Symmetric end to end through `verify --evidence`: each claim against its one evidence sentence.

    python bench/eval_fever_symmetric.py [--split dev|test] [--limit N] [--min-supporting-sources 1]

Each row becomes an evidence pack of one passage (source "wikipedia") and goes through the same engine the
CLI uses (claims -> pack retrieval -> signals -> rules). Prediction: SUPPORTS when every atomic claim is
Supported, else REFUTES. A pack of one sentence can never meet the seed's 2-source rule, so the script runs
with verification.min_supporting_sources=1 unless told otherwise (and says so). Prints balanced accuracy
(the FEVER-Symmetric authors' dev metric is accuracy on a balanced set, so the two agree up to rounding),
per-class recall, the verdict/rule distribution, and claims per second.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from veriground.backends.lexical_nli import LexicalNLIModel
from veriground.config import load_config
from veriground.engine import verify_text
from veriground.evidence.gather import PackEvidence
from veriground.schema import EvidencePack, PackPassage

DATA = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "fever-symmetric"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--limit", type=int, default=0, help="first N rows only (0: all)")
    parser.add_argument("--min-supporting-sources", type=int, default=1)
    args = parser.parse_args()
    rows = [json.loads(line) for line in (DATA / f"fever_symmetric_{args.split}.jsonl").read_text().splitlines()]
    if args.limit:
        rows = rows[: args.limit]
    config = load_config(overrides={"verification.min_supporting_sources": args.min_supporting_sources})
    nli = LexicalNLIModel()
    gold_pred: list[tuple[str, str]] = []
    verdicts: Counter[str] = Counter()
    rules: Counter[str] = Counter()
    claims = 0
    started = time.perf_counter()
    for row in rows:
        pack = EvidencePack(passages=(PackPassage(text=row["evidence"], source_id="wikipedia"),))
        report = verify_text(row["claim"], config=config, source=PackEvidence(pack, config.retrieval), nli=nli)
        decisions = report.annotated_answer.claims
        claims += len(decisions)
        verdicts.update(decision.status for decision in decisions)
        rules.update(decision.rule for decision in decisions)
        supported = all(decision.status == "Supported" for decision in decisions)
        gold_pred.append((row["label"], "SUPPORTS" if supported else "REFUTES"))
    elapsed = time.perf_counter() - started
    recall = {
        label: sum(1 for gold, pred in gold_pred if gold == label and pred == label)
        / max(1, sum(1 for gold, _ in gold_pred if gold == label))
        for label in ("SUPPORTS", "REFUTES")
    }
    balanced = sum(recall.values()) / 2
    print(f"FEVER-Symmetric {args.split}: {len(rows)} rows, {claims} atomic claims, NLI {nli.name}")
    print(f"verification.min_supporting_sources = {args.min_supporting_sources} (one evidence sentence per claim)")
    print(
        f"balanced accuracy {balanced:.3f}  (recall SUPPORTS {recall['SUPPORTS']:.3f}, REFUTES {recall['REFUTES']:.3f})"
    )
    print("verdicts: " + ", ".join(f"{name} {count}" for name, count in sorted(verdicts.items())))
    print("rules:    " + ", ".join(f"{name} {count}" for name, count in sorted(rules.items())))
    print(f"{claims / elapsed:.0f} claims/s ({elapsed:.1f} s)")


if __name__ == "__main__":
    main()
