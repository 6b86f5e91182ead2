"""A new user's first hour on the CLI (issue 23): full document ids, titles from \\title and front matter, licence
and provenance files skipped unless asked, per-row `eval pairs` output, progress bars only on a terminal, plain
words in the mitigated answer and its summary (a 350-token claim included), and `demo`'s three next steps."""

from __future__ import annotations

import io
import json
import re
import shlex

import pytest

from conftest import write_file
from veriground.backends.shipped_nli import ShippedNLIModel
from veriground.cli import main
from veriground.cli.demo_command import next_steps
from veriground.cli.progress import progress_bar, progress_group, progress_wanted
from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths, is_meta_file
from veriground.corpus.latex_markup import convert_tex
from veriground.corpus.loaders import load_file
from veriground.corpus.store import CorpusStore
from veriground.engine import verify_text
from veriground.evidence.gather import CorpusEvidence
from veriground.mitigation.wording import describe_action, flag_text
from veriground.reports import terminal
from veriground.reports.report_facts import actions_text, answer_warning_segments
from veriground.retrieval.search import build_retriever
from veriground.schema import RejectionReason

LONG_ID_PARTS = ("library", "physics", "chapter-03-kinematics")
LONG_NAME = "section-3.4-free-fall-and-projectile-motion-in-two-dimensions"
FREE_FALL = "Free fall is motion under gravity alone, with an acceleration of 9.8 m/s^2 near the surface of the Earth."
REASON_CODES = {reason.value for reason in RejectionReason}
ACTION_CODES = (
    "removed_contradicted_claims",
    "flagged_low_confidence_claims",
    "flagged_unsupported_claims",
    "flagged_unverified_claims",
    "kept_supported_claims_with_citations",
    "evidence_conflict_check_unavailable",
)
RAW_PROBABILITY = re.compile(r"(?<![\d.])[01]\.\d{2,}")
INTERNAL_ERROR = re.compile(r"tokens long|leaves -?\d+|split the claim|Traceback|BackendError")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- progress bars -----------------------------------------------------------------------------------------------


def test_progress_bar_is_off_without_a_terminal_and_draws_done_of_total_on_one(capsys, monkeypatch):
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "VERIGROUND_NO_PROGRESS"):
        monkeypatch.delenv(name, raising=False)
    assert not progress_wanted()  # pytest captures stderr: no terminal
    with progress_bar("Ingesting files") as on_progress:
        on_progress(1, 2)
    assert capsys.readouterr() == ("", "")
    stream = io.StringIO()
    with progress_bar("Ingesting files", stream=stream) as on_progress:
        for done in range(1, 4):
            on_progress(done, 3)
    drawn = stream.getvalue()
    assert "Ingesting files" in drawn and "3/3" in drawn and "ETA" in drawn
    stream = io.StringIO()
    with progress_bar("Ingesting files", enabled=False, stream=stream) as on_progress:  # --json
        on_progress(3, 3)
    assert stream.getvalue() == ""


def test_progress_is_off_with_the_environment_switch_even_on_a_terminal(monkeypatch):
    tty = io.StringIO()
    tty.isatty = lambda: True  # type: ignore[method-assign]
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "VERIGROUND_NO_PROGRESS"):
        monkeypatch.delenv(name, raising=False)
    assert progress_wanted(tty)
    monkeypatch.setenv("VERIGROUND_NO_PROGRESS", "1")
    assert not progress_wanted(tty)


def test_a_progress_group_keeps_one_bar_per_label():
    stream = io.StringIO()
    with progress_group(stream=stream) as bars:
        bars.callback("Embedding passages")(1, 4)
        bars.update("Embedding passages", 4, 4)
        bars.update("Ingesting files", 2, 2)
        assert len(bars._progress.tasks) == 2  # the same label is the same bar
    assert "4/4" in stream.getvalue() and "2/2" in stream.getvalue()


def test_ingest_reports_each_file_to_its_progress_callback(tmp_path):
    for number in range(3):
        write_file(tmp_path / "lib", f"note-{number}.txt", f"Note {number} says that energy is conserved in a system.")
    calls: list[tuple[int, int]] = []
    with CorpusStore(tmp_path / "c", create=True) as store:
        ingest_paths(
            [tmp_path / "lib"], store, load_config(None, environ={}).ingest, on_progress=lambda *c: calls.append(c)
        )
    assert calls == [(0, 3), (1, 3), (2, 3), (3, 3)]


