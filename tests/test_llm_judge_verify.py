"""Tier-2 LLM verification wired into `verify` (seed 004 §3.6): the judge lowers a tier-1 verdict (contradicted,
unsupported), never raises one; an unavailable judgement leaves the tier-1 verdict and a manifest warning; the
judgements reach the JSON, the Markdown, HTML and terminal reports; and `veriground verify --llm-judge` against the
local OpenAI-compatible stub server, then replayed from its call cache with the server gone.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from rich.console import Console

from openai_stub_server import OpenAIStubServer, reply
from veriground.backends.fakes import FakeLLM, FakeNLIModel
from veriground.cli import main
from veriground.config import Config
from veriground.engine import verify_text
from veriground.errors import BackendError
from veriground.evidence.gather import PackEvidence
from veriground.reports.files import json_text
from veriground.reports.html import render_html
from veriground.reports.markdown import render_markdown
from veriground.reports.verification_view import print_verification
from veriground.schema import ChatMessage, EvidencePack, NLIScores, PackPassage, VerificationReport
from veriground.signals.llm_judge import CONFLICT_SYSTEM_PROMPT

CLAIM = "Merge sort is stable."
BOOK, NOTES = "book/a#1", "notes/b#2"
BOOK_TEXT = "Merge sort is stable and runs in O(n log n) time."
NOTES_TEXT = "In lecture we showed that merge sort is stable."
PACK = EvidencePack(
    passages=(
        PackPassage(passage_id=BOOK, text=BOOK_TEXT, source_id="knuth"),
        PackPassage(passage_id=NOTES, text=NOTES_TEXT, source_id="lecture"),
    )
)
# Both passages entail (two independent sources: tier 1 says Supported); the book entails more strongly and the
# notes contradict a little more, so the judge reads two passages: the book (entailment) and the notes.
SUPPORTING_NLI = {
    (BOOK_TEXT, CLAIM): NLIScores(entail=0.9, neutral=0.1, contradict=0.0),
    (NOTES_TEXT, CLAIM): NLIScores(entail=0.8, neutral=0.15, contradict=0.05),
}
NEUTRAL = NLIScores(entail=0.1, neutral=0.9, contradict=0.0)


def answer(label: str, rationale: str = "The passage says so.") -> str:
    return json.dumps({"label": label, "rationale": rationale})


def judge_by_passage(labels: Mapping[str, str], *, conflict: str = "no_conflict") -> Callable[[list[ChatMessage]], str]:
    """A FakeLLM reply: the support label named for the passage in the prompt, `conflict` for a passage pair."""

    def reply_to(chat: list[ChatMessage]) -> str:
        if chat[0].content == CONFLICT_SYSTEM_PROMPT:
            return answer(conflict, "Both describe the same algorithm differently.")
        passage = next(pid for pid in labels if f"<<<PASSAGE id={pid}>>>" in chat[1].content)
        return answer(labels[passage], f"Judged {passage}.")

    return reply_to


def raising(err: Exception) -> Callable[[list[ChatMessage]], str]:
    def reply_to(chat: list[ChatMessage]) -> str:
        raise err

    return reply_to


def run(
    judge: FakeLLM | None = None,
    nli: FakeNLIModel | None = None,
    *,
    pack: EvidencePack = PACK,
    text: str = CLAIM,
    pass_judge: bool = True,
) -> VerificationReport:
    config = Config()
    nli = nli or FakeNLIModel(SUPPORTING_NLI, NEUTRAL)
    source = PackEvidence(pack, config.retrieval)
    if not pass_judge:
        return verify_text(text, config=config, source=source, nli=nli)
    return verify_text(text, config=config, source=source, nli=nli, judge=judge)


def verdict(report: VerificationReport) -> tuple[str, str, str]:
    decision = report.claims[0].decision
    return decision.status, decision.rule, decision.reason.value


def test_without_a_judge_tier_1_says_supported():
    assert verdict(run(pass_judge=False)) == ("Supported", "sufficient-evidence", "sufficient_evidence")


# --- the rules -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("contradicted", [BOOK, NOTES], ids=["strongest-entailment", "strongest-contradiction"])
def test_a_judged_contradiction_makes_the_claim_contradictory(contradicted):
    labels = {BOOK: "supported", NOTES: "supported", contradicted: "contradicted"}
    report = run(FakeLLM(judge_by_passage(labels)))
    item = report.claims[0]
    assert verdict(report) == ("Contradictory", "llm-judge-contradicted", "high_contradiction")
    assert (item.inputs.llm_judge_label, item.inputs.llm_judge_passage) == ("contradicted", contradicted)
    assert item.decision.primary_evidence == contradicted
    assert item.decision.rationale.startswith(f"the LLM judge reads {contradicted} as contradicting the claim")
    assert f'"Judged {contradicted}."' in item.decision.rationale
    assert item.decision.confidence.overall_confidence == 0.0
    assert item.mitigation == "suppressed"
    assert report.annotated_answer.summary_stats.contradicted == 1


def test_unsupported_on_the_strongest_entailment_passage_lowers_supported_to_low_confidence():
    report = run(FakeLLM(judge_by_passage({BOOK: "unsupported", NOTES: "supported"})))
    item = report.claims[0]
    assert verdict(report) == ("Low Confidence", "llm-judge-disagrees", "conflicting_verdicts")
    assert (item.inputs.llm_judge_label, item.inputs.llm_judge_passage) == ("unsupported", BOOK)
    assert "the LLM judge reads book/a#1 as not supporting the claim" in item.decision.rationale
    assert report.final_response.endswith("[Low Confidence: the checks disagree about this]")


def test_unsupported_on_another_passage_leaves_supported():
    report = run(FakeLLM(judge_by_passage({BOOK: "supported", NOTES: "unsupported"})))
    assert verdict(report) == ("Supported", "sufficient-evidence", "sufficient_evidence")
    assert report.claims[0].inputs.llm_judge_label == "supported"


def test_a_judge_that_says_supported_does_not_promote_an_unsupported_claim():
    report = run(FakeLLM(judge_by_passage({BOOK: "supported", NOTES: "supported"})), FakeNLIModel({}, NEUTRAL))
    item = report.claims[0]
    assert verdict(report) == ("Unsupported", "low-entailment", "low_entailment")
    assert item.decision.rationale == "no passage supports the claim: best support 0.10 < 0.60"
    strongest = item.inputs.strongest_entailment_passage  # every passage ties: the top-ranked one
    assert [(j.passage_id, j.label) for j in item.signals.llm_judgements] == [(strongest, "supported")]
    assert item.inputs.llm_judge_label == "supported"  # shown, but it cannot verify a claim on its own


@pytest.mark.parametrize(
    ("replies", "reason"),
    [
        (raising(BackendError("server down")), "llm-judge.v1 via fake-llm.v1: server down"),
        (["I think it is supported."] * 4, "gave no valid JSON after 1 repair turns"),
    ],
    ids=["backend-error", "broken-json"],
)
def test_an_unavailable_judge_leaves_the_tier_1_verdict_and_warns_in_the_manifest(replies, reason):
    report = run(FakeLLM(replies))
    item = report.claims[0]
    assert verdict(report) == ("Supported", "sufficient-evidence", "sufficient_evidence")
    assert (item.inputs.llm_judge_label, item.inputs.llm_judge_passage) == ("unavailable", BOOK)
    assert [j.label for j in item.signals.llm_judgements] == ["unavailable", "unavailable"]
    warnings = report.manifest.warnings
    assert [warning.split(": ", 1)[0] for warning in warnings] == [
        "llm judge unavailable for c_0001 on book/a#1",
        "llm judge unavailable for c_0001 on notes/b#2",
    ]
    assert all(reason in warning for warning in warnings)


# --- what is judged, and what the report records ------------------------------------------------------------


def test_each_claim_sends_its_strongest_entailment_then_contradiction_passage_once():
    text = f"{CLAIM} {CLAIM}"  # the same claim twice: each (claim, passage) is asked once
    llm = FakeLLM(judge_by_passage({BOOK: "supported", NOTES: "supported"}))
    report = run(llm, text=text)
    asked = [chat[1].content.split("<<<PASSAGE id=")[1].split(">>>")[0] for chat in llm.calls]
    assert asked == [BOOK, NOTES]
    for item in report.claims:
        assert [j.passage_id for j in item.signals.llm_judgements] == [BOOK, NOTES]


def test_a_claim_without_evidence_is_not_judged():
    llm = FakeLLM([])
    report = run(llm, text="Photosynthesis happens in chloroplasts.")
    assert verdict(report)[1] == "no-evidence"
    assert llm.calls == [] and report.claims[0].signals.llm_judgements == ()
    assert report.claims[0].inputs.llm_judge_label is None


def test_evidence_conflicts_are_judged_and_recorded_on_the_claim():
    stable, unstable = "Merge sort is stable.", "Merge sort is not stable."
    pack = EvidencePack(
        passages=(
            PackPassage(passage_id=BOOK, text=f"Equal keys keep their order. {stable}", source_id="knuth"),
            PackPassage(passage_id=NOTES, text=f"Some variants trade memory. {unstable}", source_id="blog"),
        )
    )
    contradicts = NLIScores(entail=0.0, neutral=0.1, contradict=0.9)
    nli = FakeNLIModel(
        {(stable, unstable): contradicts, (unstable, stable): contradicts}, SUPPORTING_NLI[(BOOK_TEXT, CLAIM)]
    )
    report = run(
        FakeLLM(judge_by_passage({BOOK: "supported", NOTES: "supported"}, conflict="conflict")), nli, pack=pack
    )
    item = report.claims[0]
    assert len(item.conflicts) == 1
    [judgement] = item.signals.llm_conflict_judgements
    assert (judgement.passage_a, judgement.passage_b, judgement.label) == (BOOK, NOTES, "conflict")
    assert judgement.rationale == "Both describe the same algorithm differently."


def test_the_manifest_lists_the_judge_as_an_llm_backend():
    report = run(FakeLLM(judge_by_passage({BOOK: "supported", NOTES: "supported"})))
    llm_backends = [backend for backend in report.manifest.backends if backend.role == "llm"]
    assert [(b.name, b.model_id, b.checksum) for b in llm_backends] == [
        ("llm-judge.v1/fake-llm.v1", "veriground/fake-llm", None)
    ]


def test_without_a_judge_the_report_is_byte_identical_and_has_no_judge_in_it():
    default = json_text(run(pass_judge=False).model_dump(mode="json"))
    assert json_text(run(None).model_dump(mode="json")) == default
    data = json.loads(default)
    assert [backend["role"] for backend in data["manifest"]["backends"]] == ["nli", "aggregator", "retriever"]
    assert data["claims"][0]["signals"]["llm_judgements"] == []
    assert data["claims"][0]["inputs"]["llm_judge_label"] is None
    assert "LLM judge" not in render_markdown(run(None))


def test_the_same_replies_give_byte_identical_json():
    labels = {BOOK: "unsupported", NOTES: "contradicted"}
    first = json_text(run(FakeLLM(judge_by_passage(labels))).model_dump(mode="json"))
    second = json_text(run(FakeLLM(judge_by_passage(labels))).model_dump(mode="json"))
    assert first == second


def test_every_report_shows_each_judgement_with_its_label_passage_rationale_and_fallback_reason():
    def reply_to(chat: list[ChatMessage]) -> str:
        if f"<<<PASSAGE id={NOTES}>>>" in chat[1].content:
            raise BackendError("server down")
        return answer("unsupported", "Judged the book.")

    report = run(FakeLLM(reply_to))
    fallback = "llm-judge.v1 via fake-llm.v1: server down"
    markdown = render_markdown(report)
    assert "#### LLM judge (tier 2)" in markdown
    assert "| support | book/a\\#1 | unsupported | Judged the book. | n/a |" in markdown
    assert f"| support | notes/b\\#2 | unavailable | n/a | {fallback} |" in markdown
    assert f"| warning | llm judge unavailable for c_0001 on notes/b\\#2: {fallback} |" in markdown
    html = render_html(report)
    assert "<h4>LLM judge (tier 2)</h4>" in html
    assert "<td>support</td><td>book/a#1</td><td>unsupported</td><td>Judged the book.</td><td>n/a</td>" in html
    assert f"<td>notes/b#2</td><td>unavailable</td><td>n/a</td><td>{fallback}</td>" in html
    out = Console(file=io.StringIO(), width=240, color_system=None, soft_wrap=True)
    print_verification(report, out, details=True)
    terminal = out.file.getvalue()
    assert "LLM judge (tier 2)" in terminal
    assert "Judged the book." in terminal and fallback in terminal


# --- the CLI against the OpenAI-compatible stub server --------------------------------------------------------


@pytest.fixture
def verify_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """An answer and a one-passage pack in a folder with no config file or corpus; no LLM settings in the env."""
    monkeypatch.chdir(tmp_path)
    for name in ("VERIGROUND_LLM_BASE_URL", "VERIGROUND_LLM_MODEL", "VERIGROUND_LLM__JUDGE", "VERIGROUND_LLM__REPLAY"):
        monkeypatch.delenv(name, raising=False)
    answer_file = tmp_path / "answer.md"
    answer_file.write_text(CLAIM + "\n", encoding="utf-8")
    pack_file = tmp_path / "pack.json"
    pack_file.write_text(json.dumps({"passages": [{"passage_id": BOOK, "text": BOOK_TEXT}]}), encoding="utf-8")
    return answer_file, pack_file


def test_verify_llm_judge_against_the_stub_server_then_replays_byte_identically(
    verify_files, tmp_path, monkeypatch, capsys
):
    answer_file, pack_file = verify_files
    cache = tmp_path / "judge-cache.jsonl"
    argv = ["verify", str(answer_file), "--evidence", str(pack_file), "--llm-judge", "--json"]
    monkeypatch.setenv("VERIGROUND_LLM_MODEL", "stub-model")
    monkeypatch.setenv("VERIGROUND_LLM__CACHE", str(cache))
    with OpenAIStubServer() as server:
        monkeypatch.setenv("VERIGROUND_LLM_BASE_URL", server.base_url)
        server.queue(reply(answer("contradicted", "The book says the opposite.")))
        assert main(argv) == 0
        first = capsys.readouterr().out
        assert len(server.requests) == 1
    report = json.loads(first)
    claim = report["claims"][0]
    assert claim["decision"]["rule"] == "llm-judge-contradicted"
    assert claim["decision"]["status"] == "Contradictory"
    assert claim["signals"]["llm_judgements"][0]["rationale"] == "The book says the opposite."
    assert report["manifest"]["backends"][-1] == {
        "role": "llm",
        "name": "llm-judge.v1/openai-chat.v1",
        "model_id": f"stub-model @ {server.base_url}",
        "checksum": None,
    }
    assert cache.is_file()

    monkeypatch.setenv("VERIGROUND_LLM__REPLAY", "true")  # the server is stopped: only the cache can answer
    assert main(argv) == 0
    assert capsys.readouterr().out == first


def test_verify_llm_judge_without_a_base_url_is_a_config_error(verify_files, capsys):
    answer_file, pack_file = verify_files
    assert main(["verify", str(answer_file), "--evidence", str(pack_file), "--llm-judge", "--json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: llm.judge is on (--llm-judge) but llm.base_url is not set")
    assert "VERIGROUND_LLM_BASE_URL" in err


def test_no_llm_judge_overrides_the_config(verify_files, monkeypatch, capsys):
    answer_file, pack_file = verify_files
    monkeypatch.setenv("VERIGROUND_LLM__JUDGE", "true")
    assert main(["verify", str(answer_file), "--evidence", str(pack_file), "--json"]) == 2
    capsys.readouterr()
    assert main(["verify", str(answer_file), "--evidence", str(pack_file), "--no-llm-judge", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["manifest"]["config"]["llm"]["judge"] is False
    assert report["claims"][0]["signals"]["llm_judgements"] == []
