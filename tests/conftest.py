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


def write_file(folder: Path, name: str, content: str | bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def pytest_configure(config: pytest.Config) -> None:
    """Unit tests pin the lexical NLI through VERIGROUND_MODELS__NLI (CLI runs, in-process or not, and live servers
    read it): it is fast and their expected verdicts follow its transparent rules. Tests that build their config
    with environ={} name it as an override. tests/test_shipped_nli.py covers the shipped default."""
    os.environ.setdefault("VERIGROUND_MODELS__NLI", "lexical")