# --- corpus list, ingest lines --------------------------------------------------------------------------------


@pytest.fixture
def long_id_corpus(tmp_path):
    folder = tmp_path.joinpath(*LONG_ID_PARTS)
    write_file(folder, f"{LONG_NAME}.md", f"---\ntitle: Free fall\n---\n\n# Kinematics\n\n{FREE_FALL}\n")
    write_file(tmp_path / "library", "short.txt", "Energy is conserved in a closed system, whatever happens inside.")
    corpus = str(tmp_path / "c")
    assert main(["ingest", str(tmp_path / "library"), "--corpus", corpus]) == 0
    return corpus, "/".join(LONG_ID_PARTS) + "/" + LONG_NAME


@pytest.mark.parametrize("width", [80, 140])
def test_corpus_list_prints_every_document_id_whole(long_id_corpus, capsys, monkeypatch, width):
    corpus, long_id = long_id_corpus
    capsys.readouterr()
    monkeypatch.setattr(terminal.console, "width", width)
    code, out, _ = run(capsys, "corpus", "list", "--corpus", corpus)
    assert code == 0
    assert long_id in out.replace("\n", "") and "library/short" in out
    assert "…" not in out
    code, out, _ = run(capsys, "corpus", "list", "--corpus", corpus, "--wide")
    rows = [line for line in out.splitlines() if long_id in line]
    assert code == 0 and len(rows) == 1 and "Free fall" in rows[0]  # one line per document, whatever the width
    code, out, _ = run(capsys, "corpus", "list", "--corpus", corpus, "--json")
    assert long_id in [document["doc_id"] for document in json.loads(out)]


def test_ingest_lines_keep_a_space_after_the_longest_outcome(tmp_path, capsys):
    path = write_file(tmp_path / "lib", "a.txt", "Energy is conserved in a closed system, whatever happens inside it.")
    corpus = str(tmp_path / "c")
    run(capsys, "ingest", str(tmp_path / "lib"), "--corpus", corpus)
    path.write_text("Momentum is conserved when no external force acts on the system at all.")
    code, out, _ = run(capsys, "ingest", str(tmp_path / "lib"), "--corpus", corpus)
    assert code == 0 and f"new_version {path}" in out


# --- titles ---------------------------------------------------------------------------------------------------


def test_a_tex_title_comes_from_title_not_from_the_first_section():
    source = (
        "\\documentclass{book}\n%\\title{An old draft title}\n"
        "\\title[ODS]{Open Data Structures\\\\ (in \\textbf{Java})}\n\\author{Pat Morin}\n"
        "\\begin{document}\\maketitle\n\\chapter{Introduction}\n"
        "Arrays and lists are the subject here.\n\\end{document}\n"
    )
    assert convert_tex(source).title == "Open Data Structures (in Java)"
    untitled = "\\begin{document}\\section{Introduction}\nArrays and lists are the subject here.\\end{document}"
    assert convert_tex(untitled).title == "Introduction"
    assert convert_tex("\\title{never closed " + "x" * 5000).title is None


def test_a_markdown_title_comes_from_front_matter_then_the_first_heading(tmp_path):
    fronted = write_file(
        tmp_path, "a.md", "---\ntitle: Work and energy\n---\n\n# Chapter 7\n\nWork is force times distance.\n"
    )
    headed = write_file(tmp_path, "b.md", "Intro line.\n\n# Work and energy\n\nWork is force times distance.\n")
    assert load_file(fronted, max_bytes=10_000)[0].title == "Work and energy"
    assert load_file(headed, max_bytes=10_000)[0].title == "Work and energy"


# --- licence and provenance files ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "meta"),
    [
        ("LICENSE", True),
        ("LICENSE-MIT", True),
        ("license.txt", True),
        ("COPYING.LESSER", True),
        ("NOTICE.md", True),
        ("SOURCE.md", True),
        ("ATTRIBUTION.md", True),
        ("licensed-software-policy.md", False),
        ("NOTICE", True),
        ("notice.md", False),
        ("notice-of-meeting.md", False),
        ("sources.md", False),
        ("energy.md", False),
    ],
)
def test_meta_file_names(name, meta):
    assert is_meta_file(name) is meta


