"""What a request will cost the engine, before it queues: a linear scan of its text -> sentence count, longest
sentence and cost units (claims x evidence passages); the server's own limits on those; and the measured
seconds per unit that turn queued units, shared by the engine threads, into a wait (Retry-After).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

from veriground.config import Config
from veriground.errors import InputTooLargeError

# A sentence ends at . ! or ? followed by white space, or at a line break. Finer than the claim segmenter (it
# also breaks after "e.g."), so its longest piece never exceeds a real sentence that contains it, and its count
# over-estimates the real one by abbreviations at most.
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+|\n")
# The count above may be this many times the true claim count (abbreviations, list lines) before the server
# refuses a text without looking closer; below it an engine thread counts the claims exactly.
SENTENCE_ESTIMATE_SLACK = 2
# Every job pays a fixed cost (parsing, the report, JSON) on top of its claims x passages.
JOB_BASE_UNITS = 1.0
# Before any job was measured: about what one claim x passage costs with the shipped NLI on 2 cores.
INITIAL_SECONDS_PER_UNIT = 0.01
# Weight of the newest job in the moving average of seconds per unit: adapts within ~10 jobs.
RATE_SMOOTHING = 0.2
UPLOAD_BYTES_PER_UNIT = 1000  # ingesting a file costs about a unit per KB (loading, passages, the index update)


@dataclass(frozen=True)
class TextShape:
    sentences: int
    longest_sentence_chars: int


def measure_text(text: str) -> TextShape:
    pieces = [piece for piece in _SENTENCE_BREAK.split(text) if piece.strip()]
    return TextShape(sentences=max(1, len(pieces)), longest_sentence_chars=max(map(len, pieces), default=0))


def check_text_limits(text: str, config: Config, *, what: str = "the text") -> TextShape:
    """The server's limits on a text to verify (service.max_sentence_chars, service.max_claims), checked before
    it queues; raises InputTooLargeError (413)."""
    service = config.service
    shape = measure_text(text)
    if shape.longest_sentence_chars > service.max_sentence_chars:
        raise InputTooLargeError(
            f"{what} has a sentence of {shape.longest_sentence_chars:,} characters, over service.max_sentence_chars="
            f"{service.max_sentence_chars:,} (a server limit); break it into sentences, or raise "
            "VERIGROUND_SERVICE__MAX_SENTENCE_CHARS on the server"
        )
    limit = claim_limit(config)
    if shape.sentences > SENTENCE_ESTIMATE_SLACK * limit:
        raise InputTooLargeError(too_many_claims(what, f"about {shape.sentences:,} sentences", config))
    return shape


def claim_limit(config: Config) -> int:
    return min(config.service.max_claims, config.verification.max_claims)


def too_many_claims(what: str, found: str, config: Config) -> str:
    return (
        f"{what} has more than service.max_claims={config.service.max_claims} claims ({found}), the most one "
        "server request may check (the CLI allows verification.max_claims); split it into several requests, use "
        "`veriground verify`, or raise VERIGROUND_SERVICE__MAX_CLAIMS on the server"
    )


def verify_units(shape: TextShape, config: Config) -> float:
    """Claims x passages each is checked against."""
    return JOB_BASE_UNITS + shape.sentences * config.retrieval.top_k


def answer_units(config: Config, mode: str | None) -> float:
    """A drafted answer's claims x its evidence pack."""
    answer = config.answer
    claims = answer.max_claims_detailed if (mode or answer.mode) == "detailed" else answer.max_claims_brief
    return JOB_BASE_UNITS + claims * answer.top_k


def upload_units(size_bytes: int) -> float:
    return JOB_BASE_UNITS + size_bytes / UPLOAD_BYTES_PER_UNIT


class CostMeter:
    """Units admitted and not yet finished, and the measured seconds one unit takes (a moving average)."""

    def __init__(self) -> None:
        self.seconds_per_unit = INITIAL_SECONDS_PER_UNIT
        self.queued_units = 0.0
        self._lock = threading.Lock()

    def add(self, units: float) -> None:
        with self._lock:
            self.queued_units += units

    def remove(self, units: float) -> None:
        with self._lock:
            self.queued_units = max(0.0, self.queued_units - units)

    def observe(self, units: float, seconds: float) -> None:
        """A job of `units` ran to the end in `seconds`. Lookups (health, a passage: the base units only) are not
        counted: their time says nothing about what a claim x passage costs."""
        if units <= JOB_BASE_UNITS:
            return
        with self._lock:
            self.seconds_per_unit += RATE_SMOOTHING * (seconds / units - self.seconds_per_unit)

    def wait_s(self, extra_units: float = 0.0, *, workers: int = 1) -> float:
        """Seconds until the queued units are done by `workers` engine threads together, plus `extra_units` (one
        job, on one thread). The rate is measured per job while the others run, so `workers` / seconds_per_unit
        is the throughput of them all."""
        return (self.queued_units / workers + extra_units) * self.seconds_per_unit
