"""Batched verification for evaluation runs: many (text, evidence source) jobs -> one VerificationReport each, with
the NLI pairs that a whole batch of jobs asks for scored in one predict call instead of one or two calls per job.

The engine asks for NLI scores from inside `verify_text` (the claims' pairs, then the evidence-conflict pairs),
so a batch's pairs cannot be known without running it. Each job of a batch therefore runs on its own thread, and
the threads take turns: a job runs until it asks for scores and then sleeps; once every job of the batch sleeps or
has finished, the main thread scores all the pairs asked for in one call and wakes the sleepers one after the
other. Only one thread runs at any moment, so the engine needs no thread safety, and the order of everything is
fixed. Each job gets the scores the model gives its pairs, so the reports are those of verifying each job alone,
for every backend whose score of a pair does not depend on the other pairs of its call (lexical, the shipped int8
model, fakes; a torch model's float sums can move a score in the 6th decimal with its neighbours).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import islice
from pathlib import Path

from veriground.backends.nli_cache import NLIScoreCache
from veriground.backends.protocols import NLIModel
from veriground.config import Config
from veriground.engine import verify_text
from veriground.evidence.gather import EvidenceSource
from veriground.schema import NLIScores, VerificationReport

# Jobs per predict call. A row of labelled pairs asks for 1-6 pairs, so 64 rows fill several of the backend's
# forward batches (models.batch_size, 32 pairs) while the progress bar still moves often. bench/bench_eval_pairs.py
# on 2 busy CPU cores: a MiniLM-sized torch model went from 1.2 rows/s row by row to 3.7 at 64 rows a call, a
# tiny one from 4.2 to 26.5 (28.8 at 256); lexical and the shipped int8 model (one pair per run) stay as fast.
DEFAULT_BATCH_ROWS = 64

Pair = tuple[str, str]


@dataclass(frozen=True)
class VerifyJob:
    """One text to verify against one evidence source. The source is read on a worker thread, so it must not hold
    a SQLite connection opened on another one (PackEvidence holds none)."""

    text: str
    source: EvidenceSource
    query: str | None = None  # the question the text answers, when it is an answer


def verify_batched(
    jobs: Iterable[VerifyJob], *, config: Config, nli: NLIModel, batch_rows: int = DEFAULT_BATCH_ROWS
) -> Iterator[VerificationReport]:
    """Each job's report, in order, as `verify_text` gives it alone; jobs are read and verified `batch_rows` at a
    time. An error raised while verifying a job is raised when its turn to be yielded comes."""
    if batch_rows < 1:
        raise ValueError(f"batch_rows must be at least 1, got {batch_rows}")
    remaining = iter(jobs)
    while batch := list(islice(remaining, batch_rows)):
        turns = [_Turn(job, config, nli) for job in batch]
        for turn in turns:
            turn.step()
        while asking := [turn for turn in turns if turn.request is not None]:
            answer_requests([turn.request for turn in asking if turn.request is not None], nli)
            for turn in asking:
                turn.step()
        for turn in turns:
            if turn.error is not None:
                raise turn.error
            assert turn.report is not None
            yield turn.report


@dataclass
class ScoreRequest:
    """One predict call of one job, and its answer: the scores or the error the model gave."""

    pairs: list[Pair]
    scores: list[NLIScores] | None = None
    error: Exception | None = None


def answer_requests(requests: Sequence[ScoreRequest], nli: NLIModel) -> None:
    """Score every request's pairs in one call (each distinct pair once). If that call fails, each request goes
    to the model on its own, so each job meets the failure, or the scores, it would meet unbatched."""
    pairs = list(dict.fromkeys(pair for request in requests for pair in request.pairs))
    try:
        scores = nli.predict(pairs) if pairs else []
        if len(scores) != len(pairs):
            raise ValueError(f"returned {len(scores)} scores for {len(pairs)} pairs")
    except Exception:  # noqa: BLE001 - replayed below, call by call, where the engine reports it per claim
        for request in requests:
            try:
                request.scores = nli.predict(request.pairs)
            except Exception as err:  # noqa: BLE001 - handed to the job's engine, which degrades it visibly
                request.error = err
        return
    table = dict(zip(pairs, scores, strict=True))
    for request in requests:
        request.scores = [table[pair] for pair in request.pairs]


class _Turn:
    """One job on its own thread, run a step at a time: `step` (main thread) runs it until it asks for scores
    (then `request` is set) or finishes (then `report` or `error` is set)."""

    def __init__(self, job: VerifyJob, config: Config, nli: NLIModel) -> None:
        self.request: ScoreRequest | None = None
        self.report: VerificationReport | None = None
        self.error: BaseException | None = None
        self._go = threading.Semaphore(0)  # main -> job: run
        self._paused = threading.Semaphore(0)  # job -> main: asked for scores, or finished
        # daemon: a job left asleep (the run interrupted mid-batch) must not keep the interpreter from exiting
        self._thread = threading.Thread(target=self._run, args=(job, config, _AskingNLIModel(nli, self)), daemon=True)
        self._thread.start()

    def step(self) -> None:
        self._go.release()
        self._paused.acquire()

    def ask(self, pairs: Sequence[Pair]) -> list[NLIScores]:
        """On the job's thread: hand the pairs to the main thread and sleep until they are answered."""
        request = self.request = ScoreRequest(list(pairs))
        self._paused.release()
        self._go.acquire()
        self.request = None
        if request.error is not None:
            raise request.error
        assert request.scores is not None
        return request.scores

    def _run(self, job: VerifyJob, config: Config, nli: NLIModel) -> None:
        self._go.acquire()
        try:
            self.report = verify_text(job.text, config=config, source=job.source, nli=nli, query=job.query)
        except BaseException as err:  # noqa: BLE001 - raised on the main thread, in the job's turn
            self.error = err
        finally:
            self._paused.release()


class _AskingNLIModel:
    """The NLI model as one job sees it: named as the model is, answering through the job's turn."""

    def __init__(self, model: NLIModel, turn: _Turn) -> None:
        self.name, self.model_id, self.checksum = model.name, model.model_id, model.checksum
        self._turn = turn

    def predict(self, pairs: Sequence[Pair]) -> list[NLIScores]:
        return self._turn.ask(pairs)


class MemoNLIModel:
    """Remembers every pair's scores and sends the model only pairs it has not scored: for a run that verifies the
    same claims again (contamination re-checks the clean claims at every rate). With `path`, the scores also persist
    as JSONL keyed by the SHA-256 of (model name, checksum, premise, hypothesis), so a rerun (`calibrate` after a
    feature change) scores only new pairs. The memory is an NLIScoreCache without a bound; a model that keeps its
    own (the shipped one) is asked through `predict_uncached`, so a pair is remembered once."""

    def __init__(self, model: NLIModel, path: Path | None = None) -> None:
        self.model = model
        self.name, self.model_id, self.checksum = model.name, model.model_id, model.checksum
        # Looked up on the class: a wrapper that delegates unknown names (service/guarded_backends.py) keeps its own
        # `predict` in the path.
        uncached = getattr(type(model), "predict_uncached", None)
        self._score: Callable[[Sequence[Pair]], list[NLIScores]] = (
            model.predict if uncached is None else partial(uncached, model)
        )
        self._cache = NLIScoreCache(f"{model.name}\x1f{model.checksum or ''}", max_entries=None, path=path)

    def predict(self, pairs: Sequence[Pair]) -> list[NLIScores]:
        return self._cache.predict(pairs, self._score)

    @property
    def scored_by_model(self) -> int:
        """Pairs the model itself was asked for (not found in memory or in the file)."""
        return self._cache.misses