def test_licence_and_source_files_are_skipped_and_counted_unless_asked(tmp_path, capsys):
    write_file(tmp_path / "lib", "energy.md", "Kinetic energy is the energy of motion of a body of mass m.")
    write_file(tmp_path / "lib", "LICENSE.txt", "Permission is hereby granted, free of charge, to any person.")
    write_file(tmp_path / "lib", "SOURCE.md", "# Where this came from\n\nOpenStax University Physics, CC BY 4.0.")
    corpus = str(tmp_path / "c")
    code, out, _ = run(capsys, "ingest", str(tmp_path / "lib"), "--corpus", corpus)
    assert code == 0
    assert "1 added" in out and "2 skipped (2 licence/provenance files: --include-meta-files ingests them)" in out
    code, out, _ = run(capsys, "corpus", "list", "--corpus", corpus, "--json")
    assert [document["doc_id"] for document in json.loads(out)] == ["lib/energy"]
    code, out, _ = run(capsys, "ingest", str(tmp_path / "lib"), "--corpus", corpus, "--include-meta-files")
    assert code == 0 and "2 added" in out and "0 skipped" in out


def test_the_config_key_mirrors_the_flag(tmp_path, capsys):
    write_file(tmp_path / "lib", "energy.md", "Kinetic energy is the energy of motion of a body of mass m.")
    write_file(tmp_path / "lib", "ATTRIBUTION.md", "Adapted from OpenStax University Physics, CC BY 4.0.")
    toml = write_file(tmp_path, "veriground.toml", "[ingest]\ninclude_meta_files = true\n")
    code, out, _ = run(capsys, "ingest", str(tmp_path / "lib"), "--corpus", str(tmp_path / "c"), "--config", str(toml))
    assert code == 0 and "2 added" in out
    code, out, _ = run(
        capsys,
        "ingest",
        str(tmp_path / "lib"),
        "--corpus",
        str(tmp_path / "d"),
        "--config",
        str(toml),
        "--skip-meta-files",
    )
    assert code == 0 and "1 added" in out and "1 skipped" in out


def test_a_meta_file_named_on_the_command_line_is_ingested(tmp_path, capsys):
    path = write_file(tmp_path, "SOURCE.md", "# Provenance\n\nOpenStax University Physics, chapters 2 to 7, CC BY 4.0.")
    code, out, _ = run(capsys, "ingest", str(path), "--corpus", str(tmp_path / "c"))
    assert code == 0 and "1 added" in out


# --- eval pairs --rows -----------------------------------------------------------------------------------------


def test_eval_pairs_rows_prints_each_rows_verdicts_rule_and_explanation(tmp_path, capsys):
    kinetic = "Kinetic energy is the energy of motion of a body. A body of mass m moving at speed v has KE = 1/2 m v^2."
    rows = [
        {"id": "ke-ok", "text": "Kinetic energy is the energy of motion of a body.", "evidence": [kinetic],
         "label": "supported"},
        {"id": "ke-number", "text": "A body of mass m moving at speed v has KE = 2 m v^2.", "evidence": [kinetic],
         "label": "contradicted"},
        {"id": "off-topic", "text": "The Eiffel Tower stands in Paris.", "evidence": [kinetic], "label": "supported"},
    ]  # fmt: skip
    path = write_file(tmp_path, "rows.jsonl", "".join(json.dumps(row) + "\n" for row in rows))
    code, out, err = run(capsys, "eval", "pairs", str(path), "--rows")
    assert code == 0, err
    lines = out.splitlines()
    assert "  ke-ok  gold supported, predicted supported" in lines
    assert "✗ off-topic  gold supported, predicted hallucinated" in lines  # disagrees with its gold label
    number_line = lines[lines.index("  ke-number  gold contradicted, predicted hallucinated") + 1].split()
    assert number_line[:2] == ["Contradictory", "formal-mismatch"] and "KE = 1/2 m v^2" in " ".join(number_line)
    assert out.index("ke-ok") < out.index("eval pairs:")  # the rows, then the metrics table
    code, plain, _ = run(capsys, "eval", "pairs", str(path))
    assert "ke-ok" not in plain  # rows only when asked


