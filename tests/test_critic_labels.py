"""Critic mode tier 1 (seed 004 §3.7): every label L1-L6 has a true positive and a near-miss true negative; quoted
sources never fire; L3 says when it was not checked; L4 degrades to `unavailable`; the lexicons load as data with
provenance; the shipped example draft gets all six labels from `veriground critic`."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from veriground.backends.lexical_nli import LexicalNLIModel
from veriground.cli import main
from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.critic import CriticBackends, corpus_verifier, critique_text
from veriground.critic.lexicons import LEXICON_FILES, load_lexicon, phrase_pattern
from veriground.errors import BackendError, InputTextError, InputTooLargeError
from veriground.retrieval.search import build_retriever

CONFIG = load_config(None, {"models.nli": "lexical"}, environ={})
EXAMPLE = resources.files("veriground") / "eval_data" / "critic_example.md"


@pytest.fixture(scope="module")
def demo_corpus(tmp_path_factory) -> Path:
    corpus = tmp_path_factory.mktemp("critic") / "corpus"
    with resources.as_file(resources.files("veriground") / "demo_corpus") as root, CorpusStore(corpus) as store:
        assert not ingest_paths([root], store, CONFIG.ingest).failed
    return corpus


@pytest.fixture(scope="module")
def with_corpus(demo_corpus):
    config = CONFIG.model_copy(update={"corpus": CONFIG.corpus.model_copy(update={"dir": demo_corpus})})
    nli = LexicalNLIModel()
    with CorpusStore(demo_corpus, create=False) as store:
        verify = corpus_verifier(config, store, build_retriever(store, config), nli)
        yield lambda text: critique_text(text, config=config, backends=CriticBackends(nli, verify))


def offline(text: str):
    return critique_text(text, config=CONFIG, backends=CriticBackends(LexicalNLIModel()))


def labels_of(report) -> set[str]:
    return {finding.label for finding in report.findings}


def only(report, label: str):
    [finding] = [finding for finding in report.findings if finding.label == label]
    return finding


# --- one true positive and one near miss per label ------------------------------------------------------------


def test_l1_loaded_word_fires_with_its_span_and_a_neutral_word_does_not():
    text = "The committee adopted a reckless plan."
    finding = only(offline(text), "L1")
    assert text[finding.span[0] : finding.span[1]] == "reckless" == finding.trigger
    assert (finding.tier, finding.rule, finding.confidence) == (1, "L1.loaded-word", 0.8)
    assert "loaded language" in finding.rationale
    assert labels_of(offline("The committee adopted a careful plan. Use of the travel card is mandatory.")) == set()
    quoted = 'The union called the plan "reckless and absurd," and the agency published its reply.'
    assert labels_of(offline(quoted)) == set()


def test_l2_one_sided_benefits_fire_and_a_balanced_account_does_not():
    report = offline("The portal saves time, improves accuracy and boosts morale.")
    finding = only(report, "L2")
    assert finding.rule == "L2.cue-balance" and "Cue-balance heuristic" in finding.rationale
    assert finding.trigger == "saves" and finding.confidence == 0.5
    assert only(offline("The merger has no downside for staff."), "L2").trigger == "no downside"
    balanced = "The portal saves time and improves accuracy, but it adds costs for small offices and a training risk."
    assert "L2" not in labels_of(offline(balanced))


def test_l3_unsupported_statistic_is_flagged_and_a_supported_one_is_not(with_corpus):
    text = "Studies show that 80 percent of remote teams miss their deadlines."
    finding = only(with_corpus(text), "L3")
    assert finding.span == (0, len(text)) and finding.rule == "L3.verifier-unsupported"
    assert "Unsupported" in finding.rationale and "cites nothing" in finding.rationale
    supported = "You can have up to 24 credit hours accrued at any given time."
    report = with_corpus(supported)
    assert "L3" not in labels_of(report)
    assert next(check for check in report.checks if check.label == "L3").status == "checked"


def test_l3_plans_and_cited_sentences_are_not_sent_to_the_verifier(with_corpus):
    report = with_corpus("We will publish the schedule next week. Studies show that 80 percent agree [1].")
    assert "L3" not in labels_of(report)
    assert "0 check-worthy" in next(check for check in report.checks if check.label == "L3").reason


def test_l3_without_a_corpus_is_reported_not_checked_never_guessed():
    report = offline("Studies show that 80 percent of remote teams miss their deadlines.")
    assert "L3" not in labels_of(report)
    check = next(check for check in report.checks if check.label == "L3")
    assert check.status == "not_checked" and "--corpus" in check.reason
    assert report.manifest.corpus_checked is False


def test_l4_contradicting_sentences_fire_on_the_later_one_and_a_restatement_does_not():
    first = "The pilot reduced processing time in every regional office."
    text = f"{first} Processing time did not fall in any regional office during the pilot."
    finding = only(offline(text), "L4")
    assert finding.sentence_index == 2 and finding.related_span == (0, len(first))
    assert "Contradicts sentence 1" in finding.rationale and "negation" in finding.rationale
    assert "L4" not in labels_of(
        offline("Travel must be approved before you book it. Approval for travel has to come before the booking.")
    )


def test_l4_scores_at_most_max_pairs_and_says_how_many_it_left(monkeypatch):
    from veriground.critic import self_consistency

    monkeypatch.setattr(self_consistency, "MAX_PAIRS", 1)
    monkeypatch.setattr("veriground.critic.pipeline.MAX_PAIRS", 1)
    text = "The pilot cut costs in every office. The pilot cut costs in most offices. The pilot cut costs in March."
    report = offline(text)
    check = next(check for check in report.checks if check.label == "L4")
    assert "1 same-subject sentence pair(s); 2 more pair(s) past the first 1 were not checked" in check.reason
    assert any("L4 checked only the first 1 sentence pairs" in w for w in report.manifest.warnings)


def test_l4_is_unavailable_not_silent_when_the_nli_fails():
    class BrokenNLI(LexicalNLIModel):
        name = "broken-nli.v1"

        def predict(self, pairs):
            raise BackendError("out of memory")

    text = "The pilot reduced costs in every office. The pilot did not reduce costs in any office."
    report = critique_text(text, config=CONFIG, backends=CriticBackends(BrokenNLI()))
    check = next(check for check in report.checks if check.label == "L4")
    assert check.status == "unavailable" and "broken-nli.v1: out of memory" in check.reason
    assert any("L4 internal-contradiction check unavailable" in w for w in report.manifest.warnings)


def test_l5_either_or_between_courses_of_action_fires_and_either_between_tools_does_not():
    finding = only(offline("Either we cut the training budget now or the agency goes bankrupt."), "L5")
    assert finding.trigger.startswith("Either we cut") and finding.rule == "L5.either-or-course"
    assert only(offline("There is no alternative to the new system."), "L5").trigger == "no alternative"
    neutral = "Staff may submit the request through either the web form or the shared inbox."
    assert labels_of(offline(neutral)) == set()


def test_l6_inevitable_chain_fires_and_inevitably_inside_a_quoted_source_does_not():
    finding = only(offline("Allowing one exception will inevitably lead to every team skipping the review."), "L6")
    assert finding.trigger == "will inevitably lead to" and finding.confidence == 0.85
    quoted = 'The auditor\'s memo warned that "costs will inevitably rise if reviews are skipped."'
    assert labels_of(offline(quoted)) == set()
    assert labels_of(offline("> Costs will inevitably rise.\n\nThe team kept the reviews.")) == set()
    assert labels_of(offline("The first step toward reimbursement is filing a voucher.")) == set()


# --- the report as a whole ------------------------------------------------------------------------------------


def test_report_is_deterministic_and_names_sentences_lexicons_and_thresholds():
    text = "This reckless plan has no alternative. The plan saves money."
    first, second = offline(text), offline(text)
    assert first.model_dump_json() == second.model_dump_json()
    assert [s.labels for s in first.sentences] == [("L1", "L5"), ()]
    assert first.summary.findings_by_label == {"L1": 1, "L2": 0, "L3": 0, "L4": 0, "L5": 1, "L6": 0}
    assert set(first.manifest.lexicon_sha256) == set(LEXICON_FILES.values())
    assert first.manifest.thresholds["l4_min_contradiction_prob"] == CONFIG.verification.conflict_high_prob
    assert first.tier2 is None and first.findings == first.tier1.findings


def test_empty_and_oversized_drafts_are_refused_with_the_fix():
    with pytest.raises(InputTextError, match="the draft to critique is empty"):
        offline("  \n")
    small = CONFIG.model_copy(update={"verification": CONFIG.verification.model_copy(update={"max_input_chars": 10})})
    with pytest.raises(InputTooLargeError, match="verification.max_input_chars=10.*--max-input-chars"):
        critique_text("A draft longer than ten characters.", config=small, backends=CriticBackends(LexicalNLIModel()))


def test_lexicons_are_data_files_with_provenance():
    folder = resources.files("veriground.critic") / "lexicons"
    assert "CC0" in (folder / "PROVENANCE.md").read_text(encoding="utf-8")
    for label in LEXICON_FILES:
        lexicon = load_lexicon(label)
        assert lexicon.settings["license"] == "CC0-1.0" and "PROVENANCE.md" in lexicon.settings["source"]
        assert lexicon.entries and all(0 <= entry.confidence <= 1 for entry in lexicon.entries)
    import re

    assert re.search(phrase_pattern("job-killing"), "a job killing rule")
    assert not re.search(phrase_pattern("scam"), "scampi")


# --- the command ----------------------------------------------------------------------------------------------


def test_critic_command_finds_all_six_labels_in_the_shipped_example(demo_corpus, tmp_path, capsys):
    with resources.as_file(EXAMPLE) as example:
        report_path = tmp_path / "critique.html"
        code = main(["critic", str(example), "--corpus", str(demo_corpus), "--report", str(report_path)])
        out = capsys.readouterr().out
        assert code == 0, out
        assert "labels: L1, L2, L3, L4, L5, L6" in out
        html = report_path.read_text(encoding="utf-8")
        assert html.count('class="critic-mark') >= 6 and 'href="#finding-1"' in html and "<script" not in html
        assert main(["critic", str(example), "--corpus", str(demo_corpus), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["labels"] == ["L1", "L2", "L3", "L4", "L5", "L6"]
    text = report["text"]
    assert all(text[f["span"][0] : f["span"][1]] == f["trigger"] for f in report["findings"] if f["label"] != "L4")
    assert "inevitably" not in " ".join(f["trigger"] for f in report["findings"])  # it is in a quotation


def test_critic_command_errors_are_one_line(tmp_path, capsys):
    draft = tmp_path / "draft.md"
    draft.write_text("A reckless plan.", encoding="utf-8")
    assert main(["critic", str(draft), "--tier", "3"]) == 2
    assert "--tier must be 1 or 2, got 3" in capsys.readouterr().err
    assert main(["critic", str(draft), "--report", str(tmp_path / "out.pdf")]) == 2
    assert "unknown report type" in capsys.readouterr().err
    assert main(["critic", str(draft), "--corpus", str(tmp_path / "nothing")]) == 3
    assert "holds no corpus" in capsys.readouterr().err
    md = tmp_path / "out.md"
    assert main(["critic", str(draft), "--corpus", str(tmp_path / "nothing"), "--report", str(md)]) == 3
    assert not md.exists()
