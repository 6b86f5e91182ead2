"""Acceptance for `veriground verify` on the bundled demo corpus: the example answer's verdicts, reasons and split
claims, its mitigated answer and citations, as the JSON, the terminal view and the HTML report show them; and
`veriground demo`, which runs the same check and writes the three reports.
"""

from __future__ import annotations

import io
import json
import re
from contextlib import redirect_stdout
from html import escape
from pathlib import Path

import pytest

import veriground
from veriground.cli import main

DEMO_DIR = Path(veriground.__file__).resolve().parent / "demo_corpus"
EXAMPLE = DEMO_DIR / "EXAMPLE_ANSWER.md"

# claim id, display verdict, rule that fired, reason code: the example answer on the demo corpus.
EXPECTED = [
    ("c_0001", "Supported", "sufficient-evidence", "sufficient_evidence"),
    ("c_0002", "Contradictory", "numeric-mismatch", "numeric_mismatch"),
    ("c_0003", "Contradictory", "contradicted", "high_contradiction"),
    ("c_0004.1", "Low Confidence", "insufficient-sources", "insufficient_sources"),
    ("c_0004.2", "Unsupported", "low-entailment", "low_entailment"),
    ("c_0005", "Unsupported", "low-entailment", "low_entailment"),
]
SPLIT_CLAIMS = {"c_0004.1": "Merge sort runs in O(n log n) time.", "c_0004.2": "Merge sort is stable."}
HEADING = "# Study notes (AI-written): graphs, gravity, energy, sorting"
GRAPH_CLAIM = "A graph is a pair consisting of a set of vertices and a set of edges."
GRAVITY_CLAIM = "The acceleration due to gravity near Earth's surface is 98 m/s^2."
ENERGY_CLAIM = "Kinetic energy does not depend on the speed of an object."
WARNING = "[Warning: a claim was removed because it contradicts the source ({})]"


def run_cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


@pytest.fixture(scope="module")
def demo_corpus(tmp_path_factory) -> Path:
    corpus = tmp_path_factory.mktemp("acceptance") / "corpus"
    code, _ = run_cli("ingest", str(DEMO_DIR), "--corpus", str(corpus), "--json")
    assert code == 0
    return corpus


@pytest.fixture(scope="module")
def report(demo_corpus) -> dict:
    code, out = run_cli("verify", str(EXAMPLE), "--corpus", str(demo_corpus), "--json")
    assert code == 0
    return json.loads(out)


@pytest.fixture(scope="module")
def claims(report) -> dict[str, dict]:
    return {item["claim"]["claim_id"]: item for item in report["claims"]}


@pytest.fixture(scope="module")
def terminal_output(demo_corpus) -> str:
    code, out = run_cli("verify", str(EXAMPLE), "--corpus", str(demo_corpus))
    assert code == 0
    return out


@pytest.fixture(scope="module")
def html_report(demo_corpus, tmp_path_factory) -> tuple[str, str]:
    path = tmp_path_factory.mktemp("html") / "x.html"
    code, out = run_cli("verify", str(EXAMPLE), "--corpus", str(demo_corpus), "--report", str(path))
    assert code == 0
    return out, path.read_text(encoding="utf-8")


def markers(report: dict, claim_id: str) -> str:
    return "".join(f"[{number}]" for number in report["citations"]["citation_map"][claim_id])


# --- JSON ------------------------------------------------------------------------------------------


def test_json_gives_every_claim_its_verdict_rule_and_reason_in_order(report):
    found = [
        (item["claim"]["claim_id"], item["decision"]["status"], item["decision"]["rule"], item["decision"]["reason"])
        for item in report["claims"]
    ]
    assert found == EXPECTED
    assert [decision["status"] for decision in report["annotated_answer"]["claims"]] == [row[1] for row in EXPECTED]


def test_split_claims_name_their_parent_and_the_atomicity_rule(claims):
    for claim_id, item in claims.items():
        claim = item["claim"]
        if claim_id in SPLIT_CLAIMS:
            assert (claim["parent_claim_id"], claim["atomicity_rule"]) == ("c_0004", "R3")
            assert claim["text"] == SPLIT_CLAIMS[claim_id]
        else:
            assert (claim["parent_claim_id"], claim["atomicity_rule"]) == (None, None)


def test_supported_claim_rests_on_two_independent_sources(report, claims):
    inputs = claims["c_0001"]["inputs"]
    required = report["manifest"]["config"]["verification"]["min_supporting_sources"]
    assert required == 2
    assert inputs["entailing_sources"] == 2
    assert inputs["max_entailment"] >= report["manifest"]["config"]["verification"]["min_entailment_prob"]
    assert claims["c_0001"]["signals"]["citation"]["dangling_ids"] == []


