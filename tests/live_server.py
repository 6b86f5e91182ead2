"""A real `veriground serve` in a subprocess on a free loopback port, for tests that need a socket and a browser."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

START_TIMEOUT_S = 60


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def live_server(corpus: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """Yield the base URL once /health answers; stop the server (and show its log on failure) afterwards."""
    port = free_port()
    log_path = corpus.parent / f"serve-{port}.log"
    command = [sys.executable, "-m", "veriground.cli", "serve", "--corpus", str(corpus), "--port", str(port), *args]
    with log_path.open("w") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if process.poll() is not None:
                raise AssertionError(f"serve exited {process.returncode}:\n{log_path.read_text()}")
            try:
                if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"serve did not answer within {START_TIMEOUT_S} s:\n{log_path.read_text()}")
            time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