# --- plain words in the mitigated answer and its summary -----------------------------------------------------


def test_every_reason_code_has_flag_words_and_no_flag_shows_a_code():
    for reason in RejectionReason:
        for verdict in ("Low Confidence", "Unsupported", "Unverified"):
            flag = flag_text(verdict, reason)
            assert flag.startswith(f"[{verdict}: ") and not any(code in flag for code in REASON_CODES)
            assert answer_warning_segments(f"A. {flag}") == [("A. ", False), (flag, True)]
    for action in (*ACTION_CODES, "surfaced_evidence_conflicts:surface", "evidence_conflict_check_off: x"):
        assert "_" not in describe_action(action).split("(")[0]


@pytest.fixture(scope="module")
def shipped_nli() -> ShippedNLIModel:
    return ShippedNLIModel()


def test_a_350_token_claim_is_judged_with_no_code_probability_or_internal_error_in_what_users_read(
    tmp_path, shipped_nli, capsys
):
    write_file(tmp_path / "lib", "energy.md", f"{FREE_FALL}\n\nKinetic energy is the energy of motion of a body.")
    clause = (
        "the kinetic energy of a moving body depends on its mass and on the square of its speed, and the work done "
        "on it by the net force equals the change in that energy"
    )
    long_claim = ", so ".join([clause] * 12).capitalize() + "."
    assert len(shipped_nli.tokenizer(long_claim)["input_ids"]) > 350
    text = f"Kinetic energy is the energy of motion. {long_claim} Objects fall with an acceleration of 98 m/s^2."
    config = load_config(None, {"corpus.dir": tmp_path / "c", "models.nli": "veriground-nli"}, environ={})
    with CorpusStore(tmp_path / "c", create=True) as store:
        ingest_paths([tmp_path / "lib"], store, config.ingest)
        source = CorpusEvidence(store, config.retrieval, build_retriever(store, config))
        report = verify_text(text, config=config, source=source, nli=shipped_nli)
    # the model reads 256 tokens: the long claim is read in parts (sequence_pair_nli), not refused as Unverified
    assert "Unverified" not in [item.decision.status for item in report.claims]
    assert not any("tokens long" in warning for warning in report.manifest.warnings)
    summary = actions_text(report)
    first_lines = [item.decision.explanation.split("\n")[0] for item in report.claims]
    for shown in (report.final_response, summary, *first_lines):
        assert not any(code in shown for code in (*REASON_CODES, *ACTION_CODES)), shown
        assert not RAW_PROBABILITY.search(shown), shown
        assert not INTERNAL_ERROR.search(shown), shown
    terminal_view = _terminal_summary(report, capsys)
    assert "mitigation actions:" in terminal_view and not INTERNAL_ERROR.search(terminal_view)


def _terminal_summary(report, capsys) -> str:
    """The verification view's lines above the claims: the summary a reader takes in first."""
    from veriground.reports.verification_view import print_verification

    capsys.readouterr()
    print_verification(report)
    out = capsys.readouterr().out
    return out.split("Answer after mitigation")[0]


# --- demo --------------------------------------------------------------------------------------------------------


def test_the_three_next_steps_are_exact_commands_that_run(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    corpus = tmp_path / "demo corpus"
    write_file(tmp_path / "lib", "free-fall.md", FREE_FALL)
    assert main(["ingest", str(tmp_path / "lib"), "--corpus", str(corpus)]) == 0
    steps = next_steps(corpus, "veriground", "http://127.0.0.1:8000/")
    assert [what.split()[0] for what, _ in steps] == ["Verify", "Ask", "Open"]
    verify, ask, serve = (shlex.split(command) for _, command in steps)
    assert verify[0] == "echo" and verify[2:5] == ["|", "veriground", "verify"] and str(corpus) in verify
    assert serve == ["veriground", "serve", "--corpus", str(corpus)]
    capsys.readouterr()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(verify[1].encode())))
    code, out, err = run(capsys, *verify[4:])
    assert code == 0, err
    assert "Contradictory" in out  # the suggested text has one wrong number
    code, out, err = run(capsys, *ask[1:])
    assert code == 0, err
