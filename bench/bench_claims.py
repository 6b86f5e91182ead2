"""Student claims, true and false, verified against the four domain corpora: how often a false claim is Supported.

    python bench/bench_claims.py [--nli veriground-nli] [--min-sources 1] [--split dev|heldout|all] [--show]
                                 [--json out.json] [--aggregator-path FILE]

bench/data/domain_claims.jsonl holds 190 one-line claims a student or an analyst might write, in the words an AI
tutor would use, not the textbooks' (physics, algorithms, discrete maths, the 18F handbook), each marked true or
false by hand: 70 true, 120 false, most false ones a true one with a word swapped, negated or reversed ("Like
charges attract each other", "A stack is a first-in first-out structure"). "dev" is the set session 12 worked from;
"heldout" (40 rows) was written before any change was measured on it and is read only to report. The corpus is
../shared/datasets/domain-corpora ingested with the default config; each claim is verified on its own with the
default config except `--min-supporting-sources` (1 by default: one textbook is the corpus), and a claim that splits
into several is as good as its worst part. Printed per split and truth value: the count of each verdict, and two
figures: false claims Supported (lower is better) and true claims Supported (higher is better). The synthetic edits
of `bench_accuracy.py --property` change a number or a word at random; these are the slips a reader makes.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

from veriground.backends.registry import build_nli
from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.engine import verify_text
from veriground.evidence.gather import CorpusEvidence
from veriground.schema.vocabulary import DisplayVerdict, worst_verdict

DATASETS = Path(__file__).resolve().parents[2] / "shared" / "datasets"
CLAIMS = Path(__file__).resolve().parent / "data" / "domain_claims.jsonl"
VERDICTS = [verdict.value for verdict in DisplayVerdict]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nli", default=None, help="models.nli (default: the shipped model)")
    parser.add_argument("--min-sources", type=int, default=1, help="verification.min_supporting_sources")
    parser.add_argument("--split", choices=("dev", "heldout", "all"), default="all")
    parser.add_argument("--show", action="store_true", help="print every false claim Supported, every true one not")
    parser.add_argument("--datasets", type=Path, default=DATASETS)
    parser.add_argument("--json", type=Path, help="write each claim's verdict and rule here")
    parser.add_argument("--aggregator-path", type=Path, help="verification.aggregator_path (a retrained model's fit)")
    args = parser.parse_args()
    rows = [json.loads(line) for line in CLAIMS.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [row for row in rows if args.split in ("all", row["split"])]
    overrides = {"verification.min_supporting_sources": args.min_sources}
    if args.nli:
        overrides["models.nli"] = args.nli
    if args.aggregator_path:
        overrides["verification.aggregator_path"] = str(args.aggregator_path)
    config = load_config(None, overrides, environ={})
    nli = build_nli(config.models)
    with tempfile.TemporaryDirectory() as scratch:
        store = CorpusStore(Path(scratch) / "domain")
        ingest_paths([args.datasets / "domain-corpora"], store, config.ingest)
        source = CorpusEvidence(store, config.retrieval)
        for row in rows:
            report = verify_text(row["claim"], config=config, source=source, nli=nli)
            decisions = [claim.decision for claim in report.claims]
            row["verdict"] = worst_verdict(decision.status for decision in decisions) or DisplayVerdict.UNSUPPORTED
            row["rules"] = [str(decision.rule) for decision in decisions]
    _print_table(rows, config.models.nli, args.min_sources)
    if args.show:
        for row in rows:
            if (row["verdict"] == DisplayVerdict.SUPPORTED) != row["true"]:
                sys.stdout.write(f"{'true ' if row['true'] else 'false'} {row['verdict']:<15} {row['claim']}\n")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    return 0


def _print_table(rows: list[dict], nli: str, min_sources: int) -> None:
    sys.stdout.write(f"NLI {nli}, min_supporting_sources {min_sources}\n")
    sys.stdout.write("split   | truth | rows | " + " | ".join(VERDICTS) + " | Supported share\n")
    for split in sorted({row["split"] for row in rows}):
        for truth in (True, False):
            group = [row for row in rows if row["split"] == split and row["true"] is truth]
            if not group:
                continue
            counts = Counter(str(row["verdict"]) for row in group)
            share = counts[DisplayVerdict.SUPPORTED.value] / len(group)
            cells = " | ".join(str(counts[verdict]) for verdict in VERDICTS)
            label = "true" if truth else "false"
            sys.stdout.write(f"{split:<7} | {label:<5} | {len(group):>4} | {cells} | {share:.3f}\n")


if __name__ == "__main__":
    raise SystemExit(main())
