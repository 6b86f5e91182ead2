"""Stopping a request's work early: a ticket per job (deadline + cancel flag) that the engine thread checks
between stages, the errors it raises, and a watcher that notices a client that hung up.

The check is cooperative: a stage already running finishes before the next check stops the job, and a stopped
job's partial work is dropped, never returned.
"""

from __future__ import annotations

import math
import threading
import time

from starlette.types import Receive

from veriground.errors import VerigroundError


class ServerBusyError(VerigroundError):
    """The engine cannot take this request now; `retry_after_s` is when it likely can (the Retry-After header)."""

    def __init__(self, message: str, *, retry_after_s: float = 1.0) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class RequestDeadlineError(ServerBusyError):
    """The request ran past service.request_deadline_s and was stopped."""


class RequestCancelledError(VerigroundError):
    """The client hung up, so its request was dropped before or between stages."""


class JobTicket:
    """One request's deadline and cancel flag, shared by the event loop (which sets it) and the engine thread
    (which checks it)."""

    def __init__(self, deadline_s: float, *, units: float = 1.0) -> None:
        self.deadline_s = deadline_s
        self.units = units  # the admission cost estimate (claims x evidence passages)
        self.admitted_at = time.monotonic()
        self.started_at: float | None = None  # when the engine thread picked it up
        self._deadline = self.admitted_at + deadline_s
        self._cancel_reason: str | None = None
        self._lock = threading.Lock()

    def remaining_s(self) -> float:
        return max(0.0, self._deadline - time.monotonic())

    def cancel(self, reason: str) -> None:
        with self._lock:
            if self._cancel_reason is None:
                self._cancel_reason = reason

    @property
    def cancelled(self) -> bool:
        return self._cancel_reason is not None

    def should_stop(self) -> bool:
        """For code that unwinds by itself (e.g. between NLI batches): the client left or the deadline passed."""
        return self._cancel_reason is not None or time.monotonic() >= self._deadline

    def check(self, stage: str) -> None:
        """Raise if the job should stop before `stage`: its client went away or its deadline passed."""
        if self._cancel_reason is not None:
            raise RequestCancelledError(f"the request was dropped before {stage}: {self._cancel_reason}")
        if time.monotonic() >= self._deadline:
            raise self.deadline_error(f"stopped before {stage}")

    def deadline_error(self, where: str, *, retry_after_s: float = 1.0) -> RequestDeadlineError:
        queued = (self.started_at or time.monotonic()) - self.admitted_at
        ran = 0.0 if self.started_at is None else time.monotonic() - self.started_at
        return RequestDeadlineError(
            f"the request did not finish within service.request_deadline_s={self.deadline_s:g} s (queued "
            f"{queued:.1f} s, ran {ran:.1f} s; {where}, partial work discarded); retry after "
            f"{whole_seconds(retry_after_s)} s, send a shorter text, or raise VERIGROUND_SERVICE__REQUEST_DEADLINE_S "
            "on the server",
            retry_after_s=retry_after_s,
        )


def whole_seconds(seconds: float) -> int:
    """A Retry-After value: whole seconds, at least 1."""
    return max(1, math.ceil(seconds))


async def client_gone(receive: Receive) -> None:
    """Return once the client has disconnected. Call it only after the request body was read: it consumes
    whatever `receive` yields until the disconnect."""
    while (await receive())["type"] != "http.disconnect":
        pass
