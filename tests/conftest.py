"""Shared fixtures: a scratch corpus directory and the shared datasets folder beside the checkout."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATASETS = REPO_ROOT.parent / "shared" / "datasets"


@pytest.fixture
def corpus_dir(tmp_path: Path) -> Path:
    return tmp_path / "corpus"


@pytest.fixture
def domain_corpora() -> Path:
    """The four open-licensed domain corpora; CI always has shared/ beside the clone."""
    path = SHARED_DATASETS / "domain-corpora"
    if not path.is_dir():
        pytest.skip(f"{path} is not present (it sits beside the checkout in CI)")
    return path


def lexical_config(corpus: Path | None = None, **overrides: object):  # noqa: ANN201 - a veriground Config
    """A config with the lexical NLI and `overrides` (dotted keys), ignoring the environment's pins."""
    from veriground.config import load_config

    settings = {"models.nli": "lexical", **overrides}
    if corpus is not None:
        settings["corpus.dir"] = corpus
    return load_config(None, settings, environ={})


def write_file(folder: Path, name: str, content: str | bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


# Seed 000's decision tree on the NLI's own probabilities: what the unit tests' expected verdicts were written for.
# (The raw aggregator brings seed 000's thresholds, 0.60 entailment and 0.30 contradiction, with it.)
SEED_DECISION_TREE = {
    "VERIGROUND_VERIFICATION__AGGREGATOR": "raw",
    "VERIGROUND_VERIFICATION__MIN_SUPPORTING_SOURCES": "2",
}


def pytest_configure(config: pytest.Config) -> None:
    """Unit tests pin the lexical NLI through VERIGROUND_MODELS__NLI (CLI runs, in-process or not, and live servers
    read it) and seed 000's decision tree on raw NLI probabilities: fast, and their expected verdicts follow
    transparent rules. Tests of the shipped defaults (calibrated aggregator, shipped NLI) use the `defaults`
    fixture or build their config with environ={}; tests/test_shipped_nli.py covers the shipped model."""
    os.environ.setdefault("VERIGROUND_MODELS__NLI", "lexical")
    for name, value in SEED_DECISION_TREE.items():
        os.environ.setdefault(name, value)


@pytest.fixture
def defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run a test on the shipped defaults: no pinned NLI, no pinned decision tree."""
    monkeypatch.delenv("VERIGROUND_MODELS__NLI", raising=False)
    for name in SEED_DECISION_TREE:
        monkeypatch.delenv(name, raising=False)
