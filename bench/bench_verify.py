"""Claims per second for `verify` of a generated 250-claim note against the demo corpus, split by stage.

    python bench/bench_verify.py [--claims 250] [--runs 3] [--nli lexical|veriground-nli|FOLDER]

The note is made, with a fixed seed, from sentences of the demo corpus itself: a third copied (should be
supported), a third with a number changed or a negation inserted (should be rejected), a third with its
words shuffled (meaning destroyed, words kept: a bag-of-words NLI cannot tell, and the verdict mix shows
it). It is verified through the same engine the CLI uses (BM25 + the --nli backend; lexical by default).
The first run includes one-time loading (pysbd, pint, the BM25 index); the best of the remaining runs is
reported, with each stage's seconds, its share of the total, and claims/s. Seed 000's reference: 250 claims
in ~74 s on a 12-core i7.
"""

from __future__ import annotations

import argparse
import random
import re
import tempfile
import time
from importlib import resources
from pathlib import Path

from veriground.backends.registry import build_nli
from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.engine import verify_text
from veriground.evidence.gather import CorpusEvidence
from veriground.signals.terms import split_sentences

SEED = 250
SEED_REFERENCE_SECONDS = 74.0  # seed 000, 250 claims, 12-core i7
_PLAIN_SENTENCE = re.compile(r"^[A-Z][^$\\#*|`]{40,220}[.]$")


def make_note(sentences: list[str], count: int) -> str:
    """A Markdown note of `count` one-claim lines: copied, perturbed and off-topic sentences in turn."""
    rng = random.Random(SEED)
    lines = ["# Generated study note", ""]
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
        lines.append(f"- {sentence}")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=250)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--nli", default="lexical", help="lexical, veriground-nli (the shipped model) or a folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, resources.as_file(resources.files("veriground") / "demo_corpus") as root:
        corpus = Path(tmp) / "corpus"
        config = load_config(overrides={"corpus.dir": corpus, "models.nli": args.nli})
        nli = build_nli(config.models)
        with CorpusStore(corpus) as store:
            ingest_paths([root], store, config.ingest)
            passages = [p for doc in store.list_documents() for p in store.passages_of(doc.doc_id, doc.version)]
            sentences = sorted(
                {s for p in passages for s in split_sentences(p.text) if _PLAIN_SENTENCE.match(" ".join(s.split()))}
            )
            note = make_note([" ".join(s.split()) for s in sentences], args.claims)
            runs = []
            for _ in range(max(2, args.runs)):
                stages: dict[str, float] = {}
                started = time.perf_counter()
                report = verify_text(
                    note,
                    config=config,
                    source=CorpusEvidence(store, config.retrieval),
                    nli=nli,
                    stage_seconds=stages,
                )
                runs.append((time.perf_counter() - started, stages, report))
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
    print(f"best of {len(runs) - 1} warm runs: {total:.2f} s = {claims / total:.0f} claims/s")
    for stage, seconds in stages.items():
        print(f"  {stage:<22} {seconds:7.3f} s  {seconds / total:6.1%}  {claims / seconds:10.0f} claims/s")
    reference = args.claims / SEED_REFERENCE_SECONDS
    print(
        f"seed 000 reference: {reference:.1f} claims/s (other machine and models); "
        f"ratio {claims / total / reference:.0f}x"
    )


if __name__ == "__main__":
    main()
