"""Synthetic contamination (seed 000 §6.1): each error injector on fixed sentences, the seeded contamination of a
claim set, a small end-to-end run on the demo corpus with the lexical NLI (batched, as claim by claim), and the
`eval contaminate` command."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest

from veriground.backends.lexical_nli import LexicalNLIModel
from veriground.backends.registry import build_nli
from veriground.cli import main
from veriground.config import load_config
from veriground.corpus.ingest import ingest_paths
from veriground.corpus.store import CorpusStore
from veriground.errors import ConfigError
from veriground.evaluation.contamination import (
    DEFAULT_RATES,
    CleanClaim,
    build_clean_claims,
    contaminate,
    detect_error,
    format_contamination,
    parse_rates,
    run_contamination,
)
from veriground.evaluation.contamination_edits import (
    ERROR_TYPES,
    OUT_OF_SCOPE_CLAIMS,
    TERM_SWAPS,
    change_constant,
    change_unit,
    flip_sign,
    misattribute,
    replace_out_of_scope,
    swap_antonym,
    swap_terms,
    toggle_negation,
)

NUMBER = re.compile(r"\d+(?:\.\d+)?")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    corpus = tmp_path_factory.mktemp("contamination") / "corpus"
    config = load_config(None, {"corpus.dir": corpus, "models.nli": "lexical"}, environ={})
    with (
        resources.as_file(resources.files("veriground") / "demo_corpus") as root,
        CorpusStore(corpus, create=True) as store,
    ):
        assert not ingest_paths([root], store, config.ingest).failed
        yield config, build_nli(config.models), store


def demo_text() -> str:
    root = resources.files("veriground") / "demo_corpus"
    with resources.as_file(root) as folder:
        return "\n".join(path.read_text(encoding="utf-8") for path in Path(folder).rglob("*") if path.is_file())


# --- injectors -------------------------------------------------------------------------------------------------


def test_change_constant_changes_the_number_and_nothing_else():
    text = "The ball falls 9.80 m in the first second."
    edited = change_constant(text)
    assert edited is not None and edited != text
    assert NUMBER.findall(edited) != NUMBER.findall(text)
    assert edited.replace(NUMBER.search(edited).group(0), "9.80") == text
    assert change_constant("Velocity is the rate of change of displacement.") is None
    assert change_constant("The vertices of $G_1$ map to those of $G_2$.") is None  # subscripts are not constants


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The record is a little over 3 s today.", "The record is a little over 3 ms today."),
        ("It moves at 13.0 m/s at the end.", "It moves at 13.0 km/h at the end."),
        ("The crate has a mass of 240 kg in total.", "The crate has a mass of 240 g in total."),
        ("The race lasts about four seconds.", "The race lasts about four milliseconds."),
    ],
)
def test_change_unit_swaps_the_unit_but_keeps_the_value(text, expected):
    assert change_unit(text) == expected


def test_change_unit_needs_a_unit():
    assert change_unit("Merge sort splits the list into two halves.") is None
    assert change_unit("There are 3 sets in the example.") is None  # "s" only counts right after a number


def test_flip_sign():
    assert flip_sign("The acceleration is −9.8 m/s^2 downward.") == "The acceleration is 9.8 m/s^2 downward."
    assert flip_sign("We call this the positive direction.") == "We call this the negative direction."
    assert flip_sign("The car covers 402 m in total.") == "The car covers −402 m in total."
    assert flip_sign("A graph is a set of vertices and edges.") is None


def test_swap_terms_swaps_both_ways_and_keeps_case():
    assert swap_terms("Velocity is the rate of change.") == "Acceleration is the rate of change."
    assert swap_terms("Each edge joins two vertices.") == "Each vertex joins two edges."
    assert swap_terms("Merge sort is stable; quicksort is not.") == "Quicksort is stable; mergesort is not."
    assert swap_terms("The policy covers overtime pay.") is None


def test_swapped_terms_all_occur_in_the_demo_corpus():
    text = demo_text().lower().replace("-", " ")
    missing = [term for pair in TERM_SWAPS for term in pair if term not in text]
    assert not missing


def test_toggle_negation_inserts_or_removes_not():
    assert toggle_negation("Speed is a scalar quantity.") == "Speed is not a scalar quantity."
    assert toggle_negation("Speed is not a vector quantity.") == "Speed is a vector quantity."
    assert toggle_negation("A tree cannot have a cycle.") == "A tree can have a cycle."
    assert toggle_negation("Friction opposes the thrust of the engine.") is None


def test_misattribute_names_a_different_result():
    assert misattribute("By Newton’s second law, F = ma.") == "By Newton’s third law, F = ma."
    assert misattribute("The work–energy theorem relates work and speed.") == (
        "The Pythagorean theorem relates work and speed."
    )
    assert misattribute("The handshake lemma counts degrees.") == "The pigeonhole principle counts degrees."
    assert misattribute("Velocity is the rate of change of position.") is None


def test_out_of_scope_claims_are_off_the_corpus_and_deterministic():
    text = "Speed is the rate at which an object changes its location."
    assert replace_out_of_scope(text) == replace_out_of_scope(text) in OUT_OF_SCOPE_CLAIMS
    assert len(set(OUT_OF_SCOPE_CLAIMS)) >= 20
    corpus = demo_text().lower()
    assert not [claim for claim in OUT_OF_SCOPE_CLAIMS if claim.lower().rstrip(".") in corpus]


# --- contaminating a claim set -----------------------------------------------------------------------------


def fake_claims(n: int) -> list[CleanClaim]:
    sentences = (
        "The car is at 13.0 m/s after 2.00 s of acceleration.",
        "By Newton’s second law, the net force is mass times acceleration.",
        "Each edge of the graph joins two vertices.",
        "Speed is a scalar quantity.",
    )
    return [CleanClaim(f"c{i}", sentences[i % 4], f"doc#{i}", sentences[i % 4]) for i in range(n)]


@pytest.mark.parametrize("rate", [0.1, 0.2, 0.3])
def test_contaminate_respects_the_rate_and_spreads_the_errors(rate):
    claims = fake_claims(90)
    contaminated = contaminate(claims, rate, seed=0)
    wrong = [c for c in contaminated if c.contaminated]
    assert abs(len(wrong) - rate * len(claims)) <= 1
    assert [c.claim for c in contaminated] == claims
    assert all(c.text != c.claim.text for c in wrong)
    assert all(c.text == c.claim.text for c in contaminated if not c.contaminated)
    families = {c.family for c in wrong}
    assert families == {"numeric", "conceptual", "out-of-scope"}


def test_contaminate_is_deterministic_for_a_seed():
    claims = fake_claims(60)
    assert contaminate(claims, 0.3, seed=1) == contaminate(claims, 0.3, seed=1)
    assert contaminate(claims, 0.3, seed=1) != contaminate(claims, 0.3, seed=2)


def test_contaminate_rejects_a_rate_outside_0_1():
    with pytest.raises(ConfigError, match=r"rate must be strictly between 0 and 1, got 1.5; pass --rates such as"):
        contaminate(fake_claims(10), 1.5)


def test_rates_parse_from_a_comma_separated_list():
    assert parse_rates("0.1,0.2,0.3") == DEFAULT_RATES
    assert parse_rates(" 0.25 , 0.5,0.25") == (0.25, 0.5)  # spaces allowed, a repeat dropped


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0.1,1", "a contamination rate must be strictly between 0 and 1, got 1;"),
        ("0", "a contamination rate must be strictly between 0 and 1, got 0;"),
        ("-0.2", "got -0.2;"),
        ("nan", "got nan;"),
        ("0.1,,0.2", "--rates must be comma-separated numbers such as 0.1,0.2,0.3, got '0.1,,0.2'"),
        ("10%", "--rates must be comma-separated numbers such as 0.1,0.2,0.3, got '10%'"),
        ("", "--rates must be comma-separated numbers such as 0.1,0.2,0.3, got ''"),
    ],
)
def test_bad_rates_are_config_errors(text, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        parse_rates(text)


# --- end to end -------------------------------------------------------------------------------------------


def test_clean_claims_are_verified_against_their_own_passage(demo):
    config, nli, store = demo
    claims = build_clean_claims(store, config=config, nli=nli, max_claims=20)
    assert len(claims) == 20
    for claim in claims:
        assert claim.text in " ".join(claim.passage_text.split())
        assert not detect_error(claim.text, claim.passage_id, claim.passage_text, config=config, nli=nli)


def test_run_detects_numeric_and_out_of_scope_errors_above_the_false_alarm_rate(demo):
    config, nli, store = demo
    result = run_contamination(config=config, nli=nli, store=store, max_claims=60)
    assert result.clean_claims == 60 and [r.rate for r in result.rates] == [0.1, 0.2, 0.3]
    at_30 = result.rates[-1]
    assert at_30.contaminated == 18
    false_alarms = at_30.false_alarm_rate.value
    numeric = at_30.by_family["numeric"]
    assert numeric.injected >= 4 and numeric.detection.recall.value >= 0.5 > false_alarms
    assert at_30.by_family["out-of-scope"].detection.recall.value > false_alarms
    assert set(at_30.by_type) == {error.name for error in ERROR_TYPES}
    table = format_contamination(result)
    assert "60 clean claims" in table and "out-of-scope" in table and "clean (false alarms)" in table


class CountingNLIModel:
    def __init__(self) -> None:
        self.model = LexicalNLIModel()
        self.name, self.model_id, self.checksum = self.model.name, self.model.model_id, self.model.checksum
        self.calls = 0

    def predict(self, pairs):
        self.calls += 1
        return self.model.predict(pairs)


def test_the_batched_run_detects_what_claim_by_claim_checks_detect(demo):
    config, _, store = demo
    model = CountingNLIModel()
    result = run_contamination(config=config, nli=model, store=store, rates=(0.3,), max_claims=40)
    clean = build_clean_claims(store, config=config, nli=LexicalNLIModel(), max_claims=40)
    claims = contaminate(clean, 0.3)
    one_by_one = [
        detect_error(c.text, c.claim.passage_id, c.claim.passage_text, config=config, nli=LexicalNLIModel())
        for c in claims
    ]
    assert result.rates[0].overall.counts.tp + result.rates[0].overall.counts.fp == sum(one_by_one)
    assert result.rates[0].overall.counts.tp == sum(
        d for c, d in zip(claims, one_by_one, strict=True) if c.contaminated
    )
    # a claim-by-claim run asks once per candidate sentence and once per claim; batched: a few calls in all
    assert model.calls <= 6


def test_progress_counts_the_candidates_then_each_rate(demo):
    config, nli, store = demo
    calls: list[tuple[str, int, int]] = []
    run_contamination(
        config=config, nli=nli, store=store, rates=(0.2,), max_claims=10, progress=lambda *call: calls.append(call)
    )
    assert list(dict.fromkeys(name for name, _, _ in calls)) == ["clean claims", "rate 20%"]
    checked = [done for name, done, _ in calls if name == "clean claims"]
    assert checked == list(range(1, len(checked) + 1)) and checked[-1] >= 10
    assert [call for call in calls if call[0] == "rate 20%"][-1] == ("rate 20%", 10, 10)


def test_max_claims_must_be_positive(demo):
    config, nli, store = demo
    with pytest.raises(ConfigError, match="--max-claims must be at least 1, got 0"):
        build_clean_claims(store, config=config, nli=nli, max_claims=0)


def test_run_is_deterministic(demo):
    config, nli, store = demo
    first = run_contamination(config=config, nli=nli, store=store, rates=(0.2,), max_claims=30, seed=3)
    second = run_contamination(config=config, nli=nli, store=store, rates=(0.2,), max_claims=30, seed=3)
    assert first.to_json() == second.to_json()
    assert format_contamination(first) == format_contamination(second)


# --- the command -----------------------------------------------------------------------------------------------


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_eval_contaminate_prints_the_table_for_the_demo_corpus(capsys):
    code, out, err = run(capsys, "eval", "contaminate", "--nli", "lexical", "--max-claims", "30", "--rates", "0.2")
    assert code == 0, err
    assert out.startswith("corpus: bundled demo corpus\ncontamination: 30 clean claims, NLI lexical-nli.v1, seed 0\n")
    assert "  20%  out-of-scope " in out and "  20%  clean (false alarms) " in out and "10%" not in out


def test_eval_contaminate_json_is_byte_identical_from_run_to_run(capsys):
    argv = ("eval", "contaminate", "--nli", "lexical", "--max-claims", "30", "--seed", "2", "--json")
    first, second = run(capsys, *argv), run(capsys, *argv)
    assert first == second and first[0] == 0 and first[2] == ""
    data = json.loads(first[1])
    assert data["corpus"]["source"] == "bundled demo corpus" and len(data["corpus"]["passages_sha256"]) == 64
    assert [rate["rate"] for rate in data["rates"]] == list(DEFAULT_RATES)
    assert (data["seed"], data["max_claims"], data["clean_claims"]) == (2, 30, 30)


def test_eval_contaminate_draws_its_progress_bar_on_stderr(capsys, monkeypatch):
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich draws the bar as it would on a terminal
    code, out, err = run(capsys, "eval", "contaminate", "--nli", "lexical", "--max-claims", "10", "--rates", "0.2")
    assert code == 0 and "rate 20%" in err and "10/10" in err and out.startswith("corpus: ")


def test_eval_contaminate_reads_an_ingested_corpus(demo, capsys):
    config, _, _ = demo
    corpus = str(config.corpus.dir)
    code, out, err = run(capsys, "eval", "contaminate", "--corpus", corpus, "--nli", "lexical", "--max-claims", "20")
    assert code == 0, err
    assert out.startswith(f"corpus: {corpus}\ncontamination: 20 clean claims")


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (("--rates", "0.1,1.5"), 2, "error: a contamination rate must be strictly between 0 and 1, got 1.5; "),
        (("--rates", "ten"), 2, "error: --rates must be comma-separated numbers such as 0.1,0.2,0.3, got 'ten'"),
        (("--corpus", "nowhere"), 3, "error: no corpus at nowhere"),
    ],
)
def test_eval_contaminate_bad_input_is_one_line(tmp_path, monkeypatch, capsys, argv, code, message):
    monkeypatch.chdir(tmp_path)
    got, out, err = run(capsys, "eval", "contaminate", "--nli", "lexical", *argv)
    assert (got, out) == (code, "") and err.startswith(message) and err.count("\n") == 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Insertion sort is faster on small arrays.", "Insertion sort is slower on small arrays."),
        ("Heating a gas increases its pressure.", "Heating a gas decreases its pressure."),
        ("Smaller keys go left.", "Larger keys go left."),
        ("Travel is optional for contractors.", "Travel is required for contractors."),
        ("Even numbers over ten come first.", None),  # "even", "over", "first" are left out: not one side of a pair
    ],
)
def test_swap_antonym_swaps_the_first_unambiguous_word_and_keeps_case(text, expected):
    assert swap_antonym(text) == expected


def test_antonym_rows_pair_each_swapped_sentence_with_itself(tmp_path):
    from veriground.evaluation.calibration_data import _fitting_half, antonym_rows

    folder = tmp_path / "domain-corpora" / "openstax-physics"
    folder.mkdir(parents=True)
    name = next(f"page{i}.md" for i in range(100) if _fitting_half(f"openstax-physics/page{i}.md"))
    text = (
        "# Pressure\n\nHeating a gas in a closed container increases its pressure on the walls. "
        "The molecules move faster and strike the walls of the container more often than before."
    )
    (folder / name).write_text(text, encoding="utf-8")
    rows = antonym_rows(tmp_path)
    assert [row.label for row in rows] == ["supported", "contradicted"] * (len(rows) // 2) and rows
    copy, swapped = rows[0], rows[1]
    assert "increases" in copy.text and swapped.text == copy.text.replace("increases", "decreases")
    assert copy.evidence == swapped.evidence and copy.text in copy.evidence[0]
