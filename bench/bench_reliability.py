"""Reliability under load and hostile clients, on loopback only and bounded in time (issue 22): a live
`veriground serve --nli lexical` over a fresh copy of the demo corpus takes C clients for S seconds (50 % short
/verify, 30 % /qa, 20 % /health), while a few slow connections trickle header bytes and oversized or
pathological bodies arrive. Prints 2xx / 503 / other counts, 503s without Retry-After, p50/p95/p99 of successes,
/health p99, successful /verify per second, what happened to the slow connections, and the server's RSS before
and after. Stops by itself; the server is stopped on exit.

    python bench/bench_reliability.py [--clients 50] [--seconds 60] [--slow 5] [--seed 0] \
        [--env VERIGROUND_SERVICE__MAX_PENDING=64 ...]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import httpx
from timing import percentile

from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore

SHORT_TEXTS = (
    "Kinetic energy is the energy an object has because of its motion.",
    "Kinetic energy does not depend on the speed of an object.",
    "Work is the product of force and displacement. Power is the rate at which work is done.",
    "A tree is a connected graph with no cycles.",
    "Binary search needs a sorted array.",
)
QUESTIONS = (
    "What is kinetic energy?",
    "What is a tree in graph theory?",
    "How is power defined?",
    "Who won the 1998 World Cup?",
)
MIX = (("verify", 0.5), ("qa", 0.3), ("health", 0.2))  # issue 22's mix
CLIENT_TIMEOUT_S = 120  # a client gives up on one request after this; counted as "other"
START_TIMEOUT_S = 90
SLOW_BYTE_EVERY_S = 2.0  # the slowloris: 1 byte every 2 s
OVERSIZED_BYTES = 3 * 1024 * 1024  # over the default service.max_body_mb = 2
ONE_MB = 1024 * 1024
# What a 503's detail says, in the order checked: which limit refused the request.
BUSY_REASONS = (
    ("service.max_pending", "queue full (service.max_pending)"),
    ("would not finish within", "queued work over the deadline (admission by cost)"),
    ("did not finish within", "ran past service.request_deadline_s"),
    ("service.max_connections", "connection cap"),
)


@dataclass
class Tally:
    statuses: Counter[int] = field(default_factory=Counter)
    latencies: dict[str, list[float]] = field(default_factory=lambda: {name: [] for name, _ in MIX})
    busy_without_retry_after: int = 0
    busy_reasons: Counter[str] = field(default_factory=Counter)
    transport_errors: Counter[str] = field(default_factory=Counter)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@contextmanager
def serve(corpus: Path, log_path: Path, env: dict[str, str]) -> Iterator[tuple[str, int]]:
    """`veriground serve --nli lexical` on a free loopback port: (base URL, pid) once /health answers."""
    port = free_port()
    command = [sys.executable, "-m", "veriground.cli", "serve", "--corpus", str(corpus), "--port", str(port)]
    with log_path.open("w") as log:
        process = subprocess.Popen(
            [*command, "--nli", "lexical"], stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **env}
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                raise SystemExit(f"serve exited {process.returncode}:\n{log_path.read_text()}")
            try:
                if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit(f"serve did not answer within {START_TIMEOUT_S} s")
            time.sleep(0.2)
        yield base, process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def client_loop(client: httpx.AsyncClient, rng: random.Random, stop_at: float, tally: Tally) -> None:
    names, weights = zip(*MIX, strict=True)
    while time.monotonic() < stop_at:
        kind = rng.choices(names, weights)[0]
        sent = time.monotonic()
        try:
            if kind == "verify":
                response = await client.post("/verify", json={"text": rng.choice(SHORT_TEXTS)})
            elif kind == "qa":
                response = await client.post("/qa", json={"query": rng.choice(QUESTIONS)})
            else:
                response = await client.get("/health")
        except httpx.HTTPError as err:
            tally.transport_errors[type(err).__name__] += 1
            continue
        tally.statuses[response.status_code] += 1
        if response.status_code == 503:
            if "retry-after" not in response.headers:
                tally.busy_without_retry_after += 1
            tally.busy_reasons[busy_reason(response)] += 1
            await asyncio.sleep(min(float(response.headers.get("retry-after", "1")), stop_at - time.monotonic(), 5))
        elif 200 <= response.status_code < 300:
            tally.latencies[kind].append(time.monotonic() - sent)


def busy_reason(response: httpx.Response) -> str:
    try:
        detail = str(response.json().get("detail", ""))
    except ValueError:
        return "no problem body"
    return next((label for fragment, label in BUSY_REASONS if fragment in detail), "other")


async def slow_connection(port: int, stop_at: float) -> tuple[str, float]:
    """Trickle a request head one byte every 2 s; (what the server answered or did, seconds it stayed open)."""
    opened = time.monotonic()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = b"POST /verify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    try:
        for byte in head:
            if time.monotonic() >= stop_at:
                return "still open at the end", time.monotonic() - opened
            writer.write(bytes([byte]))
            await writer.drain()
            try:
                answer = await asyncio.wait_for(reader.read(64), SLOW_BYTE_EVERY_S)
            except TimeoutError:
                continue
            status = answer.split(b"\r\n", 1)[0].decode(errors="replace") if answer else "closed"
            return status, time.monotonic() - opened
        return "sent the whole head", time.monotonic() - opened
    except ConnectionError:
        return "closed", time.monotonic() - opened
    finally:
        writer.close()


async def hostile_bodies(client: httpx.AsyncClient) -> list[tuple[str, int, float]]:
    """(what, status, seconds) for oversized and pathological requests."""
    cases = [
        ("3 MB body (over max_body_mb)", {"content": b'{"text": "' + b"a" * OVERSIZED_BYTES + b'"}'}),
        ("1 MB one sentence", {"json": {"text": "a" * ONE_MB}}),
        ("1 MB of short sentences", {"json": {"text": "Energy is conserved. " * (ONE_MB // 21)}}),
        ("deeply nested JSON", {"content": b'{"text": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"}),
    ]
    results = []
    for what, body in cases:
        sent = time.monotonic()
        headers = {"content-type": "application/json"}
        try:
            response = await client.post("/verify", headers=headers, timeout=CLIENT_TIMEOUT_S, **body)
            results.append((what, response.status_code, time.monotonic() - sent))
        except httpx.HTTPError as err:
            results.append((f"{what}: {type(err).__name__}", 0, time.monotonic() - sent))
    return results


async def run_load(base: str, clients: int, seconds: float, slow: int, seed: int) -> tuple[Tally, list, list]:
    port = int(base.rsplit(":", 1)[1])
    tally = Tally()
    limits = httpx.Limits(max_connections=clients + 4, max_keepalive_connections=clients + 4)
    async with httpx.AsyncClient(base_url=base, timeout=CLIENT_TIMEOUT_S, limits=limits) as client:
        stop_at = time.monotonic() + seconds
        slow_tasks = [asyncio.ensure_future(slow_connection(port, stop_at)) for _ in range(slow)]
        loops = [client_loop(client, random.Random(seed * 1000 + n), stop_at, tally) for n in range(clients)]
        hostile = asyncio.ensure_future(hostile_bodies(client))
        await asyncio.gather(*loops)
        return tally, await asyncio.gather(*slow_tasks), await hostile


def report(tally: Tally, slow: list, hostile: list, seconds: float, rss: tuple[float, float, float]) -> None:
    total = sum(tally.statuses.values())
    ok = sum(count for status, count in tally.statuses.items() if 200 <= status < 300)
    busy = tally.statuses.get(503, 0)
    other = {status: count for status, count in tally.statuses.items() if not (200 <= status < 300 or status == 503)}
    print(f"requests: {total}  2xx: {ok}  503: {busy}  other: {sum(other.values())} {dict(sorted(other.items()))}")
    errors = dict(tally.transport_errors) or 0
    print(f"transport errors: {errors}  503 without Retry-After: {tally.busy_without_retry_after}")
    if tally.busy_reasons:
        print("503 because: " + ", ".join(f"{label} {count}" for label, count in tally.busy_reasons.most_common()))
    successes = [latency for values in tally.latencies.values() for latency in values]
    print(
        f"successes p50/p95/p99: {percentile(successes, 0.5) * 1000:.0f} / {percentile(successes, 0.95) * 1000:.0f}"
        f" / {percentile(successes, 0.99) * 1000:.0f} ms"
    )
    for kind, values in tally.latencies.items():
        p50, p99 = percentile(values, 0.5) * 1000, percentile(values, 0.99) * 1000
        print(f"  {kind:<7} {len(values):>6} ok  {len(values) / seconds:6.1f}/s  p50 {p50:6.0f} ms  p99 {p99:6.0f} ms")
    print(f"/health p99: {percentile(tally.latencies['health'], 0.99) * 1000:.1f} ms")
    for status, open_s in slow:
        print(f"slow connection: {status} after {open_s:.1f} s")
    for what, status, took in hostile:
        print(f"{what}: {status} in {took:.2f} s")
    warm, after, settled = rss
    print(f"server RSS: warm {warm:.0f} MB, after the load {after:.0f} MB, after 5 s idle {settled:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--slow", type=int, default=5, help="slow connections trickling header bytes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the server, e.g. a config key")
    args = parser.parse_args()
    server_env = dict(item.split("=", 1) for item in args.env)
    with tempfile.TemporaryDirectory(prefix="bench-reliability-") as scratch:
        corpus = Path(scratch) / "corpus"
        with resources.as_file(resources.files("veriground") / "demo_corpus") as root, CorpusStore(corpus) as store:
            ingest_paths([root], store, load_config(None, environ={}).ingest)
        with serve(corpus, Path(scratch) / "serve.log", server_env) as (base, pid):
            for text in SHORT_TEXTS:  # warm the caches the first requests fill
                httpx.post(f"{base}/verify", json={"text": text}, timeout=CLIENT_TIMEOUT_S)
            warm = rss_mb(pid)
            shape = f"{args.clients} clients x {args.seconds:g} s, {args.slow} slow connections"
            print(f"loopback {base}, {os.cpu_count()} cores, {shape}, server env {server_env or 'default'}")
            tally, slow, hostile = asyncio.run(run_load(base, args.clients, args.seconds, args.slow, args.seed))
            after = rss_mb(pid)
            time.sleep(5)
            settled = rss_mb(pid)
    report(tally, slow, hostile, args.seconds, (warm, after, settled))


if __name__ == "__main__":
    main()
