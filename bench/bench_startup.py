"""CLI start-up: wall time of `veriground verify` on 10 claims against the demo corpus, and how much of it is
start-up rather than the NLI or the verification itself.

    python bench/bench_startup.py [--runs 5] [--nli lexical|veriground-nli|FOLDER]

Every figure is a fresh process on a warm disk (one untimed run first), median of --runs:

- `import veriground.cli`, `veriground --help` and `veriground verify` (10 claims, BM25 over the ingested demo corpus);
- in one fresh process: building the NLI, the first verify (imports on first use included) and its NLI predict
  seconds, then the same verify again with the NLI score cache and text memos emptied (the work alone);
- start-up above the NLI = verify wall - (NLI build + NLI predict in the first verify); the goal is <= 2 s;
- `python -X importtime -m veriground verify ...`: the slowest top-level imports, and which of the heavy packages
  (torch, transformers, sklearn, sympy, pint, networkx, matplotlib, fastapi, ...) each command imports;
- whether `verify` rebuilt the BM25 index (it must not while the store's generation has not moved).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent  # WORK_PROBE imports bench_verify from here
GOAL_SECONDS = 2.0  # issue 20: verify of 10 claims <= 2 s wall above the NLI cost
HEAVY = (
    "torch",
    "transformers",
    "sklearn",
    "sympy",
    "pint",
    "networkx",
    "matplotlib",
    "fastapi",
    "uvicorn",
    "httpx",
    "onnxruntime",
    "scipy",
    "ray",
)
TEN_CLAIMS = """\
A graph is a pair consisting of a set of vertices and a set of edges.
The acceleration due to gravity near Earth's surface is 9.8 m/s^2.
Kinetic energy does not depend on the speed of an object.
Merge sort runs in O(n log n) time.
A tree is a connected graph with no cycles.
Work is force times distance.
Quicksort has worst-case time complexity O(n^2).
Travel must be approved before the trip.
Momentum is mass times velocity.
The union of two sets contains every element of either set.
"""
# Run in a fresh interpreter: which heavy packages a command imports.
MODULES_PROBE = """
import sys
from veriground.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
sys.stderr.write("\\nMODULES " + " ".join(sorted({m.split('.')[0] for m in sys.modules})) + "\\n")
"""
# Run in a fresh interpreter: NLI build, a cold verify with its NLI seconds, then the same verify again with the NLI
# score cache and the text memos emptied (bench_verify.clear_nli_cache). argv: corpus, claims file, NLI, bench folder.
WORK_PROBE = """
import json, sys, time
started = time.perf_counter()
from pathlib import Path
from veriground.backends.registry import build_nli
from veriground.config import load_config
from veriground.corpus.store import CorpusStore
from veriground.engine import verify_text
from veriground.evidence.gather import CorpusEvidence
from veriground.retrieval.search import build_retriever
imported = time.perf_counter()
config = load_config(None, {"corpus.dir": Path(sys.argv[1]), "models.nli": sys.argv[3]})
text = Path(sys.argv[2]).read_text(encoding="utf-8")
nli = build_nli(config.models)
built = time.perf_counter()
sys.path.insert(0, sys.argv[4])
from bench_verify import TimedNLI, clear_nli_cache  # untimed: after the NLI build, before the first verify

def once():
    timed = TimedNLI(nli)
    clear_nli_cache(nli)
    t = time.perf_counter()
    with CorpusStore(config.corpus.dir) as store:
        source = CorpusEvidence(store, config.retrieval, build_retriever(store, config))
        report = verify_text(text, config=config, source=source, nli=timed)
    return time.perf_counter() - t, timed.seconds, len(report.claims)

cold, cold_nli, claims = once()
warm, warm_nli, _ = once()
print(json.dumps({"imports": imported - started, "nli_build": built - imported, "cold": cold, "cold_nli": cold_nli,
                  "warm": warm, "warm_nli": warm_nli, "claims": claims}))
