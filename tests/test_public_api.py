"""The public Python API: the names `veriground` exports (pinned), their lazy import, the `Workspace` against the
bundled demo corpus (the same records the CLI prints), and the README's "Python API" example run as written."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import subprocess
import sys
import textwrap
from importlib import resources
from pathlib import Path

import pytest

import veriground
from conftest import REPO_ROOT, write_file
from veriground import (
    Claim,
    ConfigError,
    EvidenceChunk,
    EvidencePack,
    GroundedAnswer,
    IngestReport,
    InputTextError,
    InputTooLargeError,
    PackPassage,
    StoreError,
    VerificationReport,
    VerigroundError,
    Workspace,
    load_config,
)
from veriground.cli import main

# Removing or renaming any of these breaks users' code: such a change must edit this list on purpose.
PUBLIC_NAMES = {
    "__version__",
    "Workspace",
    "Config",
    "load_config",
    "VerificationReport",
    "ClaimReport",
    "GroundedAnswer",
    "IngestReport",
    "Claim",
    "EvidenceChunk",
    "EvidencePack",
    "PackPassage",
    "VerigroundError",
    "ConfigError",
    "InputFileError",
    "InputTextError",
    "InputTooLargeError",
    "StoreError",
    "NotFoundError",
    "BackendError",
}
KINETIC = "What is kinetic energy?"
SPEED_CLAIM = "Kinetic energy does not depend on the speed of an object."
README_SECTION = "## Python API"


@pytest.fixture(scope="module")
def demo_root():
    with resources.as_file(resources.files("veriground") / "demo_corpus") as root:
        yield root


@pytest.fixture(scope="module")
def demo_corpus(demo_root, tmp_path_factory) -> Path:
    """The demo corpus ingested once through the Workspace; tests open their own workspace over it."""
    corpus = tmp_path_factory.mktemp("api") / "corpus"
    with Workspace.open(corpus) as ws:
        report = ws.ingest([demo_root])
    assert report.failed == 0 and report.added > 0
    return corpus


def cli_json(capsys, *argv: str) -> object:
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


# --- the exported names ---------------------------------------------------------------------------


def test_every_pinned_public_name_is_exported_and_resolves():
    assert set(veriground.__all__) == PUBLIC_NAMES
    for name in PUBLIC_NAMES:
        assert getattr(veriground, name) is not None, name
    assert issubclass(veriground.ConfigError, VerigroundError) and issubclass(StoreError, VerigroundError)
    assert veriground.Config is type(load_config(environ={}))


def test_star_import_gives_exactly_the_public_names():
    namespace: dict[str, object] = {}
    exec("from veriground import *", namespace)  # noqa: S102 - the statement a user writes
    assert set(namespace) - {"__builtins__"} == PUBLIC_NAMES


def test_an_unknown_name_is_an_attribute_error_and_submodules_still_import():
    with pytest.raises(AttributeError, match="no attribute 'Workspaces'"):
        _ = veriground.Workspaces
    from veriground import schema

    assert schema.VerificationReport is VerificationReport


def test_import_veriground_loads_no_submodule_until_a_name_is_used():
    probe = (
        "import sys, veriground\n"
        "before = sorted(m for m in sys.modules if m.startswith(('veriground.', 'pydantic')))\n"
        "veriground.Workspace\n"
        "print(before, 'veriground.workspace' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[] True"


# --- the Workspace ----------------------------------------------------------------------------------


def test_ingest_reports_the_passages_search_sees(demo_root, tmp_path):
    with Workspace.open(tmp_path / "c") as ws:
        first = ws.ingest(demo_root)
        again = ws.ingest([str(demo_root)])
        assert isinstance(first, IngestReport)
        assert first.passages_indexed == ws.retriever.passages_indexed() > 0
        assert again.unchanged == first.added and again.added == 0
        assert again.passages_indexed == first.passages_indexed


def test_search_verify_and_ask_return_what_the_cli_prints(demo_corpus, tmp_path, capsys):
    answer_file = write_file(tmp_path, "answer.md", SPEED_CLAIM + "\n")
    corpus = str(demo_corpus)
    with Workspace.open(demo_corpus) as ws:
        chunks = ws.search("kinetic energy", k=2)
        report = ws.verify(SPEED_CLAIM + "\n")
        answer = ws.ask(KINETIC)
    assert [type(chunk) for chunk in chunks] == [EvidenceChunk, EvidenceChunk]
    assert [chunk.model_dump(mode="json") for chunk in chunks] == cli_json(
        capsys, "search", "kinetic energy", "-k", "2", "--corpus", corpus
    )
    assert isinstance(report, VerificationReport)
    assert report.model_dump(mode="json") == cli_json(capsys, "verify", str(answer_file), "--corpus", corpus)
    assert isinstance(answer, GroundedAnswer) and answer.claims
    assert answer.model_dump(mode="json") == cli_json(capsys, "ask", KINETIC, "--corpus", corpus)


def test_backends_are_built_once_and_reused(demo_corpus):
    with Workspace.open(demo_corpus) as ws:
        ws.search("energy")
        assert ws.store is ws.store and ws.retriever is ws.retriever and ws.nli is ws.nli
        assert ws.llm is None  # no llm.base_url: ask drafts extractively
        assert ws.nli.name.startswith("lexical")  # conftest pins the lexical NLI through the environment


def test_claims_given_as_strings_are_verified_whole_with_spans_into_the_joined_text(demo_corpus):
    claims = ["Merge sort runs in O(n log n) time and it is stable.", SPEED_CLAIM]
    with Workspace.open(demo_corpus) as ws:
        report = ws.verify(claims=claims)
    raw = report.annotated_answer.raw_answer
    assert [item.claim.text for item in report.claims] == claims  # no atomic split of the "and" sentence
    assert [raw[slice(*item.claim.answer_char_span)] for item in report.claims] == claims


def test_claim_records_are_verified_against_their_text(demo_corpus):
    text = "Water boils at 100 degrees. " + SPEED_CLAIM
    claim = Claim(
        claim_id="c1", answer_id="a1", text=SPEED_CLAIM, answer_char_span=(28, len(text)), extraction_method="mine"
    )
    with Workspace.open(demo_corpus) as ws:
        report = ws.verify(text, claims=[claim])
    assert [item.claim for item in report.claims] == [claim]


def test_evidence_texts_are_the_only_evidence_and_need_no_corpus(tmp_path):
    nowhere = tmp_path / "no-corpus"
    with Workspace.open(nowhere) as ws:
        report = ws.verify(
            "The kinetic energy of an object depends on its speed.",
            evidence=["The kinetic energy of an object depends on its mass and its speed.", "Water is wet."],
            question="What does kinetic energy depend on?",
        )
    passage_ids = {chunk.passage_id for item in report.claims for chunk in item.evidence}
    assert passage_ids and all(pid.startswith("pack#") for pid in passage_ids)
    assert report.citeeval.query == "What does kinetic energy depend on?"
    assert not nowhere.exists()  # verifying against given passages never creates a corpus


def test_an_evidence_pack_may_name_corpus_passages_by_id_and_search_results_work_too(demo_corpus):
    with Workspace.open(demo_corpus) as ws:
        hits = ws.search("kinetic energy speed", k=2)
        pack = EvidencePack(query=KINETIC, passages=(PackPassage(passage_id=hits[0].passage_id),))
        from_pack = ws.verify(SPEED_CLAIM, evidence=pack)
        from_hits = ws.verify(SPEED_CLAIM, evidence=hits)
    assert from_pack.citeeval.query == KINETIC
    assert [chunk.text for chunk in from_pack.claims[0].evidence] == [hits[0].text]
    assert {chunk.passage_id for chunk in from_hits.claims[0].evidence} <= {hit.passage_id for hit in hits}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "verify needs text or claims"),
        ({"claims": ["a claim", 3]}, "all strings or all Claim records"),
        ({"text": "x", "claims": ["a claim"]}, "either text or claims"),
        ({"claims": "one claim"}, "claims must be a list"),
        ({"claims": [" "]}, "claim 1 is empty"),
        ({"text": "x", "evidence": []}, "evidence is an empty list"),
        ({"text": "x", "evidence": [1.5]}, "must be a str, PackPassage or EvidenceChunk"),
    ],
)
def test_bad_verify_input_is_one_clear_error(tmp_path, kwargs, message):
    with Workspace.open(tmp_path / "c") as ws, pytest.raises(InputTextError, match=message):
        ws.verify(**kwargs)


def make_claim(claim_id: str, span: tuple[int, int]) -> Claim:
    return Claim(claim_id=claim_id, answer_id="a1", text="x", answer_char_span=span, extraction_method="mine")


@pytest.mark.parametrize(
    ("text", "claims", "message"),
    [
        (None, [make_claim("c1", (0, 1))], "pass it too"),
        ("xy", [make_claim("c1", (0, 3))], "spans 0..3, outside the text's 2 characters"),
        ("xy", [make_claim("c1", (0, 1)), make_claim("c1", (1, 2))], "claim id 'c1' is given twice"),
        (None, ["caf\udcff"], "claim 1 holds a lone surrogate"),
        ("caf\udcff", [make_claim("c1", (0, 1))], "the text the claims index holds a lone surrogate"),
    ],
)
def test_claims_that_cannot_be_reported_are_refused(tmp_path, text, claims, message):
    with Workspace.open(tmp_path / "c") as ws, pytest.raises(InputTextError, match=message):
        ws.verify(text, claims=claims)


def test_given_claims_obey_the_verification_limits(tmp_path):
    too_many = pytest.raises(InputTooLargeError, match="2 claims given, over verification.max_claims=1")
    with Workspace.open(tmp_path / "c", verification__max_claims=1) as ws, too_many:
        ws.verify(claims=["one", "two"])
    too_long = pytest.raises(InputTooLargeError, match="over verification.max_input_chars=5")
    with Workspace.open(tmp_path / "c", verification__max_input_chars=5) as ws, too_long:
        ws.verify(claims=["a longer claim"])


def test_ask_filters_restrict_the_evidence_and_bad_ones_are_refused(demo_corpus):
    with Workspace.open(demo_corpus) as ws:
        answer = ws.ask(KINETIC, doc="demo_corpus/physics")
        assert answer.claims and answer.trace.evidence
        assert all(chunk.doc_id.startswith("demo_corpus/physics/") for chunk in answer.trace.evidence)
        with pytest.raises(InputTextError, match=r"ask\(\) filters are doc, source, source_type; got author"):
            ws.ask(KINETIC, author="me")


def test_search_over_a_missing_corpus_fails_without_creating_it(tmp_path):
    with Workspace.open(tmp_path / "nowhere") as ws, pytest.raises(StoreError, match="no corpus at"):
        ws.search("energy")
    assert not (tmp_path / "nowhere").exists()


# --- opening and closing ----------------------------------------------------------------------------


def test_overrides_files_and_config_objects_resolve_like_the_cli(demo_corpus, tmp_path):
    with Workspace.open(demo_corpus, retrieval__top_k=2) as ws:
        assert len(ws.search("energy")) == 2
    toml = write_file(tmp_path, "vg.toml", "[retrieval]\ntop_k = 4\n")
    assert Workspace.open(demo_corpus, toml).config.retrieval.top_k == 4
    base = load_config(environ={})
    opened = Workspace.open(tmp_path / "d", base, answer__mode="detailed")
    assert opened.config.answer.mode == "detailed" and opened.config.corpus.dir == tmp_path / "d"
    assert opened.config.models.nli == base.models.nli  # a Config object is used as given, no environment on top


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"top_k": 3}, "write section__key"),
        ({"retrieval__top_k": 0}, "retrieval.top_k"),
        ({"retreival__top_k": 3}, "unknown config section"),
    ],
)
def test_bad_overrides_are_config_errors(overrides, message):
    with pytest.raises(ConfigError, match=message):
        Workspace.open(**overrides)
    with pytest.raises(ConfigError, match=message):  # over a Config object, checked the same way
        Workspace.open(None, load_config(environ={}), **overrides)


def test_close_releases_everything_and_is_idempotent(demo_corpus):
    ws = Workspace.open(demo_corpus)
    with ws:
        ws.search("energy")
    assert "closed" in repr(ws)
    ws.close()
    with pytest.raises(StoreError, match="is closed"):
        ws.search("energy")


# --- the README example ------------------------------------------------------------------------------


def readme_example() -> str:
    """The first indented code block of the README's Python API section, dedented."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split(f"\n{README_SECTION}\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"(?:^    .*\n|^\n)+", section.split("\n\n", 1)[1], flags=re.MULTILINE)
    assert block is not None, "the Python API section has no indented example"
    return textwrap.dedent(block.group(0)).strip() + "\n"


def test_readme_example_runs_as_written_on_the_demo_corpus(demo_root, tmp_path, monkeypatch):
    shutil.copytree(demo_root, tmp_path / "notes")  # the example ingests notes/ from the working directory
    monkeypatch.chdir(tmp_path)
    code = readme_example()
    assert 8 <= len(code.splitlines()) <= 14 and "Workspace.open" in code
    namespace: dict[str, object] = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "README.md", "exec"), namespace)  # noqa: S102 - the README's code, run as written
    ingested, report, answer = namespace["ingested"], namespace["report"], namespace["answer"]
    assert isinstance(ingested, IngestReport) and ingested.failed == 0 and ingested.added > 0
    assert isinstance(report, VerificationReport) and report.claims
    assert isinstance(answer, GroundedAnswer) and answer.claims
    lines = printed.getvalue().splitlines()
    assert len(lines) == 3 + len(report.claims) + 1  # top_k = 3 search hits, one line per claim, the answer
    assert lines[0].startswith("notes/physics/") and f"{report.claims[0].decision.status} {SPEED_CLAIM}" in lines
    assert (tmp_path / "my-corpus").is_dir()