def test_numeric_mismatch_names_both_values(claims):
    gravity = claims["c_0002"]
    assert gravity["signals"]["numeric"]["mismatches"] == ["claim 98 m/s^2 vs evidence 9.8 m/s2"]
    assert "98 m/s^2 vs evidence 9.8 m/s2" in gravity["decision"]["rationale"]
    assert gravity["decision"]["primary_evidence"].startswith("demo_corpus/physics/kinematic-equations-and-free-fall#")


def test_contradicted_claim_points_at_the_contradicting_passage(report, claims):
    energy = claims["c_0003"]
    passage = energy["decision"]["primary_evidence"]
    assert passage.startswith("demo_corpus/physics/work-energy-theorem#")
    assert energy["inputs"]["strongest_contradiction_passage"] == passage
    limit = report["manifest"]["config"]["verification"]["max_contradiction_prob"]
    assert energy["inputs"]["max_contradiction"] > limit
    assert passage in energy["decision"]["rationale"]


def test_summary_counts_match_the_verdicts(report):
    stats = report["annotated_answer"]["summary_stats"]
    assert (stats["claims_total"], stats["supported_high"], stats["supported_low"]) == (6, 1, 1)
    assert (stats["contradicted"], stats["insufficient"], stats["unverified"]) == (2, 2, 0)
    assert [item["mitigation"] for item in report["claims"]] == [
        "kept",
        "suppressed",
        "suppressed",
        "flagged",
        "flagged",
        "flagged",
    ]


def test_mitigated_answer_replaces_contradictions_with_warnings_and_cites_the_supported_claim(report, claims):
    final = report["final_response"]
    assert markers(report, "c_0001")  # the supported claim has at least one [i]
    expected = (
        f"{HEADING}\n\n"
        f"{GRAPH_CLAIM} {markers(report, 'c_0001')}\n\n"
        f"{WARNING.format(claims['c_0002']['decision']['primary_evidence'])}\n\n"
        f"{WARNING.format(claims['c_0003']['decision']['primary_evidence'])}\n\n"
        f"Merge sort runs in O(n log n) time {markers(report, 'c_0004.1')}"
        " [Low Confidence: too few independent sources say this]"
        " and it is stable. [Unsupported: no passage supports this]\n\n"
        "The Treaty of Westphalia was signed in 1648. [Unsupported: no passage supports this]\n"
    )
    assert final == expected
    assert "[CITATION:" not in final  # the answer's own marker is replaced by [i]
    assert GRAVITY_CLAIM not in final and ENERGY_CLAIM not in final


def test_citation_map_numbers_point_at_passages_that_entail_the_claim(report, claims):
    citations = report["citations"]
    passages = citations["passages"]
    threshold = report["manifest"]["config"]["verification"]["min_entailment_prob"]
    used: set[int] = set()
    assert set(citations["citation_map"]) == set(claims)
    for claim_id, numbers in citations["citation_map"].items():
        item = claims[claim_id]
        entailing = {
            (chunk["text"], chunk["title"] or chunk["doc_id"])  # a reference names its document's title
            for chunk, signal in zip(item["evidence"], item["signals"]["nli"], strict=True)
            if signal["entailment_prob"] is not None and signal["entailment_prob"] >= threshold
        }
        for number in numbers:
            passage = passages[number - 1]  # [i] refers to passages[i-1]
            assert (passage["text"], passage["title"]) in entailing
        used.update(numbers)
    assert used == set(range(1, len(passages) + 1))
    assert citations["citation_map"]["c_0002"] == [] and citations["citation_map"]["c_0003"] == []


def test_formatted_answer_and_citeeval_pred_carry_the_same_markers(report):
    citations, citeeval = report["citations"], report["citeeval"]
    assert citeeval["pred"] == citations["formatted_text"]
    assert citeeval["passages"] == citations["passages"]
    assert citeeval["id"] == report["annotated_answer"]["answer_id"]
    formatted = citations["formatted_text"]
    assert f"{GRAPH_CLAIM} {markers(report, 'c_0001')}\n" in formatted
    assert f"Merge sort runs in O(n log n) time {markers(report, 'c_0004.1')} and it is stable.\n" in formatted
    # The formatted answer suppresses nothing: the contradicted claims are still there, without warnings.
    assert GRAVITY_CLAIM in formatted and ENERGY_CLAIM in formatted and "[Warning" not in formatted
    cited = {int(number) for number in re.findall(r"\[(\d+)\]", formatted)}
    assert cited == set(range(1, len(citations["passages"]) + 1))


def test_evidence_span_offsets_index_the_passage_not_the_document(claims):
    checked = 0
    for item in claims.values():
        texts = {chunk["passage_id"]: chunk["text"] for chunk in item["evidence"]}
        for span in item["pair"]["evidence_spans"]:
            assert texts[span["passage_id"]][span["char_start"] : span["char_end"]] == span["text"]
            checked += 1
    assert checked >= len(claims)


