from __future__ import annotations

from pathlib import Path

import pytest

from veriground.config import load_config
from veriground.errors import ConfigError


def test_default_thresholds_are_the_ones_calibrate_chose_for_the_default_nli():
    from veriground.backends.registry import build_nli
    from veriground.verdicts.aggregator import fitted_entry, load_aggregator, resolve_thresholds

    config = load_config(environ={})
    nli_name = build_nli(config.models).name
    chosen = fitted_entry(nli_name)["thresholds"]
    verification = resolve_thresholds(config.verification, load_aggregator(nli_name))
    assert {key: getattr(verification, key) for key in chosen} == chosen
    assert fitted_entry("veriground-nli.v3") is not None  # the shipped model has its own, for --nli veriground-nli
    raw = resolve_thresholds(config.verification, load_aggregator(nli_name, "raw"))
    assert (raw.min_entailment_prob, raw.weak_entailment_prob, raw.max_contradiction_prob) == (0.60, 0.60, 0.30)
    assert verification.min_supporting_sources == 1  # one trusted source suffices (README); seed 000 said 2
    assert verification.aggregator == "calibrated"
    assert config.corpus.dir == Path(".veriground")


def test_file_then_env_then_flags(tmp_path: Path):
    toml = tmp_path / "v.toml"
    toml.write_text("[retrieval]\ntop_k = 7\nbm25_k1 = 1.2\n[ingest]\nmax_file_mb = 10\n")
    config = load_config(
        toml,
        {"retrieval.top_k": 9, "ingest.max_file_mb": None},
        environ={"VERIGROUND_RETRIEVAL__BM25_K1": "0.9", "VERIGROUND_INGEST__MAX_FILE_MB": "20"},
    )
    assert config.retrieval.top_k == 9  # flag beats file
    assert config.retrieval.bm25_k1 == 0.9  # env beats file
    assert config.ingest.max_file_mb == 20  # a flag left unset (None) changes nothing


def test_out_of_range_value_names_key_range_and_where_to_fix_it():
    # The library names the file and the environment variable; a CLI command puts its own flag in (cli/options.py).
    with pytest.raises(ConfigError, match=r"retrieval\.top_k .*less than or equal to 200.*got 500.*RETRIEVAL__TOP_K"):
        load_config(overrides={"retrieval.top_k": 500}, environ={})


def test_unknown_key_and_section_are_rejected(tmp_path: Path):
    toml = tmp_path / "v.toml"
    toml.write_text("[retrieval]\ntopk = 3\n")
    with pytest.raises(ConfigError, match="unknown config key retrieval.topk"):
        load_config(toml, environ={})
    toml.write_text("[retreival]\ntop_k = 3\n")
    with pytest.raises(ConfigError, match=r"unknown config section \[retreival\]"):
        load_config(toml, environ={})


def test_broken_toml_and_missing_file_are_clear_errors(tmp_path: Path):
    toml = tmp_path / "v.toml"
    toml.write_text("[retrieval\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(toml, environ={})
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path / "missing.toml", environ={})