"""


def wall(argv: list[str], runs: int, env: dict[str, str]) -> list[float]:
    """Seconds of each of `runs` runs of `argv` (after one untimed run that warms the disk cache)."""
    subprocess.run(argv, env=env, capture_output=True, check=True)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, env=env, capture_output=True, check=True)
        times.append(time.perf_counter() - started)
    return times


def heavy_modules(args: list[str], env: dict[str, str]) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", MODULES_PROBE, *args], env=env, capture_output=True, text=True, check=True
    )
    loaded = done.stderr.rsplit("MODULES ", 1)[1].split()
    return [name for name in HEAVY if name in loaded]


def slowest_imports(args: list[str], env: dict[str, str], count: int = 8) -> tuple[float, list[tuple[str, float]]]:
    """(total seconds of top-level imports, the `count` slowest top-level packages) under -X importtime."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "veriground", *args],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    top: dict[str, float] = {}
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        _, cumulative, name = line.split("|")
        if name.startswith(" ") and not name.startswith("  "):  # depth 0: one space after the bar
            try:
                top[name.strip()] = top.get(name.strip(), 0.0) + int(cumulative) / 1e6
            except ValueError:
                continue  # the header line
    ranked = sorted(top.items(), key=lambda item: -item[1])
    return sum(top.values()), ranked[:count]


def index_mtime(corpus: Path) -> float:
    return (corpus / "bm25" / "manifest.json").stat().st_mtime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--nli", default="lexical")
    args = parser.parse_args()
    env = {**os.environ, "VERIGROUND_NO_PROGRESS": "1"}
    with tempfile.TemporaryDirectory() as tmp, resources.as_file(resources.files("veriground") / "demo_corpus") as root:
        corpus = Path(tmp) / "corpus"
        claims = Path(tmp) / "ten.md"
        claims.write_text(TEN_CLAIMS, encoding="utf-8")
        cli = [sys.executable, "-m", "veriground"]
        subprocess.run([*cli, "ingest", str(root), "--corpus", str(corpus)], env=env, capture_output=True, check=True)
        verify_args = ["verify", str(claims), "--corpus", str(corpus), "--nli", args.nli]
        mtime_before = index_mtime(corpus)

        rows = [
            ("import veriground.cli", wall([sys.executable, "-c", "import veriground.cli"], args.runs, env)),
            ("veriground --help", wall([*cli, "--help"], args.runs, env)),
            ("veriground verify (10 claims)", wall([*cli, *verify_args], args.runs, env)),
        ]
        rebuilt = index_mtime(corpus) != mtime_before
        probe = subprocess.run(
            [sys.executable, "-c", WORK_PROBE, str(corpus), str(claims), args.nli, str(BENCH_DIR)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        work = json.loads(probe.stdout)

        print(f"CLI start-up, NLI {args.nli}, median of {args.runs} fresh processes (min in brackets)")
        print(f"{'command':<34} {'wall s':>8}")
        for label, times in rows:
            print(f"{label:<34} {statistics.median(times):8.2f} ({min(times):.2f})")
        verify_wall = statistics.median(rows[-1][1])
        nli_cost = work["nli_build"] + work["cold_nli"]
        print(f"\nin one fresh process ({work['claims']} claims):")
        print(f"  imports of the verify path      {work['imports']:6.2f} s")
        print(f"  NLI build                       {work['nli_build']:6.2f} s")
        print(f"  first verify                    {work['cold']:6.2f} s (NLI predict {work['cold_nli']:.2f} s)")
        print(f"  same verify again (work alone)  {work['warm']:6.2f} s (NLI predict {work['warm_nli']:.2f} s)")
        above = verify_wall - nli_cost
        verdict = "meets" if above <= GOAL_SECONDS else "misses"
        print(
            f"\nverify wall above the NLI cost: {verify_wall:.2f} - {nli_cost:.2f} = {above:.2f} s ({verdict} the "
            f"{GOAL_SECONDS:.0f} s goal); of it, the verification work itself: {work['warm'] - work['warm_nli']:.2f} s"
        )
        print(f"BM25 index rebuilt by verify: {'yes' if rebuilt else 'no'}")

        print("\nheavy packages imported:")
        for label, command in (("--help", ["--help"]), ("config", ["config"]), ("verify", verify_args)):
            print(f"  {label:<8} {', '.join(heavy_modules(command, env)) or '(none)'}")
        total, slowest = slowest_imports(verify_args, env)
        print(f"\n-X importtime, verify: {total:.2f} s of imports; slowest top-level packages:")
        for name, seconds in slowest:
            print(f"  {name:<40} {seconds:6.3f} s")


if __name__ == "__main__":
    main()