# --- terminal ----------------------------------------------------------------------------------------


def claim_blocks(text: str, pattern: str) -> dict[str, str]:
    """Text cut at each claim header; `pattern` has one group, the claim id."""
    pieces = re.split(pattern, text)
    return dict(zip(pieces[1::2], pieces[2::2], strict=True))


def test_terminal_view_prints_each_verdict_rule_reason_and_split_origin(terminal_output, claims):
    assert "6 claims: Supported 1 · Low Confidence 1 · Contradictory 2 · Unsupported 2 · Unverified 0" in (
        terminal_output
    )
    blocks = claim_blocks(terminal_output, r"(?m)^\d\. [A-Za-z ]+? {2}(c_[\d.]+) {2}")
    assert list(blocks) == [row[0] for row in EXPECTED]
    for position, (claim_id, verdict, rule, reason) in enumerate(EXPECTED, start=1):
        status = claims[claim_id]["decision"]["verification_status"]
        assert f"{position}. {verdict}  {claim_id}  {claims[claim_id]['claim']['text']}" in terminal_output
        assert f"rule {rule} ({status}/{reason}): " in blocks[claim_id]
        assert ("split from c_0004 by R3" in blocks[claim_id]) == (claim_id in SPLIT_CLAIMS)


def test_terminal_details_view_prints_each_claim_with_its_reason(demo_corpus):
    code, out = run_cli("verify", str(EXAMPLE), "--corpus", str(demo_corpus), "--details")
    assert code == 0
    blocks = claim_blocks(out, r"\d\. Claim (c_[\d.]+): ")
    assert list(blocks) == [row[0] for row in EXPECTED]
    for position, (claim_id, verdict, rule, reason) in enumerate(EXPECTED, start=1):
        assert f"{position}. Claim {claim_id}: {verdict}" in out
        assert f"(reason {reason})" in blocks[claim_id]
        assert re.search(rf"Rule\s*│\s*{re.escape(rule)}\s", blocks[claim_id])
        assert ("split from c_0004 by R3" in blocks[claim_id]) == (claim_id in SPLIT_CLAIMS)


def test_terminal_view_prints_the_mitigated_answer(terminal_output, report):
    assert report["final_response"].rstrip("\n") in terminal_output


# --- HTML ----------------------------------------------------------------------------------------------


def test_html_report_shows_each_verdict_rule_reason_and_split_origin(html_report):
    stdout, page = html_report
    assert "report written to" in stdout and "x.html" in stdout
    sections = claim_blocks(page, r'<section class="claim" id="claim-(c_[\d.]+)" data-verdict="[^"]+">')
    assert list(sections) == [row[0] for row in EXPECTED]
    for claim_id, verdict, rule, reason in EXPECTED:
        section = sections[claim_id]
        header = rf'<h3>\d\. Claim {re.escape(claim_id)} <span class="badge \w+">{verdict}</span></h3>'
        assert re.search(header, section)
        assert f"(reason {reason})</dd>" in section
        assert f"<dt>Rule</dt><dd>{rule}</dd>" in section
        assert ('<p class="note">split from c_0004 by R3</p>' in section) == (claim_id in SPLIT_CLAIMS)


def test_html_report_shows_the_mitigated_answer_escaped(html_report, report):
    _, page = html_report
    block = re.search(r'<blockquote class="answer">(.*?)</blockquote>', page, re.DOTALL).group(1)
    assert re.sub(r"</?(?:strong|a)\b[^>]*>", "", block) == escape(report["final_response"])  # [i] are links
    assert '<a class="citation" href="#ref-1">[1]</a>' in block
    assert '<strong class="warning">' in block  # suppressed claims are visibly replaced by warnings


# --- demo ------------------------------------------------------------------------------------------------


def test_demo_verifies_the_example_answer_and_writes_three_reports(tmp_path):
    corpus = tmp_path / "demo"
    code, out = run_cli("demo", "--corpus", str(corpus))
    assert code == 0
    for position, (claim_id, verdict, _, _) in enumerate(EXPECTED, start=1):
        assert f"{position}. {verdict}  {claim_id}  " in out
    for suffix in (".md", ".html", ".json"):
        path = corpus / f"example-report{suffix}"
        assert path.is_file() and str(path) in out
    written = json.loads((corpus / "example-report.json").read_text(encoding="utf-8"))
    found = [
        (item["claim"]["claim_id"], item["decision"]["status"], item["decision"]["rule"], item["decision"]["reason"])
        for item in written["claims"]
    ]
    assert found == EXPECTED
    markdown = (corpus / "example-report.md").read_text(encoding="utf-8")
    assert "### 4. Claim c_0004.1: Low Confidence" in markdown and "_split from c_0004 by R3_" in markdown
    html = (corpus / "example-report.html").read_text(encoding="utf-8")
    assert '<span class="badge contradictory">Contradictory</span>' in html
