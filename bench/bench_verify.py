"""Claims per second for `verify` of a generated 250-claim note against the demo corpus, split by stage.

    python bench/bench_verify.py [--claims 250] [--runs 3] [--nli lexical|veriground-nli|FOLDER] [--check]

The note is made, with a fixed seed, from sentences of the demo corpus itself: a third copied (should be
supported), a third with a number changed or a negation inserted (should be rejected), a third with its
words shuffled (meaning destroyed, words kept: neither a bag-of-words NLI nor the shipped cross-encoder tells;
the verdict layer's scrambled-words rule makes most of them Low Confidence, and the verdict mix shows it). It is
verified through the same engine the CLI uses (BM25 + the --nli backend; lexical by default).
The first run includes one-time loading (pysbd, pint, the BM25 index); the best of the remaining runs is
reported, with each stage's seconds, its share of the total, and claims/s, and the mean CPU figure of those runs
(the collector's passes over older objects fall in some runs, not others: the mean is what a long session costs).
Every timed run starts with an empty NLI score cache (a model NLI remembers the pairs it scored), so the figure is
what a new note costs; a last run
with the cache kept shows what repeating a note costs. The engine's "evidence" stage is split into retrieval
(the gather call) and the rest (sentence alignment, dependency look-ups), and "nli" into the model's predict
calls and the rest (unit selection, the aggregator). `--check` verifies the note once more with the cache off
and exits 1 unless the report is identical. Seed 000's reference: 250 claims in ~74 s on a 12-core i7.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path

from veriground.backends.registry import build_nli
from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.engine import verify_text
from veriground.evidence.gather import CorpusEvidence
from veriground.text.memo import clear_text_memos
from veriground.text.sentences import split_sentences

SEED = 250
SEED_REFERENCE_SECONDS = 74.0  # seed 000, 250 claims, 12-core i7
# A corpus sentence fit for a note line (also bench_verify_batch's rows): capitalised, 42-222 characters, ending in a
# full stop, without math, Markdown or table marks.
PLAIN_SENTENCE = re.compile(r"^[A-Z][^$\\#*|`]{40,220}[.]$")


def make_note(sentences: list[str], count: int) -> str:
    """A Markdown note of `count` one-claim lines: copied, perturbed and off-topic sentences in turn."""
    lines = [
        "# Generated study note",
        "",
        *(f"- {sentence}" for sentence in perturbed(sentences, count, random.Random(SEED))),
    ]
    return "\n".join(lines) + "\n"


def perturbed(sentences: list[str], count: int, rng: random.Random) -> Iterator[str]:
    """`count` sentences drawn with `rng` (seeded by the caller): copied, with a number changed (or a negation
    inserted), and with their words shuffled, in turn (also bench_verify_batch's rows)."""
    for index in range(count):
        sentence = rng.choice(sentences)
        if index % 3 == 1:
            numbers = re.findall(r"\d+(?:\.\d+)?", sentence)
            if numbers:
                sentence = sentence.replace(numbers[0], str(int(float(numbers[0]) * 10 + 1)), 1)
            else:
                sentence = re.sub(r"\b(is|are|can|does)\b", r"\1 not", sentence, count=1)
        elif index % 3 == 2:
            words = sentence.rstrip(".").split()
            rng.shuffle(words)
            sentence = " ".join(words).capitalize() + "."
        yield sentence


class TimedSource:
    """The evidence source with the seconds spent in `gather` (retrieval) counted."""

    def __init__(self, inner: CorpusEvidence) -> None:
        self._inner = inner
        self.seconds = 0.0

    def gather(self, claims_texts: Sequence[tuple[str, Sequence[str]]], depth: int | None = None) -> list:
        started = time.perf_counter()
        try:
            return self._inner.gather(claims_texts, depth)
        finally:
            self.seconds += time.perf_counter() - started

    def __getattr__(self, name: str) -> object:
        return getattr(self._inner, name)


class TimedNLI:
    """The NLI with the seconds and pairs of its `predict` calls counted."""

    def __init__(self, inner: object) -> None:
        self._inner = inner
        self.name, self.model_id, self.checksum = inner.name, inner.model_id, inner.checksum
        self.seconds = 0.0
        self.pairs = 0

    def predict(self, pairs: Sequence[tuple[str, str]]) -> list:
        started = time.perf_counter()
        try:
            return self._inner.predict(pairs)
        finally:
            self.seconds += time.perf_counter() - started
            self.pairs += len(pairs)

    def __getattr__(self, name: str) -> object:
        return getattr(self._inner, name)


def differing_paths(first: object, second: object, path: str = "") -> Iterator[tuple[str, object, object]]:
    """(path, first value, second value) wherever two JSON trees differ."""
    if isinstance(first, dict) and isinstance(second, dict):
        for key in sorted(set(first) | set(second)):
            yield from differing_paths(first.get(key), second.get(key), f"{path}.{key}")
    elif isinstance(first, list) and isinstance(second, list) and len(first) == len(second):
        for index, (one, other) in enumerate(zip(first, second, strict=True)):
            yield from differing_paths(one, other, f"{path}[{index}]")
    elif first != second:
        yield path, first, second


def clear_nli_cache(nli: object) -> None:
    """Empty the NLI's score cache and every text memo (text/memo.py: words, terms, sentences, numbers, entities, the
    lexical NLI's pair readings...), so a timed run pays for every claim as a fresh note would."""
    cache = getattr(nli, "score_cache", None)
    if cache is not None:
        cache.clear()
    clear_text_memos()


def timed_run(note: str, config: object, store: CorpusStore, nli: object) -> tuple[float, dict[str, float], object]:
    source = TimedSource(CorpusEvidence(store, config.retrieval))
    timed = TimedNLI(nli)
    stages: dict[str, float] = {}
    started, cpu_started = time.perf_counter(), time.process_time()
    report = verify_text(note, config=config, source=source, nli=timed, stage_seconds=stages)
    total = time.perf_counter() - started
    stages["cpu"] = time.process_time() - cpu_started  # all threads of this process: the figure load cannot inflate
    split: dict[str, float] = {}
    cpu = stages.pop("cpu")
    for stage, seconds in stages.items():
        if stage == "evidence":
            split["retrieval (gather)"] = source.seconds
            split["alignment, dependencies"] = seconds - source.seconds
        else:
            split[stage] = seconds
    # predict is called in the nli and the conflicts stages: its seconds are part of those two
    split["  of which NLI predict"] = timed.seconds
    split["  NLI pairs scored"] = float(timed.pairs)
    split["CPU seconds (all threads)"] = cpu
    return total, split, report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=250)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--nli", default="lexical", help="lexical, veriground-nli (the shipped model) or a folder")
    parser.add_argument("--check", action="store_true", help="exit 1 unless the report equals a cache-off run")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, resources.as_file(resources.files("veriground") / "demo_corpus") as root:
        corpus = Path(tmp) / "corpus"
        config = load_config(overrides={"corpus.dir": corpus, "models.nli": args.nli})
        nli = build_nli(config.models)
        with CorpusStore(corpus) as store:
            ingest_paths([root], store, config.ingest)
            passages = [p for doc in store.list_documents() for p in store.passages_of(doc.doc_id, doc.version)]
            sentences = sorted(
                {s for p in passages for s in split_sentences(p.text) if PLAIN_SENTENCE.match(" ".join(s.split()))}
            )
            note = make_note([" ".join(s.split()) for s in sentences], args.claims)
            runs = []
            for _ in range(max(2, args.runs)):
                clear_nli_cache(nli)
                runs.append(timed_run(note, config, store, nli))
            repeat_seconds = timed_run(note, config, store, nli)[0]  # the cache kept from the last run
            identical = None
            if args.check:
                cache, nli.score_cache = getattr(nli, "score_cache", None), None
                uncached = timed_run(note, config, store, nli)[2]
                nli.score_cache = cache
                cached_report = runs[-1][2].model_dump(mode="json")
                differences = list(differing_paths(cached_report, uncached.model_dump(mode="json")))
                identical = not differences
    cold_seconds = runs[0][0]
    total, stages, report = min(runs[1:], key=lambda run: run[0])
    claims = len(report.claims)
    verdicts = {}
    for item in report.claims:
        verdicts[item.decision.status] = verdicts.get(item.decision.status, 0) + 1
    print(
        f"note: {args.claims} lines -> {claims} atomic claims; corpus: demo ({len(passages)} passages); nli {args.nli}"
    )
    print("verdicts: " + ", ".join(f"{name} {count}" for name, count in sorted(verdicts.items())))
    print(f"first run (with one-time loading): {cold_seconds:.2f} s")
    print(f"best of {len(runs) - 1} runs, NLI and text caches emptied: {total:.2f} s = {claims / total:.0f} claims/s")
    print(f"same note again, caches kept: {repeat_seconds:.2f} s = {claims / repeat_seconds:.0f} claims/s")
    for stage, seconds in stages.items():
        if stage.endswith("pairs scored"):
            print(f"  {stage:<26} {seconds:7.0f}")
            continue
        if stage.startswith("CPU"):
            print(f"{stage}: {seconds:.2f} s = {claims / seconds:.0f} claims per CPU-second")
            mean = sum(run[1]["CPU seconds (all threads)"] for run in runs[1:]) / len(runs[1:])
            print(f"  mean of the {len(runs) - 1} runs, collector passes included: {claims / mean:.0f} claims/CPU-s")
            print("  (wall time on a busy machine overstates the cost; an idle 2-core one does about this, or more)")
            continue
        print(f"  {stage:<26} {seconds:7.3f} s  {seconds / total:6.1%}  {claims / max(seconds, 1e-9):10.0f} claims/s")
    reference = args.claims / SEED_REFERENCE_SECONDS
    print(
        f"seed 000 reference: {reference:.1f} claims/s (other machine and models); "
        f"ratio {claims / total / reference:.0f}x"
    )
    if identical is not None:
        print(f"report with the NLI cache off identical: {identical}")
        if not identical:
            for path, cached, uncached in differences[:10]:
                print(f"  {path}: {cached!r} (cache) != {uncached!r} (no cache)")
            sys.exit(1)


if __name__ == "__main__":
    main()
