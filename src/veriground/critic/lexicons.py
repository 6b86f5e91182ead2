"""The critic's trigger lexicons: TOML data files in critic/lexicons/ -> compiled entries per label, with the
SHA-256 of each file for the report's manifest. Format and provenance: lexicons/PROVENANCE.md."""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from veriground.errors import ConfigError

LEXICON_FILES = {
    "L1": "l1_loaded_language.toml",
    "L2": "l2_framing_balance.toml",
    "L3": "l3_checkworthy.toml",
    "L5": "l5_false_dilemma.toml",
    "L6": "l6_slippery_slope.toml",
}
# Between the words of a phrase: any run of spaces or hyphens, so "job killing" and "job-killing" both match.
_WORD_GAP = r"[\s\-]+"


@dataclass(frozen=True)
class LexiconEntry:
    """One group of triggers that share a kind, a confidence and a reason."""

    rule: str  # "<label>.<entry id>"
    kind: str
    confidence: float
    why: str
    regex: re.Pattern[str]


@dataclass(frozen=True)
class Lexicon:
    label: str
    name: str
    method: str
    rationale: str  # template with {trigger} and {why}
    entries: tuple[LexiconEntry, ...]
    settings: dict[str, Any]
    sha256: str

    def entry(self, entry_id: str) -> LexiconEntry:
        return next(entry for entry in self.entries if entry.rule == f"{self.label}.{entry_id}")


def phrase_pattern(phrase: str) -> str:
    """A whole-word regex for a lexicon phrase; a final '*' matches any ending of the last word."""
    open_ended = phrase.endswith("*")
    words = phrase.rstrip("*").strip().split()
    body = _WORD_GAP.join(re.escape(word).replace(r"\-", _WORD_GAP) for word in words)
    ending = r"[\w-]*" if open_ended else r"(?![\w-])"
    return rf"(?<![\w-]){body}{ending}"


@cache
def load_lexicon(label: str) -> Lexicon:
    """The lexicon of `label` (L1, L2, L3, L5, L6), read once from the package data."""
    if label not in LEXICON_FILES:
        raise ConfigError(f"critic label {label!r} has no lexicon; lexicons exist for {', '.join(LEXICON_FILES)}")
    name = LEXICON_FILES[label]
    raw = (resources.files("veriground.critic") / "lexicons" / name).read_bytes()
    try:
        data = tomllib.loads(raw.decode("utf-8"))
        return _parse(label, name, data, hashlib.sha256(raw).hexdigest())
    except (tomllib.TOMLDecodeError, KeyError, TypeError, ValueError, re.error) as err:
        raise ConfigError(
            f"critic lexicon {name} is malformed ({type(err).__name__}: {err}); restore it from the package "
            "(format: critic/lexicons/PROVENANCE.md)"
        ) from None


def lexicon_checksums() -> dict[str, str]:
    """SHA-256 of every lexicon file, by file name."""
    return {LEXICON_FILES[label]: load_lexicon(label).sha256 for label in sorted(LEXICON_FILES)}


def _parse(label: str, file_name: str, data: dict[str, Any], sha256: str) -> Lexicon:
    meta = data["meta"]
    if meta["label"] != label:
        raise ValueError(f"[meta] label is {meta['label']!r}, expected {label!r}")
    entries = []
    for item in data["entry"]:
        patterns = [phrase_pattern(word) for word in item.get("words", [])] + list(item.get("patterns", []))
        if not patterns:
            raise ValueError(f"entry {item['id']!r} has neither words nor patterns")
        confidence = float(item["confidence"])
        if not 0 <= confidence <= 1:
            raise ValueError(f"entry {item['id']!r} confidence must be 0..1, got {confidence}")
        # Longest alternatives first, so "will inevitably lead to" wins over "will inevitably".
        ordered = sorted(set(patterns), key=lambda pattern: (-len(pattern), pattern))
        entries.append(
            LexiconEntry(
                rule=f"{label}.{item['id']}",
                kind=str(item["kind"]),
                confidence=confidence,
                why=str(item["why"]),
                regex=re.compile("|".join(f"(?:{pattern})" for pattern in ordered), re.IGNORECASE),
            )
        )
    settings = {key: value for key, value in meta.items() if key not in {"label", "name", "method", "rationale"}}
    return Lexicon(
        label=label,
        name=str(meta["name"]),
        method=str(meta["method"]),
        rationale=str(meta["rationale"]),
        entries=tuple(entries),
        settings=settings,
        sha256=sha256,
    )
