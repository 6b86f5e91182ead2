"""The ablation switches of the pipeline (seed 000 §4.2.3, seed 004 §4.3), each off by default: the evidence
conflict check (verification.contradictions), atomic claims (verification.atomic) and claim verification in
grounded answers (answer.verify)."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from veriground.backends.fakes import FakeNLIModel
from veriground.claims import extract_claims
from veriground.claims.whole_sentences import WHOLE_SENTENCE_METHOD, join_atoms
from veriground.cli import main
from veriground.config import AnswerConfig, Config, VerificationConfig
from veriground.engine import CONFLICT_CHECK_OFF, verify_text
from veriground.evidence.gather import PackEvidence
from veriground.schema import EvidencePack, NLIScores, PackPassage

ENTAILS = NLIScores(entail=0.9, neutral=0.1, contradict=0.0)
NEUTRAL = NLIScores(entail=0.1, neutral=0.9, contradict=0.0)
CONTRADICTS = NLIScores(entail=0.0, neutral=0.1, contradict=0.9)
STABLE, NOT_STABLE = "Merge sort is stable.", "Merge sort is not stable."
COMPOUND = "Merge sort is stable and it runs in **O(n log n)** time [CITATION: book/a#1]."


def verify(text: str, passages: dict[str, str], nli: FakeNLIModel, **verification):
    config = Config(verification=VerificationConfig(**verification))
    pack = EvidencePack(
        passages=tuple(PackPassage(passage_id=pid, text=t, source_id=pid) for pid, t in passages.items())
    )
    return verify_text(text, config=config, source=PackEvidence(pack, config.retrieval), nli=nli)


def test_defaults_are_the_full_pipeline():
    assert VerificationConfig().contradictions and VerificationConfig().atomic and AnswerConfig().verify


# --- verification.contradictions ---------------------------------------------------------------------------


@pytest.mark.parametrize("contradictions", [True, False])
def test_contradictions_off_reports_no_evidence_conflict_and_says_so(contradictions):
    passages = {
        "book/a#1": "Sorting keeps equal keys in order. " + STABLE,
        "blog/b#2": "Some trade memory. " + NOT_STABLE,
    }
    nli = FakeNLIModel({(STABLE, NOT_STABLE): CONTRADICTS, (NOT_STABLE, STABLE): CONTRADICTS}, ENTAILS)
    report = verify(STABLE, passages, nli, contradictions=contradictions)
    actions = report.annotated_answer.mitigation_actions
    assert bool(report.claims[0].conflicts) is contradictions
    assert (CONFLICT_CHECK_OFF in actions) is not contradictions
    # The claim's own NLI against each passage still runs: only the passage-vs-passage pairs are skipped.
    assert any((STABLE, NOT_STABLE) in batch for batch in nli.calls) is contradictions


# --- verification.atomic -----------------------------------------------------------------------------------


def test_atomic_off_verifies_each_sentence_as_one_claim():
    passages = {"book/a#1": "Merge sort is stable. Merge sort runs in O(n log n) time."}
    atomic = verify(COMPOUND, passages, FakeNLIModel({}, ENTAILS))
    whole = verify(COMPOUND, passages, FakeNLIModel({}, ENTAILS), atomic=False)
    assert [c.claim.text for c in atomic.claims] == ["Merge sort is stable.", "Merge sort runs in O(n log n) time."]
    [claim] = [c.claim for c in whole.claims]
    assert claim.text == "Merge sort is stable and it runs in O(n log n) time."
    assert (claim.claim_id, claim.parent_claim_id, claim.atomicity_rule) == ("c_0001", None, None)
    assert claim.cited_ids == ("book/a#1",) and claim.extraction_method == WHOLE_SENTENCE_METHOD
    start, end = claim.answer_char_span
    assert COMPOUND[start:end].startswith("Merge sort") and end <= len(COMPOUND)


def test_atomic_off_can_change_a_verdict():
    """Atoms are judged one by one; the whole sentence is judged as one hypothesis."""
    passages = {"book/a#1": "Merge sort is stable."}
    nli = FakeNLIModel({("Merge sort is stable.", "Merge sort is stable."): ENTAILS}, NEUTRAL)
    atomic = verify(COMPOUND, passages, nli, min_supporting_sources=1)
    whole = verify(COMPOUND, passages, nli, min_supporting_sources=1, atomic=False)
    assert [c.decision.status for c in atomic.claims] == ["Supported", "Unsupported"]
    assert [c.decision.status for c in whole.claims] == ["Unsupported"]


def test_join_atoms_keeps_unsplit_sentences_and_merges_each_split_one():
    text = "Energy is conserved; momentum is conserved too [CITATION: b#2] [CITATION: c#3]. Plain claim here [1]."
    claims = extract_claims(text, answer_id="ans_x")
    assert [c.claim_id for c in claims] == ["c_0001.1", "c_0001.2", "c_0002"]
    joined = join_atoms(text, claims)
    assert [(c.claim_id, c.text, c.cited_ids) for c in joined] == [
        ("c_0001", "Energy is conserved; momentum is conserved too.", ("b#2", "c#3")),
        ("c_0002", "Plain claim here.", ("1",)),
    ]


# --- answer.verify -----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_corpus(tmp_path_factory):
    corpus = tmp_path_factory.mktemp("switches") / "corpus"
    with resources.as_file(resources.files("veriground") / "demo_corpus") as root:
        assert main(["ingest", str(root), "--corpus", str(corpus), "--json"]) == 0
    return corpus


def ask(capsys, corpus, question: str) -> dict:
    capsys.readouterr()
    assert main(["ask", question, "--corpus", str(corpus), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_verify_off_states_every_drafted_sentence_after_the_gate(demo_corpus, capsys, monkeypatch):
    question = "How many edges does the complete graph K_n have?"
    full = ask(capsys, demo_corpus, question)
    monkeypatch.setenv("VERIGROUND_ANSWER__VERIFY", "false")
    unchecked = ask(capsys, demo_corpus, question)
    drafted = [claim["text"] for claim in unchecked["trace"]["draft"]["claims"]]
    assert len(full["claims"]) <= len(drafted) and full["trace"]["claims"]  # verified (test_answer_html: a removal)
    assert [claim["text"] for claim in unchecked["claims"]] == drafted
    assert unchecked["trace"]["claims"] == [] and unchecked["trace"]["gate"]["passed"]
    assert unchecked["confidence"] == "low"
    assert any("answer.verify is off" in note for note in unchecked["limitations"])
