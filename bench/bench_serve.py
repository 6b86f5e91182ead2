"""Bounded load on `veriground serve` over loopback: N concurrent clients POST a 10-claim answer to /verify for
S seconds. Prints requests/s, p50/p99 latency and errors, against a baseline of the same verification called
directly in this process (so the ratio is the cost of HTTP, JSON and queueing).

    python bench/bench_serve.py [--clients 20] [--seconds 30]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from live_server import live_server  # noqa: E402
from veriground.backends.registry import build_nli  # noqa: E402
from veriground.config import load_config  # noqa: E402
from veriground.corpus.ingest import ingest_paths  # noqa: E402
from veriground.corpus.store import CorpusStore  # noqa: E402
from veriground.engine import verify_text  # noqa: E402
from veriground.evidence.gather import CorpusEvidence  # noqa: E402
from veriground.retrieval.search import build_retriever  # noqa: E402

TEN_CLAIMS = " ".join(
    [
        "Kinetic energy is the energy an object has because of its motion.",
        "Kinetic energy does not depend on the speed of an object.",
        "The acceleration due to gravity near Earth's surface is 9.8 m/s^2.",
        "Merge sort runs in O(n log n) time.",
        "A graph is a pair consisting of a set of vertices and a set of edges.",
        "Work is the product of force and displacement.",
        "A tree is a connected graph with no cycles.",
        "Binary search needs a sorted array.",
        "Power is the rate at which work is done.",
        "The Treaty of Westphalia was signed in 1648.",
    ]
)


def direct_baseline(corpus: Path, seconds: float) -> tuple[float, int]:
    """Verifications per second calling the engine in this process, and the claim count of the text."""
    config = load_config(None, {"corpus.dir": corpus}, environ={})
    with CorpusStore(corpus, create=False) as store:
        source = CorpusEvidence(store, config.retrieval, build_retriever(store, config))
        nli = build_nli(config.models)
        claims = len(verify_text(TEN_CLAIMS, config=config, source=source, nli=nli).claims)
        done, started = 0, time.perf_counter()
        while time.perf_counter() - started < seconds:
            verify_text(TEN_CLAIMS, config=config, source=source, nli=nli)
            done += 1
        return done / (time.perf_counter() - started), claims


async def load(base: str, clients: int, seconds: float) -> tuple[list[float], int, float]:
    latencies: list[float] = []
    errors = 0
    deadline = time.perf_counter() + seconds

    async def client_loop(client: httpx.AsyncClient) -> None:
        nonlocal errors
        while time.perf_counter() < deadline:
            sent = time.perf_counter()
            try:
                response = await client.post("/verify", json={"text": TEN_CLAIMS})
                if response.status_code != 200:
                    errors += 1
                    continue
            except httpx.HTTPError:
                errors += 1
                continue
            latencies.append(time.perf_counter() - sent)

    limits = httpx.Limits(max_connections=clients)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as client:
        started = time.perf_counter()
        await asyncio.gather(*(client_loop(client) for _ in range(clients)))
        return latencies, errors, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        corpus = Path(scratch) / "corpus"
        with resources.as_file(resources.files("veriground") / "demo_corpus") as root, CorpusStore(corpus) as store:
            ingest_paths([root], store, load_config(None, environ={}).ingest)
        baseline, claims = direct_baseline(corpus, min(args.seconds, 10.0))
        with live_server(corpus) as base:
            latencies, errors, elapsed = asyncio.run(load(base, args.clients, args.seconds))
    rate = len(latencies) / elapsed
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))] if ordered else float("nan")
    print(f"/verify load: {args.clients} clients, {args.seconds:g} s, {claims}-claim answer, demo corpus, lexical NLI")
    print(f"  requests ok      {len(latencies)}   errors {errors}")
    print(f"  requests/s       {rate:.1f}   ({rate * claims:.0f} claims/s)")
    print(f"  latency p50      {statistics.median(latencies) * 1000:.0f} ms   p99 {p99 * 1000:.0f} ms")
    print(f"  direct engine    {baseline:.1f} verifications/s in-process (same text)")
    print(f"  HTTP / direct    {rate / baseline:.2f}x")


if __name__ == "__main__":
    main()
