"""Probes of the shipped NLI model (issue 16): hand-written premise -> hypothesis pairs that a grounding verifier
must get right, run against the model in the package (the default `veriground-nli` backend, not the lexical NLI
the rest of the suite pins), so a retrain that brings back "near copy -> contradiction" fails here.

tests/data/nli_probes.jsonl holds one probe a line: kind, premise, hypothesis and what is expected:
- entail: P(entailment) > P(contradiction) (identity, near copies, deletions, reorderings, unit conversions,
  paraphrases, "all" -> "some");
- contradict: P(contradiction) > P(entailment) (number, unit, negation, antonym, "every" -> "no");
- not_entail: P(entailment) < 0.5 ("some" -> "all", off-topic, same topic but another fact, and an in-passage swap: a
  clause with a word of the premise's other clause put in, "Like charges attract each other." against "Like charges
  repel each other, whereas unlike charges attract.", which v3 reads as entailed: training/passage_swaps.py).
A probe may name models it is known to fail ("fails": ["veriground-nli.v1", ...], by the model's reported name);
for those models it is a strict xfail, so the test goes red both when the shipped model fails a probe not listed for
it and when a listed one starts passing (then the list is out of date and the model card's probe table too).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from veriground.backends.registry import build_nli
from veriground.backends.shipped_nli import SHIPPED_NLI, ShippedNLIModel
from veriground.config import ModelsConfig

PROBES_FILE = Path(__file__).parent / "data" / "nli_probes.jsonl"
PROBES = [json.loads(line) for line in PROBES_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]
EXPECTATIONS = ("entail", "contradict", "not_entail")
NOT_ENTAILED_BELOW = 0.5  # a not-entailed probe must not look more likely entailed than not
NEVER_EXCUSED = ("identity", "window", "negation", "off-topic", "same-topic")  # no model may ship failing these
REQUIRED_KINDS = (
    "identity", "near-copy", "clause-deletion", "paraphrase", "unit-conversion",
    "number", "negation", "antonym", "scope", "off-topic",
)  # fmt: skip


@pytest.fixture(scope="module")
def shipped() -> ShippedNLIModel:
    return ShippedNLIModel()


def test_the_probe_file_covers_the_issue_and_every_kind():
    assert len(PROBES) >= 23
    assert {probe["expect"] for probe in PROBES} <= set(EXPECTATIONS)
    assert sum(probe["source"] == "issue 16" for probe in PROBES) == 3
    kinds = Counter(probe["kind"] for probe in PROBES)
    assert [kind for kind in REQUIRED_KINDS if not kinds[kind]] == []


def test_copies_negations_and_off_topic_probes_are_never_excused():
    excused = [probe["hypothesis"] for probe in PROBES if probe["kind"] in NEVER_EXCUSED and probe.get("fails")]
    assert excused == []


def test_the_shipped_model_these_probes_run_on_is_the_default_nli():
    assert ModelsConfig().nli == SHIPPED_NLI  # config.py says why
    assert build_nli(ModelsConfig()).checksum == ShippedNLIModel().checksum


@pytest.mark.parametrize("probe", PROBES, ids=[f"{i:02d}-{p['kind']}" for i, p in enumerate(PROBES)])
def test_probe(shipped, probe, request):
    if shipped.name in probe.get("fails", ()):
        request.applymarker(pytest.mark.xfail(strict=True, reason=f"a known failure of {shipped.name}"))
    (scores,) = shipped.predict([(probe["premise"], probe["hypothesis"])])
    shown = f"entail {scores.entail:.3f} contradict {scores.contradict:.3f}: {probe['hypothesis']!r}"
    if probe["expect"] == "entail":
        assert scores.entail > scores.contradict, shown
    elif probe["expect"] == "contradict":
        assert scores.contradict > scores.entail, shown
    else:
        assert scores.entail < NOT_ENTAILED_BELOW, shown
