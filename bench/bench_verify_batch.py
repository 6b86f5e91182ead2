"""verify-batch acceptance and rates: 2,000 rows against the demo corpus, on the local pool and on Ray.

    python bench/bench_verify_batch.py [--rows 2000] [--workers N] [--nli lexical] [--no-ray]

Rows are sentences of the demo corpus (fixed seed): copied, with a number changed or a negation inserted, or with
their words shuffled; every 10th row brings its own evidence pack, and the middle row is malformed JSON. It runs
the `veriground verify-batch` command as a user would and checks, exiting 1 on a failure:

1. the local pool (--workers, default one per core) finishes; the malformed row is an error record naming its
   line, and every other row has a report;
2. `--ray local` writes the same bytes;
3. a run killed (SIGKILL) once half the records are written, then run again, skips the rows it kept, verifies
   only the rest, and ends with the same bytes.

It prints rows/s and claims/s of each run, the rate of one worker (--max-rows on one process, after the models are
loaded), and what 10^7 claims would cost on N nodes at that per-core rate.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

from bench_verify import PLAIN_SENTENCE, perturbed

from veriground.batch import default_workers
from veriground.workspace import Workspace

SEED = 2000
CLAIMS_TARGET = 10**7
NODE_CORES = (16, 64)  # common cloud node sizes the cost table is printed for


def make_rows(sentences: list[str], count: int) -> list[str]:
    """`count` JSONL lines: copied, perturbed and shuffled sentences; a pack every 10th row; the middle row broken."""
    rng = random.Random(SEED)
    lines = []
    for index, sentence in enumerate(perturbed(sentences, count, rng)):
        row: dict[str, object] = {"id": f"row-{index:05d}", "text": sentence}
        if index % 10 == 9:
            row["evidence"] = [{"text": rng.choice(sentences), "source_id": "bench-pack"}]
        lines.append(json.dumps(row, ensure_ascii=False))
    lines[count // 2] = '{"id": "row-broken", "text": "unterminated'
    return lines


def corpus_sentences(workspace: Workspace) -> list[str]:
    texts = [
        chunk.text
        for query in ("energy", "graph", "sort", "travel", "leave", "force", "set")
        for chunk in workspace.search(query, 50)
    ]
    sentences = {part.strip() for text in texts for part in re.split(r"(?<=[.])\s+", text)}
    return sorted(sentence for sentence in sentences if PLAIN_SENTENCE.match(sentence))


def batch_command(source: Path, out: Path, corpus: Path, nli: str, *options: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "veriground.cli",
        "verify-batch",
        str(source),
        "--out",
        str(out),
        "--corpus",
        str(corpus),
        "--nli",
        nli,
        *options,
    ]


def timed(argv: list[str]) -> tuple[float, dict]:
    env = {**os.environ, "VERIGROUND_NO_PROGRESS": "1"}
    started = time.perf_counter()
    done = subprocess.run([*argv, "--json"], env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"FAIL: {' '.join(argv)} exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return seconds, json.loads(done.stdout)


def claims_in(path: Path) -> int:
    return sum(len(json.loads(line).get("report", {}).get("claims", [])) for line in path.open(encoding="utf-8"))


def kill_halfway(argv: list[str], out: Path, rows: int) -> int:
    """Start the run, SIGKILL it once half the rows are written; the number of complete records it left."""
    env = {**os.environ, "VERIGROUND_NO_PROGRESS": "1"}
    log = out.with_suffix(".stderr")
    process = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=log.open("wb"), start_new_session=True)
    while process.poll() is None and (not out.exists() or out.read_bytes().count(b"\n") < rows // 2):
        time.sleep(0.05)
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)  # the pool's workers too
    process.wait()
    if not out.exists():
        sys.exit(f"FAIL: the run to kill exited {process.returncode} first: {log.read_text()[-800:]}")
    return out.read_bytes().count(b"\n")


def first_difference(left: Path, right: Path) -> str:
    left_lines, right_lines = left.read_text().splitlines(), right.read_text().splitlines()
    for number, (one, other) in enumerate(zip(left_lines, right_lines, strict=False), start=1):
        if one != other:
            at = next(index for index, (a, b) in enumerate(zip(one, other, strict=False)) if a != b)
            start = max(0, at - 80)
            return f"line {number}, character {at}: {one[start : at + 80]!r} vs {other[start : at + 80]!r}"
    return f"{len(left_lines)} vs {len(right_lines)} lines"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--workers", type=int, default=default_workers())
    parser.add_argument("--nli", default="lexical")
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray run")
    parser.add_argument("--keep", type=Path, help="work in this (new) folder and keep it, for a look at the files")
    args = parser.parse_args()
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as tmp, resources.as_file(resources.files("veriground") / "demo_corpus") as root:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        corpus = folder / "corpus"
        with Workspace.open(corpus, models__nli=args.nli) as workspace:
            workspace.ingest([root])
            sentences = corpus_sentences(workspace)
        source = folder / "in.jsonl"
        source.write_text("\n".join(make_rows(sentences, args.rows)) + "\n", encoding="utf-8")
        workers = str(args.workers)
        print(f"{args.rows} rows from {len(sentences)} demo-corpus sentences; NLI {args.nli}; {workers} workers")

        # One worker on 40 rows, then on 340 rows, from scratch: the difference is 300 rows without start-up.
        short, long = folder / "one-short.jsonl", folder / "one-long.jsonl"
        short_seconds, _ = timed(batch_command(source, short, corpus, args.nli, "--workers", "1", "--max-rows", "40"))
        long_seconds, _ = timed(batch_command(source, long, corpus, args.nli, "--workers", "1", "--max-rows", "340"))
        seconds = long_seconds - short_seconds
        rows_between = sum(1 for _ in long.open()) - sum(1 for _ in short.open())
        per_core_claims = (claims_in(long) - claims_in(short)) / seconds
        per_core_rows = rows_between / seconds
        print(
            f"one worker, start-up ({short_seconds:.1f} s for 40 rows) taken off: {per_core_rows:.1f} rows/s, "
            f"{per_core_claims:.1f} claims/s"
        )

        local = folder / "local.jsonl"
        seconds, summary = timed(batch_command(source, local, corpus, args.nli, "--workers", workers))
        claims = claims_in(local)
        print(
            f"local pool: {seconds:.1f} s wall, {args.rows / seconds:.1f} rows/s, {claims / seconds:.1f} claims/s "
            f"({claims} claims), summary {summary}"
        )
        records = [json.loads(line) for line in local.open(encoding="utf-8")]
        broken = [record for record in records if "error" in record]
        if [record["line"] for record in broken] != [args.rows // 2 + 1] or len(records) != args.rows:
            failures.append(f"expected one error record, at line {args.rows // 2 + 1}; got {broken}")
        else:
            print(f"malformed row: line {broken[0]['line']}: {broken[0]['error']}")

        if not args.no_ray:
            on_ray = folder / "ray.jsonl"
            seconds, summary = timed(
                batch_command(source, on_ray, corpus, args.nli, "--ray", "local", "--workers", workers)
            )
            same = on_ray.read_bytes() == local.read_bytes()
            print(f"--ray local: {seconds:.1f} s wall (Ray start-up included), identical to local: {same}")
            if not same:
                print(f"  first differing row: {first_difference(local, on_ray)}")
                failures.append("Ray output differs from the local pool's")

        killed = folder / "killed.jsonl"
        argv = batch_command(source, killed, corpus, args.nli, "--workers", workers)
        kept = kill_halfway(argv, killed, args.rows)
        seconds, summary = timed(argv)
        same = killed.read_bytes() == local.read_bytes()
        print(
            f"killed at {kept} records; rerun: skipped {summary['skipped']}, verified {summary['verified']}, "
            f"failed {summary['failed']} in {seconds:.1f} s; identical to the uninterrupted run: {same}"
        )
        if not same or summary["skipped"] != kept or summary["verified"] + summary["failed"] != args.rows - kept:
            failures.append("the resumed run redid rows or wrote other bytes")

    print(
        f"\n10^7 claims at {per_core_claims:.1f} claims/s per core ({args.nli} NLI): "
        f"{CLAIMS_TARGET / per_core_claims / 3600:,.0f} core-hours"
    )
    for cores in NODE_CORES:
        for nodes in (1, 10, 100):
            hours = CLAIMS_TARGET / (per_core_claims * cores * nodes) / 3600
            print(f"  {nodes:>3} nodes x {cores} cores: {hours:8.2f} h wall")
    if failures:
        sys.exit("FAIL: " + "; ".join(failures))


if __name__ == "__main__":
    main()
