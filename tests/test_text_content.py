"""text/content.py: a passage's content stems read as the union of its sentences' equal those of the whole text."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from veriground.text.content import content_stems, passage_stems, sentence_contents

_TEXTS = {".md", ".txt", ".html", ".tex", ".xml", ".ptx"}


def _demo_paragraphs() -> list[str]:
    with resources.as_file(resources.files("veriground") / "demo_corpus") as root:
        texts = [path.read_text(encoding="utf-8") for path in sorted(Path(root).rglob("*")) if path.suffix in _TEXTS]
    return [paragraph for text in texts for paragraph in text.split("\n\n") if paragraph.strip()]


def test_passage_stems_equal_the_whole_texts_on_the_demo_corpus():
    paragraphs = _demo_paragraphs()
    assert len(paragraphs) > 200
    assert [passage_stems(text) for text in paragraphs] == [content_stems(text) for text in paragraphs]


@pytest.mark.parametrize(
    "text",
    [
        "Kinetic energy is ½mv². It depends on speed: doubling v quadruples it.",
        "The speed of light is 3.00 × 10^8 m/s.  A year has 365 days!  Is that so?",
        "Merge sort [1] runs in O(n log n) time.\n\nQuicksort's worst case is O(n^2).",
        "The rope weighs 5\n\nkg of rope is light.",  # a unit across a paragraph break
        "Use 3\n\nmillion users now.",
        "See [1,\n\n2] here.",
    ],
)
def test_passage_stems_equal_the_whole_texts(text):
    assert passage_stems(text) == content_stems(text)
    assert all(text[start:end].strip() == text[start:end] for start, end, _, _ in sentence_contents(text))
