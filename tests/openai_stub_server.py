"""A real HTTP server on 127.0.0.1 speaking the OpenAI chat-completions protocol from a script of actions, for
the LLM backend tests: each request takes the next queued action and is recorded (path, headers, JSON body)."""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Action:
    """What the server does for one request: wait `delay_s`, then answer `status` with `body`."""

    status: int = 200
    body: Any = None  # a dict is sent as JSON, a str as it is
    delay_s: float = 0.0


@dataclass(frozen=True)
class ReceivedRequest:
    path: str
    headers: dict[str, str]  # names lower-cased
    body: Any


def token(text: str, logprob: float, top: list[tuple[str, float]] | None = None) -> dict[str, Any]:
    """One entry of choices[i].logprobs.content."""
    alternatives = [{"token": alt, "logprob": value, "bytes": None} for alt, value in top or []]
    return {"token": text, "logprob": logprob, "bytes": None, "top_logprobs": alternatives}


def reply(*contents: str, finish_reason: str = "stop", logprobs: list[dict[str, Any]] | None = None) -> Action:
    """A 200 with one choice per content (fewer than the request's n when the test wants that)."""
    choices = [
        {
            "index": index,
            "message": {"role": "assistant", "content": content},
            "finish_reason": finish_reason,
            "logprobs": None if logprobs is None else {"content": logprobs},
        }
        for index, content in enumerate(contents)
    ]
    body = {"id": "chatcmpl-stub", "object": "chat.completion", "model": "stub-model", "choices": choices}
    return Action(200, body)


def error(status: int, message: str, *, kind: str = "invalid_request_error") -> Action:
    """An OpenAI-style error body."""
    return Action(status, {"error": {"message": message, "type": kind, "param": None, "code": None}})


def slow(seconds: float, action: Action) -> Action:
    return Action(action.status, action.body, delay_s=seconds)


@dataclass
class OpenAIStubServer:
    """Start with `start()` (or as a context manager); `base_url` ends in /v1 as real servers' do."""

    actions: deque[Action] = field(default_factory=deque)
    requests: list[ReceivedRequest] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the stub server first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def queue(self, *actions: Action) -> None:
        with self._lock:
            self.actions.extend(actions)

    def start(self) -> OpenAIStubServer:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                headers = {name.lower(): value for name, value in self.headers.items()}
                with stub._lock:
                    stub.requests.append(ReceivedRequest(self.path, headers, body))
                    action = stub.actions.popleft() if stub.actions else error(400, "stub: no scripted action left")
                if action.delay_s:
                    time.sleep(action.delay_s)
                payload = action.body if isinstance(action.body, str) else json.dumps(action.body)
                data = payload.encode("utf-8")
                try:
                    self.send_response(action.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (the timeout tests)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        # A short poll interval: shutdown() waits up to one interval, once per test.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, name="openai-stub", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            if self._thread is not None:
                self._thread.join()

    def __enter__(self) -> OpenAIStubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
